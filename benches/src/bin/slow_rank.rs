//! Benchmark: one rank ten times slower, from the start or from halfway through the loop, with and
//! without re-execution of unfinished chunks (issue 12; rDLB, Mohammed, Cavelan & Ciorba 2019).
//!
//! N = 2000 iterates that sleep 1 ms (so the figures hold with more ranks than cores), P ranks
//! (`mpirun -np 4`); the last rank sleeps 10 ms per iterate: from the start (`start`), or once the
//! loop has run for half its balanced time, N·1 ms / (2P) (`halfway`). Lower bounds, for a
//! perfectly divisible load at those speeds:
//! - start: `N·t / (P − 1 + 0.1)`;
//! - halfway: `T0 + (N·t − P·T0) / (P − 0.9)` with `T0 = N·t / (2P)`.
//!
//! For every dynamic technique (all but `static`) and both scenarios, each repetition runs the
//! loop with re-execution on and then off (paired, `Runtime::with_reexecution`); the table gives
//! the median of parallel time / lower bound over the repetitions, and the median of the loop's
//! completion time (`reexecution.complete_s`: every iterate done, before the end-of-loop step)
//! over the bound.
//!
//! ```text
//! cargo build --release -p dls-bench --features mpi --bin slow_rank
//! mpirun --oversubscribe -np 4 target/release/slow_rank            # 3 repetitions, every technique
//! mpirun --oversubscribe -np 4 target/release/slow_rank 5 af fac2   # 5 repetitions, two techniques
//! ```

use std::time::{Duration, Instant};

use dls::technique::Kind;
use dls::Technique;

const N: u64 = 2_000;
const T: f64 = 1e-3;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?.with_statistics(true);
    let (rank, p) = (rt.rank(), rt.workers());
    let args: Vec<String> = std::env::args().skip(1).collect();
    let reps: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(3);
    let mut techniques: Vec<Technique> = args
        .iter()
        .skip(1)
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    if techniques.is_empty() {
        techniques = Kind::ALL
            .into_iter()
            .filter(|k| k.name() != "static")
            .map(Technique::new)
            .collect();
    }
    let pf = p as f64;
    let half = N as f64 * T / (2.0 * pf);
    let bound_start = N as f64 * T / (pf - 0.9);
    let bound_half = half + (N as f64 * T - pf * half) / (pf - 0.9);
    if rank == 0 {
        println!(
            "slow_rank: N = {N} iterates of {} ms (sleep), P = {p}, rank {} 10x slower; {reps} \
             paired repetitions; figures are parallel time / lower bound (and completion / bound)",
            T * 1e3,
            p - 1
        );
        println!("lower bounds: start {bound_start:.3} s, halfway {bound_half:.3} s");
        println!(
            "| technique | start, re-execution on | start, off | halfway, on | halfway, off |"
        );
        println!("|---|---|---|---|---|");
    }
    for technique in techniques {
        let mut cells = Vec::new();
        for (halfway, bound) in [(false, bound_start), (true, bound_half)] {
            let (mut on, mut off, mut done_on, mut done_off) = (vec![], vec![], vec![], vec![]);
            for _ in 0..reps {
                for reexecute in [true, false] {
                    let handle = rt.with_reexecution(reexecute);
                    let started = Instant::now();
                    let slow_from = if halfway { half } else { 0.0 };
                    let (_, stats) = handle.doall_reduce(
                        "slow rank",
                        0..N,
                        technique.clone(),
                        || 0u64,
                        |i, s| {
                            let slow = rank == p - 1
                                && p > 1
                                && started.elapsed().as_secs_f64() >= slow_from;
                            let t = if slow { 10.0 * T } else { T };
                            std::thread::sleep(Duration::from_secs_f64(t));
                            *s += i;
                        },
                        |a, b| a + b,
                    )?;
                    let r = &stats.report;
                    let complete = r
                        .reexecution
                        .as_ref()
                        .and_then(|x| x.complete_s)
                        .unwrap_or(r.parallel_time_s);
                    if reexecute {
                        on.push(r.parallel_time_s / bound);
                        done_on.push(complete / bound);
                    } else {
                        off.push(r.parallel_time_s / bound);
                        done_off.push(complete / bound);
                    }
                }
            }
            cells.push(format!(
                "{:.2} ({:.2})",
                median(on.clone()),
                median(done_on)
            ));
            cells.push(format!("{:.2}", median(off)));
            let _ = done_off;
        }
        if rank == 0 {
            println!("| {technique} | {} |", cells.join(" | "));
        }
    }
    Ok(())
}
