//! Loops too small to share (issue 29, `dls-runtime/src/runtime/loops/alone.rs`): on the threads
//! backend, a `#[par_doall]` loop whose last run did less than 10 µs of work runs on the calling
//! thread alone, with the serial result; a loop whose iterates are dear stays shared, and one
//! whose iterates became dear is shared again from the run after; loops whose report is read
//! (`doall_reduce` returns it) are always shared.

use std::cell::Cell;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::thread::ThreadId;
use std::time::Duration;

thread_local! {
    /// The run whose set this thread last noted itself in.
    static NOTED: Cell<u64> = const { Cell::new(0) };
}

/// Runs of [`sum`] so far.
static RUNS: AtomicU64 = AtomicU64::new(0);

/// The sum of `0..n`, each thread noting itself in `seen` once a run (cheap iterates stay cheap
/// in a debug build too) and, if `dear`, every iterate sleeping 300 µs.
#[dls::parallel]
fn sum(n: u64, dear: bool, seen: &Mutex<HashSet<ThreadId>>) -> u64 {
    let run = RUNS.fetch_add(1, Ordering::Relaxed) + 1;
    let mut total = 0;
    #[par_doall(schedule = "fac2", reduce(+: total), shared(seen))]
    for i in 0..n {
        if NOTED.with(|c| c.replace(run)) != run {
            seen.lock().unwrap().insert(std::thread::current().id());
        }
        if dear {
            std::thread::sleep(Duration::from_micros(300));
        }
        total += i;
    }
    total
}

/// The threads that ran a run of [`sum`], and its result.
fn run(n: u64, dear: bool) -> (u64, HashSet<ThreadId>) {
    let seen = Mutex::new(HashSet::new());
    let total = sum(n, dear, &seen);
    (total, seen.into_inner().unwrap())
}

#[test]
fn tiny_loops_run_alone_and_dear_ones_are_shared() {
    // The only test of this binary: the thread count is read once per process.
    std::env::set_var("DLS_THREADS", "2");
    std::env::remove_var("DLS_REPORT");
    std::env::remove_var("DLS_DELAY");
    let me = std::thread::current().id();
    let expected = |n: u64| n * (n - 1) / 2;

    // The first run is shared (nothing is known of the loop; it also starts the pool, which may
    // make it longer than 10 µs); within a few runs the loop's 10 cheap iterates run on this
    // thread alone, and then in every run.
    let settled = (0..5).position(|_| {
        let (total, seen) = run(10, false);
        assert_eq!(total, expected(10));
        seen == HashSet::from([me])
    });
    assert!(settled.is_some(), "a tiny loop never ran alone in 5 runs");
    // A run alone that the machine interrupts measures the loop dear and the next run is
    // shared (noise only ever makes a loop look dearer): most runs, not all, run alone.
    let alone = (0..20)
        .filter(|r| {
            let (total, seen) = run(10, false);
            assert_eq!(total, expected(10), "run {r}");
            seen == HashSet::from([me])
        })
        .count();
    assert!(alone >= 15, "a tiny loop ran alone in {alone} of 20 runs");

    // The same loop with dear iterates (8 × 300 µs): the first such run most likely runs alone
    // (its last run was tiny); it measures the loop dear, so the runs after it are shared again.
    assert_eq!(run(8, true).0, expected(8));
    let shared = (0..10).filter(|_| {
        let (total, seen) = run(8, true);
        assert_eq!(total, expected(8));
        seen.len() == 2
    });
    assert!(
        shared.count() >= 1,
        "a dear loop was never shared in 10 runs"
    );

    // A loop whose report is read is always shared: its report says so.
    let rt = dls::current().unwrap();
    for r in 0..5 {
        let (total, stats) = rt
            .doall_reduce(
                "reported",
                0..10u64,
                "fac2".parse().unwrap(),
                || 0u64,
                |i, s| *s += i,
                |a, b| a + b,
            )
            .unwrap();
        assert_eq!((total, stats.report.p), (expected(10), 2), "run {r}");
    }
}
