//! Every loop entry point of a [`Runtime`]: `start_loop*` (the explicit `DLS_StartLoop` API),
//! `doall*` and `doall_reduce` (the closure forms), all on the chunk-source seam (`source.rs`), the
//! one worker loop (`execute.rs`) and the one combine function (`combine.rs`).

use std::sync::Mutex;

use super::combine::combine_partials;
use super::error::DlsError;
use super::execute::{drive, drive_apart, Failure};
use super::loop_handle::{Ending, History, Loop, Panics, UntypedLoop};
use super::panic_ctx;
use super::range::LoopRange;
use super::settings::ReportMode;
use super::source::{ChunkSource, SharedSource};
use super::stats::LoopStats;
use super::sync::lock;
use super::wire::Wire;
use super::{pipeline, Runtime};
use crate::report::CheckReport;
use crate::{Strategy, Technique};

impl Runtime {
    /// `DLS_StartLoop`: starts a loop over `range` (the synchronisation point at its start; on MPI
    /// every rank calls it). The loop is named after the caller's source location. `DLS_SCHEDULE`
    /// overrides `technique`.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let lp = rt.start_loop(1..=100i32, "fac2".parse().unwrap()).unwrap();
    /// let mut n = 0;
    /// while let Some(c) = lp.next_chunk() { n += c.count(); }
    /// assert_eq!(n, 100);
    /// assert!(lp.name().contains(".rs:"));
    /// ```
    #[track_caller]
    pub fn start_loop<R: LoopRange>(
        &self,
        range: R,
        technique: Technique,
    ) -> Result<Loop<R::Index>, DlsError> {
        let name = std::panic::Location::caller().to_string();
        self.start_loop_named(&name, range, technique)
    }

    /// [`start_loop`](Runtime::start_loop) with an explicit loop name (as in the report).
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let lp = rt.start_loop_named("rows", 0..3u8, "ss".parse().unwrap()).unwrap();
    /// assert_eq!(lp.finish().report.name, "rows");
    /// ```
    pub fn start_loop_named<R: LoopRange>(
        &self,
        name: &str,
        range: R,
        technique: Technique,
    ) -> Result<Loop<R::Index>, DlsError> {
        self.make_loop(name, range, technique, || {
            "an explicit loop (start_loop)".into()
        })
        .map(|(lp, _)| lp)
    }

    /// `kind` says what kind of loop it is (checked across MPI ranks at the start).
    fn make_loop<R: LoopRange>(
        &self,
        name: &str,
        range: R,
        technique: Technique,
        kind: impl FnOnce() -> String,
    ) -> Result<(Loop<R::Index>, Placement), DlsError> {
        let (first, n) = range.first_and_len()?;
        let technique = self.effective_technique(technique);
        if panic_ctx::in_iterate() || self.shared.platform.busy() {
            // Nested inside an iterate, or started by a thread spawned inside one while the
            // workers run a loop: this thread alone, no report.
            let source = Box::new(SharedSource::new(&technique, n, 1, None)?);
            let lp = self
                .untyped(name, technique, n, source, ReportMode::Off)
                .nested_in(panic_ctx::save());
            return Ok((Loop::new(first, lp), Placement::Nested));
        }
        self.shared.platform.may_start_here()?;
        let p = self.workers();
        let at = super::platform::LoopStart {
            name,
            n,
            first: if n == 0 {
                "(none: empty)".into()
            } else {
                first.to_string()
            },
            kind: kind(),
        };
        let (technique, auto) = if technique.kind.entry().selects {
            let (t, a) = self.resolve_auto(&at, p, &technique);
            (t, Some(a))
        } else {
            (technique, None)
        };
        let weights = self.awf_weights_for(name, &technique, p);
        let source = self.shared.platform.start(&at, &technique, weights)?;
        let lp = self
            .untyped(
                name,
                technique,
                n,
                source,
                self.shared.settings.report.clone(),
            )
            .over_all_workers()
            .with_progress(self.shared.settings.progress);
        if let Some(a) = auto {
            lp.note_auto(a);
        }
        Ok((Loop::new(first, lp), Placement::AllWorkers))
    }

