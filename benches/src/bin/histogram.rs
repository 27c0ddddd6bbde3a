//! Issue 42: a histogram as a user writes it: 2²⁴ values into 256 bins with `hist[b] += 1`,
//! 10 times (a time loop over fresh data would look the same). The dls version is the same
//! function with `#[par_doall(reduce(+: hist))]`; rayon's folds per-thread histograms.
//!
//! ```text
//! cargo run --release -p dls-bench --bin histogram [rounds] [values] [repeats]
//! ```

// Written as a user writes the serial loop, index by index (the form the attribute converts).
#![allow(clippy::needless_range_loop)]

#[path = "../user_paired.rs"]
mod user_paired;

use rayon::prelude::*;

const BINS: usize = 256;

fn values(n: usize) -> Vec<f64> {
    let mut seed = 0x1234_5678_9abc_def1_u64;
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let u = (seed >> 11) as f64 / (1u64 << 53) as f64;
            u * u // skewed towards 0
        })
        .collect()
}

fn bin(x: f64) -> usize {
    ((x * BINS as f64) as usize).min(BINS - 1)
}

fn summary(hist: &[u64]) -> f64 {
    hist.iter()
        .enumerate()
        .map(|(b, h)| (b as f64 + 1.0) * *h as f64)
        .sum()
}

/// The user's serial program.
fn serial(x: &[f64], repeats: usize) -> f64 {
    let mut s = 0.0;
    for _ in 0..repeats {
        let mut hist = vec![0_u64; BINS];
        for i in 0..x.len() {
            hist[bin(x[i])] += 1;
        }
        s += summary(&hist);
    }
    s
}

/// The same, converted with the attribute only.
#[dls::parallel]
fn with_dls(x: &[f64], repeats: usize) -> f64 {
    let mut s = 0.0;
    for _ in 0..repeats {
        let mut hist = vec![0_u64; BINS];
        #[par_doall(reduce(+: hist))]
        for i in 0..x.len() {
            hist[bin(x[i])] += 1;
        }
        s += summary(&hist);
    }
    s
}

/// rayon's idiom.
fn with_rayon(x: &[f64], repeats: usize) -> f64 {
    let mut s = 0.0;
    for _ in 0..repeats {
        let hist = x
            .par_iter()
            .fold(
                || vec![0_u64; BINS],
                |mut h, &v| {
                    h[bin(v)] += 1;
                    h
                },
            )
            .reduce(
                || vec![0_u64; BINS],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        s += summary(&hist);
    }
    s
}

fn main() {
    let rounds = user_paired::rounds(5);
    let arg = |k: usize, d: usize| {
        std::env::args()
            .nth(k)
            .and_then(|a| a.parse().ok())
            .unwrap_or(d)
    };
    let (n, repeats) = (arg(2, 1 << 24), arg(3, 10));
    let x = values(n);
    user_paired::compare(
        &format!("histogram {n} values, {BINS} bins, {repeats} repeats"),
        rounds,
        0.0,
        &|| serial(&x, repeats),
        &|| with_dls(&x, repeats),
        &|| with_rayon(&x, repeats),
        true,
    );
}
