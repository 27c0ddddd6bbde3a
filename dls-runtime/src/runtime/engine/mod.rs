//! The engine: every loop entry point of a [`Runtime`] (`start_loop*`, the explicit
//! `DLS_StartLoop` API; `doall*`, `doall_reduce` and `run`, the closure forms) and what runs a
//! loop. A loop's options are resolved once into its plan (`plan.rs`: one [`Driver`] and one
//! [`Finish`]); the plain loop (`plain.rs`) starts it (`start.rs`), runs the plan's driver on
//! every worker (`drive/`) and its finish on their values (`finish/`). The ordered adaptor
//! (`ordered.rs`) and the checked one (`check/checked.rs`) sit above the plain loop. The engine
//! imports the vocabulary (`runtime/loops/`) and the subsystems; none of them imports it.
//!
//! [`Driver`]: plan::Driver
//! [`Finish`]: plan::Finish

use crate::runtime::combine::wire::Wire;
use crate::runtime::error::DlsError;
use crate::runtime::loops::handle::{Iterates, Loop};
use crate::runtime::loops::options::CheckMode;
use crate::runtime::loops::options::{IterateValue, LoopOptions};
use crate::runtime::loops::range::{LoopIndex, LoopRange};
use crate::runtime::loops::reduction::Reduction;
use crate::runtime::observe::stats::LoopStats;
use crate::runtime::Runtime;
use crate::Technique;
use checked::Plain;
use drive::each;
use ordered::Runs;
use plan::{Plan, Reach};

