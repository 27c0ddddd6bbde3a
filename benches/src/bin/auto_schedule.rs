//! Benchmark of `schedule = "auto"` (SimAS, Mohammed & Ciorba 2020) against every single
//! technique, on four workloads, threads or MPI.
//!
//! A loop of N = 800 iterates that sleep (so the figures hold with more workers than cores, as
//! on this 2-core machine), mean 500 us, runs T = 5 times under one name (time steps), for each
//! technique. Workloads:
//! - `uniform`: every iterate 500 us;
//! - `exponential`: exponentially distributed, mean 500 us (the same draws for every technique);
//! - `mandelbrot`: iterate i sleeps in proportion to the escape-time work of row i of an
//!   800-row Mandelbrot image of [-2, 0.5] × [-1.25, 1.25] (mean 500 us): expensive rows in the
//!   middle;
//! - `slow rank`: 500 us, but the last worker (rank, or thread) sleeps three times as long.
//!
//! The loops are `doall_reduce` with the default settings (re-execution of unfinished chunks on).
//! Per repetition, every technique runs T times under a loop name of its own, interleaved (run 1
//! of every technique, then run 2 of every technique, ...), so that the machine's changing load
//! falls on all alike; `auto`'s first run measures under FAC2 and the next ones run its choice. Reported, per workload: the median
//! over repetitions of the mean parallel time of runs 2..T (auto after learning) and of all T
//! runs (auto's measuring run included), for auto, FAC2 and the best single technique.
//!
//! ```text
//! cargo build --release -p dls-bench --bin auto_schedule
//! DLS_THREADS=4 target/release/auto_schedule 3        # 3 repetitions
//! cargo build --release -p dls-bench --features mpi --bin auto_schedule
//! mpirun --oversubscribe -np 4 target/release/auto_schedule 3
//! ```

use std::time::Duration;

use dls::technique::Kind;
use dls::Technique;

const N: u64 = 800;
const MEAN_US: f64 = 500.0;
const RUNS: usize = 5;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// SplitMix64 of `i`: a uniform number in (0, 1), the same in every process.
fn uniform01(i: u64) -> f64 {
    let mut z = i.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    ((z >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

/// Escape-time work of each row of an N-row image, scaled to mean MEAN_US.
fn mandelbrot_rows() -> Vec<f64> {
    let (w, max) = (200usize, 500u32);
    let rows: Vec<f64> = (0..N)
        .map(|r| {
            let y = -1.25 + 2.5 * (r as f64 + 0.5) / N as f64;
            let mut work = 0u64;
            for c in 0..w {
                let x = -2.0 + 2.5 * (c as f64 + 0.5) / w as f64;
                let (mut a, mut b, mut k) = (0.0f64, 0.0f64, 0u32);
                while k < max && a * a + b * b <= 4.0 {
                    let t = a * a - b * b + x;
                    b = 2.0 * a * b + y;
                    a = t;
                    k += 1;
                }
                work += u64::from(k) + 1;
            }
            work as f64
        })
        .collect();
    let mean = rows.iter().sum::<f64>() / rows.len() as f64;
    rows.iter().map(|r| r / mean * MEAN_US).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?.with_statistics(true);
    let p = rt.workers();
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3);
    let backend = format!("{:?}", rt.backend());
    let mandel = mandelbrot_rows();
    let exp: Vec<f64> = (0..N).map(|i| -uniform01(i).ln() * MEAN_US).collect();
    let uniform = vec![MEAN_US; N as usize];
    let workloads: [(&str, &[f64], bool); 4] = [
        ("uniform", &uniform, false),
        ("exponential", &exp, false),
        ("mandelbrot", &mandel, false),
        ("slow rank", &uniform, true),
    ];
    let techniques: Vec<Technique> = Kind::ALL.into_iter().map(Technique::new).collect();
    if rt.rank() == 0 {
        println!(
            "auto_schedule: {backend}, P = {p}, N = {N} sleeping iterates (mean {MEAN_US} us), \
             {RUNS} runs per loop name, {reps} repetitions; seconds per run, medians"
        );
        if let Ok(l) = std::fs::read_to_string("/proc/loadavg") {
            println!("load average at start: {}", l.trim());
        }
        println!(
            "| workload | auto, runs 2-{RUNS} | auto, all {RUNS} | fac2 | best single | \
             auto / best | auto / fac2 | auto (all) / fac2 | auto chose |"
        );
        println!("|---|---|---|---|---|---|---|---|---|");
    }
    for (wname, times, slow) in workloads {
        // Per technique: per repetition, (mean of runs 2..T, mean of all T, what auto chose).
        let mut after: Vec<Vec<f64>> = vec![Vec::new(); techniques.len()];
        let mut all: Vec<Vec<f64>> = vec![Vec::new(); techniques.len()];
        let mut chose = Vec::new();
        for rep in 0..reps {
            // Run r of every technique, then run r + 1 of every technique: the machine's load
            // drifts over time, and this spreads the drift over all of them alike.
            let mut per_run: Vec<Vec<f64>> = vec![Vec::new(); techniques.len()];
            for _ in 0..RUNS {
                for (k, t) in techniques.iter().enumerate() {
                    let name = format!("{wname} {t} {rep}");
                    let (_, stats) = rt.doall_reduce(
                        &name,
                        0..N,
                        t.clone(),
                        || 0u64,
                        |i, s| {
                            let me = dls::inject::current_worker().unwrap_or(0);
                            let f = if slow && me + 1 == p && p > 1 {
                                3.0
                            } else {
                                1.0
                            };
                            std::thread::sleep(Duration::from_secs_f64(
                                times[i as usize] * f * 1e-6,
                            ));
                            *s += i;
                        },
                        |a, b| a + b,
                    )?;
                    if let Some(a) = &stats.report.auto {
                        if a.phase == "chosen" {
                            chose.push(a.chose.clone());
                        }
                    }
                    per_run[k].push(stats.report.parallel_time_s);
                }
            }
            for (k, runs) in per_run.iter().enumerate() {
                after[k].push(runs[1..].iter().sum::<f64>() / (RUNS - 1) as f64);
                all[k].push(runs.iter().sum::<f64>() / RUNS as f64);
            }
        }
        let med_after: Vec<f64> = after.into_iter().map(median).collect();
        let med_all: Vec<f64> = all.into_iter().map(median).collect();
        let idx = |name: &str| techniques.iter().position(|t| t.kind.name() == name);
        let (ia, ifac2) = (idx("auto").unwrap(), idx("fac2").unwrap());
        let best = (0..techniques.len())
            .filter(|&k| k != ia)
            .min_by(|&a, &b| med_after[a].total_cmp(&med_after[b]))
            .unwrap();
        if rt.rank() == 0 {
            let mut names: Vec<String> = chose
                .iter()
                .map(|c| c.split(',').next().unwrap_or("").to_string())
                .collect();
            names.dedup();
            println!(
                "| {wname} | {:.4} | {:.4} | {:.4} | {:.4} ({}) | {:.3} | {:.3} | {:.3} | {} |",
                med_after[ia],
                med_all[ia],
                med_after[ifac2],
                med_after[best],
                techniques[best],
                med_after[ia] / med_after[best],
                med_after[ia] / med_after[ifac2],
                med_all[ia] / med_all[ifac2],
                names.join(", ")
            );
        }
    }
    Ok(())
}