    /// A loop of this runtime over `source`, reporting to `mode`; a loop over more than one
    /// worker (or process) is one more time step of its name's history.
    fn untyped(
        &self,
        name: &str,
        technique: Technique,
        n: u64,
        source: Box<dyn ChunkSource>,
        mode: ReportMode,
    ) -> UntypedLoop {
        let history = if source.workers() > 1 || source.exchange().is_some() {
            History::Record
        } else {
            History::Skip
        };
        let ending = Ending::Report {
            runtime: self.clone(),
            mode,
            history,
        };
        UntypedLoop::new(name.into(), technique, n, source, ending)
    }

    /// Starts a loop over the ranks of `comm` (any communicator: a group of ranks, or the
    /// coordinator and the group leaders of a two-level loop). Rank 0 of `comm` is the scheduler.
    /// Every rank of `comm` must call it, with the same range and technique. Unlike
    /// [`start_loop`](Runtime::start_loop) it may be called inside an iterate of another loop.
    ///
    /// ```no_run
    /// # // needs mpirun
    /// let rt = dls_runtime::init().unwrap();
    /// let world = mpi::topology::SimpleCommunicator::world();
    /// let lp = rt.start_loop_on(&world, "inner", 0..10u32, "gss".parse().unwrap()).unwrap();
    /// while let Some(c) = lp.next_chunk() { for _ in c {} }
    /// lp.finish();
    /// ```
    #[cfg(feature = "mpi")]
    pub fn start_loop_on<C, R>(
        &self,
        comm: &C,
        name: &str,
        range: R,
        technique: Technique,
    ) -> Result<Loop<R::Index>, DlsError>
    where
        C: mpi::topology::Communicator,
        R: LoopRange,
    {
        if !matches!(self.backend(), super::Backend::Mpi { .. }) {
            return Err(DlsError::Mpi(
                "start_loop_on needs the MPI backend (launch the program with mpirun)".into(),
            ));
        }
        let (first, n) = range.first_and_len()?;
        let technique = self.effective_technique(technique);
        let w = self.awf_weights_for(name, &technique, comm.size() as usize);
        let source = Box::new(super::mpi_backend::MpiLoop::start(comm, &technique, n, w)?);
        let lp = self.untyped(
            name,
            technique,
            n,
            source,
            self.shared.settings.report.clone(),
        );
        Ok(Loop::new(first, lp))
    }

    /// Runs `body` once for every index of `range`, in parallel over all workers, with dynamic
    /// loop scheduling. Named after the caller's source location. Returns the loop's statistics.
    ///
    /// A panicking iterate ends the loop: on threads, `doall` panics with the iterate, the thread
    /// and the message; on MPI the job is aborted with the rank, the iterate and the message.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// let rt = dls_runtime::init().unwrap();
    /// let sum = AtomicU64::new(0);
    /// let stats = rt.doall(0..1000u64, "awf-b".parse().unwrap(), |i| {
    ///     sum.fetch_add(i, Ordering::Relaxed);
    /// }).unwrap();
    /// assert_eq!(sum.into_inner(), 499_500); // on MPI: this rank's share only
    /// assert_eq!(stats.report.ranks.iter().map(|r| r.iterates).sum::<u64>(), 1000);
    /// ```
    #[track_caller]
    pub fn doall<R, F>(
        &self,
        range: R,
        technique: Technique,
        body: F,
    ) -> Result<LoopStats, DlsError>
    where
        R: LoopRange,
        F: Fn(R::Index) + Sync,
    {
        let name = std::panic::Location::caller().to_string();
        self.doall_named(&name, range, technique, body)
    }

    /// [`doall`](Runtime::doall) with an explicit loop name.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let stats = rt.doall_named("noop", 0..5u8, "ss".parse().unwrap(), |_| {}).unwrap();
    /// assert_eq!(stats.report.name, "noop");
    /// ```
    pub fn doall_named<R, F>(
        &self,
        name: &str,
        range: R,
        technique: Technique,
        body: F,
    ) -> Result<LoopStats, DlsError>
    where
        R: LoopRange,
        F: Fn(R::Index) + Sync,
    {
        self.reduce_impl(
            name,
            range,
            technique,
            || (),
            |i, _| body(i),
            |_, _| (),
            Reach::ThisProcess,
            Extra::default(),
        )
        .map(|(_, stats)| stats)
    }

