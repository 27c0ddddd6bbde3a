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

/// The same loop with re-execution at its default (on): a copy of a chunk could run beside its
/// original, so the writes are logged.
#[dls::parallel]
fn squares_logged(n: usize) -> Vec<Counted> {
    let mut out: Vec<Counted> = (0..n as u64).map(Counted).collect();
    #[par_doall(schedule = "fac2", gather(out))]
    for i in 0..n {
        out[i].0 = out[i].0 * out[i].0 + 1;
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
        assert_eq!(squares_logged(n), serial(n), "n = {n}");
        assert!(
            CLONES.load(Ordering::Relaxed) >= n as u64,
            "logged: every element copied once at least"
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
