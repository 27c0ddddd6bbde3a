//! A rank that stops answering (issue 12): one rank of the job is stopped with SIGSTOP in the
//! middle of an iterate and resumed (SIGCONT) seconds later, after the others have finished the
//! loop. With re-execution of unfinished chunks (the default) the others execute its chunk, so the
//! loop's iterates are all done without it; the end-of-loop step then waits for it, and its own
//! (stale) copy of the chunk is discarded when it comes back.
//!
//! With the sixth argument `kill`, the rank kills itself with SIGKILL instead (a rank that dies):
//! the job must end within seconds, naming the rank, with no process left.
//!
//! Arguments: `N TECHNIQUE STALLED_RANK STOP_AFTER_S RESUME_AFTER_S [stop|kill]`. Iterates sleep 1 ms (so
//! the timing does not depend on the machine's cores). Rank 0 prints
//! `stall: sum=S serial=S iterates=N copies=C discarded=D complete_s=T bound_s=B ratio=R`, where
//! B is the lower bound of the loop on the P − 1 ranks that keep working (N ms / (P − 1), divided
//! by the threads of a rank where every rank has threads inside, `DLS_THREADS`) and
//! R = T / B.

use std::error::Error;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args.get(1).map_or(Ok(2400), |a| a.parse())?;
    let technique: dls::Technique = args.get(2).map_or("fac2", |a| a.as_str()).parse()?;
    let stalled: usize = args.get(3).map_or(Ok(3), |a| a.parse())?;
    let stop_after = Duration::from_secs_f64(args.get(4).map_or(Ok(0.25), |a| a.parse())?);
    let resume_after: f64 = args.get(5).map_or(Ok(3.0), |a| a.parse())?;
    let kill = args.get(6).is_some_and(|a| a == "kill");

    let rt = dls::init()?.with_statistics(true);
    let (rank, p) = (rt.rank(), rt.size());
    let armed = AtomicBool::new(rank == stalled);
    let started = Instant::now();
    let (sum, stats) = rt.doall_reduce(
        "stalled rank",
        0..n,
        technique,
        || 0u64,
        |i, s| {
            if started.elapsed() >= stop_after && armed.swap(false, Ordering::Relaxed) {
                let me = std::process::id().to_string();
                if kill {
                    eprintln!("stall: rank {rank} kills itself (SIGKILL)");
                    Command::new("kill")
                        .args(["-KILL", &me])
                        .status()
                        .expect("kill");
                }
                // Resume this process later, then stop it here, inside an iterate. The resuming
                // shell is not waited for: it ends after this process resumes (and the init
                // process reaps it if this one has ended by then).
                #[allow(clippy::zombie_processes)]
                Command::new("sh")
                    .args(["-c", &format!("sleep {resume_after}; kill -CONT {me}")])
                    .spawn()
                    .expect("sh");
                Command::new("kill")
                    .args(["-STOP", &me])
                    .status()
                    .expect("kill");
            }
            std::thread::sleep(Duration::from_millis(1));
            *s += i * i % 7919;
        },
        |a, b| a + b,
    )?;
    let serial: u64 = (0..n).map(|i| i * i % 7919).sum();
    if rank == 0 {
        let r = &stats.report;
        let rx = r.reexecution.clone().unwrap_or_default();
        let complete = rx.complete_s.unwrap_or(r.parallel_time_s);
        // The ranks that keep working, each with its threads (`DLS_THREADS` under mpirun).
        let k = rt.workers() / p;
        let bound = n as f64 * 1e-3 / ((p.max(2) - 1) * k) as f64;
        println!(
            "stall: sum={sum} serial={serial} iterates={} copies={} discarded={} \
             complete_s={complete:.3} bound_s={bound:.3} ratio={:.3} parallel_s={:.3}",
            r.ranks.iter().map(|k| k.iterates).sum::<u64>(),
            rx.copies,
            rx.discarded_chunks,
            complete / bound,
            r.parallel_time_s,
        );
    }
    Ok(())
}
