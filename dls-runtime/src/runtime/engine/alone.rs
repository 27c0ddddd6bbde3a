//! Loops too small to share (threads backend). Handing a loop to the pool costs its threads a
//! wake-up, the scheduler's lock passed between them and a join: about 7 µs on 2 threads here
//! (`loop_fixed_cost`: a 10-iterate loop, 10.7 µs on 2 threads against 3.6 µs on the calling
//! thread alone), whatever the loop's work. A loop whose work is below that gains nothing from
//! being shared, as OpenMP programmers say with `if(n > …)` on the loops they know to be small.
//!
//! dls learns it per call site instead: a `#[par_doall]` loop whose report nobody reads (no
//! `DLS_REPORT`, no `auto`, no technique that learns across loops) records the work its run did
//! per iterate (its workers' summed chunk times) under its name; its next run, if that work
//! times its iterate count predicts less than [`ALONE_BELOW`], runs on the calling thread alone
//! (a scheduler of one worker: the same chunks, results and panics), and records its work again,
//! so a loop whose iterates became dear is shared from the run after. The first run of a call
//! site is always shared. Not on MPI (a loop there is every rank's), nor for checked loops, loops
//! with checkpoints, fault injection, or when `DLS_DELAY` is set (a scalability test).

use crate::runtime::annotate::sync::Mutex;
use std::collections::HashMap;
use std::time::Duration;

use crate::runtime::sync::lock;

/// Below this much predicted work a loop runs on its calling thread alone: the loop's work must
/// be worth more than sharing it costs (about 7 µs on 2 threads here, see the module docs), and
/// a loop of twice that shared by 2 threads saves about as much as the sharing costs.
pub(crate) const ALONE_BELOW: Duration = Duration::from_micros(10);

/// Whether `DLS_DELAY` is set, even empty (read once): a scalability test (`dls scaltest`) sets
/// it in every run, its runs without a delay too, and compares their times, so loops there must
/// be shared in every run alike.
pub(crate) fn delay_set() -> bool {
    crate::runtime::observe::delay::variable_set()
}

/// Per loop name: the work of its last run per iterate, in seconds.
static WORK: Mutex<Option<HashMap<String, f64>>> = Mutex::new(None);

/// Whether loop `name` of `n` iterates is predicted to do less than [`ALONE_BELOW`] of work,
/// from its last run (never for a loop not run before).
pub(crate) fn predicts_small(name: &str, n: u64) -> bool {
    let work = lock(&WORK);
    work.as_ref()
        .and_then(|w| w.get(name))
        .is_some_and(|&per_iterate| per_iterate * (n as f64) < ALONE_BELOW.as_secs_f64())
}

/// Records the work (`work_s`, the workers' summed chunk times) of a run of loop `name` over `n`
/// iterates.
pub(crate) fn record(name: &str, n: u64, work_s: f64) {
    if n == 0 {
        return;
    }
    let per_iterate = work_s / n as f64;
    let mut work = lock(&WORK);
    let work = work.get_or_insert_with(HashMap::new);
    match work.get_mut(name) {
        Some(w) => *w = per_iterate,
        None => {
            work.insert(name.to_string(), per_iterate);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loop is small once a run measured it so, and shared again once a run measured it dear.
    #[test]
    fn a_loop_is_small_from_the_run_after_one_that_was() {
        let name = "alone.rs test loop";
        assert!(!predicts_small(name, 10), "never run: shared");
        record(name, 10, 1e-7);
        assert!(predicts_small(name, 10));
        // The same iterates, a thousand times as many: 10 ms predicted.
        assert!(!predicts_small(name, 10_000_000));
        record(name, 10, 1e-3);
        assert!(!predicts_small(name, 10));
        record(name, 0, 0.0);
        assert!(!predicts_small(name, 10), "an empty run says nothing");
    }
}
