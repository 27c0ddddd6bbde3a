//! [`InnerLoops`]: the inner loops of one outer iterate of a two-level loop (the `I-LOOP`s of
//! Cariño & Banicescu (2007) fig. 3.4, run with `iInfo` on the group's `iComm`).

use std::time::Instant;

use crate::fault_check::Permutation;
use crate::report::CheckReport;
use crate::runtime::combine::gather_values;
use crate::runtime::engine::checked::{
    judge, position_at, positions_of, run_position, summaries, Check, CheckMode, Observation,
    Order, Part,
};
use crate::runtime::engine::ordered::Runs;
use crate::runtime::loops::options::{IterateValue, LoopOptions};
use crate::runtime::Iterates;
use crate::runtime::{
    combine_partials, drive, loops::panic_ctx, ChunkSource, DlsError, Ending, Exchange, Loop,
    LoopIndex, LoopRange, Merging, Panics, Tally, UntypedLoop, Wire,
};
use crate::{Strategy, Technique};

/// What one rank did in the inner loops of a two-level loop.
#[derive(Debug, Clone, Default)]
pub(crate) struct InnerTally {
    pub done: Tally,
    /// Inner techniques in the order first used.
    pub techniques: Vec<String>,
}

impl InnerTally {
    fn note(&mut self, technique: &Technique, done: &Tally) {
        self.done.add(done);
        let t = technique.to_string();
        if !self.techniques.contains(&t) {
            self.techniques.push(t);
        }
    }
}

/// The ranks of a group that share the iterates of each inner loop (MPI: the group's
/// communicator).
pub(crate) trait Team {
    /// Rank of the caller in the group (0 = leader).
    fn rank(&self) -> usize;
    /// Ranks in the group.
    fn size(&self) -> usize;
    /// The chunk source of an inner loop of `n` iterates over the group (collective).
    fn start(&self, technique: &Technique, n: u64) -> Result<Box<dyn ChunkSource>, DlsError>;
    /// How the group's partial results travel.
    fn exchange(&self) -> &dyn Exchange;
}

/// Runs the inner loops of one outer iterate. Every rank of the group calls the same inner loops
/// in the same order (part A and part B run redundantly, in lock step, on every rank of the
/// group); the group shares the iterates of each inner loop, and every rank of the group gets the
/// reduced or gathered result. One outer iterate may hold any number of inner loops.
///
/// In a one-level fallback (1 or 2 ranks, or the threads backend) each inner loop runs whole on
/// the rank or thread that runs the outer iterate.
///
/// ```
/// use dls_runtime::group::InnerLoops;
/// let mut inner = InnerLoops::solo();
/// let t = "fac2".parse().unwrap();
/// let s: u64 = inner.fold(0..10u64, &t, || 0, |a, b| a + b, |i, acc: &mut u64| *acc += i).unwrap();
/// assert_eq!(s, 45);
/// let squares: Vec<u32> = inner.gather(0..4u32, &t, |i| i * i).unwrap();
/// assert_eq!(squares, [0, 1, 4, 9]);
/// ```
pub struct InnerLoops<'a> {
    /// The group sharing the inner iterates; `None`: they run whole on the calling rank or thread
    /// (one-level fallback).
    team: Option<&'a dyn Team>,
    tally: Option<&'a mut InnerTally>,
    /// `DLS_SCHEDULE`, which overrides the inner techniques too.
    schedule: Option<&'a Technique>,
    /// How the group's partial results of an inner loop travel (the outer loop's strategy).
    strategy: Strategy,
}

impl std::fmt::Debug for InnerLoops<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InnerLoops")
            .field("shared_with_a_group", &self.team.is_some())
            .field("schedule", &self.schedule)
            .finish_non_exhaustive()
    }
}

