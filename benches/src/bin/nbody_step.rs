//! Issue 42: an N-body step as a user writes it: 2000 bodies, each step the acceleration of
//! every body from all others (`acc[i] = …`), then a serial update; 10 steps. The dls version is
//! the same function with `#[par_doall(gather(acc))]` on the force loop; rayon's is
//! `acc.par_iter_mut().enumerate()`.
//!
//! ```text
//! cargo run --release -p dls-bench --bin nbody_step [rounds] [bodies] [steps]
//! ```

// Written as a user writes the serial loop, index by index (the form the attribute converts).
#![allow(clippy::needless_range_loop)]

#[path = "../user_paired.rs"]
mod user_paired;

use rayon::prelude::*;

fn bodies(n: usize) -> Vec<[f64; 3]> {
    (0..n)
        .map(|i| {
            let t = i as f64 * 0.618;
            [
                t.cos() * (1.0 + i as f64 / n as f64),
                t.sin(),
                (t * 0.3).sin() * 0.2,
            ]
        })
        .collect()
}

fn accel(i: usize, pos: &[[f64; 3]]) -> [f64; 3] {
    let mut a = [0.0; 3];
    let p = pos[i];
    for (j, q) in pos.iter().enumerate() {
        if j == i {
            continue;
        }
        let d = [q[0] - p[0], q[1] - p[1], q[2] - p[2]];
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + 1e-3;
        let f = 1.0 / (r2 * r2.sqrt());
        for k in 0..3 {
            a[k] += f * d[k];
        }
    }
    a
}

fn advance(pos: &mut [[f64; 3]], vel: &mut [[f64; 3]], acc: &[[f64; 3]]) {
    for i in 0..pos.len() {
        for k in 0..3 {
            vel[i][k] += 1e-5 * acc[i][k];
            pos[i][k] += 1e-3 * vel[i][k];
        }
    }
}

fn total(pos: &[[f64; 3]]) -> f64 {
    pos.iter().map(|p| p[0] + 2.0 * p[1] + 3.0 * p[2]).sum()
}

/// The user's serial program.
fn serial(n: usize, steps: usize) -> f64 {
    let mut pos = bodies(n);
    let mut vel = vec![[0.0; 3]; n];
    let mut acc = vec![[0.0; 3]; n];
    for _ in 0..steps {
        for i in 0..n {
            acc[i] = accel(i, &pos);
        }
        advance(&mut pos, &mut vel, &acc);
    }
    total(&pos)
}

/// The same, converted with the attribute only.
#[dls::parallel]
fn with_dls(n: usize, steps: usize) -> f64 {
    let mut pos = bodies(n);
    let mut vel = vec![[0.0; 3]; n];
    let mut acc = vec![[0.0; 3]; n];
    for _ in 0..steps {
        #[par_doall(gather(acc))]
        for i in 0..n {
            acc[i] = accel(i, &pos);
        }
        advance(&mut pos, &mut vel, &acc);
    }
    total(&pos)
}

/// rayon's idiom.
fn with_rayon(n: usize, steps: usize) -> f64 {
    let mut pos = bodies(n);
    let mut vel = vec![[0.0; 3]; n];
    let mut acc = vec![[0.0; 3]; n];
    for _ in 0..steps {
        let p = &pos;
        acc.par_iter_mut()
            .enumerate()
            .for_each(|(i, a)| *a = accel(i, p));
        advance(&mut pos, &mut vel, &acc);
    }
    total(&pos)
}

fn main() {
    let rounds = user_paired::rounds(5);
    let arg = |k: usize, d: usize| {
        std::env::args()
            .nth(k)
            .and_then(|a| a.parse().ok())
            .unwrap_or(d)
    };
    let (n, steps) = (arg(2, 2000), arg(3, 10));
    user_paired::compare(
        &format!("nbody_step {n} bodies, {steps} steps"),
        rounds,
        0.0,
        &|| serial(n, steps),
        &|| with_dls(n, steps),
        &|| with_rayon(n, steps),
        true,
    );
}
