//! Benchmark (b): efficiency against the lower bound, sleeping iterates.
//!
//! N = 20000 iterates whose times are exponential with mean 1 ms (the same pseudo-random times
//! for every technique), P = 8 ranks (oversubscribed: the iterates sleep, so 8 ranks fit on 2
//! cores), and the last rank is 3× slower (it sleeps 3× as long). Techniques: STATIC, FAC2,
//! AWF-B, AF.
//!
//! The lower bound is the makespan of a perfectly divisible load at the measured speeds: each
//! rank's speed is (nominal time of the iterates it ran) / (its measured work time), and
//! `T_lb = (total nominal time) / Σ speeds`. Efficiency against the lower bound is
//! `T_lb / T_parallel` (target ≥ 0.97 for the adaptive techniques). Each technique runs `REPS`
//! times; the median is printed.
//!
//! ```text
//! cargo build --release -p dls-bench --features mpi --bin mpi_efficiency
//! mpirun --oversubscribe -np 8 target/release/mpi_efficiency            # 3 runs each
//! mpirun --oversubscribe -np 8 target/release/mpi_efficiency 5 af,max=200 fac2
//! ```
//!
//! Arguments: the number of runs per technique, then the techniques (default: the four above).

use std::time::Duration;

const N: u64 = 20_000;
const MEAN_S: f64 = 1e-3;

fn nominal(i: u64) -> f64 {
    // splitmix64 → uniform (0, 1] → exponential.
    let mut z = i
        .wrapping_add(0x9E37_79B9_7F4A_7C15)
        .wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    let u = ((z >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
    -u.ln() * MEAN_S
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?.with_statistics(true);
    let (rank, p) = (rt.rank(), rt.workers());
    let slow = p - 1;
    let factor = if rank == slow && p > 1 { 3.0 } else { 1.0 };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let reps: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(3);
    let mut techniques: Vec<&str> = args.iter().skip(1).map(|s| s.as_str()).collect();
    if techniques.is_empty() {
        techniques = vec!["static", "fac2", "awf-b", "af"];
    }
    for name in techniques {
        let mut effs = Vec::new();
        let mut line = String::new();
        for _ in 0..reps {
            let (per_rank, stats) = rt.doall_reduce(
                name,
                0..N,
                name.parse()?,
                || vec![0.0f64; p],
                |i, acc: &mut Vec<f64>| {
                    let t = nominal(i);
                    acc[rank] += t;
                    std::thread::sleep(Duration::from_secs_f64(t * factor));
                },
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(b) {
                        *x += y;
                    }
                    a
                },
            )?;
            let r = &stats.report;
            let speeds: f64 = r
                .ranks
                .iter()
                .filter(|k| k.work_time_s > 0.0)
                .map(|k| per_rank[k.rank] / k.work_time_s)
                .sum();
            let total: f64 = per_rank.iter().sum();
            let lower_bound = total / speeds;
            let eff = lower_bound / r.parallel_time_s;
            effs.push(eff);
            line = format!(
                "T_par {:.3} s, T_lb {:.3} s, chunks {}, slow rank iterates {}",
                r.parallel_time_s, lower_bound, r.chunks, r.ranks[slow].iterates
            );
        }
        effs.sort_by(|a, b| a.total_cmp(b));
        if rank == 0 {
            println!(
                "{name:>6}: efficiency vs lower bound median {:.3} (runs {:?}); last run: {line}",
                effs[effs.len() / 2],
                effs.iter()
                    .map(|e| (e * 1000.0).round() / 1000.0)
                    .collect::<Vec<_>>()
            );
        }
    }
    Ok(())
}
