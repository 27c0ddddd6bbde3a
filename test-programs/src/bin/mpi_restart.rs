//! A job killed part-way and restarted from its checkpoints (issue 12): `DLS_CHECKPOINT` and
//! `DLS_CHECKPOINT_EVERY` come from the environment.
//!
//! Argument: `N`. From the environment (not arguments: a restart with other arguments is refused,
//! issue 27 case 1): `RESTART_KILL`, `RESTART_AFTER` (seconds) and `RESTART_TAG`.
//! `RESTART_KILL` is `none` (the default), `rank` (rank 1 kills itself with SIGKILL
//! after `AFTER_S` seconds of the loop) or `mpirun` (rank 0 kills the launcher with SIGKILL: its
//! parent, Open MPI's mpirun, or under MPICH's Hydra its parent's parent, `mpiexec`, since the
//! parent is Hydra's local proxy, `hydra_pmi_proxy`). Iterates sleep 1 ms. Every rank counts the iterates it executes into
//! `$DLS_CHECKPOINT/executed-TAG-r<rank>` (rewritten every 10 iterates and at the end), so a test
//! can count the iterates executed twice across the killed run and the restart. Rank 0 prints
//! `restart: sum=S serial=S restored=R generation=G from=F iterates=I`.

use std::error::Error;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args.get(1).map_or(Ok(3000), |a| a.parse())?;
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let kill = var("RESTART_KILL").unwrap_or_else(|| "none".into());
    let after = Duration::from_secs_f64(var("RESTART_AFTER").map_or(Ok(0.5), |a| a.parse())?);
    let tag = var("RESTART_TAG").unwrap_or_else(|| "run".into());
    let dir = std::env::var("DLS_CHECKPOINT")?;

    let rt = dls::init()?.with_statistics(true);
    let rank = rt.rank();
    let executed = AtomicU64::new(0);
    let count_file = format!("{dir}/executed-{tag}-r{rank}");
    let armed = AtomicBool::new(match kill.as_str() {
        "rank" => rank == 1,
        "mpirun" => rank == 0,
        _ => false,
    });
    let started = Instant::now();
    let (sum, stats) = rt.doall_reduce(
        "restartable",
        0..n,
        "fac2".parse()?,
        || 0u64,
        |i, s| {
            if started.elapsed() >= after && armed.swap(false, Ordering::Relaxed) {
                let victim = if kill == "rank" {
                    std::process::id().to_string()
                } else {
                    launcher_pid(std::os::unix::process::parent_id()).to_string()
                };
                eprintln!("restart test: rank {rank} sends SIGKILL to {kill} (pid {victim})");
                Command::new("kill")
                    .args(["-KILL", &victim])
                    .status()
                    .expect("kill");
            }
            std::thread::sleep(Duration::from_millis(1));
            *s += i * i % 7919;
            let e = executed.fetch_add(1, Ordering::Relaxed) + 1;
            if e % 10 == 0 {
                // Written aside and renamed, so that a kill never leaves a truncated count.
                let aside = format!("{count_file}.new");
                if std::fs::write(&aside, e.to_string()).is_ok() {
                    let _ = std::fs::rename(&aside, &count_file);
                }
            }
        },
        |a, b| a + b,
    )?;
    std::fs::write(&count_file, executed.load(Ordering::Relaxed).to_string())?;
    if rank == 0 {
        let serial: u64 = (0..n).map(|i| i * i % 7919).sum();
        let r = &stats.report;
        let c = r.checkpoint.clone().unwrap_or_default();
        println!(
            "restart: sum={sum} serial={serial} restored={} generation={} from={} iterates={} \
             writes={} write_time_s={:.4}",
            c.restored_iterates,
            c.generation,
            c.restored_from.map_or(-1, |g| g as i64),
            r.ranks.iter().map(|k| k.iterates).sum::<u64>(),
            c.writes,
            c.write_time_s,
        );
    }
    Ok(())
}

/// The launcher that started this process, from its parent `parent`: the parent itself (Open
/// MPI's mpirun), or the proxy's parent when the parent is Hydra's `hydra_pmi_proxy` (killing
/// the proxy leaves the ranks running and `mpiexec` waiting; killing `mpiexec`, the launcher,
/// ends the proxy and its ranks, as killing Open MPI's mpirun does).
fn launcher_pid(parent: u32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{parent}/stat")).unwrap_or_default();
    // `pid (comm) state ppid ...`
    let comm = stat
        .find('(')
        .zip(stat.rfind(')'))
        .map(|(a, b)| &stat[a + 1..b]);
    let ppid = stat
        .rfind(')')
        .and_then(|i| stat[i + 1..].split_whitespace().nth(1))
        .and_then(|p| p.parse().ok());
    match (comm, ppid) {
        (Some("hydra_pmi_proxy"), Some(ppid)) => ppid,
        _ => parent,
    }
}
