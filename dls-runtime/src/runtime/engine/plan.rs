//! A loop's decisions, made once. [`LoopConfig`] resolves the loop's options ([`LoopOptions`])
//! against the settings (`DLS_*`) and the runtime handle's defaults before the loop starts, the
//! one path from what a program asks to what the engine reads (tokio's `Builder` → `Config`).
//! [`LoopPlan`] then names, once the loop has started, the one [`Driver`] every worker runs and
//! the one [`Finish`] that combines their values: a new feature is a variant and a file
//! (`drive/`, `finish/`), not a branch inside a worker.

use crate::report::CheckReport;
use crate::runtime::backend::platform::Backend;
use crate::runtime::combine::wire::ReadInto;
use crate::runtime::loops::handle::{Loop, Panics};
use crate::runtime::loops::options::LoopOptions;
use crate::runtime::loops::range::LoopIndex;
use crate::runtime::settings::ReportMode;
use crate::runtime::Runtime;
use crate::{Strategy, Technique};

/// A loop's options resolved against the settings and the handle: `DLS_*` first, then the
/// loop's own options, then the handle's (`Runtime::with_reduction`, …), then the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LoopConfig {
    /// How the processes' values travel.
    pub(crate) strategy: Strategy,
    /// Whether a loop with a result re-executes unfinished chunks.
    pub(crate) reexecute: bool,
    /// Whether re-execution was asked for explicitly (`DLS_REEXECUTE=on`, the loop's or the
    /// handle's `true`): a loop that cannot re-execute says so.
    pub(crate) reexecute_asked: bool,
    /// Whether re-executing loops split chunks in progress for idle workers.
    pub(crate) split: bool,
    /// Whether the workers read their CPU clocks: the caller reads the loop's statistics, or a
    /// report is printed.
    pub(crate) cpu_clock: bool,
    /// Whether the loop's statistics are read by its caller (`false`: `#[par_doall]`).
    pub(crate) statistics: bool,
    /// Whether checkpoints are written (`DLS_CHECKPOINT`).
    pub(crate) checkpoints: bool,
}

impl Runtime {
    /// Whether this handle's loops with a result re-execute unfinished chunks: `DLS_REEXECUTE` if
    /// set, else the handle's ([`Runtime::with_reexecution`]), else on — except on threads inside
    /// MPI ranks (`DLS_THREADS` of 2 or more under a launcher), where it is off unless asked for:
    /// there a loop that re-executes takes a request per chunk per thread, one that does not
    /// takes its chunks in batches (a message per batch of a rank's threads).
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// assert_eq!(rt.with_reexecution(false).effective_reexecution(),
    ///            std::env::var("DLS_REEXECUTE").map_or(false, |v| v != "off"));
    /// ```
    pub fn effective_reexecution(&self) -> bool {
        self.handle_config().reexecute
    }
    /// Whether this handle's re-executing loops split chunks in progress for idle workers:
    /// `DLS_SPLIT` if set, else the handle's ([`Runtime::with_split`]), else on.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// assert_eq!(rt.with_split(false).effective_split(),
    ///            std::env::var("DLS_SPLIT").map_or(false, |v| v != "off"));
    /// ```
    pub fn effective_split(&self) -> bool {
        self.handle_config().split
    }
    /// The strategy a loop's partial results travel by: `DLS_REDUCTION` if set, else this
    /// handle's ([`Runtime::with_reduction`]), else [`Strategy::Auto`].
    ///
    /// ```
    /// use dls_runtime::{Runtime, Strategy, runtime::settings::Settings};
    /// let s = Settings { reduction: Some(Strategy::Master), ..Settings::default() };
    /// let rt = Runtime::threads(1, s).unwrap();
    /// assert_eq!(rt.with_reduction(Strategy::Tree).effective_strategy(), Strategy::Master);
    /// ```
    pub fn effective_strategy(&self) -> Strategy {
        self.handle_config().strategy
    }
    /// What a loop of this handle without options of its own resolves to (`engine/plan.rs`).
    fn handle_config(&self) -> LoopConfig {
        self.loop_config(&LoopOptions::new(
            "",
            Technique::new(crate::technique::Kind::Static),
        ))
    }

