//! Benchmark of the simulator at scale: P = 10,000 ranks, N = 10^7 iterates, exponential iterate
//! times, h = 1 µs, latency 1 µs. Prints the median of several runs per technique, and the ratio
//! to a baseline measured in the same run: drawing the 10^7 iterate times alone.
//!
//! Run: `cargo run --release -p dls-bench --bin sim_scale [-- N P RUNS]` (default 10000000 10000 5).

use std::time::Instant;

use dls::sim::{simulate, IterateTimeModel, SimConfig};

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse().unwrap_or_else(|_| {
                eprintln!("usage: sim_scale [N P RUNS] (whole numbers), got `{a}`");
                std::process::exit(2)
            })
        })
        .collect();
    let n = args.first().copied().unwrap_or(10_000_000);
    let p = args.get(1).copied().unwrap_or(10_000) as usize;
    let runs = args.get(2).copied().unwrap_or(5).max(1) as usize;
    let model: IterateTimeModel = "exp:1ms".parse().expect("model");

    let baseline = median(
        (0..runs)
            .map(|i| {
                let t = Instant::now();
                let (sum, _) = model.sampler(n, i as u64).take(n);
                std::hint::black_box(sum);
                t.elapsed().as_secs_f64()
            })
            .collect(),
    );
    println!("N = {n}, P = {p}, iterate time {model}, h = 1us, latency 1us, median of {runs} runs");
    println!(
        "{:<10} {:>12} {:>12} {:>14}",
        "technique", "seconds", "x baseline", "chunks"
    );
    println!(
        "{:<10} {:>12.3} {:>12.2} {:>14}",
        "baseline", baseline, 1.0, "-"
    );
    for spec in ["static", "ss", "gss", "fac2", "tss", "af", "awf-b"] {
        let mut c = SimConfig::new(spec.parse().expect("technique"), n, p);
        c.iterate_time = model.clone();
        c.overhead_s = 1e-6;
        c.latency_s = 1e-6;
        let mut chunks = 0;
        let times: Vec<f64> = (0..runs)
            .map(|i| {
                c.seed = i as u64;
                let t = Instant::now();
                let out = simulate(&c).unwrap_or_else(|e| {
                    eprintln!("{spec}: {e}");
                    std::process::exit(1)
                });
                chunks = out.report.chunks;
                t.elapsed().as_secs_f64()
            })
            .collect();
        let m = median(times);
        println!("{spec:<10} {m:>12.3} {:>12.2} {chunks:>14}", m / baseline);
    }
}
