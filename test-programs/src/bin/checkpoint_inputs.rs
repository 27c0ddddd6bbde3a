//! A restart after the inputs changed (issue 27 cases 1 and 2), used by
//! `test-programs/tests/checkpoint_inputs.rs` on threads and under mpirun.
//!
//! Arguments: `N SCALE`: the loop sums `SCALE * i` over `0..N` (iterates sleep 200 us). From the
//! environment: `DIE_AT=<i>` ends the process abruptly (`std::process::abort`, as a node failure
//! or a killed job would) at iterate `i`, after the workers had time to write checkpoints;
//! `RESULT=f64` makes the loop's result an `f64` instead of a `u64` (the same values);
//! `INPUT_KEY=<text>` is given to `dls::checkpoint_key` (what an input file would be). Rank 0
//! prints `sum=<S> serial=<S> restored=<R>`.

use std::error::Error;
use std::time::Duration;

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args.get(1).map_or(Ok(2000), |a| a.parse())?;
    let scale: u64 = args.get(2).map_or(Ok(1), |a| a.parse())?;
    let die_at: Option<u64> = std::env::var("DIE_AT")
        .ok()
        .map(|v| v.parse())
        .transpose()?;
    if let Ok(key) = std::env::var("INPUT_KEY") {
        dls::checkpoint_key(key);
    }
    let rt = dls::init()?.with_statistics(true);
    let body_wait = |i: u64| {
        if Some(i) == die_at {
            // Long enough for every worker to pass a chunk boundary and write its checkpoint.
            std::thread::sleep(Duration::from_millis(300));
            eprintln!("checkpoint_inputs: dying at iterate {i}");
            std::process::abort();
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    let serial: u64 = (0..n).map(|i| scale * i).sum();
    let (sum, stats) = if std::env::var("RESULT").as_deref() == Ok("f64") {
        let (s, stats) = rt.doall_reduce(
            "sum",
            0..n,
            "fac2".parse()?,
            || 0f64,
            |i, s| {
                body_wait(i);
                *s += (scale * i) as f64;
            },
            |a, b| a + b,
        )?;
        (s as u64, stats)
    } else {
        rt.doall_reduce(
            "sum",
            0..n,
            "fac2".parse()?,
            || 0u64,
            |i, s| {
                body_wait(i);
                *s += scale * i;
            },
            |a, b| a + b,
        )?
    };
    let restored = stats
        .report
        .checkpoint
        .as_ref()
        .map_or(0, |c| c.restored_iterates);
    if rt.rank() == 0 {
        println!("sum={sum} serial={serial} restored={restored}");
    }
    if sum != serial {
        return Err(format!("sum {sum} differs from the serial {serial}").into());
    }
    Ok(())
}
