//! `gather(out)` written in place (issue 29): a loop whose body uses `out` only at the loop's own
//! index (`out[i]`) and that runs each iterate once on this process's threads writes its elements
//! where they are, as the serial loop does; any other loop logs its writes and scatters them
//! after the loop. Both give the serial result. Which way a loop went is seen through the element
//! type's `clone`, which only the log calls (it copies an element before an iterate changes it).

use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

static CLONES: AtomicU64 = AtomicU64::new(0);

/// An element that counts its clones.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Counted(u64);

impl Clone for Counted {
    fn clone(&self) -> Self {
        CLONES.fetch_add(1, Ordering::Relaxed);
        Counted(self.0)
    }
}

/// Writes at the loop's index; `shared(calls)` turns re-execution off for the loop, so that it
/// runs each iterate once: written in place.
#[dls::parallel]
fn squares_in_place(n: usize, calls: &AtomicU64) -> Vec<Counted> {
    let mut out: Vec<Counted> = (0..n as u64).map(Counted).collect();
    #[par_doall(schedule = "ss", gather(out), shared(calls))]
    for i in 0..n {
        calls.fetch_add(1, Ordering::Relaxed);
        out[i].0 = out[i].0 * out[i].0 + 1;
    }
    out
}

/// The same loop with re-execution at its default: a body that reads the element it writes
/// would be logged under re-execution (a copy of a chunk could run beside its original), so
/// such a loop does not re-execute by default (issue 42) and writes in place.
#[dls::parallel]
fn squares_default(n: usize) -> Vec<Counted> {
    let mut out: Vec<Counted> = (0..n as u64).map(Counted).collect();
    #[par_doall(schedule = "fac2", gather(out))]
    for i in 0..n {
        out[i].0 = out[i].0 * out[i].0 + 1;
    }
    out
}

/// Only assigns at the loop's index, re-execution at its default (on): the first execution of
/// each iterate writes in place, a copy would log.
#[dls::parallel]
fn squares_assigned(n: usize) -> Vec<Counted> {
    let mut out: Vec<Counted> = (0..n as u64).map(Counted).collect();
    #[par_doall(schedule = "fac2", gather(out))]
    for i in 0..n {
        let x = i as u64;
        out[i] = Counted(x * x + 1);
    }
    out
}

/// Writes at another element than the loop's index: logged (and checked) whatever the settings.
#[dls::parallel]
fn shifted(n: usize, calls: &AtomicU64) -> Vec<Counted> {
    let mut out: Vec<Counted> = (0..n as u64).map(Counted).collect();
    #[par_doall(schedule = "ss", gather(out), shared(calls))]
    for i in 0..n - 1 {
        calls.fetch_add(1, Ordering::Relaxed);
        out[i + 1].0 += 10;
    }
    out
}

fn serial(n: usize) -> Vec<Counted> {
    (0..n as u64).map(|i| Counted(i * i + 1)).collect()
}

/// One test, so that the clone counts are not mixed with another test's.
#[test]
fn writes_at_the_index_go_in_place_when_iterates_run_once() {
    if std::env::var_os("DLS_REEXECUTE").is_some() || std::env::var_os("DLS_CHECKPOINT").is_some() {
        // The environment decides otherwise; the results are checked by the other tests.
        return;
    }
    let calls = AtomicU64::new(0);
    for n in [0usize, 1, 7, 5000] {
        CLONES.store(0, Ordering::Relaxed);
        assert_eq!(squares_in_place(n, &calls), serial(n), "n = {n}");
        assert_eq!(
            CLONES.load(Ordering::Relaxed),
            0,
            "in place: no element logged"
        );

        CLONES.store(0, Ordering::Relaxed);
        assert_eq!(squares_default(n), serial(n), "n = {n}");
        assert_eq!(
            CLONES.load(Ordering::Relaxed),
            0,
            "read in place, re-execution at its default: off for this loop, in place"
        );
    }
    for n in [0usize, 1, 7, 5000] {
        CLONES.store(0, Ordering::Relaxed);
        assert_eq!(squares_assigned(n), serial(n), "n = {n}");
        assert_eq!(
            CLONES.load(Ordering::Relaxed),
            0,
            "only assigned, re-execution on: first executions write in place"
        );
    }
    CLONES.store(0, Ordering::Relaxed);
    let got = shifted(100, &calls);
    let want: Vec<Counted> = (0..100)
        .map(|i| Counted(if i == 0 { 0 } else { i + 10 }))
        .collect();
    assert_eq!(got, want);
    assert!(
        CLONES.load(Ordering::Relaxed) >= 99,
        "another element: logged"
    );
}

