//! Re-execution of unfinished chunks on the threads backend (rDLB, Mohammed, Cavelan & Ciorba
//! 2019): a worker stuck in an iterate does not hold the others back, and every result counts
//! each iterate exactly once, whichever copy of its chunk finished first.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use dls::runtime::settings::Settings;
use dls::technique::Kind;
use dls::{Runtime, Technique};

/// Sum of `f(i)` and count over `0..n`, with iterate `stall` sleeping `pause` the first time it
/// runs (a worker stalled once: the copy that re-executes the chunk does not stall).
fn stalled_sum(
    rt: &Runtime,
    technique: Technique,
    n: u64,
    stall: Option<u64>,
    pause: Duration,
) -> ((u64, u64), dls::LoopReport) {
    let first = AtomicBool::new(true);
    let (v, stats) = rt
        .doall_reduce(
            "stalled",
            0..n,
            technique,
            || (0u64, 0u64),
            |i, acc| {
                if Some(i) == stall && first.swap(false, Ordering::Relaxed) {
                    std::thread::sleep(pause);
                }
                acc.0 += i * i % 1009;
                acc.1 += 1;
            },
            |a, b| (a.0 + b.0, a.1 + b.1),
        )
        .unwrap();
    (v, stats.report)
}

fn serial(n: u64) -> (u64, u64) {
    ((0..n).map(|i| i * i % 1009).sum(), n)
}

/// Property: with re-execution on (the default) and one iterate stalling its worker, every
/// technique, worker count and loop size gives the serial result, and the report counts each
/// iterate once.
#[test]
fn every_iterate_counts_once_with_stalls_for_every_technique() {
    for p in [1usize, 2, 3, 4] {
        let rt = Runtime::threads(p, Settings::default())
            .unwrap()
            .with_statistics(true);
        for kind in Kind::ALL {
            for n in [0u64, 1, 13, 600] {
                let stall = (n >= 13).then_some(n / 3);
                let (v, report) = stalled_sum(
                    &rt,
                    Technique::new(kind),
                    n,
                    stall,
                    Duration::from_millis(15),
                );
                assert_eq!(v, serial(n), "{kind:?} p={p} n={n}");
                assert_eq!(
                    report.ranks.iter().map(|r| r.iterates).sum::<u64>(),
                    n,
                    "{kind:?} p={p} n={n}"
                );
                assert_eq!(
                    report.chunk_map.iter().map(|c| c[1]).sum::<u64>(),
                    n,
                    "{kind:?} p={p} n={n}: the chunk map lists every chunk once"
                );
                let rx = report.reexecution.expect("re-execution is on by default");
                assert!(rx.complete_s.is_some() || n == 0, "{kind:?} p={p} n={n}");
            }
        }
    }
}

/// The sum of `0..n` by `technique`, iterates of 10 µs, iterate 100 stalling its worker for
/// `pause` the first time it runs.
fn stuck_sum(
    rt: &Runtime,
    name: &str,
    technique: &str,
    n: u64,
    pause: Duration,
) -> (u64, dls::LoopStats) {
    let first = AtomicBool::new(true);
    rt.doall_reduce(
        name,
        0..n,
        technique.parse().unwrap(),
        || 0u64,
        |i, s| {
            if i == 100 && first.swap(false, Ordering::Relaxed) {
                std::thread::sleep(pause);
            }
            let t = Instant::now();
            while t.elapsed() < Duration::from_micros(10) {}
            *s += i;
        },
        |a, b| a + b,
    )
    .unwrap()
}

/// A worker stuck for a long time in one iterate: the others execute a copy of its chunk, the
/// copy counts, and the stuck worker's work is discarded when it comes back.
#[test]
fn a_stuck_worker_is_covered_by_a_copy_and_its_work_discarded() {
    let rt = Runtime::threads(3, Settings::default())
        .unwrap()
        .with_statistics(true);
    let n = 3_000u64;
    let pause = Duration::from_millis(600);
    let started = Instant::now();
    let (v, stats) = stuck_sum(&rt, "stuck", "fac2", n, pause);
    let wall = started.elapsed();
    assert_eq!(v, n * (n - 1) / 2);
    let rx = stats.report.reexecution.clone().unwrap();
    assert!(rx.copies >= 1, "{rx:?}");
    assert!(
        rx.discarded_chunks >= 1,
        "the stuck worker's chunk is discarded: {rx:?}"
    );
    // Without copies the loop's iterates would be done after the 600 ms pause; with them the
    // others finish the stuck worker's chunk long before.
    let complete = rx.complete_s.unwrap();
    assert!(complete < 0.4, "complete after {complete} s: {rx:?}");
    // The call itself returns when the stuck thread comes back (a thread cannot be abandoned).
    assert!(wall >= pause);
    assert_eq!(
        stats.report.ranks.iter().map(|r| r.iterates).sum::<u64>(),
        n
    );
}

