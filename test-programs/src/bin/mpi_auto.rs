//! `schedule = "auto"` under mpirun: one loop name run four times (time steps), the last rank
//! ten times slower per iterate (three times was not always told from the noise on a loaded
//! machine: CI saw FAC2 chosen once). Every rank prints, per run, `auto: rank R run K phase P chose
//! T sum S` from its own report, so the test can check that every rank ran and reported the
//! same technique (rank 0 chooses, the others take its choice). With the argument `explicit` the
//! loop is the explicit API (`start_loop_named`); with `env` the program asks for `gss` and the
//! test sets `DLS_SCHEDULE=auto`.

use std::error::Error;
use std::time::Duration;

fn main() -> Result<(), Box<dyn Error>> {
    let rt = dls::init()?.with_statistics(true);
    let (rank, p) = (rt.rank(), rt.size());
    let mode = std::env::args().nth(1).unwrap_or_default();
    let technique: dls::Technique = if mode == "env" { "gss" } else { "auto" }.parse()?;
    let n = 400u64;
    let pause = |_: u64| {
        let us = if rank + 1 == p && p > 1 { 5000 } else { 500 };
        std::thread::sleep(Duration::from_micros(us));
    };
    for run in 1..=4 {
        let (sum, report) = if mode == "explicit" {
            let lp = rt.start_loop_named("steps", 0..n, technique.clone())?;
            let mut mine = 0u64;
            while let Some(c) = lp.next_chunk() {
                for i in c {
                    pause(i);
                    mine += i;
                }
            }
            (mine, lp.finish().report)
        } else {
            let (sum, stats) = rt.doall_reduce(
                "steps",
                0..n,
                technique.clone(),
                || 0u64,
                |i, s| {
                    pause(i);
                    *s += i;
                },
                |a, b| a + b,
            )?;
            (sum, stats.report)
        };
        let a = report.auto.ok_or("the report has no auto entry")?;
        if report.technique != a.chose {
            return Err(format!("ran {} but auto says {}", report.technique, a.chose).into());
        }
        println!(
            "auto: rank {rank} run {run} phase {} chose {} sum {sum} predicted {}",
            a.phase,
            a.chose,
            a.predicted.len()
        );
    }
    Ok(())
}
