//! Issue 42: CSR sparse matrix × vector with power-law row lengths (a few rows of thousands of
//! entries, most of a few), 50 steps of `x ← A x`, written as a user writes the serial program;
//! the dls version is the same function with `#[par_doall(gather(y))]` on the row loop (`y[i] =
//! …`, written in place); rayon's is `y.par_iter_mut().enumerate()`.
//!
//! ```text
//! cargo run --release -p dls-bench --bin spmv_powerlaw [rounds] [rows] [steps]
//! ```

// Written as a user writes the serial loop, index by index (the form the attribute converts).
#![allow(clippy::needless_range_loop)]

#[path = "../user_paired.rs"]
mod user_paired;

use rayon::prelude::*;

/// A CSR matrix: row `i` holds `col[ptr[i]..ptr[i+1]]`, `val[..]`; each row's values sum to 1.
struct Csr {
    ptr: Vec<usize>,
    col: Vec<usize>,
    val: Vec<f64>,
}

fn matrix(n: usize) -> Csr {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut ptr = vec![0];
    let (mut col, mut val) = (vec![], vec![]);
    for _ in 0..n {
        // Power law: P(len > L) ~ 1/L, capped at n/10.
        let u = (next() % 1_000_000) as f64 / 1_000_000.0 + 1e-6;
        let len = ((4.0 / u) as usize).clamp(1, n / 10);
        for _ in 0..len {
            col.push((next() % n as u64) as usize);
            val.push(1.0 / len as f64);
        }
        ptr.push(col.len());
    }
    Csr { ptr, col, val }
}

fn start(n: usize) -> Vec<f64> {
    (0..n).map(|i| (i % 10) as f64).collect()
}

/// The user's serial program.
fn serial(a: &Csr, steps: usize) -> f64 {
    let n = a.ptr.len() - 1;
    let mut x = start(n);
    let mut y = vec![0.0; n];
    for _ in 0..steps {
        for i in 0..n {
            let mut s = 0.0;
            for k in a.ptr[i]..a.ptr[i + 1] {
                s += a.val[k] * x[a.col[k]];
            }
            y[i] = s;
        }
        std::mem::swap(&mut x, &mut y);
    }
    x.iter().sum()
}

/// The same, converted with the attribute only.
#[dls::parallel]
fn with_dls(a: &Csr, steps: usize) -> f64 {
    let n = a.ptr.len() - 1;
    let mut x = start(n);
    let mut y = vec![0.0; n];
    for _ in 0..steps {
        #[par_doall(gather(y))]
        for i in 0..n {
            let mut s = 0.0;
            for k in a.ptr[i]..a.ptr[i + 1] {
                s += a.val[k] * x[a.col[k]];
            }
            y[i] = s;
        }
        std::mem::swap(&mut x, &mut y);
    }
    x.iter().sum()
}

/// rayon's idiom.
fn with_rayon(a: &Csr, steps: usize) -> f64 {
    let n = a.ptr.len() - 1;
    let mut x = start(n);
    let mut y = vec![0.0; n];
    for _ in 0..steps {
        let xx = &x;
        y.par_iter_mut().enumerate().for_each(|(i, yi)| {
            let mut s = 0.0;
            for k in a.ptr[i]..a.ptr[i + 1] {
                s += a.val[k] * xx[a.col[k]];
            }
            *yi = s;
        });
        std::mem::swap(&mut x, &mut y);
    }
    x.iter().sum()
}

fn main() {
    let rounds = user_paired::rounds(5);
    let arg = |k: usize, d: usize| {
        std::env::args()
            .nth(k)
            .and_then(|a| a.parse().ok())
            .unwrap_or(d)
    };
    let (n, steps) = (arg(2, 200_000), arg(3, 50));
    let a = matrix(n);
    user_paired::compare(
        &format!(
            "spmv_powerlaw {n} rows, {} nonzeros, {steps} steps",
            a.col.len()
        ),
        rounds,
        0.0,
        &|| serial(&a, steps),
        &|| with_dls(&a, steps),
        &|| with_rayon(&a, steps),
        true,
    );
}
