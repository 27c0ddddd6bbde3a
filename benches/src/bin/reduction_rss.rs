//! Peak memory per rank of a big reduction value: a `HashMap<u64, u64>` of `n` entries (default
//! 2,500,000; about 50 MB as a Rust map), built by a loop whose iterate `i` inserts key `i`, so
//! each rank's partial map holds its own keys and the total holds all. Every rank prints its peak
//! resident memory (`VmHWM`) above its start; `serial` builds the same map in one loop, the
//! baseline. The strategy comes from `DLS_REDUCTION`.
//!
//! ```text
//! cargo build --release -p dls-bench --features mpi --bin reduction_rss
//! target/release/reduction_rss serial
//! DLS_REDUCTION=master mpirun --oversubscribe -np 8 -x DLS_REDUCTION target/release/reduction_rss
//! ```

use std::collections::HashMap;
use std::error::Error;

/// This process's peak resident memory in MiB (`VmHWM`).
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1).peekable();
    let serial = args.peek().map(String::as_str) == Some("serial");
    if serial {
        args.next();
    }
    let n: u64 = args.next().map_or(Ok(2_500_000), |a| a.parse())?;
    let before = peak_mib();
    if serial {
        let mut map = HashMap::new();
        for i in 0..n {
            map.insert(i, i * 3);
        }
        assert_eq!(map.len() as u64, n);
        println!("serial: peak {:.0} MiB above start", peak_mib() - before);
        return Ok(());
    }
    let rt = dls::init()?.with_statistics(true);
    let (map, stats) = rt.doall_reduce(
        "map",
        0..n,
        "fac2".parse()?,
        HashMap::new,
        |i, m: &mut HashMap<u64, u64>| {
            m.insert(i, i * 3);
        },
        |mut a, b| {
            if a.len() < b.len() {
                return b.into_iter().chain(a).collect();
            }
            a.extend(b);
            a
        },
    )?;
    assert_eq!(map.len() as u64, n);
    let strategy = stats
        .report
        .reduction
        .map(|r| r.strategy)
        .unwrap_or_default();
    println!(
        "{strategy}: P = {}, rank {}: peak {:.0} MiB above start",
        rt.size(),
        rt.rank(),
        peak_mib() - before
    );
    Ok(())
}
