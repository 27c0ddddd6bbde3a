//! How fast the scheduler answers a worker while it executes long iterates itself (used by
//! `test-programs/tests/mpi_latency.rs`).
//!
//! Rank 0 (the scheduler) busy-computes 100 ms per iterate; the other ranks' iterates sleep 1 ms.
//! With self-scheduling every chunk is one iterate, so the workers send hundreds of requests while
//! rank 0 is inside its iterates. Every worker times each `next_chunk` call (request sent to chunk
//! received) and rank 0 prints the median, 99th percentile and maximum over all workers, as
//! `latency_us median=.. p99=.. max=.. requests=..`.
//!
//! ```text
//! cargo build --release -p test-programs --features mpi --bins
//! mpirun --oversubscribe -np 2 target/release/mpi_latency
//! ```

use std::time::{Duration, Instant};

use dls::mpi::collective::CommunicatorCollectives;
use dls::mpi::topology::{Communicator, SimpleCommunicator};

fn busy(d: Duration) {
    let t = Instant::now();
    while t.elapsed() < d {
        std::hint::spin_loop();
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    let rank = rt.rank();
    let n = 400u32;
    let lp = rt.start_loop_named("latency", 0..n, "ss".parse()?)?;
    let mut lat_us: Vec<f64> = Vec::new();
    loop {
        let t = Instant::now();
        let Some(chunk) = lp.next_chunk() else { break };
        lat_us.push(t.elapsed().as_secs_f64() * 1e6);
        for _ in chunk {
            if rank == 0 {
                busy(Duration::from_millis(100));
            } else {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    }
    let stats = lp.finish();
    // Gather the workers' latencies on every rank (fixed-size: pad with NaN).
    let world = SimpleCommunicator::world();
    let size = world.size() as usize;
    let mine: Vec<f64> = if rank == 0 { Vec::new() } else { lat_us };
    let width = n as usize + 1;
    let mut padded = vec![f64::NAN; width];
    padded[..mine.len()].copy_from_slice(&mine);
    let mut all = vec![0.0f64; width * size];
    world.all_gather_into(&padded[..], &mut all[..]);
    if rank == 0 {
        let mut v: Vec<f64> = all.into_iter().filter(|x| !x.is_nan()).collect();
        v.sort_by(|a, b| a.total_cmp(b));
        let q = |f: f64| v[((v.len() - 1) as f64 * f).round() as usize];
        println!(
            "latency_us median={:.1} p99={:.1} max={:.1} requests={} scheduler_iterates={}",
            q(0.5),
            q(0.99),
            q(1.0),
            v.len(),
            stats.report.ranks[0].iterates
        );
    }
    Ok(())
}
