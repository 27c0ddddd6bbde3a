//! How fast a group leader answers its group's inner-loop requests while it executes long inner
//! iterates itself (used by `test-programs/tests/mpi_groups_latency.rs`).
//!
//! A two-level loop on 3 ranks: coordinator 0 and one group {1, 2} (leader 1). Each outer iterate
//! holds one inner loop of `--n` iterates under self-scheduling (one iterate per chunk). The
//! leader busy-computes `--leader-ms` (default 100) per inner iterate, the other rank sleeps 1 ms
//! per inner iterate, so it sends hundreds of requests while the leader is inside its iterates.
//! The other rank times the gap between the end of one of its inner iterates and the start of
//! the next (the request to the leader, the reply, and the loop's own overhead) and prints
//! `latency_us median=.. p99=.. max=.. requests=.. leader_iterates=..`; rank 0 prints the
//! layout and the loop's wall-clock time. With `--leader-ms 0 --member-ms 0` and many outer
//! iterates (`--m`) it measures the cost of an inner loop instead.
//!
//! ```text
//! cargo build -p test-programs --features mpi --bins
//! mpirun --oversubscribe -n 3 target/debug/two_level_latency
//! ```
//!
//! Without MPI (or on fewer than 3 ranks) the loop runs one-level and the program prints
//! `layout: one-level` only.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use dls::group::{GroupSpec, Role};

fn busy(d: Duration) {
    let t = Instant::now();
    while t.elapsed() < d {
        std::hint::spin_loop();
    }
}

fn arg(args: &[String], name: &str, default: u64) -> Result<u64, std::num::ParseIntError> {
    match args
        .iter()
        .position(|a| a == name)
        .and_then(|k| args.get(k + 1))
    {
        Some(v) => v.parse(),
        None => Ok(default),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let n = arg(&args, "--n", 200)?;
    let m = arg(&args, "--m", 1)?;
    let leader_time = Duration::from_millis(arg(&args, "--leader-ms", 100)?);
    let member_time = Duration::from_millis(arg(&args, "--member-ms", 1)?);

    let rt = dls::init()?.with_statistics(true);
    let mut groups = rt.group_setup(GroupSpec::new(2, 2))?;
    let Some(layout) = groups.layout().cloned() else {
        if rt.rank() == 0 {
            println!("layout: one-level");
        }
        return Ok(());
    };
    let ss = "ss".parse()?;
    let gaps_us = Mutex::new(Vec::<f64>::new());
    let t0 = Instant::now();
    let stats = groups.doall_2d(0..m, "ss".parse()?, |_, inner| {
        let leader = inner.rank() == 0;
        let mut gaps = Vec::new();
        let mut last: Option<Instant> = None;
        inner.doall(0..n, &ss, |_| {
            if let Some(t) = last {
                gaps.push(t.elapsed().as_secs_f64() * 1e6);
            }
            if leader {
                busy(leader_time);
            } else if !member_time.is_zero() {
                std::thread::sleep(member_time);
            }
            last = Some(Instant::now());
        })?;
        gaps_us
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(gaps);
        Ok(())
    })?;
    let seconds = t0.elapsed().as_secs_f64();
    if let Some(Role::Member { group, index: 1 }) = groups.role() {
        let mut v = gaps_us.into_inner().unwrap_or_else(|e| e.into_inner());
        v.sort_by(f64::total_cmp);
        let leader = layout.groups[group].ranks[0];
        let q = |f: f64| v.get(((v.len().max(1) - 1) as f64 * f).round() as usize);
        let show = |x: Option<&f64>| x.map_or("nan".to_string(), |x| format!("{x:.1}"));
        println!(
            "latency_us median={} p99={} max={} requests={} leader_iterates={}",
            show(q(0.5)),
            show(q(0.99)),
            show(q(1.0)),
            v.len(),
            stats.report.ranks[leader].iterates
        );
    }
    if rt.rank() == 0 {
        println!("layout: {} time_s={seconds:.3}", layout.describe());
    }
    Ok(())
}