    /// `options` resolved against the settings and this handle's defaults.
    pub(crate) fn loop_config(&self, options: &LoopOptions) -> LoopConfig {
        let settings = self.settings();
        let statistics = options.statistics_read().unwrap_or(self.statistics);
        let reexecute = settings.reexecute.or(options.reexecute).or(self.reexecute);
        LoopConfig {
            strategy: settings
                .reduction
                .or(options.reduction)
                .or(self.reduction)
                .unwrap_or_default(),
            reexecute: reexecute
                .unwrap_or(!matches!(self.backend(), Backend::Mpi { threads, .. } if threads > 1)),
            reexecute_asked: settings.reexecute == Some(true)
                || options.reexecute.or(self.reexecute) == Some(true),
            split: settings.split.or(self.split).unwrap_or(true),
            cpu_clock: statistics || settings.report != ReportMode::Off,
            statistics,
            checkpoints: settings.checkpoint.is_some(),
        }
    }
}

impl LoopConfig {
    /// What every MPI rank must choose alike for a loop of `options` resolved to this config, as
    /// `(what, value)` pairs: the ranks compare them at the loop's start, and one that differs is
    /// named with each rank's value (issue 43 R4-4 and F13: `reduction = "pipeline"` on one rank
    /// only hung or ended in `MPI_ERR_TRUNCATE`).
    pub(crate) fn agreed(&self, options: &LoopOptions) -> Vec<(String, String)> {
        let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
        let on_off = |b: bool| if b { "on" } else { "off" }.to_string();
        let check = options.check.map_or("none".to_string(), |c| {
            format!(
                "alpha {:e}, exchangeable {}, seed {:#x}, test {}",
                c.alpha,
                yes_no(c.exchangeable),
                c.seed,
                c.test.name()
            )
        });
        vec![
            ("reduction".into(), self.strategy.to_string()),
            ("re-execution".into(), on_off(self.reexecute)),
            ("splitting of chunks in progress".into(), on_off(self.split)),
            ("order-keeping merge".into(), yes_no(options.ordered)),
            ("check".into(), check),
        ]
    }
}

/// Where a loop's workers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Every worker of the runtime (threads of the pool, or MPI ranks).
    AllWorkers,
    /// The calling thread alone: a loop started inside an iterate of another loop.
    Nested,
}

/// What every worker of a loop runs (`drive/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Driver {
    /// Pulls chunks from the loop's source and folds them into the worker's value
    /// (`drive/direct.rs`).
    Direct,
    /// Claims fixed-size chunks itself (`drive/claimed.rs`); `apart`: each chunk's value is
    /// kept apart until it counts, and the loop's tail goes on in [`Driver::Apart`].
    Claimed { apart: bool },
    /// Keeps each chunk's value apart until the scheduler confirms it: re-execution and
    /// checkpoints (`drive/apart.rs`).
    Apart,
}

/// How the workers' values become the loop's result (`finish/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Finish {
    /// The ranks pass values along a pipeline while they run (`finish/pipeline.rs`).
    Pipeline,
    /// The workers merge as a tree as they end (`finish/tree.rs`), then across processes.
    Tree,
    /// The workers' maps merge as key shards after the loop (`finish/shards.rs`), then across
    /// processes.
    Shards,
    /// Each worker's value waits in its slot; they are folded after the loop, then across
    /// processes (`finish/fold.rs`).
    Fold,
}

/// What the engine knows of a loop before it starts: whose results it combines, whether a
/// worker takes no chunk, whether its value has data, and how it may merge.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Shape {
    /// Whose results the loop combines.
    pub(crate) reach: Reach,
    /// The worker (MPI rank, else thread slot) that takes no chunk.
    pub(crate) skip: Option<usize>,
    /// Whether the loop's value is of a zero-sized type (no `reduce`, no `gather`).
    pub(crate) zero_sized: bool,
    /// Whether its values may merge as key shards (maps that split by key hash).
    pub(crate) shardable: bool,
    /// Whether the loop is checked (its total inspected before the report).
    pub(crate) inspected: bool,
}

impl Shape {
    /// Whether the loop re-executes or writes checkpoints: only a loop with a result that dls
    /// combines. A `doall`'s only effects are its body's own (an atomic counter, a file), which
    /// dls could not undo for a discarded copy nor restore; a result of no data has nothing for
    /// a copy to count (issue 27 case 3).
    pub(crate) fn tolerant(&self, config: &LoopConfig) -> bool {
        self.reach == Reach::AllProcesses
            && ((!self.zero_sized && config.reexecute) || config.checkpoints)
    }