/// The same with self-scheduling, whose chunks the workers claim themselves until every chunk is
/// out (`runtime/loops/claimed.rs`): the stuck worker's chunk, claimed before the scheduler took
/// the loop's tail, is copied by the others and its own run discarded.
#[test]
fn a_stuck_claimed_chunk_is_covered_by_a_copy_and_its_work_discarded() {
    let rt = Runtime::threads(3, Settings::default())
        .unwrap()
        .with_statistics(true);
    let n = 2_000u64;
    let (v, stats) = stuck_sum(&rt, "stuck ss", "ss", n, Duration::from_millis(500));
    assert_eq!(v, n * (n - 1) / 2);
    let rx = stats.report.reexecution.clone().unwrap();
    assert!(rx.copies >= 1, "{rx:?}");
    assert!(rx.discarded_chunks >= 1, "{rx:?}");
    let complete = rx.complete_s.unwrap();
    assert!(complete < 0.3, "complete after {complete} s: {rx:?}");
    assert_eq!(
        stats.report.ranks.iter().map(|r| r.iterates).sum::<u64>(),
        n
    );
    assert_eq!(
        stats.report.chunk_map.len() as u64,
        n,
        "one chunk per iterate"
    );
}

/// `DLS_REEXECUTE=off`: no copies (the report has no `reexecution` entry); a `doall` (no result
/// that dls combines) never re-executes, since its body's own effects cannot be undone.
#[test]
fn off_and_doall_make_no_copies() {
    let off = Settings::from_lookup(|k| (k == "DLS_REEXECUTE").then(|| "off".into())).unwrap();
    let rt = Runtime::threads(2, off).unwrap().with_statistics(true);
    let (v, report) = stalled_sum(
        &rt,
        "ss".parse().unwrap(),
        50,
        Some(10),
        Duration::from_millis(20),
    );
    assert_eq!(v, serial(50));
    assert!(report.reexecution.is_none());

    let rt = Runtime::threads(2, Settings::default())
        .unwrap()
        .with_statistics(true);
    let ran = Mutex::new(Vec::new());
    let first = AtomicBool::new(true);
    let stats = rt
        .doall_named("effects", 0..40u32, "ss".parse().unwrap(), |i| {
            if i == 5 && first.swap(false, Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(30));
            }
            ran.lock().unwrap().push(i);
        })
        .unwrap();
    let ran = ran.into_inner().unwrap();
    assert_eq!(ran.len(), 40, "every iterate of a doall runs once");
    assert_eq!(ran.iter().collect::<HashSet<_>>().len(), 40);
    assert!(stats.report.reexecution.is_none());
}

/// A worker that turns ten times slower early in its first chunk: the others re-execute its late chunk and it is
/// told to stop (cancellation), so the loop returns about when the others are done, not when the
/// slow worker would have finished. Measured against the same loop with `DLS_REEXECUTE=off`.
#[test]
fn a_worker_that_turns_slow_is_not_waited_for() {
    fn run(settings: Settings) -> (u64, f64) {
        let rt = Runtime::threads(3, settings).unwrap().with_statistics(true);
        let started = Instant::now();
        let (sum, _) = rt
            .doall_reduce(
                "turns slow",
                0..3_000u64,
                "fac2".parse().unwrap(),
                || 0u64,
                |i, s| {
                    let slow = started.elapsed() > Duration::from_millis(20)
                        && dls::inject::current_worker() == Some(2);
                    std::thread::sleep(Duration::from_micros(if slow { 2_000 } else { 200 }));
                    *s += i;
                },
                |a, b| a + b,
            )
            .unwrap();
        (sum, started.elapsed().as_secs_f64())
    }
    let off = Settings::from_lookup(|k| (k == "DLS_REEXECUTE").then(|| "off".into())).unwrap();
    let (sum_on, on) = run(Settings::default());
    let (sum_off, off) = run(off);
    assert_eq!(sum_on, 3_000 * 2_999 / 2);
    assert_eq!(sum_off, sum_on);
    eprintln!("turns slow: {on:.3} s with re-execution, {off:.3} s without");
    assert!(
        on * 1.3 < off,
        "{on:.3} s with re-execution, {off:.3} s without"
    );
}

