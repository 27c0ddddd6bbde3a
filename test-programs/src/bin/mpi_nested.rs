//! Loops started inside an iterate of another loop under MPI (issue 17 case 3): a
//! `#[dls::parallel]` helper with its own `#[par_doall]` called from a `#[par_doall]` body, and
//! explicit loops nested in `doall`. The inner loops run serially on the calling rank; the results
//! equal the serial program's. Prints `nested: OK` on rank 0.

use std::sync::atomic::{AtomicU64, Ordering};

/// Sum of i*j over j < m: a helper that is itself a parallel loop.
#[dls::parallel]
fn row(i: u64, m: u64) -> u64 {
    let mut s = 0u64;
    #[par_doall(schedule = "gss", reduce(+: s))]
    for j in 0..m {
        s += i * j;
    }
    s
}

#[dls::parallel]
fn table(n: u64, m: u64) -> u64 {
    let mut total = 0u64;
    #[par_doall(schedule = "ss", reduce(+: total))]
    for i in 0..n {
        total += row(i, m);
        total += row(i, m / 2); // a second nested loop in the same iterate
    }
    total
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    let (n, m) = (40u64, 30u64);
    let serial: u64 = (0..n)
        .map(|i| (0..m).map(|j| i * j).sum::<u64>() + (0..m / 2).map(|j| i * j).sum::<u64>())
        .sum();
    let total = table(n, m);
    assert_eq!(total, serial, "macro: nested loops");

    // Explicit API: a loop started inside an iterate of doall_reduce.
    let inner_runs = AtomicU64::new(0);
    let (sum, _) = rt.doall_reduce(
        "outer",
        0..n,
        "fac2".parse()?,
        || 0u64,
        |i, acc| {
            let lp = rt
                .start_loop_named("inner", 0..m, "ss".parse().unwrap())
                .unwrap();
            while let Some(chunk) = lp.next_chunk() {
                for j in chunk {
                    *acc += i * j;
                }
            }
            lp.finish();
            inner_runs.fetch_add(1, Ordering::Relaxed);
        },
        |a, b| a + b,
    )?;
    let serial_explicit: u64 = (0..n).map(|i| (0..m).map(|j| i * j).sum::<u64>()).sum();
    assert_eq!(sum, serial_explicit, "explicit: nested loops");

    // Issue 17 case 9a: a loop started from a thread spawned inside an iterate runs serially on
    // that thread (it used to hang the job: the other ranks never start it).
    let (spawned, _) = rt.doall_reduce(
        "outer_spawning",
        0..n,
        "gss".parse()?,
        || 0u64,
        |i, acc| {
            *acc += std::thread::scope(|s| s.spawn(|| row(i, m)).join().unwrap());
        },
        |a, b| a + b,
    )?;
    assert_eq!(
        spawned, serial_explicit,
        "a loop on a thread spawned in an iterate"
    );

    // Issue 17 cases 8 and 9b: a chunk dropped while a later one runs does not end the iterate
    // state (a loop started then is nested), and the loop after the held one is a full loop.
    let held = rt.start_loop_named("held", 0..n, "ss".parse()?)?;
    let mut previous = None;
    while let Some(mut chunk) = held.next_chunk() {
        drop(previous.take());
        for i in chunk.by_ref() {
            assert_eq!(row(i, m), (0..m).map(|j| i * j).sum::<u64>(), "held chunk");
        }
        previous = Some(chunk);
    }
    drop(previous);
    held.finish();
    assert_eq!(table(n, m), serial, "the loop after a held chunk");
    if dls::is_root() {
        println!("nested: OK ({total}, {sum})");
    }
    Ok(())
}
