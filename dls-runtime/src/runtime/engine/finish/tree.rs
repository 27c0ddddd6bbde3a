//! The tree finish: the workers merge their values as a tree as they end
//! (`combine/workers.rs`), so that the merges overlap the loop's last chunks; what the tree left
//! is then combined across processes.

use super::fold::add_merges;
use crate::report::ReductionReport;
use crate::runtime::combine::workers::WorkerTree;
use crate::runtime::engine::drive::chunk::Failure;
use crate::runtime::loops::handle::{Loop, Panics};
use crate::runtime::loops::panic_ctx;
use crate::runtime::loops::range::LoopIndex;

/// Worker `slot`'s `value` goes up the tree; a merge that panics stops the loop and comes back
/// as the worker's failure (with [`Panics::Unwind`] it unwinds).
pub(crate) fn arrive<I: LoopIndex, T>(
    tree: &WorkerTree<T>,
    lp: &Loop<I>,
    slot: usize,
    value: T,
    combine: &dyn Fn(T, T) -> T,
    panics: Panics,
) -> Result<(), Failure> {
    let _names = panic_ctx::merges_of(lp.core().name.clone());
    let _merging = panic_ctx::merging();
    if panics == Panics::Unwind {
        tree.arrive(slot, value, combine);
        return Ok(());
    }
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tree.arrive(slot, value, combine)
    }))
    .map_err(|payload| {
        lp.abort();
        Failure {
            merging: true,
            worker: slot,
            iterate: String::new(),
            message: panic_ctx::payload_text(payload.as_ref()),
        }
    })
}

/// Adds the tree's merges to `reduction` and says how one process combined.
pub(crate) fn report(reduction: &mut ReductionReport, merged: Option<(u64, f64)>) {
    let Some((merges, seconds)) = merged.filter(|&(merges, _)| merges > 0) else {
        return;
    };
    add_merges(reduction, merges, seconds);
    if reduction.strategy == "local" {
        reduction.why = "one process: its workers' values are merged in memory, as a tree while \
                         the workers end, in worker order"
            .to_string();
    }
}
