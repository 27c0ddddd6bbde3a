//! The fold finish: each worker leaves its value in its slot, and the values are folded after
//! the loop in worker order, then across processes (`combine_partials`). A loop of one or two
//! workers, one without a value, and one under `DLS_DELAY` (whose fold a scalability test
//! perturbs) finish this way.

use crate::report::ReductionReport;
use crate::runtime::engine::plan::Reach;
use crate::runtime::loops::handle::Loop;
use crate::runtime::loops::range::LoopIndex;
use crate::runtime::Exchange;

/// The processes `lp`'s values are combined across: every process of the loop for a loop with a
/// result, none for a `doall`'s (each process keeps its own).
pub(crate) fn across<I: LoopIndex>(lp: &Loop<I>, reach: Reach) -> Option<&dyn Exchange> {
    match reach {
        Reach::AllProcesses => lp.core().source().exchange(),
        Reach::ThisProcess => None,
    }
}

/// The values to fold: the workers' (in worker order) and then the restored results no worker
/// started from (worker 0 took no chunk: a repair).
pub(crate) fn with_restored<T>(mut values: Vec<Option<T>>, restored: Option<T>) -> Vec<Option<T>> {
    if let Some(v) = restored {
        values.push(Some(v));
    }
    values
}

/// Adds `merges` merges of `seconds` in all, done in this process, to `reduction`'s mean.
pub(crate) fn add_merges(reduction: &mut ReductionReport, merges: u64, seconds: f64) {
    let total = reduction.merge_time_s * reduction.merges as f64 + seconds;
    reduction.merges += merges;
    reduction.merge_time_s = total / reduction.merges as f64;
}
