//! Nanoseconds per call of `dls::fault_check::Permutation`, which a fault-checked loop calls once
//! per iterate: `apply` and `invert` over n = 10^6 positions and over n = 2^20 + 1 (the worst case
//! for cycle-walking: the Feistel domain is almost 2n), beside a bare `black_box` loop. Each figure
//! is the median of 9 rounds of 10^7 calls.
//!
//! ```text
//! cargo run --release -p dls-bench --bin fault_permutation
//! ```

use std::hint::black_box;
use std::time::Instant;

use dls::fault_check::Permutation;

const CALLS: u64 = 10_000_000;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Median ns per call of `f` over `0..CALLS` positions taken modulo `n`.
fn time(n: u64, f: impl Fn(u64) -> u64) -> f64 {
    let rounds = (0..9)
        .map(|_| {
            let start = Instant::now();
            let mut acc = 0u64;
            let mut k = 0u64;
            for _ in 0..CALLS {
                acc = acc.wrapping_add(f(black_box(k)));
                k += 1;
                if k == n {
                    k = 0;
                }
            }
            black_box(acc);
            start.elapsed().as_secs_f64() * 1e9 / CALLS as f64
        })
        .collect();
    median(rounds)
}

fn main() {
    println!("| n | baseline (ns) | apply (ns) | invert (ns) |");
    println!("|---|---|---|---|");
    for n in [1_000_000u64, (1 << 20) + 1, 1 << 20] {
        let pi = Permutation::new(n, 0x5eed);
        let base = time(n, |k| k);
        let apply = time(n, |k| pi.apply(k));
        let invert = time(n, |k| pi.invert(k));
        println!("| {n} | {base:.2} | {apply:.2} | {invert:.2} |");
    }
}