/// A worker whose chunk was completed by a copy stops within an iterate or so, even when its
/// earlier iterates were cheap and these are dear (cost that follows the index): on threads the
/// question "was my chunk done by others?" is one atomic load after every iterate. Iterates
/// below 1000 take 2 µs, the others 200 µs; iterate 1500 stalls its worker 300 ms once, the
/// other finishes its chunk meanwhile, and the stalled worker, resuming in the middle of it,
/// drops the rest (about 100 ms of iterates) instead of running it. (Benchmark (c) measured
/// what a stride learnt on cheap iterates cost a copy of dear ones: FAC2 on Mandelbrot rows lost
/// 20% to a copy that ran to its end after the original had finished.)
#[test]
fn a_redundant_chunk_of_dear_iterates_stops_at_once() {
    let rt = Runtime::threads(2, Settings::default())
        .unwrap()
        .with_statistics(true);
    let n = 2_000u64;
    let pause = Duration::from_millis(300);
    let first = AtomicBool::new(true);
    let resumed = Mutex::new(None::<Instant>);
    let (v, stats) = rt
        .doall_reduce(
            "dear tail",
            0..n,
            "fac2".parse().unwrap(),
            || 0u64,
            |i, s| {
                if i == 1500 && first.swap(false, Ordering::Relaxed) {
                    std::thread::sleep(pause);
                    *resumed.lock().unwrap() = Some(Instant::now());
                }
                if i < 1000 {
                    let t = Instant::now();
                    while t.elapsed() < Duration::from_micros(2) {}
                } else {
                    std::thread::sleep(Duration::from_micros(200));
                }
                *s += i;
            },
            |a, b| a + b,
        )
        .unwrap();
    let returned = Instant::now();
    assert_eq!(v, n * (n - 1) / 2);
    let after = returned
        .duration_since(resumed.into_inner().unwrap().unwrap())
        .as_secs_f64();
    let rx = stats.report.reexecution.clone().unwrap();
    assert!(rx.copies >= 1, "{rx:?}");
    let complete = rx.complete_s.unwrap();
    eprintln!("dear tail: every iterate done at {complete:.3} s; the loop returned {after:.4} s after the stalled worker resumed");
    // The call returns when the stalled thread comes back (a thread cannot be abandoned); it
    // then drops its chunk at once instead of running its ~100 ms of iterates.
    assert!(
        after < 0.03,
        "returned {after:.4} s after the stalled worker resumed: {rx:?}"
    );
}

/// Sleeps long on the thread that started the loop (worker 0: 100 times slower than the others),
/// so that idle workers would copy its chunks if the loop re-executed.
fn uneven(slow: std::thread::ThreadId) {
    if std::thread::current().id() == slow {
        std::thread::sleep(Duration::from_micros(5000));
    } else {
        std::thread::sleep(Duration::from_micros(50));
    }
}

/// A helper one step away from the body: the macro cannot see its side effect.
fn record(log: &Mutex<Vec<u64>>, i: u64) {
    log.lock().unwrap().push(i);
}

#[dls::parallel]
fn clause_less(n: u64, log: &Mutex<Vec<u64>>, slow: std::thread::ThreadId) {
    #[par_doall(schedule = "fac2")]
    for i in 0..n {
        uneven(slow);
        record(log, i);
    }
}

#[dls::parallel]
fn with_shared(n: u64, counter: &std::sync::atomic::AtomicU64, slow: std::thread::ThreadId) -> u64 {
    let mut sum = 0u64;
    #[par_doall(schedule = "fac2", reduce(+: sum), shared(counter))]
    for i in 0..n {
        uneven(slow);
        counter.fetch_add(1, Ordering::Relaxed);
        sum += i;
    }
    sum
}

/// Issue 27 case 3: a `#[par_doall]` loop without a result never re-executes, so a side effect of
/// its body (here a helper appending to a log; in the report, a file) happens once per iterate;
/// a loop with `shared(...)` variables does not re-execute either, so a shared counter counts
/// each iterate once. Before, with worker 0 100 times slower, 11-12 of 400 indices were
/// appended twice and the shared counter read 411-412.
#[test]
fn loops_without_a_result_or_with_shared_variables_never_repeat_an_iterate() {
    let slow = std::thread::current().id();
    for _ in 0..3 {
        let log = Mutex::new(Vec::new());
        clause_less(400, &log, slow);
        let mut seen = log.into_inner().unwrap();
        seen.sort_unstable();
        let before = seen.len();
        seen.dedup();
        let counter = std::sync::atomic::AtomicU64::new(0);
        let sum = with_shared(400, &counter, slow);
        let counted = counter.into_inner();
        assert!(
            before == seen.len() && counted == 400,
            "{} of 400 iterates of the clause-less loop ran twice; the shared counter read \
             {counted} of 400",
            before - seen.len()
        );
        assert_eq!(seen, (0..400).collect::<Vec<u64>>());
        assert_eq!(sum, 399 * 400 / 2);
    }
}

/// Sleeps 200 ms the first time `here` holds.
fn stall_once(first: &AtomicBool, here: bool) {
    if here && first.swap(false, Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[dls::parallel]
fn ss_sum_with_a_stuck_iterate(n: u64, stuck: u64, first: &AtomicBool) -> u64 {
    let mut sum = 0u64;
    #[par_doall(schedule = "ss", reduce(+: sum))]
    for i in 0..n {
        stall_once(first, i == stuck);
        sum += i;
    }
    sum
}

/// A `#[par_doall]` self-scheduling loop without `DLS_REPORT` reads the clock at some claims
/// only (`runtime/loops/claimed.rs`, `ClaimClock`): with an iterate stuck early, in the middle
/// or last (then in the loop's tail, which the scheduler takes over with the chunks' hand-out
/// times as last read), every iterate still counts once.
#[test]
fn an_untimed_claimed_loop_with_a_stuck_iterate_counts_every_iterate_once() {
    for n in [1u64, 13, 600, 100_000] {
        for stuck in [0, n / 2, n - 1] {
            let first = AtomicBool::new(true);
            let sum = ss_sum_with_a_stuck_iterate(n, stuck, &first);
            assert_eq!(sum, n * (n - 1) / 2, "n = {n}, stuck iterate {stuck}");
        }
    }
}