    /// Whether the loop may run alone when it is small (`alone.rs`): not a checked loop nor one
    /// a worker skips.
    pub(crate) fn may_run_alone(&self) -> bool {
        self.skip.is_none() && !self.inspected
    }
}

/// A started loop's decisions, the same for every worker.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoopPlan {
    pub(crate) placement: Placement,
    pub(crate) panics: Panics,
    pub(crate) driver: Driver,
    pub(crate) finish: Finish,
    /// Whether unfinished chunks are re-executed.
    pub(crate) reexecute: bool,
    /// Whether checkpoints are written.
    pub(crate) checkpoints: bool,
    /// The worker that takes no chunk: an MPI rank (every slot of that rank), else a thread
    /// slot; none where every worker takes chunks.
    skip: Option<usize>,
    /// This process's MPI rank (none on threads).
    mpi_rank: Option<usize>,
    /// Whether worker 0 ends with the loop (see `Platform::run_workers`).
    pub(crate) first_sees_the_end: bool,
}

impl LoopPlan {
    /// The plan of `lp`, started at `placement` with `config`, on a runtime whose MPI rank is
    /// `mpi_rank` (none on threads) and whose workers' panics are `panics`.
    pub(crate) fn resolve<I: LoopIndex>(
        config: &LoopConfig,
        shape: &Shape,
        lp: &Loop<I>,
        placement: Placement,
        panics: Panics,
        mpi_rank: Option<usize>,
    ) -> LoopPlan {
        let all = placement == Placement::AllWorkers;
        let panics = if all { panics } else { Panics::Unwind };
        let source = lp.core().source();
        let with_result = all && shape.reach == Reach::AllProcesses;
        // A loop run alone (`alone.rs`) has nobody to take a copy of its chunk.
        let reexecute = with_result && !shape.zero_sized && config.reexecute && !lp.core().alone;
        let checkpoints = with_result && config.checkpoints;
        let skip = shape.skip.filter(|_| all);
        let finish = Self::finish(config, shape, lp, all, source.local_slots());
        let (reexecute, checkpoints) = match finish {
            // A pipelined loop runs without re-execution and checkpoints (it says so).
            Finish::Pipeline => (false, false),
            _ => (reexecute, checkpoints),
        };
        // Chunks the workers claim themselves (a fixed-size technique on threads), while the
        // chunks are claimed. A re-executing loop claims chunks of one iterate, which are never
        // split nor abandoned halfway; its tail goes on apart.
        let claims = source
            .claims()
            .filter(|c| !checkpoints && (!reexecute || c.size() == 1))
            .filter(|_| crate::runtime::observe::delay::body().is_none());
        let driver = match claims {
            Some(_) => Driver::Claimed { apart: reexecute },
            None if reexecute || checkpoints => Driver::Apart,
            None => Driver::Direct,
        };
        // Worker 0 ends with the loop unless it is the one that takes no chunk. Under a merge
        // delay (`DLS_DELAY`, a scalability test) every worker takes part, so that the merges
        // of the workers' partial results are the ones the test perturbs.
        let first_sees_the_end = !(skip.is_some() && skip == Some(mpi_rank.unwrap_or(0)))
            && crate::runtime::observe::delay::active().merge.is_none();
        LoopPlan {
            placement,
            panics,
            driver,
            finish,
            reexecute,
            checkpoints,
            skip,
            mpi_rank,
            first_sees_the_end,
        }
    }

    /// How the workers' values of `lp` combine.
    fn finish<I: LoopIndex>(
        config: &LoopConfig,
        shape: &Shape,
        lp: &Loop<I>,
        all: bool,
        slots: usize,
    ) -> Finish {
        let source = lp.core().source();
        let pipelined = all
            && shape.reach == Reach::AllProcesses
            && config.strategy == Strategy::Pipeline
            && shape.skip.is_none()
            && source.exchange().is_some_and(|x| x.size() > 1)
            && source.local_slots() == 1;
        // The workers merge their values as they end, except where `DLS_DELAY` is set at all (a
        // scalability test perturbs the fold after the loop, and its runs without a delay must
        // combine as its delayed runs do) and for a loop without a value.
        let merge_after = all && !shape.zero_sized && !super::alone::delay_set();
        if pipelined {
            Finish::Pipeline
        } else if merge_after && shape.shardable && shards_pay(slots) {
            Finish::Shards
        } else if merge_after && slots >= TREE_FROM {
            Finish::Tree
        } else {
            Finish::Fold
        }
    }

