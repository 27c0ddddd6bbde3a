//! Peak memory (VmHWM) of rank 0 for SS over N trivial iterates: the loop report's chunk map is
//! capped by `DLS_CHUNK_MAP` (default 1,000,000 entries: 24 MB, with the chunk times 40 MB on the
//! scheduler and 24 MB more in the report), so it no longer grows with the
//! number of chunks. Compare with the map uncapped: `DLS_CHUNK_MAP=18446744073709551615`.
//!
//! ```text
//! cargo build --release -p dls-bench --features mpi --bin chunk_map_rss
//! mpirun --oversubscribe -np 2 target/release/chunk_map_rss 10000000
//! ```

use std::error::Error;

/// This process's peak resident memory in MiB (`VmHWM` of /proc/self/status).
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}

fn main() -> Result<(), Box<dyn Error>> {
    let n: u64 = std::env::args()
        .nth(1)
        .map_or(Ok(10_000_000), |a| a.parse())?;
    let rt = dls::init()?.with_statistics(true);
    let stats = rt.doall_named("ss-trivial", 0..n, "ss".parse()?, |i| {
        std::hint::black_box(i);
    })?;
    if rt.rank() == 0 {
        println!(
            "SS over {n} iterates on {} ranks: {} chunks, {} listed in the chunk map, {} counted \
             only; rank 0 peak RSS {:.1} MiB",
            rt.size(),
            stats.report.chunks,
            stats.report.chunk_map.len(),
            stats.report.chunk_map_dropped,
            peak_mib()
        );
    }
    Ok(())
}
