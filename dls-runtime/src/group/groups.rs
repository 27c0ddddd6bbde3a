//! [`Groups`]: the explicit API of two-level loops (`DLS_GroupSetup` and the 2D loop of Cariño & Banicescu (2007)
//! fig. 3.4).

use std::time::Instant;

use super::inner::{InnerLoops, InnerTally};
use super::layout::{GroupLayout, Role};
use super::spec::GroupSpec;
use super::two_level::TwoLevel;
use crate::runtime::engine::ordered::Runs;
use crate::runtime::loops::options::LoopOptions;
use crate::runtime::loops::reduction::Reduction;
use crate::runtime::Iterates;
use crate::runtime::{
    combine_partials, drive, DlsError, Ending, Loop, LoopIndex, LoopRange, LoopStats, Merging,
    Panics, Runtime, UntypedLoop, Wire,
};
use crate::{ChunkScheduler, Technique};

/// The groups of a two-level loop: the result of [`Runtime::group_setup`] (`DLS_GroupSetup`).
///
/// | Cariño & Banicescu (2007), fig. 3.4 | dls |
/// |---------------------|-----|
/// | `DLS_GroupSetup(MPI_COMM_WORLD, coordinator, minSize, maxSize, jInfo, iInfo)` | `rt.group_setup(GroupSpec::new(min, max).with_coordinator(c))?` |
/// | `DLS_StartLoop(jInfo, 1, M, jMethod)` … `DLS_EndLoop(jInfo, …)` (J-LOOP) | [`Groups::doall_2d`], [`Groups::doall_2d_reduce`], [`Groups::gather_2d`], [`Groups::fold_2d`] |
/// | PART A / PART B of a J-ITERATE | code in the closure before / after the inner loops |
/// | `DLS_StartLoop(iInfo, 1, N(J), iMethod)` … `DLS_EndLoop(iInfo, …)` (I-LOOP) | [`InnerLoops::doall`], [`InnerLoops::doall_reduce`], [`InnerLoops::gather`], [`InnerLoops::fold`] |
/// | `jIters`, `jTime`, `iIters`, `iTime` | the returned [`LoopStats`] (`report.groups`, `report.ranks`) |
///
/// On MPI with 3 or more ranks: a coordinator schedules the outer iterates among the groups;
/// within a group, every rank runs the outer iterate's code in lock step and the inner loops share
/// their iterates among the group. With 1 or 2 ranks (a one-line warning) and on the threads
/// backend, the outer loop runs as a one-level loop and each inner loop runs whole on the rank or
/// thread of its outer iterate.
///
/// Part A and part B must compute the same thing on every rank of a group (they run
/// redundantly), and every rank of the group must start the same inner loops in the same order.
///
/// ```
/// use dls_runtime::group::GroupSpec;
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let rt = dls_runtime::init()?;
/// let mut groups = rt.group_setup(GroupSpec::new(2, 4))?;
/// let fac2 = "fac2".parse()?;
/// // Σ_j Σ_{i < j} i, with the inner sum shared by the ranks of a group.
/// let (total, stats) = groups.fold_2d("sums", 0..20u64, "af".parse()?, || 0u64, |j, inner, acc| {
///     let part_a = j;                                                       // part A
///     let s: u64 = inner.fold(0..part_a, &fac2, || 0, |a, b| a + b, |i, s| *s += i)?;
///     *acc += s;                                                            // part B
///     Ok(())
/// }, |a, b| a + b)?;
/// assert_eq!(total, (0..20u64).map(|j| j * j.saturating_sub(1) / 2).sum::<u64>());
/// assert_eq!(stats.report.n, 20);
/// # Ok(()) }
/// ```
pub struct Groups<'rt> {
    rt: &'rt Runtime,
    /// `None`: the one-level fallback (the outer loop runs as a one-level loop of the runtime;
    /// inner loops run whole).
    two_level: Option<Box<dyn TwoLevel>>,
}

impl std::fmt::Debug for Groups<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Groups")
            .field("two_level", &self.two_level.is_some())
            .finish_non_exhaustive()
    }
}

/// The result of one outer iterate's body: inner loops return errors with `?`.
pub type BodyResult = Result<(), DlsError>;