pub(crate) mod alone;
pub mod checked;
pub(crate) mod drive;
pub(crate) mod finish;
pub(crate) mod history;
pub(crate) mod ordered;
pub(crate) mod plain;
pub(crate) mod plan;
pub(crate) mod start;

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
        // The program runs the chunks itself: nothing is re-executed, and nothing runs alone.
        // `finish` returns the loop's statistics (`DLS_EndLoop`): they are built.
        let config = self.loop_config(&LoopOptions::new(name, technique.clone()).statistics());
        self.make_loop(
            &config,
            name,
            range,
            technique,
            start::Described {
                kind: || "an explicit loop (start_loop)".into(),
                options: Vec::new,
            },
            start::StartFlags::default(),
        )
        .map(|(lp, _)| lp)
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
        if !matches!(self.backend(), crate::runtime::Backend::Mpi { .. }) {
            return Err(DlsError::Mpi(
                "start_loop_on needs the MPI backend (launch the program with mpirun)".into(),
            ));
        }
        let (first, n) = range.first_and_len()?;
        let technique = self.effective_technique(technique);
        let w = self.awf_weights_for(name, &technique, comm.size() as usize);
        let source = Box::new(crate::runtime::backend::mpi::MpiLoop::start(
            comm, &technique, n, w,
        )?);
        let config = self.loop_config(&LoopOptions::new(name, technique.clone()).statistics());
        let reporting = start::Reporting::new(&config, self.shared.settings.report.clone(), false);
        let lp = self.untyped(name, technique, n, source, reporting);
        Ok(Loop::new(first, lp))
    }

    /// Runs `body` once for every index of `range`, in parallel over all workers, with dynamic
    /// loop scheduling. Named after the caller's source location. Returns the loop's statistics:
    /// the calling process's counters, and the loop report only from a handle that asks for it
    /// ([`with_statistics`](Runtime::with_statistics)); statistics nobody reads are not built.
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
    /// assert_eq!(stats.iterates, 1000); // on MPI: this rank's
    /// // The loop report (every worker's share) when asked for:
    /// let stats = rt.with_statistics(true).doall(0..1000u64, "ss".parse().unwrap(), |_| {}).unwrap();
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
    /// let stats = rt.with_statistics(true)
    ///     .doall_named("noop", 0..5u8, "ss".parse().unwrap(), |_| {}).unwrap();
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
        let plan = Plan {
            reach: Reach::ThisProcess,
            ..Plan::default()
        };
        let options = LoopOptions::new(name, technique);
        let body = |i, _: &mut ()| body(i);
        let red = Reduction {
            identity: || (),
            body: each(body),
            combine: |_, _| (),
        };
        self.reduce_impl(&options, plan, range, red)
            .map(|(_, stats)| stats.unwrap_or_default())
    }

    /// A parallel loop with a reduction: every worker (thread or rank) folds its iterates into its
    /// own value from `identity()` with `body`; the workers' values are combined with `combine`
    /// (an associative operation, applied in any tree order) and **every** caller — every rank on
    /// MPI — gets the full result. Over MPI the values travel serialised ([`Wire`]). The
    /// statistics returned beside it are the calling process's counters, with the loop report
    /// from a handle that asks for it ([`with_statistics`](Runtime::with_statistics)): a report
    /// nobody reads is not built.
    ///
    /// A small heap value that every iterate writes (per-cluster sums in a `Vec` of 8 numbers)
    /// should start with spare room at its end, as `#[par_doall]`'s `reduce(+: v)` gives it:
    /// two workers' values allocated one after the other can otherwise share a cache line, which
    /// then moves between their cores at every write (on k-means this made 2 threads take up to
    /// 1.5 times as long). For example `|| { let mut v = Vec::with_capacity(k + 16);
    /// v.resize(k, 0.0); v }` for `k` `f64`s (16 of them: 128 bytes).
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let (max, stats) = rt.doall_reduce("max", 0..100i64, "gss".parse().unwrap(),
    ///     || i64::MIN, |i, m| *m = (*m).max((i * 37) % 101), |a, b| a.max(b)).unwrap();
    /// assert_eq!((max, stats.iterates), (100, 100));
    /// let (_, stats) = rt.with_statistics(true).doall_reduce("max", 0..100i64,
    ///     "gss".parse().unwrap(), || i64::MIN, |i, m| *m = (*m).max(i), |a, b| a.max(b)).unwrap();
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
        self.run(
            &LoopOptions::new(name, technique),
            range,
            identity,
            body,
            combine,
        )
    }

    /// [`doall_reduce`](Runtime::doall_reduce) for a `combine` that depends on order: the
    /// result is `identity() ⊕ v_0 ⊕ v_1 ⊕ …` with the iterates' contributions combined in index
    /// order, as the serial loop produces it, on every technique, strategy and number of workers.
    /// Each worker keeps one partial result per run of consecutive iterates it executed (a
    /// chunk, or chunks that follow each other), so memory grows with the number of chunks.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let (words, _) = rt.doall_reduce_ordered("sentence", 0..6u32, "ss".parse().unwrap(),
    ///     String::new,
    ///     |i, s: &mut String| s.push_str(["to ", "be ", "or ", "not ", "to ", "be"][i as usize]),
    ///     |a, b| a + &b).unwrap();
    /// assert_eq!(words, "to be or not to be");
    /// ```
    pub fn doall_reduce_ordered<R, T, Id, B, C>(
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
        let options = LoopOptions::new(name, technique).ordered();
        self.run(&options, range, identity, body, combine)
    }

    /// A loop with a reduction that checks itself: `body(i, acc)` folds iterate `i` into the
    /// worker's `acc` and returns the iterate's value `y` (the quantity the workers should agree
    /// on, in distribution: a sample of a Monte Carlo integral, a quadrature strip's area, a
    /// residual), or a row `([x1, …], y)` for the regression check. The iterates run in the
    /// order of a seeded pseudo-random permutation of the range, so that each worker's values
    /// are a random sample; after the loop a one-way ANOVA (or, for rows, an F test of one
    /// regression against one per worker) across workers (ranks under MPI, threads otherwise)
    /// tests that they agree, and the report's `check` entry gives F, its degrees of freedom, p,
    /// and the worker a rejection points at. With `DLS_CHECK=warn` (the default) a rejection is
    /// also printed on stderr by rank 0; with `DLS_CHECK=off` the loop runs unchecked. Another
    /// level, an exchangeable range or another seed: [`run`](Runtime::run) with
    /// [`LoopOptions::check`].
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// // A quadrature of x² on [0, 1]: the value of strip i is f(x_i)·h.
    /// let n = 10_000u32;
    /// let h = 1.0 / n as f64;
    /// let (area, stats) = rt.doall_reduce_checked("x2", 0..n, "fac2".parse().unwrap(), || 0.0,
    ///     |i, s: &mut f64| { let x = (i as f64 + 0.5) * h; let y = x * x * h; *s += y; y },
    ///     |a, b| a + b).unwrap();
    /// assert!((area - 1.0 / 3.0).abs() < 1e-6);
    /// let check = stats.report.check.unwrap();
    /// assert!(!check.rejected, "{check:?}");
    ///
    /// // y = 2 + 3x with a deterministic wiggle, each iterate a row for the regression check.
    /// let (sum, stats) = rt.doall_reduce_checked("fit", 0..2000u32, "gss".parse().unwrap(),
    ///     || 0.0,
    ///     |i, s: &mut f64| {
    ///         let x = i as f64 / 2000.0;
    ///         let y = 2.0 + 3.0 * x + ((i * 7919) % 13) as f64 * 0.01;
    ///         *s += y;
    ///         ([x], y)
    ///     },
    ///     |a, b| a + b).unwrap();
    /// assert!(sum > 0.0);
    /// assert_eq!(stats.report.check.unwrap().test, "regression");
    /// ```
    pub fn doall_reduce_checked<R, T, Y, Id, B, C>(
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
        Y: IterateValue,
        Id: Fn() -> T + Sync,
        B: Fn(R::Index, &mut T) -> Y + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        // Its report's `check` entry is the test's outcome: its statistics are read.
        let options = LoopOptions::new(name, technique)
            .check(Default::default())
            .statistics();
        self.run(&options, range, identity, body, combine)
    }

    /// The one loop engine: runs the loop `options` describes over `range` on every worker, each
    /// folding its iterates into its own value from `identity()` with `body`, and returns the
    /// values combined with `combine` (on every rank) and the loop's statistics (the loop report
    /// where [`LoopOptions::statistics`] or the handle asks for it). Every other
    /// closure form (`doall_reduce`, `doall_reduce_ordered`, `doall_reduce_checked`, the
    /// `#[par_doall]` loops) is this call with other options; features compose: an ordered loop
    /// may be checked too. `body` returns `()` unless the loop is checked, when it returns the
    /// iterate's value ([`IterateValue`]).
    ///
    /// ```
    /// use dls_runtime::runtime::{checked::Check, options::LoopOptions};
    /// let rt = dls_runtime::init().unwrap();
    /// // Ordered and checked: the words in their order, each iterate's length tested.
    /// let options = LoopOptions::new("words", "fac2".parse().unwrap())
    ///     .ordered().check(Check::default()).statistics();
    /// let words = ["to ", "be ", "or ", "not ", "to ", "be"];
    /// let (s, stats) = rt.run(&options, 0..6usize, String::new,
    ///     |i, s: &mut String| { s.push_str(words[i]); words[i].len() as f64 },
    ///     |a, b| a + &b).unwrap();
    /// assert_eq!(s, "to be or not to be");
    /// assert!(stats.report.check.is_some());
    /// ```
    pub fn run<R, T, Y, Id, B, C>(
        &self,
        options: &LoopOptions,
        range: R,
        identity: Id,
        body: B,
        combine: C,
    ) -> Result<(T, LoopStats), DlsError>
    where
        R: LoopRange,
        T: Send + Wire,
        Y: IterateValue,
        Id: Fn() -> T + Sync,
        B: Fn(R::Index, &mut T) -> Y + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        if options.check.is_some() && !Y::OBSERVES {
            return Err(DlsError::FaultCheck(format!(
                "loop `{}` is checked, but its body returns no value to test: return each \
                 iterate's value (an f64, or a row `([x1, …], y)`)",
                options.name
            )));
        }
        if options.ordered {
            // Each worker keeps one value per run of consecutive iterates; the runs are folded in
            // index order at the end (`ordered.rs`).
            let (first, _) = range.first_and_len()?;
            let red = Reduction {
                identity: Runs::new,
                body: |i, own: &mut Runs<T>| {
                    body(i, own.at(R::Index::span(first, i) as u64, &identity))
                },
                combine: Runs::append,
            };
            let (runs, stats) = self.unordered(options, range, red)?;
            return Ok((runs.finish(&identity, &combine), stats));
        }
        let red = Reduction {
            identity,
            body,
            combine,
        };
        self.unordered(options, range, red)
    }

    /// [`run`](Runtime::run) with a body that goes through a run of consecutive iterates
    /// itself ([`Iterates`]): the form a `#[par_doall]` loop expands to, so that the compiler
    /// sees the loop's body inside a loop, as in the serial program, and the engine's work is per
    /// run, not per iterate. An ordered loop's body is given runs of one iterate; a checked loop
    /// needs each iterate's value, so its body is one of [`run`](Runtime::run).
    ///
    /// ```
    /// use dls_runtime::runtime::{options::LoopOptions, Iterates};
    /// let rt = dls_runtime::init().unwrap();
    /// let options = LoopOptions::new("squares", "af".parse().unwrap());
    /// let (s, stats) = rt.run_iterates(&options, 1..=10u64, || 0,
    ///     |run: Iterates<u64>, s: &mut u64| for i in run { *s += i * i },
    ///     |a, b| a + b).unwrap();
    /// assert_eq!(s, 385);
    /// assert_eq!(stats.iterates, 10);
    /// ```
    pub fn run_iterates<R, T, Id, B, C>(
        &self,
        options: &LoopOptions,
        range: R,
        identity: Id,
        body: B,
        combine: C,
    ) -> Result<(T, LoopStats), DlsError>
    where
        R: LoopRange,
        T: Send + Wire,
        Id: Fn() -> T + Sync,
        B: Fn(Iterates<R::Index>, &mut T) + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        let red = Reduction {
            identity,
            body,
            combine,
        };
        self.run_iterates_planned(options, range, red, Plan::default())
            .map(|(value, stats)| (value, stats.unwrap_or_default()))
    }

    /// [`run_iterates`](Runtime::run_iterates) with `plan`'s `read`, which merges another
    /// process's value into this one's as its bytes are read, and `shard`, which merges a
    /// process's workers' values as key shards (a `#[par_doall]` loop's maps: `partials.rs`).
    /// The statistics are none where `options` says nobody reads them.
    pub(crate) fn run_iterates_planned<R, T, Id, B, C>(
        &self,
        options: &LoopOptions,
        range: R,
        red: Reduction<Id, B, C>,
        plan: Plan<'_, T>,
    ) -> Result<(T, Option<LoopStats>), DlsError>
    where
        R: LoopRange,
        T: Send + Wire,
        Id: Fn() -> T + Sync,
        B: Fn(Iterates<R::Index>, &mut T) + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        if options.check.is_some() {
            return Err(DlsError::FaultCheck(format!(
                "loop `{}` is checked, but its body returns no value to test: give it as a body \
                 of one iterate that returns the iterate's value (Runtime::run)",
                options.name
            )));
        }
        if options.ordered {
            // One value per run of consecutive iterates (`ordered.rs`): the body sees one
            // iterate at a time.
            let Reduction {
                identity,
                body,
                combine,
            } = red;
            let runs = Reduction {
                identity: Runs::new,
                body: |run: Iterates<R::Index>, own: &mut Runs<T>| {
                    for one in run.singles() {
                        let offset = one.offset();
                        body(one, own.at(offset, &identity));
                    }
                },
                combine: Runs::append,
            };
            let (runs, stats) = self.reduce_impl(options, Plan::default(), range, runs)?;
            return Ok((runs.finish(&identity, &combine), stats));
        }
        self.reduce_impl(options, plan, range, red)
    }

    /// [`run`](Runtime::run) after the ordered adaptor: the checked adaptor when the loop is
    /// checked (and `DLS_CHECK` is not `off`), else the plain loop.
    fn unordered<R, T, Y, Id, B, C>(
        &self,
        options: &LoopOptions,
        range: R,
        red: Reduction<Id, B, C>,
    ) -> Result<(T, LoopStats), DlsError>
    where
        R: LoopRange,
        T: Send + Wire,
        Y: IterateValue,
        Id: Fn() -> T + Sync,
        B: Fn(R::Index, &mut T) -> Y + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        match &options.check {
            Some(check) if self.settings().check.unwrap_or_default() != CheckMode::Off => {
                checked::run(self, options, check, range, red)
            }
            _ => {
                let body = red.body;
                let red = Reduction {
                    identity: red.identity,
                    body: each(move |i, acc: &mut T| {
                        body(i, acc);
                    }),
                    combine: red.combine,
                };
                self.reduce_impl(options, Plan::default(), range, red)
                    .map(|(value, stats)| (value, stats.unwrap_or_default()))
            }
        }
    }
}

