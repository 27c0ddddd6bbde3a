//! A rank that turns 3× slower halfway through the loop (sleeping iterates, like
//! `mpi_efficiency`).
//!
//! N = 20,000 iterates whose times are exponential with mean 1 ms (the same pseudo-random times
//! for every technique), P ranks (default run: 8, oversubscribed: the iterates sleep, so 8
//! ranks fit on 2 cores). The last rank runs at full speed until half of the ideal parallel
//! time (N · 1 ms / P / 2) has passed since the loop started on it, then sleeps 3× as long per
//! iterate. Efficiency against the lower bound: each rank's mean speed is (nominal time of its
//! iterates) / (its work time), `T_lb = (total nominal time) / Σ speeds`, efficiency
//! `T_lb / T_parallel`; a mean speed is a slight approximation for the rank whose speed changes.
//! Rounds are paired (every technique once per round); the median over rounds is printed.
//!
//! ```text
//! cargo build --release -p dls-bench --features mpi --bin speed_change
//! mpirun --oversubscribe -np 8 target/release/speed_change 5 af awf-c awf-e fac2
//! ```
//!
//! Arguments: the number of rounds (default 5), then the techniques (default: STATIC, GSS,
//! FAC2, AF, AWF, AWF-B..E).

use std::time::{Duration, Instant};

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

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?.with_statistics(true);
    let (rank, p) = (rt.rank(), rt.workers());
    let slow = p - 1;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let reps: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(5);
    let mut techniques: Vec<&str> = args.iter().skip(1).map(|s| s.as_str()).collect();
    if techniques.is_empty() {
        techniques = vec![
            "static", "gss", "fac2", "af", "awf", "awf-b", "awf-c", "awf-d", "awf-e",
        ];
    }
    let switch = Duration::from_secs_f64(N as f64 * MEAN_S / p as f64 / 2.0);
    let mut effs = vec![Vec::new(); techniques.len()];
    let mut last = vec![String::new(); techniques.len()];
    for _ in 0..reps {
        for (k, name) in techniques.iter().enumerate() {
            let start = Instant::now();
            let (per_rank, stats) = rt.doall_reduce(
                name,
                0..N,
                name.parse()?,
                || vec![0.0f64; p],
                |i, acc: &mut Vec<f64>| {
                    let t = nominal(i);
                    acc[rank] += t;
                    let factor = if rank == slow && p > 1 && start.elapsed() >= switch {
                        3.0
                    } else {
                        1.0
                    };
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
            let lower_bound = per_rank.iter().sum::<f64>() / speeds;
            effs[k].push(lower_bound / r.parallel_time_s);
            last[k] = format!(
                "T_par {:.3} s, T_lb {:.3} s, chunks {}, slow rank iterates {}",
                r.parallel_time_s, lower_bound, r.chunks, r.ranks[slow].iterates
            );
        }
    }
    if rank == 0 {
        println!(
            "speed_change: N = {N}, exp 1 ms iterates, P = {p}, rank {slow} 3x slower from {:.2} s",
            switch.as_secs_f64()
        );
        println!("| technique | efficiency vs lower bound (median) | rounds | last round |");
        println!("|---|---|---|---|");
        for ((name, e), l) in techniques.iter().zip(effs).zip(last) {
            let runs: Vec<String> = e.iter().map(|x| format!("{x:.3}")).collect();
            println!(
                "| {name} | {:.3} | {} | {l} |",
                median(e.clone()),
                runs.join(" ")
            );
        }
    }
    Ok(())
}
