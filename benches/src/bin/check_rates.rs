//! Detection and false-alarm rates of the fault check over many loops: `loops` checked loops of
//! `n` iterates (each sleeping `work_us` µs, default 50, so that every worker takes part) whose values are standard
//! normal (a hash of the loop and the index), run clean and with the last worker's values
//! shifted by `bias` standard deviations of a worker's mean (`bias / sqrt(n / workers)` of a
//! value, added on the worker `current_worker` names). For alpha = 0.01 and the default 1e-4 it prints the
//! share of loops that rejected and the share that named the faulty worker (its leave-one-out
//! test significant at alpha / workers, and it the most suspect).
//!
//! ```text
//! cargo run --release -p dls-bench --bin check_rates [loops] [n] [bias] [work_us]
//! cargo build --release -p dls-bench --features mpi --bin check_rates
//! mpirun --oversubscribe -np 4 target/release/check_rates 1000 400 3
//! ```

use dls::runtime::checked::Check;
use dls::runtime::inject::current_worker;
use dls::runtime::options::LoopOptions;

/// A standard normal value from (loop, index): Box–Muller over two SplitMix64 draws.
fn normal(seed: u64, i: u64) -> f64 {
    let mix = |mut z: u64| {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let a = mix(seed.wrapping_mul(1_000_003) ^ i);
    let b = mix(a);
    let u1 = ((a >> 11) as f64 + 0.5) / (1_u64 << 53) as f64;
    let u2 = (b >> 11) as f64 / (1_u64 << 53) as f64;
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let loops: u64 = args.next().map_or(Ok(1000), |a| a.parse())?;
    let n: u64 = args.next().map_or(Ok(400), |a| a.parse())?;
    let bias_mean_sd: f64 = args.next().map_or(Ok(3.0), |a| a.parse())?;
    let work_us: u64 = args.next().map_or(Ok(50), |a| a.parse())?;
    let work = std::time::Duration::from_micros(work_us);
    let rt = dls::init()?.with_statistics(true);
    let workers = rt.workers();
    let faulty = workers - 1;
    let per_value = bias_mean_sd / ((n / workers as u64) as f64).sqrt();
    if rt.rank() == 0 && workers > 2 {
        println!(
            "note: {workers} workers on this machine's 2 cores (the rates do not depend on it)"
        );
    }
    for (label, bias) in [("clean", 0.0), ("faulty", per_value)] {
        // [rejected, named] at alpha 0.01, then at 1e-4.
        let mut counts = [0_u64; 4];
        let mut untested = 0;
        for k in 0..loops {
            let check = Check {
                seed: k,
                alpha: 0.01,
                ..Check::default()
            };
            let (_, stats) = rt.run(
                &LoopOptions::new("rates", "fac2".parse()?).check(check),
                0..n,
                || 0.0,
                |i, s: &mut f64| {
                    // Each iterate takes `work` (a sleep, so that oversubscribed workers all take
                    // part).
                    std::thread::sleep(work);
                    let mut y = normal(k, i);
                    // A shift of `bias` values' SDs, on the faulty worker only.
                    if bias != 0.0 && current_worker() == Some(faulty) {
                        y += bias;
                    }
                    *s += y;
                    y
                },
                |a, b| a + b,
            )?;
            let c = stats.report.check.expect("a check");
            let Some(p) = c.p else {
                untested += 1;
                continue;
            };
            for (slot, alpha) in [(0, 0.01), (2, 1e-4)] {
                if p < alpha {
                    counts[slot] += 1;
                    let named = c.suspect_p.is_some_and(|q| q < alpha / workers as f64)
                        && most_suspect(&c.worker_means) == faulty;
                    if named {
                        counts[slot + 1] += 1;
                    }
                }
            }
        }
        if rt.rank() == 0 {
            let share = |k: usize| counts[k] as f64 / loops as f64;
            println!(
                "{label}: {loops} loops of {n} iterates on {workers} workers{}: rejected {:.4} \
                 (the faulty worker named {:.4}) at alpha 0.01; {:.4} ({:.4}) at alpha 1e-4; \
                 {untested} loops untested (a worker without values)",
                if bias != 0.0 {
                    format!(", worker {faulty} biased by {bias_mean_sd} SD of a worker's mean")
                } else {
                    String::new()
                },
                share(0),
                share(1),
                share(2),
                share(3)
            );
        }
    }
    Ok(())
}

/// The worker whose mean is farthest from the mean of the others.
fn most_suspect(means: &[f64]) -> usize {
    let total: f64 = means.iter().sum();
    let k = means.len() as f64;
    (0..means.len())
        .max_by(|&a, &b| {
            let off = |w: usize| (means[w] - (total - means[w]) / (k - 1.0)).abs();
            off(a).total_cmp(&off(b))
        })
        .unwrap_or(0)
}