impl Runtime {
    /// `DLS_GroupSetup`: groups the ranks by rack (`DLS_RACKS`, default: by node) into groups of
    /// `spec.min..=spec.max` ranks plus a coordinator (see [`GroupLayout::plan`]). Collective on
    /// MPI: every rank calls it.
    ///
    /// Errors: `min < 1`, `min > max`, a coordinator that is not a rank, a rack map that does not
    /// parse, fewer than `min + 1` ranks on 3 or more ranks. With 1 or 2 MPI ranks the loops run
    /// as one-level loops, after a one-line warning on rank 0.
    ///
    /// ```
    /// use dls_runtime::group::GroupSpec;
    /// let rt = dls_runtime::init().unwrap();
    /// assert!(rt.group_setup(GroupSpec::new(3, 2)).is_err());
    /// let groups = rt.group_setup(GroupSpec::new(1, 4)).unwrap();
    /// assert_eq!(groups.is_two_level(), false); // threads backend
    /// ```
    pub fn group_setup(&self, spec: GroupSpec) -> Result<Groups<'_>, DlsError> {
        spec.validate().map_err(|e| DlsError::Setting {
            name: "group",
            value: format!("min={},max={}", spec.min, spec.max),
            message: match e {
                super::GroupError::Spec(m) => m,
                other => other.to_string(),
            },
        })?;
        let two_level = match self.backend() {
            crate::runtime::Backend::Mpi { .. } => two_level_setup(&spec)?,
            crate::runtime::Backend::Threads { .. } => None,
        };
        Ok(Groups {
            rt: self,
            two_level,
        })
    }
}

