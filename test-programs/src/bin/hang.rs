//! A job that does not end by itself, to prove that the test harness ends every job
//! (`test-programs/tests/mpi_no_hang.rs`). The first argument says how:
//!
//! - `iterate`: the last rank's first iterate of an SS loop never returns (it sleeps until
//!   killed), as an iterate stuck on I/O or on a lock would; the other ranks run the other
//!   iterates and then wait in the loop for it, forever.
//! - `ignore-term`: the same, and every rank ignores SIGTERM, so only SIGKILL ends it (mpirun's
//!   own forwarding of SIGTERM to its ranks is not enough).
//! - `orphan`: rank 0 starts a child process that outlives the job (it sleeps 10 minutes), then
//!   every rank ends normally: mpirun exits 0 with a process of its job still running.
//!
//! Rank 0 prints `hang: <mode> on <P> ranks` first, so a test can check that the output of a
//! killed job is kept.
//!
//! ```text
//! cargo build -p test-programs --features mpi --bins
//! timeout 5 mpirun --oversubscribe -np 3 target/debug/hang iterate
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

fn sleep_until_killed() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_default();
    if mode == "sleeper" {
        // The child of `orphan`: bounded, so that even a harness that failed to kill it leaves
        // nothing running for long.
        std::thread::sleep(Duration::from_secs(600));
        return Ok(());
    }
    if !matches!(mode.as_str(), "iterate" | "ignore-term" | "orphan") {
        eprintln!("usage: hang iterate|ignore-term|orphan (got `{mode}`)");
        std::process::exit(2);
    }
    if mode == "ignore-term" {
        // SAFETY: installs the SIG_IGN disposition; no handler code runs.
        unsafe { libc::signal(libc::SIGTERM, libc::SIG_IGN) };
    }
    let rt = dls::init()?;
    let (rank, p) = (rt.rank(), rt.size());
    if rank == 0 {
        println!("hang: {mode} on {p} ranks");
    }
    if mode == "orphan" {
        if rank == 0 {
            std::process::Command::new(std::env::current_exe()?)
                .arg("sleeper")
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()?;
        }
        return Ok(());
    }
    let stuck = AtomicBool::new(false);
    rt.doall_named("hang", 0..100u32, "ss".parse()?, |_| {
        if rank == p - 1 && !stuck.swap(true, Ordering::Relaxed) {
            eprintln!("hang: rank {rank} stuck in its first iterate");
            sleep_until_killed();
        }
        std::thread::sleep(Duration::from_millis(1));
    })?;
    eprintln!("hang: rank {rank} finished the loop, which should not happen");
    Ok(())
}