impl Plain for Runtime {
    fn plain<R, T, Id, B, C>(
        &self,
        options: &LoopOptions,
        plan: Plan<'_, T>,
        range: R,
        red: Reduction<Id, B, C>,
    ) -> Result<(T, LoopStats), DlsError>
    where
        R: LoopRange,
        T: Send + Wire,
        Id: Fn() -> T + Sync,
        B: Fn(R::Index, &mut T) + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        let red = Reduction {
            identity: red.identity,
            body: each(red.body),
            combine: red.combine,
        };
        self.reduce_impl(options, plan, range, red)
            .map(|(value, stats)| (value, stats.unwrap_or_default()))
    }

    fn rank(&self) -> usize {
        Runtime::rank(self)
    }

    fn check_settings(&self) -> (CheckMode, Option<f64>) {
        let s = self.settings();
        (s.check.unwrap_or_default(), s.check_alpha)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::annotate::sync::Mutex;
    use crate::runtime::loops::panic_ctx;
    use crate::runtime::settings::Settings;
    use crate::runtime::sync::lock;
    use std::time::Instant;

    /// Maps that split by key hash, merged as key shards on the workers (`shard_coded`, forced
    /// on whatever the cores): the total equals the serial loop's, every iterate counted once, and
    /// the report says so; with SS, FAC2, STATIC and AF on 2, 3 and 4 threads.
    #[test]
    fn maps_merge_as_key_shards() {
        use crate::partials::{shard_coded, Coded, Keyed, Whole};
        use crate::reduce::{Operator, Sum};
        use std::collections::{HashMap, HashSet};
        use std::marker::PhantomData;
        use std::time::Duration;
        type V = (HashMap<u64, u64>, u64);
        type W = (
            PhantomData<fn(Keyed<Sum>) -> HashMap<u64, u64>>,
            PhantomData<fn(Whole) -> u64>,
        );
        plan::SHARD_ALWAYS.with(|s| s.set(true));
        let add = |a: V, b: V| (Sum.combine(a.0, b.0), a.1 + b.1);
        let shard = shard_coded::<V, W>(add);
        let mut serial: HashMap<u64, u64> = HashMap::new();
        for i in 0..4000u64 {
            *serial.entry(i * i % 613).or_insert(0) += i;
        }
        let mut sharded_loops = 0;
        for threads in [2, 3, 4] {
            let rt = Runtime::threads(threads, Settings::default())
                .unwrap()
                .with_statistics(true);
            for technique in ["ss", "fac2", "static", "af"] {
                let name = format!("shards {threads} {technique}");
                let options = LoopOptions::new(&name, technique.parse().unwrap());
                // Every worker runs an iterate (each waits, up to 2 s, for the others).
                let seen: Mutex<HashSet<std::thread::ThreadId>> = Mutex::new(HashSet::new());
                let started = Instant::now();
                let (total, stats) = rt
                    .run_iterates_planned(
                        &options,
                        0..4000u64,
                        Reduction {
                            identity: || Coded::<V, W>::new((HashMap::new(), 0)),
                            body: |run: Iterates<u64>, acc: &mut Coded<V, W>| {
                                lock(&seen).insert(std::thread::current().id());
                                while lock(&seen).len() < threads
                                    && started.elapsed() < Duration::from_secs(2)
                                {
                                    std::thread::sleep(Duration::from_micros(200));
                                }
                                for i in run {
                                    *acc.value.0.entry(i * i % 613).or_insert(0) += i;
                                    acc.value.1 += 1;
                                }
                            },
                            combine: |a: Coded<V, W>, b: Coded<V, W>| {
                                Coded::new(add(a.value, b.value))
                            },
                        },
                        Plan {
                            shard: Some(&shard),
                            ..Plan::default()
                        },
                    )
                    .unwrap();
                let (counts, iterates) = total.into_inner();
                assert_eq!(iterates, 4000, "{name}");
                assert_eq!(counts, serial, "{name}");
                let stats = stats.expect("the test reads the statistics");
                let reduction = stats.report.reduction.expect("a reduction report");
                if reduction.merges > 0 {
                    sharded_loops += 1;
                    assert!(
                        reduction.why.contains("key shards"),
                        "{name}: {reduction:?}"
                    );
                }
            }
        }
        assert!(sharded_loops > 0, "no loop merged as key shards");
        // A merge that panics on a worker fails the loop, naming it.
        type L = (HashMap<u64, Vec<u64>>,);
        type M = (PhantomData<fn(Keyed<Sum>) -> HashMap<u64, Vec<u64>>>,);
        let cat = |a: L, b: L| (Sum.combine(a.0, b.0),);
        let shard = shard_coded::<L, M>(cat);
        let rt = Runtime::threads(2, Settings::default()).unwrap();
        let options = LoopOptions::new("shards panic", "ss".parse().unwrap());
        let merged = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            rt.run_iterates_planned(
                &options,
                0..400u64,
                Reduction {
                    identity: || Coded::<L, M>::new((HashMap::new(),)),
                    body: |run: Iterates<u64>, acc: &mut Coded<L, M>| {
                        for i in run {
                            // Every iterate a vector of its own length under one key.
                            acc.value.0.insert(0, vec![1; 1 + (i % 2) as usize]);
                            std::thread::sleep(Duration::from_micros(100));
                        }
                    },
                    combine: |a: Coded<L, M>, b: Coded<L, M>| Coded::new(cat(a.value, b.value)),
                },
                Plan {
                    shard: Some(&shard),
                    ..Plan::default()
                },
            )
        }));
        if let Err(payload) = merged {
            let message = crate::runtime::loops::panic_ctx::payload_text(payload.as_ref());
            assert!(
                message.contains("combining the results of loop `shards panic`")
                    && message.contains("lengths"),
                "{message}"
            );
        }
    }

    /// Issue 28: a loop without re-execution or checkpoints keeps no chunk apart (the code of
    /// both runs per chunk in `drive_apart` only, see `worker::probe`), and one with
    /// re-execution does.
    #[test]
    fn only_loops_with_tolerance_run_chunks_apart() {
        let rt = Runtime::threads(2, Settings::default()).unwrap();
        let ss: Technique = "ss".parse().unwrap();
        let sum = |rt: &Runtime, name: &str| {
            rt.doall_reduce(
                name,
                0..500u64,
                ss.clone(),
                || 0,
                |i, s| *s += i,
                |a, b| a + b,
            )
            .unwrap()
            .0
        };
        let apart = |name: &str| {
            crate::runtime::engine::drive::apart::probe::APART
                .lock()
                .unwrap()
                .iter()
                .any(|n| n == name)
        };
        assert_eq!(sum(&rt.with_reexecution(false), "plain probe"), 124_750);
        assert!(!apart("plain probe"));
        assert_eq!(sum(&rt.with_reexecution(true), "apart probe"), 124_750);
        assert!(apart("apart probe"));
    }

    /// At 3 workers and more the workers merge their values as a tree as they end
    /// (`combine/workers.rs`): every iterate counts once, in worker order (each worker's value is
    /// its iterates, which a merge appends: the total sorted is the range), with and without
    /// re-execution, and the report counts the tree's merges; a merge that panics in the tree
    /// names the loop.
    #[test]
    fn workers_merge_as_a_tree() {
        use std::collections::HashSet;
        use std::time::{Duration, Instant};
        for threads in [3, 4, 5] {
            let rt = Runtime::threads(threads, Settings::default())
                .unwrap()
                .with_statistics(true);
            let mut everyone = 0;
            for technique in ["ss", "fac2", "static", "af"] {
                for reexecute in [false, true] {
                    let name = format!("tree {threads} {technique} {reexecute}");
                    // The threads that ran an iterate: an iterate waits (up to 2 s) until every
                    // thread has run one, so that every worker takes part even on a busy machine
                    // whose pool threads sleep between loops.
                    let seen: Mutex<HashSet<std::thread::ThreadId>> = Mutex::new(HashSet::new());
                    let started = Instant::now();
                    let (mut all, stats) = rt
                        .with_reexecution(reexecute)
                        .doall_reduce(
                            &name,
                            0..3000u64,
                            technique.parse().unwrap(),
                            Vec::new,
                            |i, v: &mut Vec<u64>| {
                                lock(&seen).insert(std::thread::current().id());
                                while lock(&seen).len() < threads
                                    && started.elapsed() < Duration::from_secs(2)
                                {
                                    std::thread::sleep(Duration::from_micros(200));
                                }
                                v.push(i);
                            },
                            |mut a, b| {
                                a.extend(b);
                                a
                            },
                        )
                        .unwrap();
                    all.sort_unstable();
                    assert_eq!(all, (0..3000).collect::<Vec<_>>(), "{name}");
                    // A pool thread that has not entered when worker 0 ends stays out: P - 1
                    // merges at most, and exactly that, all in the tree, when every worker ran.
                    let reduction = stats.report.reduction.expect("a reduction report");
                    assert_eq!(reduction.strategy, "local", "{name}");
                    assert!(reduction.merges < threads as u64, "{name}: {reduction:?}");
                    if lock(&seen).len() == threads {
                        everyone += 1;
                        assert_eq!(reduction.merges, threads as u64 - 1, "{name}");
                        assert!(reduction.why.contains("as a tree"), "{name}: {reduction:?}");
                    }
                }
            }
            assert!(
                everyone > 0,
                "{threads} threads: no loop ran on every worker"
            );
            let merged = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                rt.doall_reduce(
                    "tree panics",
                    0..100u64,
                    "ss".parse().unwrap(),
                    || 0u64,
                    |i, s| *s += i,
                    |a, b| {
                        if a + b > 0 {
                            panic!("no merge today");
                        }
                        a + b
                    },
                )
            }));
            let message = merged
                .expect_err("the merge panicked")
                .downcast::<String>()
                .map(|m| *m)
                .unwrap_or_default();
            assert!(
                message.contains("combining the results of loop `tree panics`")
                    && message.contains("no merge today"),
                "{message}"
            );
        }
    }

    /// Fixed-size techniques' chunks are claimed by the workers themselves (`claimed.rs`), with
    /// and without re-execution; a technique whose chunk sizes change goes to the scheduler. The
    /// sums and reports are the same either way.
    #[test]
    fn fixed_size_chunks_are_claimed_by_the_workers() {
        let rt = Runtime::threads(2, Settings::default())
            .unwrap()
            .with_statistics(true);
        let claimed = |name: &str| {
            crate::runtime::engine::drive::claimed::probe::CLAIMED
                .lock()
                .unwrap()
                .iter()
                .any(|n| n == name)
        };
        for (spec, reexecute, want) in [
            ("ss", false, true),
            ("ss", true, true),
            ("mfsc", false, true),
            ("static", false, true),
            // Chunks of several iterates in a re-executing loop: the scheduler's path.
            ("mfsc", true, false),
            ("fac2", false, false),
            ("gss", true, false),
        ] {
            let name = format!("claims {spec} {reexecute}");
            let (sum, stats) = rt
                .with_reexecution(reexecute)
                .doall_reduce(
                    &name,
                    0..5000u64,
                    spec.parse().unwrap(),
                    || 0,
                    |i, s| *s += i,
                    |a, b| a + b,
                )
                .unwrap();
            assert_eq!(sum, 5000 * 4999 / 2, "{name}");
            assert_eq!(claimed(&name), want, "{name}");
            let r = &stats.report;
            assert_eq!(
                r.ranks.iter().map(|k| k.iterates).sum::<u64>(),
                5000,
                "{name}"
            );
            // A partition (in hand-out order: a chunk split for an idle worker lists its rest
            // where that was handed out, so sorted first).
            let mut map = r.chunk_map.clone();
            map.sort_unstable();
            let mut next = 0;
            for c in &map {
                assert_eq!(c[0], next, "{name}: the map is a partition: {map:?}");
                next += c[1];
            }
            assert_eq!(next, 5000, "{name}");
            assert!(r.chunk_times.iter().all(Option::is_some), "{name}");
        }
    }

    /// Issue 42 item 6: an explicit loop builds its report only for a caller that asks for it
    /// (the handle's `with_statistics`, the loop's `LoopOptions::statistics`, which wins over the
    /// handle, as a `#[par_doall]` loop's `statistics_unread` does); unasked, it returns this
    /// process's exact counters and an empty report, and its chunks are claimed untimed.
    #[test]
    fn explicit_loops_build_statistics_only_when_asked() {
        let rt = Runtime::threads(2, Settings::default()).unwrap();
        let n = 3000u64;
        let sum = |rt: &Runtime, options: &LoopOptions| {
            let (s, stats) = rt
                .run(options, 0..n, || 0, |i, s: &mut u64| *s += i, |a, b| a + b)
                .unwrap();
            assert_eq!(s, n * (n - 1) / 2, "{}", options.name);
            stats
        };
        let quiet = sum(&rt, &LoopOptions::new("quiet", "ss".parse().unwrap()));
        assert_eq!(quiet.report, crate::report::LoopReport::default());
        assert_eq!((quiet.rank, quiet.iterates, quiet.chunks), (0, n, n));
        assert!(quiet.work_time_s > 0.0);
        // The same counters from `doall_reduce` and `doall`.
        let (_, stats) = rt
            .doall_reduce(
                "quiet reduce",
                0..n,
                "fac2".parse().unwrap(),
                || 0,
                |i, s| *s += i,
                |a, b| a + b,
            )
            .unwrap();
        assert_eq!((stats.iterates, stats.report.n), (n, 0));
        assert!(
            stats.chunks > 0 && stats.chunks < n,
            "fac2: {} chunks",
            stats.chunks
        );
        let stats = rt.doall(0..n, "ss".parse().unwrap(), |_| {}).unwrap();
        assert_eq!((stats.iterates, stats.chunks, stats.report.n), (n, n, 0));

        let asked = LoopOptions::new("asked", "ss".parse().unwrap()).statistics();
        for (rt, options, reads) in [
            (rt.clone(), asked, true),
            (
                rt.with_statistics(true),
                LoopOptions::new("handle", "ss".parse().unwrap()),
                true,
            ),
            (
                rt.with_statistics(true),
                LoopOptions::new("unread", "ss".parse().unwrap()).statistics_unread(),
                false,
            ),
        ] {
            let stats = sum(&rt, &options);
            let r = &stats.report;
            assert_eq!((stats.iterates, stats.chunks), (n, n), "{}", options.name);
            if reads {
                assert_eq!(
                    (r.name.as_str(), r.n, r.chunks),
                    (options.name.as_str(), n, n)
                );
                assert_eq!(r.chunk_map.len() as u64, n, "{}", options.name);
                assert_eq!(r.ranks.iter().map(|w| w.iterates).sum::<u64>(), n);
                assert!(
                    r.chunk_times.iter().all(Option::is_some),
                    "{}",
                    options.name
                );
            } else {
                assert_eq!(*r, crate::report::LoopReport::default(), "{}", options.name);
            }
        }
        // `start_loop` (`DLS_EndLoop`) returns its report on a handle that asks for none.
        let lp = rt
            .start_loop_named("chunks", 0..10u32, "ss".parse().unwrap())
            .unwrap();
        while let Some(c) = lp.next_chunk() {
            for _ in c {}
        }
        assert_eq!(lp.finish().report.chunk_map.len(), 10);
    }

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
