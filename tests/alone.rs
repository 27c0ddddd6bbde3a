//! Loops too small to share (issue 29, `dls-runtime/src/runtime/engine/alone.rs`): on the threads
//! backend, a `#[par_doall]` loop of cheap iterates, which runs faster alone than shared, runs on
//! the calling thread alone, with the serial result; a loop whose iterates are dear stays
//! shared, and one whose iterates became dear is shared again after two runs; loops whose report is read
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
/// build too.
#[dls::parallel]
fn sum(n: u64, dear: bool, seen: &AtomicU64) -> u64 {
    let mut total = 0;
    #[par_doall(schedule = "ss", reduce(+: total), shared(seen))]
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
    // SAFETY: this binary's only test, before its runtime starts: the harness's other
    // thread only waits, and std's own reads take its environment lock.
    unsafe {
        std::env::set_var("DLS_THREADS", "2");
        std::env::remove_var("DLS_REPORT");
        std::env::remove_var("DLS_DELAY");
    }
    let me = BIT.with(|b| *b);
    let expected = |n: u64| n * (n - 1) / 2;

    // The first run is shared (nothing is known of the loop; it also starts the pool); the
    // next is tried alone (the shared run took less than 100 µs, after the pool's start), runs
    // faster so, and the loop runs alone from then on. A shared run in which this thread took
    // every chunk also looks alone from here: three alone in a row settle it.
    let mut in_a_row = 0;
    let settled = (0..30).position(|_| {
        let (total, seen) = run(40, false);
        assert_eq!(total, expected(40));
        in_a_row = if seen == me { in_a_row + 1 } else { 0 };
        in_a_row == 3
    });
    assert!(
        settled.is_some(),
        "a tiny loop never ran alone 3 times in a row in 30 runs"
    );
    // A run alone that the machine interrupts measures the loop slower; the faster of the last
    // two runs of each way counts, so it takes two such runs in a row to share the next: most
    // runs, not all, run alone. (When a loop ran alone below a fixed 10 µs of measured work, a
    // debug build's shared runs measured 6–15 µs and CI's machine shared 19 of 20 runs.)
    let runs: Vec<bool> = (0..20)
        .map(|r| {
            let (total, seen) = run(40, false);
            assert_eq!(total, expected(40), "run {r}");
            seen == me
        })
        .collect();
    let alone = runs.iter().filter(|a| **a).count();
    let pattern: String = runs.iter().map(|a| if *a { 'a' } else { 's' }).collect();
    assert!(
        alone >= 15,
        "a tiny loop ran alone in {alone} of 20 runs ({pattern}: a alone, s shared)"
    );

    // The same loop with dear iterates (8 × 300 µs): the first two such runs most likely run
    // alone (the faster of the last two runs alone was tiny); they measure the loop slower alone
    // than its shared runs, so the runs after them are shared again.
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
    let rt = dls::current().unwrap().with_statistics(true);
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
