//! Threads inside ranks, one rank slower: every iterate of rank 1 takes three times as long
//! (sleeps 300 µs against 100 µs), so a technique that learns from chunk times gives rank 1's
//! threads fewer iterates. Prints each rank's iterates from the loop's report, and checks that
//! every iterate ran once (`tests/mpi_hybrid.rs` runs it under `mpirun -np 2` with
//! `DLS_THREADS=2`).
//!
//! ```text
//! cargo build --release -p test-programs --features mpi --bin hybrid_slow_rank
//! mpirun --oversubscribe -np 2 -x DLS_THREADS=2 target/release/hybrid_slow_rank af
//! ```

use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let technique = std::env::args().nth(1).unwrap_or_else(|| "af".into());
    let rt = dls::init()?.with_statistics(true);
    let n = 3000u64;
    let pause = if rt.rank() == 1 {
        Duration::from_micros(300)
    } else {
        Duration::from_micros(100)
    };
    let (count, stats) = rt.doall_reduce(
        "slow rank",
        0..n,
        technique.parse()?,
        || 0u64,
        |_, c: &mut u64| {
            std::thread::sleep(pause);
            *c += 1;
        },
        |a, b| a + b,
    )?;
    assert_eq!(count, n, "every iterate once");
    let r = &stats.report;
    let k = r.threads_per_rank.max(1);
    let per_rank: Vec<u64> = r
        .ranks
        .chunks(k)
        .map(|rows| rows.iter().map(|x| x.iterates).sum())
        .collect();
    assert_eq!(per_rank.iter().sum::<u64>(), n);
    if rt.rank() == 0 {
        println!(
            "slow rank {technique}: iterates per rank {per_rank:?} ({} ranks x {k} threads)",
            per_rank.len()
        );
    }
    Ok(())
}
