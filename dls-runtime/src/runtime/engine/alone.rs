//! Loops too small to share (threads backend). Handing a loop to the pool costs its threads a
//! wake-up, the scheduler's lock passed between them and a join: about 7 µs on 2 threads here
//! (`loop_fixed_cost`: a 10-iterate loop, 10.7 µs on 2 threads against 3.6 µs on the calling
//! thread alone), whatever the loop's work. A loop whose work is below that gains nothing from
//! being shared, as OpenMP programmers say with `if(n > …)` on the loops they know to be small.
//!
//! dls learns it per call site instead: a `#[par_doall]` loop whose report nobody reads (no
//! `DLS_REPORT`, no `auto`, no technique that learns across loops) records how long its run took
//! on the calling thread, per iterate, shared or alone. Its next run runs on the calling thread
//! alone (a scheduler of one worker: the same chunks, results and panics) when its runs alone
//! took less than its shared runs, and is tried alone (twice) when it did not run alone yet and
//! a shared run took less than [`TRY_BELOW`] ([`runs_alone`]). Each side counts the cheaper of its last two
//! runs: noise only ever makes a run look dearer (the machine interrupting it), so one slow run
//! does not flip the choice. A loop whose iterates became dear runs alone twice more (both
//! measured dear) and is shared from then on; a shared loop under [`TRY_BELOW`] is tried alone
//! again after [`RETRY_FIRST`] shared runs, then after twice as many each time alone lost, up to
//! [`RETRY_MOST`] (its iterates may have become cheaper, or the runs alone were slowed). Both sides are measured on this machine and build
//! (a debug build's sharing costs several times a release build's), so the choice is the
//! faster of the two, not a fixed bound. The first run of a call site is always shared. Not on
//! MPI (a loop there is every rank's), nor for checked loops, loops with checkpoints, fault
//! injection, or when `DLS_DELAY` is set (a scalability test).

use crate::runtime::annotate::sync::Mutex;
use std::collections::HashMap;
use std::time::Duration;

use crate::runtime::sync::lock;

/// A loop that never ran alone is tried alone once a shared run of it took less than this:
/// sharing costs about 7 µs on 2 threads in a release build here (see the module docs), so a
/// loop's own work is at most a few times that; a trial of a loop that is not worth it costs one
/// run at most this much longer. A debug build's runtime costs about ten times as much (a loop
/// of 40 cheap iterates on 2 threads took 45–50 µs alone and 60–145 µs shared), and its bound is
/// ten times as high.
pub(crate) const TRY_BELOW: Duration = if cfg!(debug_assertions) {
    Duration::from_millis(1)
} else {
    Duration::from_micros(100)
};

/// A loop that its runs chose to share, whose shared runs take less than [`TRY_BELOW`], is tried
/// alone again after this many shared runs, then after twice as many each time alone lost again
/// (a debug build's runs alone took 31 µs against 45 µs shared, and a slowed run alone loses).
pub(crate) const RETRY_FIRST: u32 = 4;

/// The most shared runs between two tries alone: at most one run in this many is the slower way.
pub(crate) const RETRY_MOST: u32 = 256;

/// Whether `DLS_DELAY` is set, even empty (read once): a scalability test (`dls scaltest`) sets
/// it in every run, its runs without a delay too, and compares their times, so loops there must
/// be shared in every run alike.
pub(crate) fn delay_set() -> bool {
    crate::runtime::observe::delay::variable_set()
}

/// What is known of a loop: the time per iterate of its last two runs alone and shared (in
/// seconds, infinite where there was none), the runs since it last ran alone, and after how many
/// it is tried alone again.
#[derive(Debug, Clone, Copy)]
struct Runs {
    alone: [f64; 2],
    shared: [f64; 2],
    since_alone: u32,
    retry_after: u32,
}

impl Runs {
    /// The faster of the last two runs alone and shared, per iterate.
    fn best(&self) -> (f64, f64) {
        (
            self.alone[0].min(self.alone[1]),
            self.shared[0].min(self.shared[1]),
        )
    }
}

/// Per loop name, what its runs measured.
static RUNS: Mutex<Option<HashMap<String, Runs>>> = Mutex::new(None);