    /// A parallel loop with a reduction: every worker (thread or rank) folds its iterates into its
    /// own value from `identity()` with `body`; the workers' values are combined with `combine`
    /// (an associative operation, applied in any tree order) and **every** caller — every rank on
    /// MPI — gets the full result. Over MPI the values travel serialised ([`Wire`]).
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let (max, stats) = rt.doall_reduce("max", 0..100i64, "gss".parse().unwrap(),
    ///     || i64::MIN, |i, m| *m = (*m).max((i * 37) % 101), |a, b| a.max(b)).unwrap();
    /// assert_eq!(max, 100);
    /// assert_eq!(stats.report.name, "max");
    /// ```
    pub fn doall_reduce<R, T, Id, B, C>(
        &self,
        name: &str,
        range: R,
        technique: Technique,
        identity: Id,
        body: B,
        combine: C,
    ) -> Result<(T, LoopStats), DlsError>
    where
        R: LoopRange,
        T: Send + Wire,
        Id: Fn() -> T + Sync,
        B: Fn(R::Index, &mut T) + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        self.reduce_impl(
            name,
            range,
            technique,
            identity,
            body,
            combine,
            Reach::AllProcesses,
            Extra::default(),
        )
    }

    /// [`doall_reduce`](Runtime::doall_reduce) with `extra`: a worker that takes no chunk (an MPI
    /// rank, or a thread of the threads backend; the others run every iterate: the re-execution
    /// of a faulty worker's iterates), and a look at the total before the loop's report is made
    /// (a checked loop's test, `checked.rs`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn doall_reduce_extra<R, T, Id, B, C>(
        &self,
        name: &str,
        range: R,
        technique: Technique,
        extra: Extra<'_, T>,
        identity: Id,
        body: B,
        combine: C,
    ) -> Result<(T, LoopStats), DlsError>
    where
        R: LoopRange,
        T: Send + Wire,
        Id: Fn() -> T + Sync,
        B: Fn(R::Index, &mut T) + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        self.reduce_impl(
            name,
            range,
            technique,
            identity,
            body,
            combine,
            Reach::AllProcesses,
            extra,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn reduce_impl<R, T, Id, B, C>(
        &self,
        name: &str,
        range: R,
        technique: Technique,
        identity: Id,
        body: B,
        combine: C,
        reach: Reach,
        extra: Extra<'_, T>,
    ) -> Result<(T, LoopStats), DlsError>
    where
        R: LoopRange,
        T: Send + Wire,
        Id: Fn() -> T + Sync,
        B: Fn(R::Index, &mut T) + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        let Extra { skip, inspect } = extra;
        let kind = || match (reach, inspect.is_some()) {
            (Reach::ThisProcess, _) => "a loop without a result (doall)".to_string(),
            (Reach::AllProcesses, checked) => format!(
                "a {}loop with a result of type `{}`",
                if checked { "checked " } else { "" },
                std::any::type_name::<T>()
            ),
        };
        let (lp, placement) = self.make_loop(name, range, technique, kind)?;
        let panics = match placement {
            Placement::Nested => Panics::Unwind,
            Placement::AllWorkers => self.shared.platform.panics(),
        };
        let strategy = self.effective_strategy();
        if let (Placement::AllWorkers, Reach::AllProcesses, Strategy::Pipeline, None) =
            (placement, reach, strategy, skip)
        {
            let source = lp.core().source();
            if let Some(x) = source.exchange().filter(|x| x.size() > 1) {
                if source.local_slots() == 1 {
                    self.pipeline_runs_without(lp.name(), x.rank());
                    let (value, reduction) = pipeline::run(&lp, x, &identity, &body, &combine)?;
                    lp.core().note_reduction(reduction);
                    return Ok((value, lp.finish()));
                }
            }
        }
        let slots: Vec<Mutex<Option<Result<T, Failure>>>> = (0..lp.core().source().local_slots())
            .map(|_| Mutex::new(None))
            .collect();
        let mpi_rank = match self.backend() {
            super::Backend::Mpi { rank, .. } => Some(rank),
            _ => None,
        };
        // Re-execution of unfinished chunks (rDLB) and checkpoints: every worker keeps each
        // chunk's value apart until the scheduler confirms it (`drive_apart`), so copies never
        // count twice and a checkpoint holds confirmed work only. Only for loops with a result
        // that dls combines: a `doall`'s only effects are its body's own (an atomic counter, a
        // file), which dls could not undo for a discarded copy nor restore.
        let with_result = placement == Placement::AllWorkers && reach == Reach::AllProcesses;
        // A result of no data (a zero-sized type: a `#[par_doall]` loop without `reduce` or
        // `gather`) has nothing for a copy to count: its iterates' effects are the body's own,
        // which a copy would repeat. Such a loop never re-executes (issue 27 case 3).
        let reexecute =
            with_result && std::mem::size_of::<T>() != 0 && self.effective_reexecution();
        if reexecute {
            lp.core().reexecute(self.effective_split());
        }
        let checkpoints = match (&self.shared.settings.checkpoint, with_result) {
            (Some(dir), true) => Some(self.checkpoint_start(&lp, dir, &identity, &combine)?),
            _ => None,
        };
        let apart = reexecute || checkpoints.is_some();
        let restored_value: Mutex<Option<T>> = Mutex::new(None);
        if let Some(c) = &checkpoints {
            *lock(&restored_value) = c.restored_value.lock().ok().and_then(|mut v| v.take());
        }
        let process_rank = lp.core().source().rank();
        let worker = |slot: usize| {
            if placement == Placement::AllWorkers
                && skip.is_some()
                && skip == Some(mpi_rank.unwrap_or(slot))
            {
                // This worker takes no chunk; the others run the loop.
                return;
            }
            let done = if apart {
                // Worker 0 of the scheduling process starts from what the checkpoints held.
                let first = slot == 0 && process_rank == 0;
                let initial = if first {
                    lock(&restored_value).take()
                } else {
                    None
                };
                let ckpt = checkpoints.as_ref().map(|c| {
                    let me = process_rank + slot;
                    let ranges = if first {
                        c.restored_ranges.clone()
                    } else {
                        Vec::new()
                    };
                    (&c.writer, c.writer.worker(me, ranges))
                });
                drive_apart(
                    &lp,
                    Some(slot),
                    &identity,
                    &body,
                    &combine,
                    panics,
                    initial,
                    ckpt,
                )
            } else {
                let mut acc = identity();
                drive(&lp, Some(slot), &mut acc, &body, panics).map(|()| acc)
            };
            *lock(&slots[slot]) = Some(done);
        };
        match placement {
            Placement::Nested => worker(0),
            Placement::AllWorkers => {
                let useful = usize::try_from(lp.len()).unwrap_or(usize::MAX);
                self.shared.platform.run_workers(&worker, useful)
            }
        }
        let mut partials = Vec::with_capacity(slots.len());
        for slot in slots {
            match slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
                Some(Ok(value)) => partials.push(Some(value)),
                Some(Err(f)) => {
                    let name = lp.name().to_string();
                    drop(lp);
                    if f.merging {
                        panic!(
                            "dls: panicked while combining the results of loop `{name}` on \
                             thread {}: {}",
                            f.worker, f.message
                        );
                    }
                    panic!(
                        "dls: iterate {} of loop `{}` panicked on thread {}: {}",
                        f.iterate, name, f.worker, f.message
                    );
                }
                None => partials.push(None),
            }
        }
        // Restored results that no worker started from (worker 0 took no chunk: a repair).
        if let Some(v) = restored_value
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
        {
            partials.push(Some(v));
        }
        let across = match reach {
            Reach::AllProcesses => lp.core().source().exchange(),
            Reach::ThisProcess => None,
        };
        let (value, reduction) = combine_partials(
            lp.name(),
            strategy,
            self.merge_time_of(lp.name()),
            across,
            partials,
            &identity,
            &combine,
        )?;
        if reduction.merges > 0 {
            self.record_merge_time(lp.name(), reduction.merge_time_s);
        }
        lp.core().note_reduction(reduction);
        if let Some(c) = &checkpoints {
            lp.core()
                .note_checkpoint(c.report(lp.core().source().restored()));
        }
        if let Some(check) = inspect.and_then(|look| look(&value)) {
            lp.core().note_check(check);
        }
        Ok((value, lp.finish()))
    }
}

