//! The finishes: how the workers' values of a loop become its result, chosen once per loop by
//! its plan (`Finish`, `plan.rs`). [`tree`] merges the workers' values as they end,
//! [`shards`] merges maps as key shards after the loop, [`fold`] folds the values the workers
//! left in their slots, and [`pipeline`] passes values between ranks while they run. Every
//! finish but the pipeline then combines the processes' values ([`across`]).

use crate::runtime::annotate::sync::Mutex;

use super::alone;
use super::drive::chunk::Failure;
use super::plan::LoopConfig;
use crate::runtime::combine::workers::WorkerTree;
use crate::runtime::loops::handle::{Loop, Panics};
use crate::runtime::loops::range::LoopIndex;
use crate::runtime::observe::stats::LoopStats;
use crate::runtime::sync::lock;

pub(crate) mod fold;
pub(crate) mod pipeline;
pub(crate) mod shards;
pub(crate) mod tree;

/// Where each worker's value goes at its end: up the workers' tree (`Finish::Tree`), or into
/// the worker's slot.
pub(crate) struct Ends<T> {
    slots: Vec<Mutex<Option<Result<T, Failure>>>>,
    tree: Option<WorkerTree<T>>,
}

/// The workers' values once the loop ended, in worker order, and what the tree merged.
pub(crate) struct Collected<T> {
    /// The values that were not merged into one on the workers (`None`: a worker without one).
    pub(crate) values: Vec<Option<T>>,
    /// The merges the workers' tree did and their time in seconds.
    pub(crate) tree_merged: Option<(u64, f64)>,
}

impl<T> Ends<T> {
    /// The ends of `workers` workers, whose values merge as a tree where `tree`.
    pub(crate) fn new(tree: bool, workers: usize) -> Ends<T> {
        Ends {
            slots: (0..workers).map(|_| Mutex::new(None)).collect(),
            tree: tree.then(|| WorkerTree::new(workers)).flatten(),
        }
    }

    /// Worker `slot` of `lp` ended with `done`: its value goes up the tree or to its slot. A
    /// merge that panics stops the loop and is kept as the worker's failure.
    pub(crate) fn arrive<I: LoopIndex>(
        &self,
        lp: &Loop<I>,
        slot: usize,
        done: Result<T, Failure>,
        combine: &dyn Fn(T, T) -> T,
        panics: Panics,
    ) {
        match (&self.tree, done) {
            (Some(t), Ok(value)) => {
                if let Err(failure) = tree::arrive(t, lp, slot, value, combine, panics) {
                    *lock(&self.slots[slot]) = Some(Err(failure));
                }
            }
            (_, done) => *lock(&self.slots[slot]) = Some(done),
        }
    }

    /// The workers' values once every worker ended, or the first failure in worker order.
    pub(crate) fn collect(self) -> Result<Collected<T>, Failure> {
        let mut values = Vec::with_capacity(self.slots.len());
        for slot in self.slots {
            match slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
                Some(Ok(value)) => values.push(Some(value)),
                Some(Err(f)) => return Err(f),
                None => values.push(None),
            }
        }
        // What the workers' tree did not merge into one value, in worker order (every value
        // went up the tree: the slots hold none).
        let tree_merged = self.tree.as_ref().map(WorkerTree::merged);
        if let Some(t) = self.tree {
            values.extend(t.rest().into_iter().map(Some));
        }
        Ok(Collected {
            values,
            tree_merged,
        })
    }
}

impl Failure {
    /// Ends the loop `name` with this failure's panic, naming the iterate (or the merge) and
    /// the thread.
    pub(crate) fn raise(self, name: &str) -> ! {
        if self.merging {
            panic!(
                "dls: panicked while combining the results of loop `{name}` on thread {}: {}",
                self.worker, self.message
            );
        }
        panic!(
            "dls: iterate {} of loop `{}` panicked on thread {}: {}",
            self.iterate, name, self.worker, self.message
        );
    }
}

/// Ends `lp` (`DLS_EndLoop`): its statistics where its caller reads them (`config`), else none
/// are built: the calling process's counters only (how long the loop took is still recorded,
/// for a loop that learns whether it is too small to share: `alone.rs`).
pub(crate) fn end<I: LoopIndex>(lp: Loop<I>, config: &LoopConfig) -> Option<LoopStats> {
    let core = lp.core();
    let sized = core
        .sized
        .then(|| (lp.name().to_string(), lp.len(), core.alone, core.started()));
    let rank = core.source().rank();
    let stats = if config.statistics {
        lp.finish()
    } else {
        let tally = lp.finish_quietly();
        LoopStats {
            rank,
            iterates: tally.iterates,
            work_time_s: tally.work_s,
            chunks: tally.chunks,
            ..LoopStats::default()
        }
    };
    if let Some((name, n, ran_alone, started)) = sized {
        alone::record(&name, n, started.elapsed().as_secs_f64(), ran_alone);
    }
    Some(stats)
}
