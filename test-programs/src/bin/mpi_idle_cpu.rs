//! CPU time a rank spends waiting for the others (issue 17 case 10): at a loop start (rank 0
//! arrives 1.5 s late) and at the reduction after a loop (rank 0's iterate takes 1.5 s while the
//! others have finished theirs). Prints, per rank, `idle-cpu: rank R start X s reduce Y s` (process
//! CPU seconds, user + system, during each phase).

use std::error::Error;
use std::time::Duration;

/// User + system CPU seconds of this process so far (from /proc/self/stat).
fn cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = after.split_whitespace().collect();
    // After the command name: state is field 3, utime 14 and stime 15 (1-based in proc(5)).
    let ticks = |i: usize| {
        fields
            .get(i - 3)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(14) + ticks(15)) / 100.0
}

fn main() -> Result<(), Box<dyn Error>> {
    let rt = dls::init()?;
    let rank = rt.rank();
    let late = Duration::from_millis(1500);

    if rank == 0 {
        std::thread::sleep(late);
    }
    let t0 = cpu_s();
    rt.doall_named("start", 0..1u32, "static".parse()?, |_| {})?;
    let start = cpu_s() - t0;

    let t0 = cpu_s();
    let p = rt.size() as u32;
    let (sum, _) = rt.doall_reduce(
        "reduce",
        0..p,
        "static".parse()?,
        || 0u32,
        |i, acc| {
            if i == 0 {
                std::thread::sleep(late);
            }
            *acc += i;
        },
        |a, b| a + b,
    )?;
    let reduce = cpu_s() - t0;
    assert_eq!(sum, p * (p - 1) / 2);
    println!("idle-cpu: rank {rank} start {start:.3} s reduce {reduce:.3} s");
    Ok(())
}
