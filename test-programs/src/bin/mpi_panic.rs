//! A loop in which one rank panics in its 5th iterate: rank 1 (`mpi_panic worker`) or rank 0, the
//! scheduler (`mpi_panic scheduler`). Used by `test-programs/tests/mpi_panic.rs`: the whole job
//! must end promptly, non-zero, with stderr naming the rank, the iterate and the message
//! (`dls: rank 1 panicked in iterate 17 of loop `panicky`: boom at 17`).
//!
//! ```text
//! cargo build -p test-programs --features mpi --bins
//! mpirun --oversubscribe -np 3 target/debug/mpi_panic worker
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    let victim = match std::env::args().nth(1).as_deref() {
        Some("scheduler") => 0,
        Some("worker") => 1,
        other => {
            eprintln!("usage: mpi_panic worker|scheduler (got {other:?})");
            std::process::exit(2);
        }
    };
    let rank = rt.rank();
    let executed = AtomicUsize::new(0);
    rt.doall_named("panicky", 0..600u32, "ss".parse()?, |i| {
        if rank == victim && executed.fetch_add(1, Ordering::Relaxed) == 4 {
            panic!("boom at {i}");
        }
        std::thread::sleep(Duration::from_millis(2));
    })?;
    // Not reached: the job is aborted while the other ranks are still working or waiting.
    eprintln!("rank {rank}: loop finished without the expected panic");
    Ok(())
}
