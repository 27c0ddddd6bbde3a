//! Issue 42: a Jacobi sweep on a 1024² grid kept in one flat `Vec<f64>`, 200 sweeps, written as
//! a user writes the serial program; the dls version is the same function with
//! `#[dls::parallel]` and `#[par_doall(gather(v: rows(n)))]` on the sweep's loop (iterate `i`
//! writes row `i`, `v[i*n + j]`, in place); rayon's is `par_chunks_mut(n)`.
//!
//! ```text
//! cargo run --release -p dls-bench --bin jacobi_flat [rounds] [n] [sweeps]
//! mpirun -np 2 --oversubscribe target/release/jacobi_flat [rounds] [n] [sweeps]
//! ```
//!
//! Under mpirun (the `mpi` feature) the harness runs `serial` and `dls` in turn on every rank
//! (`user_paired.rs`; rank 0 prints the medians and the median of the rounds' serial/dls ratios).

// Written as a user writes the serial loop, index by index (the form the attribute converts).
#![allow(clippy::needless_range_loop)]

#[path = "../user_paired.rs"]
mod user_paired;

use rayon::prelude::*;

fn start(n: usize) -> Vec<f64> {
    let mut u = vec![0.0_f64; n * n];
    for j in 0..n {
        u[j] = 1.0; // a hot top edge
    }
    u
}

fn checksum(u: &[f64]) -> f64 {
    u.iter()
        .enumerate()
        .map(|(k, x)| x * (1 + k % 7) as f64)
        .sum()
}

/// The user's serial program.
fn serial(n: usize, sweeps: usize) -> f64 {
    let mut u = start(n);
    let mut v = u.clone();
    for _ in 0..sweeps {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                v[i * n + j] = 0.25
                    * (u[(i - 1) * n + j]
                        + u[(i + 1) * n + j]
                        + u[i * n + j - 1]
                        + u[i * n + j + 1]);
            }
        }
        std::mem::swap(&mut u, &mut v);
    }
    checksum(&u)
}

/// The same, converted with the attribute only.
#[dls::parallel]
fn with_dls(n: usize, sweeps: usize) -> f64 {
    let mut u = start(n);
    let mut v = u.clone();
    for _ in 0..sweeps {
        #[par_doall(gather(v: rows(n)))]
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                v[i * n + j] = 0.25
                    * (u[(i - 1) * n + j]
                        + u[(i + 1) * n + j]
                        + u[i * n + j - 1]
                        + u[i * n + j + 1]);
            }
        }
        std::mem::swap(&mut u, &mut v);
    }
    checksum(&u)
}

/// The same loop with `gather(v)` alone: every write is logged (the cost `rows(n)` removes).
#[dls::parallel]
fn logged(n: usize, sweeps: usize) -> f64 {
    let mut u = start(n);
    let mut v = u.clone();
    for _ in 0..sweeps {
        #[par_doall(gather(v))]
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                v[i * n + j] = 0.25
                    * (u[(i - 1) * n + j]
                        + u[(i + 1) * n + j]
                        + u[i * n + j - 1]
                        + u[i * n + j + 1]);
            }
        }
        std::mem::swap(&mut u, &mut v);
    }
    checksum(&u)
}

/// rayon's idiom: the rows of `v` as chunks.
fn with_rayon(n: usize, sweeps: usize) -> f64 {
    let mut u = start(n);
    let mut v = u.clone();
    for _ in 0..sweeps {
        let uu = &u;
        v.par_chunks_mut(n).enumerate().for_each(|(i, row)| {
            if i == 0 || i == n - 1 {
                return;
            }
            for j in 1..n - 1 {
                row[j] = 0.25
                    * (uu[(i - 1) * n + j]
                        + uu[(i + 1) * n + j]
                        + uu[i * n + j - 1]
                        + uu[i * n + j + 1]);
            }
        });
        std::mem::swap(&mut u, &mut v);
    }
    checksum(&u)
}

fn main() {
    let rounds = user_paired::rounds(5);
    let arg = |k: usize, d: usize| {
        std::env::args()
            .nth(k)
            .and_then(|a| a.parse().ok())
            .unwrap_or(d)
    };
    let (n, sweeps) = (arg(2, 1024), arg(3, 200));
    if std::env::var_os("JACOBI_LOGGED").is_some() {
        // The cost of a logged write: gather(v) against gather(v: rows(n)), 1 thread, paired.
        let writes = ((n - 2) * (n - 2) * sweeps) as f64;
        let mut extra = vec![];
        for _ in 0..rounds {
            let (a, _) = user_paired::on_dls(1, false, &|| with_dls(n, sweeps));
            let (b, _) = user_paired::on_dls(1, false, &|| logged(n, sweeps));
            println!(
                "rows(n) {a:.4} s, gather(v) {b:.4} s: {:.1} ns more per logged write (1 thread)",
                (b - a) / writes * 1e9
            );
            extra.push((b - a) / writes * 1e9);
        }
        extra.sort_by(f64::total_cmp);
        println!(
            "median: {:.1} ns of a thread's time per logged write",
            extra[extra.len() / 2]
        );
        return;
    }
    user_paired::compare(
        &format!("jacobi_flat {n}x{n}, {sweeps} sweeps"),
        rounds,
        0.0,
        &|| serial(n, sweeps),
        &|| with_dls(n, sweeps),
        &|| with_rayon(n, sweeps),
        true,
    );
}