    /// Whether worker `slot` of this process takes chunks.
    #[inline]
    pub(crate) fn works(&self, slot: usize) -> bool {
        !(self.skip.is_some() && self.skip == Some(self.mpi_rank.unwrap_or(slot)))
    }
}

/// The fewest workers whose values merge as a tree: two workers' values take one merge either
/// way, after the loop as before (`WorkerTree::new`).
pub(crate) const TREE_FROM: usize = 3;

/// The fewest workers whose maps merge as key shards: below, a tree of merges is about as short
/// or shorter (`benches/src/bin/merge_paths.rs`, in units of the serial count: at 2 workers 0.12–
/// 0.14 against 0.23–0.27, at 4 0.23 against 0.21, at 8 0.28–0.33 against 0.18–0.20).
const SHARD_FROM: usize = 8;

#[cfg(test)]
thread_local! {
    /// Makes every loop with maps that split, started on this thread (the test's own: the
    /// engine decides on the thread that starts the loop), merge them as key shards, whatever
    /// the cores. Other tests, on their own threads, keep the engine's choice.
    pub(crate) static SHARD_ALWAYS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether `workers` workers merge their maps as key shards: from [`SHARD_FROM`] on, when each
/// has a core (the shards' total work is about three times a tree's: it pays only in parallel).
pub(crate) fn shards_pay(workers: usize) -> bool {
    #[cfg(test)]
    if SHARD_ALWAYS.with(std::cell::Cell::get) {
        return workers >= 2;
    }
    // Read once: `available_parallelism` reads the cgroup files at every call.
    static CORES: crate::runtime::annotate::sync::OnceLock<usize> =
        crate::runtime::annotate::sync::OnceLock::new();
    let cores = *CORES.get_or_init(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    workers >= SHARD_FROM && cores >= workers
}

/// What the plain loop under the adaptors does beyond combining every worker's value: whose
/// values it combines, a worker that takes no chunk (an MPI rank, or a thread of the threads
/// backend; the others run every iterate: the re-execution of a faulty worker's iterates), and
/// a look at the total before the loop's report is made (a checked loop's test, `checked.rs`).
pub(crate) struct Plan<'a, T> {
    /// Whose partial results are combined.
    pub reach: Reach,
    /// The worker that takes no chunk.
    pub skip: Option<usize>,
    /// Looks at the total before the report is made; its result goes in the report's `check`.
    pub inspect: Option<&'a Inspect<'a, T>>,
    /// Reads another process's value into this one's (`Folder::fold_read`); without it the value
    /// is decoded and then combined.
    pub read: Option<ReadInto<'a, T>>,
    /// Merges a process's workers' values as key shards (`partials::shard_coded`), where that
    /// pays (`plan.rs`); without it they merge as a tree, or in a fold.
    pub shard: Option<ShardMerge<'a, T>>,
    /// Counts the writes of gathered vectors that the total holds in logs, for the report's
    /// `logged_writes` (`Partials::logged_writes`).
    pub logged: Option<fn(&T) -> u64>,
}

/// See [`Plan::shard`]: the workers' values, in worker order, and a way to run jobs on the
/// process's workers, to the total.
pub(crate) type ShardMerge<'a, T> = &'a (dyn Fn(Vec<T>, Jobs<'_>) -> Option<T> + Sync);

/// See [`Plan::inspect`].
pub(crate) type Inspect<'a, T> = dyn Fn(&T) -> Option<CheckReport> + 'a;

impl<T> Default for Plan<'_, T> {
    fn default() -> Self {
        Plan {
            reach: Reach::AllProcesses,
            skip: None,
            inspect: None,
            read: None,
            shard: None,
            logged: None,
        }
    }
}

/// Which workers' partial results a loop combines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Every process's (every caller gets the full result).
    AllProcesses,
    /// This process's workers only (`doall`: nothing to exchange).
    ThisProcess,
}

/// A way to run jobs on a process's workers: `jobs(n, job)` runs `job(0)` … `job(n - 1)` on the
/// workers, each once.
pub(crate) type Jobs<'a> = &'a (dyn Fn(usize, &(dyn Fn(usize) + Sync)) + Sync);