impl<'a> InnerLoops<'a> {
    /// Inner loops that run whole on the calling thread (what the one-level fallback uses).
    pub fn solo() -> InnerLoops<'static> {
        InnerLoops {
            team: None,
            tally: None,
            schedule: None,
            strategy: Strategy::Auto,
        }
    }

    /// Inner loops shared by the ranks of `team` (two-level loops on MPI).
    pub(crate) fn group(
        team: &'a dyn Team,
        tally: &'a mut InnerTally,
        schedule: Option<&'a Technique>,
        strategy: Strategy,
    ) -> InnerLoops<'a> {
        InnerLoops {
            team: Some(team),
            tally: Some(tally),
            schedule,
            strategy,
        }
    }

    /// Rank of the caller in its group (0 = leader; 0 in a one-level fallback).
    ///
    /// ```
    /// assert_eq!(dls_runtime::group::InnerLoops::solo().rank(), 0);
    /// ```
    pub fn rank(&self) -> usize {
        self.team.map_or(0, |t| t.rank())
    }

    /// Number of ranks sharing the inner iterates (1 in a one-level fallback).
    ///
    /// ```
    /// assert_eq!(dls_runtime::group::InnerLoops::solo().size(), 1);
    /// ```
    pub fn size(&self) -> usize {
        self.team.map_or(1, |t| t.size())
    }

    /// The core of every inner loop: each rank folds its iterates into a private accumulator
    /// started at `identity()` with `body(i, &mut acc)`; the partial results are combined with
    /// `combine` and every rank of the group gets the total. In a two-level loop on MPI,
    /// `DLS_SCHEDULE` overrides `technique` as it does for every loop.
    pub fn fold<R, T, B>(
        &mut self,
        range: R,
        technique: &Technique,
        identity: impl Fn() -> T,
        combine: impl Fn(T, T) -> T,
        mut body: B,
    ) -> Result<T, DlsError>
    where
        R: LoopRange,
        T: Wire,
        B: FnMut(R::Index, &mut T),
    {
        let (first, n) = range.first_and_len()?;
        let technique = self.schedule.unwrap_or(technique);
        let mut acc = identity();
        let Some(team) = self.team else {
            crate::ChunkScheduler::new(technique, n, 1)?;
            let t0 = Instant::now();
            for k in 0..n {
                body(R::Index::offset_from(first, k), &mut acc);
            }
            if let Some(t) = self.tally.as_deref_mut() {
                let done = Tally {
                    iterates: n,
                    chunks: u64::from(n > 0),
                    work_s: t0.elapsed().as_secs_f64(),
                };
                t.note(technique, &done);
            }
            return Ok(combine(identity(), acc));
        };
        // The inner loop runs on the worker loop of every loop, over the group, nested in the
        // outer iterate (whose panic context comes back when it ends); a panicking inner iterate
        // names its outer iterate (and the job is aborted by the panic hook).
        let name = match panic_ctx::current_iterate() {
            Some((ctx, j)) => format!("{} (inner loop of outer iterate {j})", ctx.loop_name),
            None => "inner loop".to_string(),
        };
        let source = team.start(technique, n)?;
        let lp = UntypedLoop::new(
            name.as_str().into(),
            technique.clone(),
            n,
            source,
            Ending::Quiet,
        )
        .nested_in(panic_ctx::save());
        let lp = Loop::new(first, lp);
        let each = |run: Iterates<R::Index>, acc: &mut T| {
            for i in run {
                body(i, acc);
            }
        };
        let _ = drive(&lp, Some(0), &mut acc, each, Panics::Unwind);
        let done = lp.finish_quietly();
        if let Some(t) = self.tally.as_deref_mut() {
            t.note(technique, &done);
        }
        let mine = (done.iterates > 0).then_some(acc);
        combine_partials(
            &name,
            self.strategy,
            None,
            Some(team.exchange()),
            [mine],
            Merging::new(&identity, &combine),
        )
        .map(|(value, _)| value)
    }

    /// The engine of an inner loop (as [`Runtime::run`](crate::Runtime::run) is of a one-level
    /// loop): `options` say whether its merge keeps the iterates' order and whether it checks
    /// itself across the group's ranks; `body` returns `()`, or in a checked loop the iterate's
    /// value. Every rank of the group gets the total. (An inner loop's partial results travel as
    /// the outer loop's: `options.reduction` is not read.)
    ///
    /// ```
    /// use dls_runtime::runtime::{checked::Check, options::LoopOptions};
    /// let mut inner = dls_runtime::group::InnerLoops::solo();
    /// let options = LoopOptions::new("letters", "gss".parse().unwrap()).ordered().check(Check::default());
    /// let s = inner.run(&options, 0..3u8, String::new, |a, b| a + &b,
    ///     |i, s: &mut String| { s.push(char::from(b'a' + i)); f64::from(i) }).unwrap();
    /// assert_eq!(s, "abc");
    /// ```
    pub fn run<R, T, Y, B>(
        &mut self,
        options: &LoopOptions,
        range: R,
        identity: impl Fn() -> T,
        combine: impl Fn(T, T) -> T,
        mut body: B,
    ) -> Result<T, DlsError>
    where
        R: LoopRange,
        T: Wire,
        Y: IterateValue,
        B: FnMut(R::Index, &mut T) -> Y,
    {
        if options.ordered {
            let (first, _) = range.first_and_len()?;
            let runs = self.unordered(
                options,
                range,
                Runs::new,
                Runs::append,
                |i, own: &mut Runs<T>| body(i, own.at(R::Index::span(first, i) as u64, &identity)),
            )?;
            return Ok(runs.finish(identity, combine));
        }
        self.unordered(options, range, identity, combine, body)
    }

    /// [`run`](InnerLoops::run) after the ordered adaptor: checked, or the plain fold.
    fn unordered<R, T, Y, B>(
        &mut self,
        options: &LoopOptions,
        range: R,
        identity: impl Fn() -> T,
        combine: impl Fn(T, T) -> T,
        mut body: B,
    ) -> Result<T, DlsError>
    where
        R: LoopRange,
        T: Wire,
        Y: IterateValue,
        B: FnMut(R::Index, &mut T) -> Y,
    {
        let technique = &options.technique;
        match &options.check {
            Some(check) => {
                // The check's re-execution runs the body from a shared reference.
                let body = std::cell::RefCell::new(body);
                let body = |i, acc: &mut T| (body.borrow_mut())(i, acc).observation();
                self.fold_checked(range, technique, check, identity, combine, body)
                    .map(|(total, _)| total)
            }
            None => self.fold(range, technique, identity, combine, |i, acc| {
                body(i, acc);
            }),
        }
    }

    /// [`fold`](InnerLoops::fold) that checks itself across the ranks of the group, as
    /// `Runtime::doall_reduce_checked` does across a loop's workers: the iterates run in a seeded
    /// random order, `body` returns each iterate's observation (a value, or a regression row;
    /// `None`: none), and after the inner loop a test across the group's ranks names a rank that
    /// disagrees; with `DLS_CHECK=repair` its iterates run again on the group's other ranks.
    /// Returns the total and the check; in a one-level fallback (one rank) nothing can be
    /// compared and the check says so.
    fn fold_checked<R, T, B>(
        &mut self,
        range: R,
        technique: &Technique,
        check: &Check,
        identity: impl Fn() -> T,
        combine: impl Fn(T, T) -> T,
        body: B,
    ) -> Result<(T, CheckReport), DlsError>
    where
        R: LoopRange,
        T: Wire,
        B: Fn(R::Index, &mut T) -> Option<Observation>,
    {
        let settings = crate::current()?.settings().clone();
        let mode = settings.check.unwrap_or_default();
        let alpha = settings.check_alpha.unwrap_or(check.alpha);
        let (first, n) = range.first_and_len()?;
        let technique = self.schedule.unwrap_or(technique);
        let permutation = (mode != CheckMode::Off && !check.exchangeable)
            .then(|| Permutation::new(n, check.seed));
        let seed = permutation.as_ref().map(|_| check.seed);
        let me = self.team.map_or(0, |t| t.rank());
        let name = match panic_ctx::current_iterate() {
            Some((ctx, j)) => format!("{} (inner loop of outer iterate {j})", ctx.loop_name),
            None => "inner loop".to_string(),
        };
        // Runs the positions `count` maps to, on this rank (unless it is `skip`), as one inner
        // loop over the group: this rank's parts.
        let mut run = |count: u64,
                       position: &dyn Fn(u64) -> u64,
                       skip: Option<usize>|
         -> Result<Vec<Part<T>>, DlsError> {
            let mut parts: Vec<Part<T>> = Vec::new();
            let order = Order {
                first,
                permutation: permutation.as_ref(),
                worker: Some(me),
            };
            let step = |k: u64, parts: &mut Vec<Part<T>>| {
                run_position(parts, position(k), &order, &identity, &body)
            };
            let Some(team) = self.team else {
                let t0 = Instant::now();
                for k in 0..count {
                    step(k, &mut parts);
                }
                if let Some(t) = self.tally.as_deref_mut() {
                    let done = Tally {
                        iterates: count,
                        chunks: u64::from(count > 0),
                        work_s: t0.elapsed().as_secs_f64(),
                    };
                    t.note(technique, &done);
                }
                return Ok(parts);
            };
            let source = team.start(technique, count)?;
            let lp = UntypedLoop::new(
                name.as_str().into(),
                technique.clone(),
                count,
                source,
                Ending::Quiet,
            )
            .nested_in(panic_ctx::save());
            let lp = Loop::new(0_u64, lp);
            if skip != Some(me) {
                let each = |run: Iterates<u64>, p: &mut _| {
                    for k in run {
                        step(k, p);
                    }
                };
                let _ = drive(&lp, Some(0), &mut parts, each, Panics::Unwind);
            }
            let done = lp.finish_quietly();
            if let Some(t) = self.tally.as_deref_mut() {
                t.note(technique, &done);
            }
            Ok(parts)
        };
        // Every rank's parts, on every rank of the group.
        let everyone =
            |mine: Vec<Part<T>>, team: Option<&dyn Team>| -> Result<Vec<Part<T>>, DlsError> {
                match team {
                    None => Ok(mine),
                    Some(t) => Ok(gather_values(t.exchange(), &mine)?
                        .into_iter()
                        .flatten()
                        .collect()),
                }
            };
        let team = self.team;
        let mine = run(n, &|k| k, None)?;
        let mut parts = everyone(mine, team)?;
        let (verdict, mut report) = judge(&summaries(&parts), alpha, seed, check.test);
        if report.rejected && me == 0 {
            panic_ctx::say_line(&format!(
                "dls: {name}: the fault check rejects that the group's ranks agree ({:?}, p = \
                 {:e}){}",
                verdict.outcome,
                report.p.unwrap_or(0.0),
                report
                    .suspect
                    .map_or(String::new(), |w| format!("; suspect: group rank {w}"))
            ));
        }
        if report.rejected && mode == CheckMode::Repair {
            let Some(suspect) = report.suspect else {
                return Err(DlsError::FaultCheck(format!(
                    "{name}: the group's ranks disagree (p = {:e}) but no single rank can be \
                     blamed (that needs at least 3 ranks, or one with values that are not \
                     finite): the result cannot be trusted",
                    report.p.unwrap_or(0.0)
                )));
            };
            let (runs, starts, m) = positions_of(&parts, suspect);
            parts.retain(|p| p.worker != suspect);
            let again = run(m, &|j| position_at(&runs, &starts, j), Some(suspect))?;
            parts.extend(everyone(again, team)?);
            let (after, after_report) = judge(&summaries(&parts), alpha, seed, check.test);
            report.reexecuted = runs.iter().map(|&(a, b)| [a, b - a]).collect();
            report.f_after = after_report.f;
            report.p_after = after_report.p;
            if after.global.is_none() || after.rejects_by(check.test, alpha) {
                return Err(DlsError::FaultCheck(format!(
                    "{name}: the group's ranks disagree (p = {:e}); after re-executing group rank \
                     {suspect}'s {m} iterates on the others the check does not pass ({:?})",
                    report.p.unwrap_or(0.0),
                    after.outcome
                )));
            }
            report.repaired = true;
        }
        let mut total = identity();
        for part in parts {
            total = combine(total, part.value);
        }
        Ok((total, report))
    }

    /// An inner loop without a result.
    ///
    /// ```
    /// let mut inner = dls_runtime::group::InnerLoops::solo();
    /// let mut seen = 0;
    /// inner.doall(0..5i32, &"ss".parse().unwrap(), |_| seen += 1).unwrap();
    /// assert_eq!(seen, 5);
    /// ```
    pub fn doall<R, B>(
        &mut self,
        range: R,
        technique: &Technique,
        mut body: B,
    ) -> Result<(), DlsError>
    where
        R: LoopRange,
        B: FnMut(R::Index),
    {
        self.fold(range, technique, || (), |_, _| (), |i, _| body(i))
    }

    /// An inner loop whose iterate `i` produces the `i`-th element of a vector (`gather`):
    /// every rank of the group gets the whole vector, in index order.
    ///
    /// ```
    /// let mut inner = dls_runtime::group::InnerLoops::solo();
    /// let v = inner.gather(3..6u16, &"static".parse().unwrap(), |i| i * 2).unwrap();
    /// assert_eq!(v, [6, 8, 10]);
    /// ```
    pub fn gather<R, V, B>(
        &mut self,
        range: R,
        technique: &Technique,
        mut body: B,
    ) -> Result<Vec<V>, DlsError>
    where
        R: LoopRange,
        V: Wire,
        B: FnMut(R::Index) -> V,
    {
        let (first, _) = range.first_and_len()?;
        let mut pairs: Vec<(u128, V)> = self.fold(
            range,
            technique,
            Vec::new,
            |mut a, mut b| {
                a.append(&mut b);
                a
            },
            |i, acc: &mut Vec<(u128, V)>| acc.push((R::Index::span(first, i), body(i))),
        )?;
        pairs.sort_by_key(|p| p.0);
        Ok(pairs.into_iter().map(|p| p.1).collect())
    }
}
