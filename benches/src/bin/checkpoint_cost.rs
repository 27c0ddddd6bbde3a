//! Benchmark: the cost of checkpoints (`DLS_CHECKPOINT`) on a loop of 1 ms iterates (issue 12).
//!
//! N = 4000 iterates that sleep 1 ms, summed into a `Vec<f64>` of 1000 values (an 8 KB result,
//! so a checkpoint writes something), on 2 threads. Each repetition runs the loop without
//! checkpoints, with checkpoints at the default interval (60 s: only the write at the loop's
//! end) and every 100 ms, in turn (paired); the table gives the median of each time over the one
//! without, and the writes of the last run.
//!
//! ```text
//! cargo run --release -p dls-bench --bin checkpoint_cost        # 7 repetitions
//! cargo run --release -p dls-bench --bin checkpoint_cost 11
//! ```

use std::time::{Duration, Instant};

use dls::runtime::settings::Settings;
use dls::Runtime;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(7);
    let dir = std::env::temp_dir().join(format!("dls-checkpoint-cost-{}", std::process::id()));
    let configs: [(&str, Option<Duration>, bool); 3] = [
        ("none", None, false),
        ("default (60 s)", None, true),
        ("every 100 ms", Some(Duration::from_millis(100)), true),
    ];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); configs.len()];
    let mut writes = vec![(0u64, 0.0f64); configs.len()];
    for _ in 0..reps {
        for (k, (_, every, on)) in configs.iter().enumerate() {
            let _ = std::fs::remove_dir_all(&dir);
            let settings = Settings {
                checkpoint: on.then(|| dir.clone()),
                checkpoint_every: *every,
                ..Settings::default()
            };
            let rt = Runtime::threads(2, settings)?.with_statistics(true);
            let started = Instant::now();
            let (v, stats) = rt.doall_reduce(
                "checkpointed",
                0..4000u64,
                "fac2".parse()?,
                || vec![0.0f64; 1000],
                |i, acc| {
                    std::thread::sleep(Duration::from_millis(1));
                    acc[(i % 1000) as usize] += i as f64;
                },
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(b) {
                        *x += y;
                    }
                    a
                },
            )?;
            times[k].push(started.elapsed().as_secs_f64());
            assert_eq!(v.iter().sum::<f64>(), (0..4000u64).sum::<u64>() as f64);
            if let Some(c) = stats.report.checkpoint {
                writes[k] = (c.writes, c.write_time_s);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let base = times[0].clone();
    println!(
        "checkpoint_cost: N = 4000 iterates of 1 ms (sleep), 2 threads, {reps} paired repetitions"
    );
    println!("| checkpoints | median time (s) | median ratio to none | writes (last run) | write time (s) |");
    println!("|---|---|---|---|---|");
    for (k, (name, _, _)) in configs.iter().enumerate() {
        let ratios: Vec<f64> = times[k].iter().zip(&base).map(|(t, b)| t / b).collect();
        println!(
            "| {name} | {:.3} | {:.4} | {} | {:.4} |",
            median(times[k].clone()),
            median(ratios),
            writes[k].0,
            writes[k].1
        );
    }
    Ok(())
}