/// Whether loop `name`'s next run, of `n` iterates, runs on the calling thread alone (never for
/// a loop not run before; see the module docs).
pub(crate) fn runs_alone(name: &str, n: u64) -> bool {
    let runs = lock(&RUNS);
    let Some(r) = runs.as_ref().and_then(|r| r.get(name)) else {
        return false;
    };
    let (alone, shared) = r.best();
    let cheap_shared = shared * (n as f64) < TRY_BELOW.as_secs_f64();
    if r.alone[1].is_infinite() {
        // Tried alone in two runs before the choice: a first run alone runs code this thread
        // has not run yet (a debug build's first run alone measured 58–68 µs, its next ones
        // 31 µs, against 45 µs shared).
        return cheap_shared;
    }
    alone < shared || (cheap_shared && r.since_alone >= r.retry_after)
}

/// Records a run of loop `name` over `n` iterates that took `took_s` on its calling thread,
/// `alone` or shared.
pub(crate) fn record(name: &str, n: u64, took_s: f64, alone: bool) {
    if n == 0 {
        return;
    }
    let per_iterate = took_s / n as f64;
    let mut runs = lock(&RUNS);
    let runs = runs.get_or_insert_with(HashMap::new);
    let r = match runs.get_mut(name) {
        Some(r) => r,
        None => runs.entry(name.to_string()).or_insert(Runs {
            alone: [f64::INFINITY; 2],
            shared: [f64::INFINITY; 2],
            since_alone: 0,
            retry_after: RETRY_FIRST,
        }),
    };
    let side = if alone { &mut r.alone } else { &mut r.shared };
    *side = [per_iterate, side[0]];
    if alone {
        r.since_alone = 0;
        let (alone, shared) = r.best();
        r.retry_after = if alone < shared {
            RETRY_FIRST
        } else {
            (r.retry_after * 2).min(RETRY_MOST)
        };
    } else {
        r.since_alone = r.since_alone.saturating_add(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A loop never run is shared; a cheap shared run is tried alone; the faster side wins, one
    /// slow run does not flip it, two do; a loop shared for good is tried alone again.
    #[test]
    fn the_faster_side_runs_and_one_slow_run_does_not_flip_it() {
        let name = "alone.rs test loop";
        assert!(!runs_alone(name, 10), "never run: shared");
        record(name, 10, 1e-3, false);
        assert!(!runs_alone(name, 10), "a dear shared run: shared");
        record(name, 10, 20e-6, false);
        assert!(runs_alone(name, 10), "a cheap shared run: tried alone");
        // The same iterates, a thousand times as many: 20 ms predicted shared, not tried.
        assert!(!runs_alone(name, 10_000));
        record(name, 10, 40e-6, true);
        assert!(
            runs_alone(name, 10),
            "one slow first run alone: tried again"
        );
        record(name, 10, 3e-6, true);
        assert!(runs_alone(name, 10), "alone was faster");
        record(name, 10, 1e-3, true);
        assert!(runs_alone(name, 10), "one slow run alone: still alone");
        record(name, 10, 1e-3, true);
        assert!(!runs_alone(name, 10), "two slow runs alone: shared");
        record(name, 0, 0.0, false);
        assert!(!runs_alone(name, 10), "an empty run says nothing");
        // Cheap shared runs: tried alone after 8 of them (the run that made alone lose counts
        // as a try), then after 16, 32, ... while alone loses, and after 8 again once it won
        // (4 after a win, doubled by the losing run).
        let shared_runs_until_tried = || {
            let mut k = 0;
            while !runs_alone(name, 10) {
                record(name, 10, 20e-6, false);
                k += 1;
            }
            k
        };
        assert_eq!(shared_runs_until_tried(), 2 * RETRY_FIRST);
        record(name, 10, 1e-3, true);
        assert_eq!(shared_runs_until_tried(), 4 * RETRY_FIRST);
        record(name, 10, 1e-3, true);
        assert_eq!(shared_runs_until_tried(), 8 * RETRY_FIRST);
        record(name, 10, 3e-6, true);
        assert!(runs_alone(name, 10), "alone faster again");
        record(name, 10, 1e-3, true);
        record(name, 10, 1e-3, true);
        assert_eq!(shared_runs_until_tried(), 2 * RETRY_FIRST, "alone had won");
    }
}
