//! Loops too small to share (issue 29, `dls-runtime/src/runtime/loops/alone.rs`): on the threads
//! backend, a `#[par_doall]` loop whose last run did less than 10 µs of work runs on the calling
//! thread alone, with the serial result; a loop whose iterates are dear stays shared, and one
//! whose iterates became dear is shared again from the run after; loops whose report is read
//! (`doall_reduce` returns it) are always shared.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The next thread's bit in a run's set of threads.
static NEXT_BIT: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread's bit (each thread of the process has its own, given on its first use).
    static BIT: u64 = 1 << NEXT_BIT.fetch_add(1, Ordering::Relaxed);
}

/// The sum of `0..n`, each iterate setting its thread's bit in `seen` and, if `dear`, sleeping
/// 300 µs. Noting a thread costs one atomic `or`: the loop's cheap iterates stay cheap in a debug
/// build too (a mutex and a `HashSet` insert per thread measured the shared runs at 11–14 µs of
/// work here, above the 10 µs under which a loop runs alone, and the test failed half its runs).
#[dls::parallel]
fn sum(n: u64, dear: bool, seen: &AtomicU64) -> u64 {
    let mut total = 0;
    #[par_doall(schedule = "fac2", reduce(+: total), shared(seen))]
    for i in 0..n {
        seen.fetch_or(BIT.with(|b| *b), Ordering::Relaxed);
        if dear {
            std::thread::sleep(Duration::from_micros(300));
        }
        total += i;
    }
    total
}

/// The set of threads (bits) that ran a run of [`sum`], and its result.
fn run(n: u64, dear: bool) -> (u64, u64) {
    let seen = AtomicU64::new(0);
    let total = sum(n, dear, &seen);
    (total, seen.into_inner())
}

#[test]
fn tiny_loops_run_alone_and_dear_ones_are_shared() {
    // The only test of this binary: the thread count is read once per process.
    std::env::set_var("DLS_THREADS", "2");
    std::env::remove_var("DLS_REPORT");
    std::env::remove_var("DLS_DELAY");
    let me = BIT.with(|b| *b);
    let expected = |n: u64| n * (n - 1) / 2;

    // The first run is shared (nothing is known of the loop; it also starts the pool, which may
    // make it longer than 10 µs); within a few runs the loop's 10 cheap iterates run on this
    // thread alone, and then in every run. A debug build's shared runs measure 6–13 µs of work
    // here, close to the 10 µs bound, so the loop is given 10 runs to settle.
    let settled = (0..10).position(|_| {
        let (total, seen) = run(10, false);
        assert_eq!(total, expected(10));
        seen == me
    });
    assert!(settled.is_some(), "a tiny loop never ran alone in 10 runs");
    // A run alone that the machine interrupts measures the loop dear and the next run is
    // shared (noise only ever makes a loop look dearer): most runs, not all, run alone.
    let alone = (0..20)
        .filter(|r| {
            let (total, seen) = run(10, false);
            assert_eq!(total, expected(10), "run {r}");
            seen == me
        })
        .count();
    assert!(alone >= 15, "a tiny loop ran alone in {alone} of 20 runs");

    // The same loop with dear iterates (8 × 300 µs): the first such run most likely runs alone
    // (its last run was tiny); it measures the loop dear, so the runs after it are shared again.
    assert_eq!(run(8, true).0, expected(8));
    let shared = (0..10).filter(|_| {
        let (total, seen) = run(8, true);
        assert_eq!(total, expected(8));
        seen.count_ones() == 2
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