impl Groups<'_> {
    /// True when loops run on two levels (MPI, 3 or more ranks).
    pub fn is_two_level(&self) -> bool {
        self.two_level.is_some()
    }

    /// The groups in use (None for a one-level fallback).
    pub fn layout(&self) -> Option<&GroupLayout> {
        self.two_level.as_ref().map(|g| g.layout())
    }

    /// What the calling rank does (None for a one-level fallback).
    pub fn role(&self) -> Option<Role> {
        self.two_level.as_ref().map(|g| g.role())
    }

    /// The engine of a two-level loop's outer loop (as [`Runtime::run`] is of a one-level loop):
    /// [`fold_2d`](Groups::fold_2d) with the name and technique of `options`, whose merge keeps
    /// the outer iterates' order when `options.ordered`. (An outer loop is not checked: its
    /// inner loops are, across each group's ranks.)
    ///
    /// ```
    /// use dls_runtime::{group::GroupSpec, runtime::options::LoopOptions};
    /// let rt = dls_runtime::init().unwrap();
    /// let mut groups = rt.group_setup(GroupSpec::new(1, 4)).unwrap();
    /// let options = LoopOptions::new("rows", "af".parse().unwrap()).ordered();
    /// let (s, _) = groups.run(&options, 0..4u8, String::new,
    ///     |j, _inner, s: &mut String| { s.push(char::from(b'a' + j)); Ok(()) },
    ///     |a, b| a + &b).unwrap();
    /// assert_eq!(s, "abcd");
    /// ```
    pub fn run<R, T, Id, B, C>(
        &mut self,
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
        B: Fn(R::Index, &mut InnerLoops<'_>, &mut T) -> BodyResult + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        // The outer loop's strategy and re-execution are the options'; its order is kept here.
        let mut plain = options.clone();
        plain.ordered = false;
        plain.check = None;
        if !options.ordered {
            let red = Reduction {
                identity,
                body,
                combine,
            };
            return self.fold_2d_with(&plain, range, red);
        }
        let (first, _) = range.first_and_len()?;
        let runs = Reduction {
            identity: Runs::new,
            body: |j, inner: &mut InnerLoops<'_>, own: &mut Runs<T>| {
                body(j, inner, own.at(R::Index::span(first, j) as u64, &identity))
            },
            combine: Runs::append,
        };
        let (runs, stats) = self.fold_2d_with(&plain, range, runs)?;
        Ok((runs.finish(identity, combine), stats))
    }

    /// The core of every two-level loop: the outer iterates of `range` are scheduled with
    /// `technique` (`DLS_SCHEDULE` overrides it, and the inner techniques); `body(j, inner, acc)`
    /// runs outer iterate `j`, folding into a private accumulator started at `identity()`; the
    /// partial results are combined with `combine` and every rank gets the total. The first
    /// error returned by a body ends the loop on that rank and is returned there (on MPI, a body
    /// must not fail on some ranks of a group only: make errors impossible, or panic, which
    /// aborts the job).
    pub fn fold_2d<R, T, Id, B, C>(
        &mut self,
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
        B: Fn(R::Index, &mut InnerLoops<'_>, &mut T) -> BodyResult + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        let red = Reduction {
            identity,
            body,
            combine,
        };
        self.fold_2d_with(&LoopOptions::new(name, technique), range, red)
    }

    /// [`Groups::fold_2d`] of the loop `options` describes (its name, technique, strategy and
    /// re-execution).
    fn fold_2d_with<R, T, Id, B, C>(
        &mut self,
        options: &LoopOptions,
        range: R,
        red: Reduction<Id, B, C>,
    ) -> Result<(T, LoopStats), DlsError>
    where
        R: LoopRange,
        T: Send + Wire,
        Id: Fn() -> T + Sync,
        B: Fn(R::Index, &mut InnerLoops<'_>, &mut T) -> BodyResult + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        let Reduction {
            identity,
            body,
            combine,
        } = red;
        let name = options.name.as_str();
        let technique = self.rt.effective_technique(options.technique.clone());
        let strategy = self.rt.loop_config(options).strategy;
        let Some(g) = &self.two_level else {
            // One level: a plain loop, which returns its report as a two-level loop does (unless
            // the options say otherwise).
            let asked;
            let options = if options.statistics_read().is_none() {
                asked = options.clone().statistics();
                &asked
            } else {
                options
            };
            let failure = crate::runtime::annotate::sync::Mutex::new(None);
            let out = self.rt.run(
                options,
                range,
                &identity,
                |j, acc| {
                    if let Err(e) = body(j, &mut InnerLoops::solo(), acc) {
                        let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
                        f.get_or_insert(e);
                    }
                },
                &combine,
            )?;
            return match failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
                Some(e) => Err(e),
                None => Ok(out),
            };
        };
        let schedule = self.rt.settings().schedule.as_ref();
        let (first, m) = range.first_and_len()?;
        ChunkScheduler::new(&technique, m, g.layout().groups.len())?;
        g.start_together();
        let t0 = Instant::now();
        let mut tally = InnerTally::default();
        let mut failure = None;
        let mut partial = None;
        let mut outer_report = None;
        match g.role() {
            Role::Coordinator => outer_report = Some(g.coordinate(&technique, m, name, t0)?),
            Role::Member { index, .. } => {
                let team = g.team().expect("members have a group");
                let source = g.outer(&technique, m)?;
                let lp = Loop::new(
                    first,
                    UntypedLoop::new(name.into(), technique.clone(), m, source, Ending::Quiet),
                );
                let mut acc = identity();
                // Every rank of a group runs the group's outer iterates in lock step, on the
                // worker loop of every loop (a panicking iterate names its outer iterate and
                // aborts the job).
                let mut each = |j, acc: &mut T| {
                    let mut inner = InnerLoops::group(team, &mut tally, schedule, strategy);
                    // Later iterates still run, so that every rank of the group keeps starting
                    // the same inner loops.
                    if let Err(e) = body(j, &mut inner, acc) {
                        failure.get_or_insert(e);
                    }
                };
                let each = |run: Iterates<R::Index>, acc: &mut T| {
                    for j in run {
                        each(j, acc);
                    }
                };
                let _ = drive(&lp, Some(0), &mut acc, each, Panics::Unwind);
                let did = lp.finish_quietly().chunks > 0;
                // The leaders hold the group's partial result.
                if index == 0 && did {
                    partial = Some(acc);
                }
            }
            Role::Idle => {}
        }
        let time_s = t0.elapsed().as_secs_f64();
        let (value, reduction) = combine_partials(
            name,
            strategy,
            None,
            Some(g.world()),
            [partial],
            Merging::new(&identity, &combine),
        )?;
        let mut report = g.report(name, &technique, m, time_s, tally, outer_report)?;
        report.reduction = Some(reduction);
        if let Some(e) = failure {
            return Err(e);
        }
        let rank = g.world_rank();
        if rank == 0 {
            let mode = &self.rt.settings().report;
            crate::runtime::observe::stats::emit(&report, mode);
            match mode {
                crate::runtime::observe::stats::ReportMode::Stderr => {
                    eprint!("{}", super::group_summary(&report))
                }
                crate::runtime::observe::stats::ReportMode::Stdout => {
                    print!("{}", super::group_summary(&report))
                }
                _ => {}
            }
        }
        Ok((value, LoopStats::from_report(report, rank, false)))
    }

    /// A two-level loop without a result. Named after the caller's source location.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// let rt = dls_runtime::init().unwrap();
    /// let mut groups = rt.group_setup(dls_runtime::group::GroupSpec::new(1, 4)).unwrap();
    /// let pairs = AtomicU64::new(0);
    /// let fac2 = "fac2".parse().unwrap();
    /// groups.doall_2d(0..5u32, "gss".parse().unwrap(), |j, inner| {
    ///     inner.doall(0..j, &fac2, |_| { pairs.fetch_add(1, Ordering::Relaxed); })
    /// }).unwrap();
    /// assert_eq!(pairs.into_inner(), 10); // threads backend: this process did all
    /// ```
    #[track_caller]
    pub fn doall_2d<R, B>(
        &mut self,
        range: R,
        technique: Technique,
        body: B,
    ) -> Result<LoopStats, DlsError>
    where
        R: LoopRange,
        B: Fn(R::Index, &mut InnerLoops<'_>) -> BodyResult + Sync,
    {
        let name = std::panic::Location::caller().to_string();
        self.fold_2d(
            &name,
            range,
            technique,
            || (),
            |j, inner, _| body(j, inner),
            |_, _| (),
        )
        .map(|(_, stats)| stats)
    }

    /// A two-level loop whose outer iterate `j` produces the `j`-th element of a vector
    /// (`gather` on the outer loop): every rank gets the whole vector, in index order. Named
    /// after the caller's source location.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let mut groups = rt.group_setup(dls_runtime::group::GroupSpec::new(1, 4)).unwrap();
    /// let ss = "ss".parse().unwrap();
    /// let (sums, _) = groups.gather_2d(0..4u64, "static".parse().unwrap(), |j, inner| {
    ///     inner.fold(0..=j, &ss, || 0u64, |a, b| a + b, |i, s| *s += i)
    /// }).unwrap();
    /// assert_eq!(sums, [0, 1, 3, 6]);
    /// ```
    #[track_caller]
    pub fn gather_2d<R, V, B>(
        &mut self,
        range: R,
        technique: Technique,
        body: B,
    ) -> Result<(Vec<V>, LoopStats), DlsError>
    where
        R: LoopRange,
        V: Send + Wire,
        B: Fn(R::Index, &mut InnerLoops<'_>) -> Result<V, DlsError> + Sync,
    {
        let name = std::panic::Location::caller().to_string();
        let (first, _) = range.first_and_len()?;
        let (mut pairs, stats) = self.fold_2d(
            &name,
            range,
            technique,
            Vec::new,
            |j, inner, acc: &mut Vec<(u128, V)>| {
                acc.push((R::Index::span(first, j), body(j, inner)?));
                Ok(())
            },
            |mut a, mut b| {
                a.append(&mut b);
                a
            },
        )?;
        pairs.sort_by_key(|p| p.0);
        Ok((pairs.into_iter().map(|p| p.1).collect(), stats))
    }
}

/// The two-level communicators on MPI (`None`: a one-level fallback).
#[cfg(feature = "mpi")]
fn two_level_setup(spec: &GroupSpec) -> Result<Option<Box<dyn TwoLevel>>, DlsError> {
    super::two_level_mpi::MpiGroups::setup(spec)
}

/// Without MPI there are no two-level communicators.
#[cfg(not(feature = "mpi"))]
fn two_level_setup(_: &GroupSpec) -> Result<Option<Box<dyn TwoLevel>>, DlsError> {
    Ok(None)
}
