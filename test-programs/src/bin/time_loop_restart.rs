//! A time loop killed part-way and restarted from its checkpoints (issue 42 part 5): `STEPS`
//! steps, each a loop of `N` iterates whose result is the next step's state (so a step restored
//! from another step's checkpoints, or a lost or doubled iterate, changes the end result).
//! `DLS_CHECKPOINT` and `DLS_CHECKPOINT_EVERY` come from the environment.
//!
//! Arguments: `STEPS N`. From the environment: `RESTART_KILL` (`none`, the default, or `rank`:
//! rank 1 kills itself with SIGKILL in step `RESTART_STEP`, halfway through its iterates of
//! that step). Every iterate sleeps 50 µs. Rank 0 prints `time loop: state=S serial=S` and, on
//! every step, the largest number of runs of the step's loop with files on disk
//! (`runs_on_disk=R`).

use std::error::Error;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

fn value(i: u64, t: u64, state: u64) -> u64 {
    (i * i + t * 31 + state % 1009) % 7919
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let steps: u64 = args.get(1).map_or(Ok(20), |a| a.parse())?;
    let n: u64 = args.get(2).map_or(Ok(2000), |a| a.parse())?;
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let kill = var("RESTART_KILL").unwrap_or_else(|| "none".into());
    let kill_step: u64 = var("RESTART_STEP").map_or(Ok(steps / 2), |s| s.parse())?;
    let dir = std::env::var("DLS_CHECKPOINT")?;

    let rt = dls::init()?;
    let rank = rt.rank();
    let armed = AtomicBool::new(kill == "rank" && rank == 1);
    let mut state = 1u64;
    let mut runs_on_disk = 0;
    for t in 0..steps {
        let mine = AtomicU64::new(0);
        let (sum, _) = rt.doall_reduce(
            "time step",
            0..n,
            "fac2".parse()?,
            || 0u64,
            |i, s| {
                if t == kill_step
                    && mine.fetch_add(1, Ordering::Relaxed) == n / 4
                    && armed.swap(false, Ordering::Relaxed)
                {
                    let me = std::process::id().to_string();
                    eprintln!("time loop test: rank {rank} sends SIGKILL to itself in step {t}");
                    Command::new("kill")
                        .args(["-KILL", &me])
                        .status()
                        .expect("kill");
                }
                std::thread::sleep(Duration::from_micros(50));
                *s += value(i, t, state);
            },
            |a, b| a + b,
        )?;
        state = sum % 1_000_003;
        if rank == 0 {
            // The step's loop's folders (`time_step-<hash>-run<k>`).
            let runs = std::fs::read_dir(&dir)?
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("time_step-"))
                .count();
            runs_on_disk = runs_on_disk.max(runs);
        }
    }
    if rank == 0 {
        let serial = (0..steps).fold(1u64, |state, t| {
            (0..n).map(|i| value(i, t, state)).sum::<u64>() % 1_000_003
        });
        println!("time loop: state={state} serial={serial} runs_on_disk={runs_on_disk}");
    }
    Ok(())
}