impl Runtime {
    /// A pipelined loop (`reduction = "pipeline"` under MPI) runs without re-execution and
    /// checkpoints: when either is asked for (`DLS_CHECKPOINT`, `DLS_REEXECUTE=on`), rank 0 says
    /// so at the loop's start, once per loop name, instead of dropping them silently.
    fn pipeline_runs_without(&self, name: &str, rank: usize) {
        let settings = &self.shared.settings;
        let mut asked = Vec::new();
        if settings.checkpoint.is_some() {
            asked.push("checkpoints (DLS_CHECKPOINT)");
        }
        if settings.reexecute == Some(true) || self.reexecute == Some(true) {
            asked.push("re-execution (DLS_REEXECUTE=on)");
        }
        if asked.is_empty() || rank != 0 {
            return;
        }
        static SAID: Mutex<Vec<String>> = Mutex::new(Vec::new());
        let mut said = lock(&SAID);
        if said.iter().any(|n| n == name) {
            return;
        }
        said.push(name.to_string());
        panic_ctx::say_line(&format!(
            "dls: warning: loop `{name}` runs with reduction = \"pipeline\", which has no {}: \
             they are off for this loop; choose another strategy (DLS_REDUCTION=tree, or \
             reduction = \"tree\") to have them",
            asked.join(" and ")
        ));
    }
}

