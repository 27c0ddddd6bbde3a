//! The simulator against theory (issue 44, item 5): Kruskal & Weiss (1985) give the expected
//! makespan of fixed-size chunking of N independent iterates with mean time μ and standard
//! deviation σ, on P processors, in chunks of K iterates, each chunk costing h to the processor
//! that takes it:
//!
//! E[T] ≈ N·μ/P + N·h/(K·P) + σ·√(2·K·ln P)
//!
//! (the work, the chunks' overhead and the imbalance at the end; FSC's chunk size is the K that
//! minimises it). The simulator runs the same loop with SS held at K iterates a chunk
//! (`ss,min=K,max=K`) and requests served in parallel (`ServiceModel::Parallel`: each chunk adds h
//! to its own processor, the model of the paper), N = 64·K·P (whole rounds of chunks), iterate
//! times uniform on [0, 2 ms] (μ = 1 ms, σ = 0.577 ms), h = 0.2 ms, the mean over 3 to 64 seeds
//! (the more, the smaller the loop).
//!
//! `cargo test -p dls-model --test kruskal_weiss -- --nocapture` prints the table.

use dls_model::sim::{simulate, ServiceModel, SimConfig};

const MU: f64 = 1e-3;
const H: f64 = 0.2e-3;
const ROUNDS: u64 = 64;
/// Seeds: as many as keep each row near 2²⁰ simulated iterates, at least 3 and at most 64 (the
/// small loops' makespans are a few chunks long, so one seed's is noisy).
fn seeds(n: u64) -> u64 {
    ((1u64 << 20) / n).clamp(3, 64)
}

fn sigma() -> f64 {
    2e-3 / 12f64.sqrt()
}

/// Kruskal & Weiss's expected makespan.
fn kruskal_weiss(n: u64, p: usize, k: u64) -> f64 {
    let (n, p, k) = (n as f64, p as f64, k as f64);
    n * MU / p + n * H / (k * p) + sigma() * (2.0 * k * p.ln()).sqrt()
}

/// The simulator's mean makespan over `SEEDS` seeds.
fn simulated(n: u64, p: usize, k: u64) -> f64 {
    let total: f64 = (1..=seeds(n))
        .map(|seed| {
            let mut c = SimConfig::new(format!("ss,min={k},max={k}").parse().unwrap(), n, p);
            c.iterate_time = "uniform:0ms:2ms".parse().unwrap();
            c.overhead_s = H;
            c.service = ServiceModel::Parallel;
            c.seed = seed;
            simulate(&c).unwrap().report.parallel_time_s
        })
        .sum();
    total / seeds(n) as f64
}

#[test]
fn the_simulator_agrees_with_kruskal_and_weiss_within_two_percent() {
    println!("|    P |   K |         N | simulated (s) | K&W (s) | makespan | excess over Nμ/P, sim / K&W |");
    println!("|-----:|----:|----------:|--------------:|--------:|---------:|----------------------------:|");
    let mut worst: f64 = 0.0;
    for p in [2usize, 8, 32, 128, 512, 1024] {
        for k in [1u64, 4, 16, 64] {
            let n = ROUNDS * k * p as u64;
            let sim = simulated(n, p, k);
            let kw = kruskal_weiss(n, p, k);
            let work = n as f64 * MU / p as f64;
            let rel = sim / kw - 1.0;
            let excess = (sim - work) / (kw - work);
            println!(
                "| {p:4} | {k:3} | {n:9} | {sim:13.5} | {kw:7.5} | {:+7.2} % | {excess:27.2} |",
                100.0 * rel
            );
            worst = worst.max(rel.abs());
            assert!(
                rel.abs() < 0.02,
                "P={p} K={k}: simulated {sim} s, Kruskal & Weiss {kw} s"
            );
            // Where the imbalance term σ·√(2K ln P) is at least the last round's quantisation
            // K·μ/2 (small chunks), the simulated excess over the work itself follows the formula
            // too; with large chunks the simulator's excess is larger (the formula is asymptotic
            // and leaves out that the processors' last chunks end up to K·μ apart).
            if sigma() * (2.0 * k as f64 * (p as f64).ln()).sqrt() >= k as f64 * MU / 2.0 {
                assert!(
                    (0.7..1.4).contains(&excess),
                    "P={p} K={k}: excess over N·μ/P simulated {} s, Kruskal & Weiss {} s",
                    sim - work,
                    kw - work
                );
            }
        }
    }
    println!(
        "worst |simulated / Kruskal & Weiss − 1|: {:.2} %",
        100.0 * worst
    );
}
