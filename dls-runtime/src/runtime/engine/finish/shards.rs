//! The shards finish: maps that split by key hash (a `#[par_doall]` loop's maps:
//! `partials::shard_coded`) merge as key shards, one per worker, on the workers after the loop,
//! where each level of a tree would merge maps nearly as large as the total; then across
//! processes.

use crate::runtime::annotate::sync::AtomicUsize;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use super::fold::add_merges;
use crate::report::ReductionReport;
use crate::runtime::engine::plan::ShardMerge;
use crate::runtime::loops::handle::Loop;
use crate::runtime::loops::panic_ctx;
use crate::runtime::loops::range::LoopIndex;
use crate::runtime::Runtime;

/// Merges the workers' `values` of `lp` as key shards with `shard`, on `rt`'s workers. Returns
/// the merged value and the merges it took with their time. A merge that panics (vectors of two
/// lengths under one key) fails the loop, named.
pub(crate) fn merge<I: LoopIndex, T>(
    rt: &Runtime,
    lp: &Loop<I>,
    shard: ShardMerge<'_, T>,
    values: Vec<Option<T>>,
) -> (Option<T>, Option<(u64, f64)>) {
    let values: Vec<T> = values.into_iter().flatten().collect();
    let merges = values.len().saturating_sub(1) as u64;
    let started = Instant::now();
    let name: Arc<str> = lp.name().into();
    let jobs = |n: usize, job: &(dyn Fn(usize) + Sync)| {
        let next = AtomicUsize::new(0);
        let worker = |_slot: usize| {
            let _combining = panic_ctx::combining(name.clone());
            loop {
                let j = next.fetch_add(1, Ordering::Relaxed);
                if j >= n {
                    break;
                }
                job(j);
            }
        };
        rt.shared.platform.run_workers(&worker, n, false);
    };
    let total = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| shard(values, &jobs)))
        .unwrap_or_else(|payload| {
            panic!(
                "dls: panicked while combining the results of loop `{name}`: {}",
                panic_ctx::payload_text(payload.as_ref())
            )
        });
    let took = (merges > 0).then(|| (merges, started.elapsed().as_secs_f64()));
    (total, took)
}

/// Adds the shards' merges to `reduction` and says how one process combined.
pub(crate) fn report(reduction: &mut ReductionReport, merged: Option<(u64, f64)>) {
    let Some((merges, seconds)) = merged else {
        return;
    };
    add_merges(reduction, merges, seconds);
    if reduction.strategy == "local" {
        reduction.why = format!(
            "one process: its workers' maps are merged in memory as {} key shards, one per \
             worker, in worker order",
            merges + 1
        );
    }
}