/// What a loop may do beyond [`Runtime::doall_reduce`] (see
/// [`Runtime::doall_reduce_extra`]).
pub(crate) struct Extra<'a, T> {
    /// The worker that takes no chunk.
    pub skip: Option<usize>,
    /// Looks at the total before the report is made; its result goes in the report's `check`.
    pub inspect: Option<&'a Inspect<'a, T>>,
}

/// See [`Extra::inspect`].
pub(crate) type Inspect<'a, T> = dyn Fn(&T) -> Option<CheckReport> + 'a;

impl<T> Default for Extra<'_, T> {
    fn default() -> Self {
        Extra {
            skip: None,
            inspect: None,
        }
    }
}

/// Where a loop's workers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Placement {
    /// Every worker of the runtime (threads of the pool, or MPI ranks).
    AllWorkers,
    /// The calling thread alone: a loop started inside an iterate of another loop.
    Nested,
}

/// Which workers' partial results a loop combines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Every process's (every caller gets the full result).
    AllProcesses,
    /// This process's workers only (`doall`: nothing to exchange).
    ThisProcess,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::settings::Settings;

    /// Issue 17 case 9b: every loop started inside an iterate runs on the calling thread alone,
    /// the second as well as the first (ending the first used to clear the "inside an iterate"
    /// state of the enclosing iterate).
    #[test]
    fn every_loop_started_inside_an_iterate_is_nested() {
        let rt = Runtime::threads(2, Settings::default()).unwrap();
        let ss: Technique = "ss".parse().unwrap();
        rt.doall_named("outer", 0..4u32, ss.clone(), |_| {
            for _ in 0..3 {
                let lp = rt.start_loop_named("inner", 0..3u32, ss.clone()).unwrap();
                assert_eq!(
                    lp.workers(),
                    1,
                    "a loop inside an iterate runs on its thread"
                );
                let mut n = 0;
                while let Some(c) = lp.next_chunk() {
                    n += c.count();
                }
                assert_eq!(lp.finish().iterates, 3);
                assert_eq!(n, 3);
                let (s, _) = rt
                    .doall_reduce(
                        "sum",
                        0..4u64,
                        ss.clone(),
                        || 0,
                        |i, s| *s += i,
                        |a, b| a + b,
                    )
                    .unwrap();
                assert_eq!(s, 6);
            }
            assert!(panic_ctx::in_iterate());
        })
        .unwrap();
        assert!(!panic_ctx::in_iterate());
    }
}