/// An index past the end panics as the serial loop's does, naming the length and the index.
#[dls::parallel]
fn past_the_end(n: usize, calls: &AtomicU64) -> Vec<u32> {
    let mut out = vec![0_u32; n];
    #[par_doall(schedule = "ss", gather(out), shared(calls))]
    for i in 0..n + 1 {
        calls.fetch_add(1, Ordering::Relaxed);
        out[i] = 1;
    }
    out
}

#[test]
fn an_index_past_the_end_panics_as_serially() {
    let calls = AtomicU64::new(0);
    let e = std::panic::catch_unwind(|| past_the_end(10, &calls)).unwrap_err();
    let text = e
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(
        text.contains("index out of bounds: the len is 10 but the index is 10"),
        "{text}"
    );
}

/// Iterate `stall` sleeps 300 ms the first time it runs, and that first execution then writes a
/// wrong value (`u64::MAX`) in place: by then an idle worker has run a copy of its chunk, which
/// counts, so the copy's logged values must replace it. `runs` counts the executions of
/// iterate `stall`.
/// Where `here`: counts the execution in `runs` and, the first time, sleeps 300 ms and says so.
/// (A helper one step away from the body: the macro does not see its side effects.)
fn stall_first(first: &std::sync::atomic::AtomicBool, runs: &AtomicU64, here: bool) -> bool {
    if !here {
        return false;
    }
    runs.fetch_add(1, Ordering::Relaxed);
    let stalled = first.swap(false, Ordering::Relaxed);
    if stalled {
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    stalled
}

macro_rules! assigned_with_a_stall {
    ($name:ident, $schedule:literal) => {
        #[dls::parallel]
        fn $name(
            n: usize,
            stall: usize,
            first: &std::sync::atomic::AtomicBool,
            runs: &AtomicU64,
        ) -> Vec<u64> {
            let mut out = vec![0_u64; n];
            #[par_doall(schedule = $schedule, gather(out))]
            for i in 0..n {
                let stalled = stall_first(first, runs, i == stall);
                out[i] = if stalled { u64::MAX } else { (i * i) as u64 };
            }
            out
        }
    };
}
assigned_with_a_stall!(stalled_fac2, "fac2");
assigned_with_a_stall!(stalled_ss, "ss");
assigned_with_a_stall!(stalled_gss, "gss");
assigned_with_a_stall!(stalled_af, "af");

/// Issue 29: a gathered vector the body only assigns to is written in place by first executions
/// even under re-execution; a copy logs, and where the copy counts, its values replace what the
/// discarded first execution wrote. Every element ends as the serial loop's, for techniques whose
/// chunks are claimed (SS) or served (FAC2, GSS, AF), the stall early, in the middle or last.
#[test]
fn a_copys_values_replace_a_discarded_first_execution_written_in_place() {
    use std::sync::atomic::AtomicBool;
    if std::env::var_os("DLS_REEXECUTE").is_some() || std::env::var_os("DLS_CHECKPOINT").is_some() {
        return;
    }
    let workers = dls::init().unwrap().workers();
    type Way = fn(usize, usize, &AtomicBool, &AtomicU64) -> Vec<u64>;
    let ways: [(&str, Way); 4] = [
        ("fac2", stalled_fac2),
        ("ss", stalled_ss),
        ("gss", stalled_gss),
        ("af", stalled_af),
    ];
    for (name, way) in ways {
        for (n, stall) in [(2000usize, 0usize), (2000, 1000), (2000, 1999), (3, 1)] {
            // A loop that finds the pool busy (another test's loop) runs on its thread alone,
            // without copies: the case is tried again until a copy ran (large loops, several
            // workers), every try checked.
            let mut copied = false;
            for _try in 0..5 {
                let first = AtomicBool::new(true);
                let runs = AtomicU64::new(0);
                let got = way(n, stall, &first, &runs);
                // With one execution of the stalled iterate (no copy), that execution counts,
                // with its value.
                let runs = runs.load(Ordering::Relaxed);
                let want: Vec<u64> = (0..n as u64)
                    .map(|i| {
                        if runs == 1 && i == stall as u64 {
                            u64::MAX
                        } else {
                            i * i
                        }
                    })
                    .collect();
                assert!(
                    got == want,
                    "{name}, n = {n}, stall at {stall}: elements {:?} differ ({runs} runs of the \
                     stalled iterate)",
                    got.iter()
                        .zip(&want)
                        .enumerate()
                        .filter(|(_, (a, b))| a != b)
                        .map(|(k, (a, _))| (k, *a))
                        .take(5)
                        .collect::<Vec<_>>(),
                );
                copied = runs >= 2;
                if copied || workers == 1 || n <= 100 {
                    break;
                }
            }
            assert!(
                copied || workers == 1 || n <= 100,
                "{name}, n = {n}, stall at {stall}: no copy ran in 5 tries"
            );
        }
    }
}

/// `gather(v: rows(w))` (issue 42): iterate `i` owns row `i` of a grid `w` wide in one flat
/// vector. A stencil sweep that only assigns its row, with re-execution at its default: every
/// row in place in its first execution, boundary rows (no iterate's) logged.
#[dls::parallel]
fn sweep_rows(u: &[f64], n: usize, w: usize) -> Vec<f64> {
    let mut v = vec![0.0_f64; n * w];
    #[par_doall(schedule = "fac2", gather(v: rows(w)))]
    for i in 1..n - 1 {
        for j in 1..w - 1 {
            v[i * w + j] = 0.25
                * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
        }
        if i == 1 {
            // Row 0 belongs to no iterate of 1..n-1: logged, scattered after the loop.
            v[0] = 1.0;
        }
    }
    v
}

/// The same rows read and updated (`+=`), their elements counting clones: in place (no clone)
/// where iterates run once (`shared(calls)` turns re-execution off), logged otherwise.
#[dls::parallel]
fn scale_rows(n: usize, w: usize, calls: &AtomicU64) -> Vec<Counted> {
    let mut v: Vec<Counted> = (0..(n * w) as u64).map(Counted).collect();
    #[par_doall(schedule = "ss", gather(v: rows(w)), shared(calls))]
    for i in 0..n {
        calls.fetch_add(1, Ordering::Relaxed);
        for j in 0..w {
            v[i * w + j].0 = v[i * w + j].0 * 3 + i as u64;
        }
    }
    v
}

/// Iterate 2 writes into row 1, which iterate 1 owns.
#[dls::parallel]
fn into_anothers_row(n: usize, w: usize) -> Vec<u8> {
    let mut v = vec![0_u8; n * w];
    #[par_doall(schedule = "ss", gather(v: rows(w)))]
    for i in 0..n {
        v[i * w] = 1;
        if i == 2 {
            v[w] = 2;
        }
    }
    v
}

#[test]
fn rows_of_a_flat_grid_are_written_in_place() {
    let (n, w) = (50, 17);
    let u: Vec<f64> = (0..n * w).map(|k| (k % 13) as f64).collect();
    let mut want = vec![0.0_f64; n * w];
    for i in 1..n - 1 {
        for j in 1..w - 1 {
            want[i * w + j] = 0.25
                * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
        }
    }
    want[0] = 1.0;
    assert_eq!(sweep_rows(&u, n, w), want);

    let calls = AtomicU64::new(0);
    CLONES.store(0, Ordering::Relaxed);
    let got = scale_rows(n, w, &calls);
    let want: Vec<Counted> = (0..(n * w) as u64)
        .map(|k| Counted(k * 3 + k / w as u64))
        .collect();
    assert_eq!(got, want);
    if std::env::var_os("DLS_REEXECUTE").is_none() && std::env::var_os("DLS_CHECKPOINT").is_none() {
        assert_eq!(
            CLONES.load(Ordering::Relaxed),
            0,
            "rows in place: nothing logged"
        );
    }

    let refused = std::panic::catch_unwind(|| into_anothers_row(4, 3));
    let why = refused.expect_err("a write into another iterate's row is refused");
    let text = why
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| why.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(text.contains("block of iterate 1"), "{text}");
}
