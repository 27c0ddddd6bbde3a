//! Loops that check themselves (Wegman, c. 2000, §3: stochastic domain decomposition): the
//! iterates run in a seeded pseudo-random order, so that each worker's iterates are a random
//! sample of the loop; every iterate yields a value `y`, each worker (a rank under MPI, a thread
//! otherwise) summarises its values, and a one-way ANOVA across the workers tests that they are
//! samples of one population. A rejection means that some worker computes wrongly, and the
//! leave-one-out tests name it (`crate::fault_check`).
//!
//! The check is on by default for a checked loop (`DLS_CHECK=warn`): a rejection is reported in
//! the loop report (`check`) and, on rank 0, on stderr; `DLS_CHECK=off` runs the loop unchecked
//! and in its own order. `DLS_CHECK_ALPHA` sets the significance level (default
//! [`DEFAULT_ALPHA`]).

use serde::{Deserialize, Serialize};

use crate::fault_check::{
    anova, regression, AnovaStats, Outcome, Permutation, RegressionStats, Verdict,
};
pub use crate::fault_check::{CheckTest, Observation, MAX_PREDICTORS};
use crate::report::CheckReport;
use crate::runtime::combine::wire::Wire;
use crate::runtime::engine::plan::Plan;
use crate::runtime::error::DlsError;
pub use crate::runtime::loops::options::{Check, CheckMode, DEFAULT_ALPHA};
use crate::runtime::loops::options::{IterateValue, LoopOptions};
use crate::runtime::loops::panic_ctx;
use crate::runtime::loops::range::{LoopIndex, LoopRange};
use crate::runtime::loops::reduction::Reduction;
use crate::runtime::observe::stats::LoopStats;

/// One worker's summaries: its values' (ANOVA) and, for a regression check, its rows'.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct WorkerStats {
    values: AnovaStats,
    rows: Option<RegressionStats>,
}

impl WorkerStats {
    pub(crate) fn merge(a: WorkerStats, b: WorkerStats) -> WorkerStats {
        WorkerStats {
            values: AnovaStats::merge(a.values, b.values),
            rows: match (a.rows, b.rows) {
                (Some(x), Some(y)) => Some(RegressionStats::merge(&x, &y)),
                (x, y) => x.or(y),
            },
        }
    }
}

/// One worker's part of a checked loop: its key (rank or thread), its partial result and the
/// summary of its iterates' values.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(
    serialize = "T: Serialize",
    deserialize = "T: serde::de::DeserializeOwned"
))]
pub(crate) struct Part<T> {
    pub(crate) worker: usize,
    pub(crate) value: T,
    pub(crate) stats: WorkerStats,
    /// The positions (in the permuted order) this part's iterates ran at, as runs `[start, end)`.
    pub(crate) runs: Vec<(u64, u64)>,
}

/// Where a checked loop's positions go: the range's first index, the permutation of the
/// positions (`None`: exchangeable, their own order), and the worker the parts are of (`None`:
/// the worker this thread works for, the MPI rank or the thread's slot; an inner loop's group
/// rank otherwise).
pub(crate) struct Order<'p, I> {
    pub(crate) first: I,
    pub(crate) permutation: Option<&'p Permutation>,
    pub(crate) worker: Option<usize>,
}

/// Runs `body` (checked: it returns the iterate's value) for one position, into this worker's
/// part of `parts`, noting the position's run.
pub(crate) fn run_position<I: LoopIndex, T>(
    parts: &mut Vec<Part<T>>,
    position: u64,
    order: &Order<'_, I>,
    identity: &dyn Fn() -> T,
    body: &dyn Fn(I, &mut T) -> Option<Observation>,
) {
    let (first, worker) = (order.first, order.worker);
    let index = match order.permutation {
        Some(pi) => I::offset_from(first, pi.apply(position)),
        None => I::offset_from(first, position),
    };
    if parts.is_empty() {
        let worker = worker
            .or_else(crate::runtime::check::inject::current_worker)
            .unwrap_or_default();
        parts.push(Part {
            worker,
            value: identity(),
            stats: WorkerStats::default(),
            runs: Vec::new(),
        });
    }
    let part = &mut parts[0];
    if let Some(o) = body(index, &mut part.value) {
        match o.predictors() {
            0 => part.stats.values.push(o.y()),
            p => part
                .stats
                .rows
                .get_or_insert_with(|| RegressionStats::new(p))
                .push(o.x(), o.y()),
        }
    }
    match part.runs.last_mut() {
        Some((_, end)) if *end == position => *end += 1,
        _ => part.runs.push((position, position + 1)),
    }
}

/// Worker `suspect`'s positions, as sorted runs, with the index of each run's first position in
/// the re-execution (`starts`) and their count.
pub(crate) fn positions_of<T>(
    parts: &[Part<T>],
    suspect: usize,
) -> (Vec<(u64, u64)>, Vec<u64>, u64) {
    let mut runs: Vec<(u64, u64)> = parts
        .iter()
        .filter(|p| p.worker == suspect)
        .flat_map(|p| p.runs.iter().copied())
        .collect();
    runs.sort_unstable();
    let starts: Vec<u64> = runs
        .iter()
        .scan(0, |acc, (a, b)| {
            let at = *acc;
            *acc += b - a;
            Some(at)
        })
        .collect();
    let m = runs.iter().map(|(a, b)| b - a).sum();
    (runs, starts, m)
}

/// The position of re-execution iterate `j` (see [`positions_of`]).
pub(crate) fn position_at(runs: &[(u64, u64)], starts: &[u64], j: u64) -> u64 {
    let r = starts.partition_point(|&s| s <= j) - 1;
    runs[r].0 + (j - starts[r])
}

/// The test of the workers' summaries at `alpha`, and its report (`seed`: the permutation's).
pub(crate) fn judge(
    per_worker: &[WorkerStats],
    alpha: f64,
    seed: Option<u64>,
    rule: CheckTest,
) -> (Verdict, CheckReport) {
    // A regression check when the iterates yielded rows, else the ANOVA of their values.
    let predictors = per_worker
        .iter()
        .find_map(|w| w.rows.as_ref().map(RegressionStats::predictors));
    let (test, verdict) = match predictors {
        Some(p) => {
            let rows: Vec<RegressionStats> = per_worker
                .iter()
                .map(|w| w.rows.clone().unwrap_or_else(|| RegressionStats::new(p)))
                .collect();
            ("regression", regression(&rows).homogeneity)
        }
        None => {
            let values: Vec<AnovaStats> = per_worker.iter().map(|w| w.values).collect();
            ("anova", anova(&values))
        }
    };
    let counted = |w: &WorkerStats| match &w.rows {
        Some(r) => r.rows(),
        None => w.values.values(),
    };
    let rejected = verdict.rejects_by(rule, alpha);
    let report = CheckReport {
        test: test.into(),
        rule: rule.name().into(),
        seed,
        alpha,
        f: verdict.global.map(|t| t.f),
        df1: verdict.global.map(|t| t.df1),
        df2: verdict.global.map(|t| t.df2),
        p: verdict.global.map(|t| t.p),
        outcome: match &verdict.outcome {
            Outcome::Tested => "tested".into(),
            other => format!("{other:?}"),
        },
        rejected,
        // With two workers a disagreement cannot say which one is wrong (each differs from the
        // other alike), unless one's values are not finite.
        suspect: verdict.flagged_by(rule, alpha).filter(|_| {
            matches!(verdict.outcome, Outcome::Malformed(_))
                || per_worker.iter().filter(|w| counted(w) > 0).count() >= 3
        }),
        suspect_p: verdict.suspect.as_ref().map(|s| s.p()),
        worker_means: per_worker
            .iter()
            .map(|w| w.rows.as_ref().map_or(w.values.mean(), |r| r.mean_y()))
            .collect(),
        worker_values: per_worker.iter().map(counted).collect(),
        ..CheckReport::default()
    };
    (verdict, report)
}

/// One summary per worker (a worker may hold several parts when its values were exchanged).
pub(crate) fn summaries<T>(parts: &[Part<T>]) -> Vec<WorkerStats> {
    let workers = parts.iter().map(|p| p.worker + 1).max().unwrap_or(0);
    let mut per = vec![WorkerStats::default(); workers];
    for part in parts {
        per[part.worker] =
            WorkerStats::merge(std::mem::take(&mut per[part.worker]), part.stats.clone());
    }
    per
}

/// The plain loop under the checked adaptor, and what the adaptor reads of the runtime: the
/// runtime's engine implements it (`engine/plain.rs`), so that this file needs nothing above it.
pub(crate) trait Plain {
    /// Runs the plain loop (no adaptor) by `plan`, folding each iterate with `red`'s body.
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
        C: Fn(T, T) -> T + Sync;
    /// This process's rank (0 on threads): rank 0 prints what the check finds.
    fn rank(&self) -> usize;
    /// `DLS_CHECK` and `DLS_CHECK_ALPHA`.
    fn check_settings(&self) -> (CheckMode, Option<f64>);
}

/// The checked adaptor of the engine ([`Runtime::run`](crate::Runtime::run) with
/// [`LoopOptions::check`]): runs the loop over a seeded permutation (unless
/// `check.exchangeable`), each worker keeping a summary of its iterates' values beside its
/// value, tests the summaries across the workers, and with `DLS_CHECK=repair` runs a suspect's
/// iterates again on the others.
pub(crate) fn run<P, R, T, Y, Id, B, C>(
    plain: &P,
    options: &LoopOptions,
    check: &Check,
    range: R,
    red: Reduction<Id, B, C>,
) -> Result<(T, LoopStats), DlsError>
where
    P: Plain,
    R: LoopRange,
    T: Send + Wire,
    Y: IterateValue,
    Id: Fn() -> T + Sync,
    B: Fn(R::Index, &mut T) -> Y + Sync,
    C: Fn(T, T) -> T + Sync,
{
    let (mode, alpha_setting) = plain.check_settings();
    let Reduction {
        identity,
        body,
        combine,
    } = red;
    let body = |i, acc: &mut T| body(i, acc).observation();
    let (first, n) = range.first_and_len()?;
    let permutation = (!check.exchangeable).then(|| Permutation::new(n, check.seed));
    let judging = Judging {
        alpha: alpha_setting.unwrap_or(check.alpha),
        seed: permutation.as_ref().map(|_| check.seed),
        test: check.test,
    };
    // Counted once per run, where the report is made: whether this is the loop's first run
    // that could not test (said once, on rank 0, below).
    let first_untested = std::cell::Cell::new(false);
    let look = |parts: &Vec<Part<T>>| {
        let (verdict, mut report) = judging.judge(&summaries(parts));
        let (runs, first) = count_run(&options.name, tested(&verdict.outcome));
        report.checked_runs = runs.checked;
        report.untested_runs = runs.untested;
        first_untested.set(first);
        Some(report)
    };
    let order = Order {
        first,
        permutation: permutation.as_ref(),
        worker: None,
    };
    let plan = Plan {
        inspect: Some(&look),
        ..Plan::default()
    };
    let red = Reduction {
        identity: Vec::new,
        body: |i, parts: &mut Vec<Part<T>>| {
            let position = R::Index::span(first, i) as u64;
            run_position(parts, position, &order, &identity, &body);
        },
        combine: concat,
    };
    let (mut parts, mut stats) = plain.plain(options, plan, range, red)?;
    let (verdict, mut report) = judging.judge(&summaries(&parts));
    if let Some(noted) = &stats.report.check {
        report.checked_runs = noted.checked_runs;
        report.untested_runs = noted.untested_runs;
    }
    if plain.rank() == 0 {
        if first_untested.get() {
            say_untested(&options.name, &verdict, &report);
        }
        say_verdict(&options.name, &verdict, &report, judging.alpha);
    }
    if report.rejected && mode == CheckMode::Repair {
        let repairing = Repairing {
            plain,
            options,
            judging: &judging,
            order: &order,
            identity: &identity,
            body: &body,
        };
        repairing.repair(&mut parts, &mut report)?;
    }
    // The result: every remaining part's value (the suspect's replaced after a repair).
    let mut total = None;
    for part in parts {
        total = Some(match total {
            None => part.value,
            Some(t) => combine(t, part.value),
        });
    }
    stats.report.check = Some(report);
    Ok((total.unwrap_or_else(identity), stats))
}

/// Two workers' parts, one after the other.
fn concat<T>(mut a: Vec<Part<T>>, mut b: Vec<Part<T>>) -> Vec<Part<T>> {
    a.append(&mut b);
    a
}

/// How a checked loop's summaries are tested: the level, the permutation's seed (none for an
/// exchangeable range) and the test.
struct Judging {
    alpha: f64,
    seed: Option<u64>,
    test: CheckTest,
}

impl Judging {
    /// [`judge`] with these settings.
    fn judge(&self, summaries: &[WorkerStats]) -> (Verdict, CheckReport) {
        judge(summaries, self.alpha, self.seed, self.test)
    }
}

/// Whether a check with this outcome tested the workers (a malformed summary is a fault found
/// without a test, so it counts as tested).
fn tested(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Tested | Outcome::Malformed(_))
}

/// A loop's checked runs in this process: how many, how many could not test, and whether that
/// was said.
#[derive(Debug, Clone, Copy, Default)]
struct CheckRuns {
    checked: u64,
    untested: u64,
    said: bool,
}

/// Per loop name, the checked runs of this process (at most [`MAX_COUNTED`] names; beyond, the
/// counts start again).
static CHECK_RUNS: crate::runtime::annotate::sync::Mutex<
    Option<std::collections::HashMap<String, CheckRuns>>,
> = crate::runtime::annotate::sync::Mutex::new(None);

/// The most loop names whose checked runs are counted.
const MAX_COUNTED: usize = 1024;

/// Counts a checked run of loop `name` that `tested` or not; returns the loop's counts and
/// whether this is its first run that could not test (which is said, once per loop).
fn count_run(name: &str, tested: bool) -> (CheckRuns, bool) {
    let mut all = CHECK_RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let all = all.get_or_insert_with(std::collections::HashMap::new);
    if all.len() >= MAX_COUNTED && !all.contains_key(name) {
        all.clear();
    }
    let runs = all.entry(name.to_string()).or_default();
    runs.checked += 1;
    let first = !tested && !runs.said;
    if !tested {
        runs.untested += 1;
        runs.said = true;
    }
    (*runs, first)
}

/// Why a check with this outcome could not test, and what would let it (`None`: it tested).
pub(crate) fn untested_reason(outcome: &Outcome) -> Option<(&'static str, &'static str)> {
    match outcome {
        Outcome::Tested | Outcome::Malformed(_) => None,
        Outcome::TooFewRanks => Some((
            "fewer than two workers ran iterates (one worker took every chunk before the others \
             started: the loop's work is small beside the time a worker takes to start)",
            "give the loop more work per run (more iterates, or costlier ones) so that several \
             workers take chunks, or run it on more workers",
        )),
        Outcome::NoWithinDf => Some((
            "no worker ran more iterates than its test fits (no within-worker degrees of \
             freedom)",
            "give the loop more iterates per worker (at least two values per worker; more than \
             the predictors for a regression check)",
        )),
        Outcome::NoVariance => Some((
            "its values do not vary (beyond rounding) within or across workers, so there is no \
             evidence either way",
            "return a value that varies from iterate to iterate (a constant value cannot show a \
             faulty worker)",
        )),
        Outcome::Overflow => Some((
            "a sum of squares overflowed although every value was finite",
            "scale the values (the check is the same for values divided by a constant)",
        )),
    }
}

/// What rank 0 says, once per loop, of a checked loop that could not test: why, and what would
/// let it test; the loop report counts such runs (`check.untested_runs`, and its summary).
fn say_untested(name: &str, verdict: &Verdict, report: &CheckReport) {
    let Some((why, remedy)) = untested_reason(&verdict.outcome) else {
        return;
    };
    panic_ctx::say_line(&format!(
        "dls: warning: loop `{name}`: the fault check could not test ({outcome}): {why}; to have \
         it, {remedy}. Said once per loop; its reports count the runs that could not test \
         (this is run {run} of the loop; DLS_CHECK=off turns the check off)",
        outcome = report.outcome,
        run = report.checked_runs,
    ));
}

/// What rank 0 says of a check's verdict: a rejection with its figures and the suspect.
fn say_verdict(name: &str, verdict: &Verdict, report: &CheckReport, alpha: f64) {
    let workers = report.worker_values.len();
    if !report.rejected {
        return;
    }
    if let Outcome::Malformed(bad) = &verdict.outcome {
        panic_ctx::say_line(&format!(
            "dls: loop `{name}`: the fault check finds values that are not finite (NaN or \
             infinity) on worker(s) {bad:?}: suspect: worker {}",
            bad.first().copied().unwrap_or_default()
        ));
    } else {
        panic_ctx::say_line(&format!(
            "dls: loop `{name}`: the fault check rejects that the {workers} workers agree \
             (F = {:.4}, df = ({}, {}), p = {:.3e} < alpha = {alpha:e}){}",
            report.f.unwrap_or(f64::NAN),
            report.df1.unwrap_or(0),
            report.df2.unwrap_or(0),
            report.p.unwrap_or(0.0),
            match report.suspect {
                Some(w) => format!("; suspect: worker {w}"),
                None => String::new(),
            }
        ));
    }
}

/// What the repair of a rejected check (`DLS_CHECK=repair`) runs with: the engine, the loop's
/// options, how it is judged, the order of its iterates, and its identity and body.
struct Repairing<'a, P, I, Id, B> {
    plain: &'a P,
    options: &'a LoopOptions,
    judging: &'a Judging,
    order: &'a Order<'a, I>,
    identity: &'a Id,
    body: &'a B,
}

impl<P, I, Id, B> Repairing<'_, P, I, Id, B>
where
    P: Plain,
    I: LoopIndex,
{
    /// Runs the suspect's iterates again on the other workers and tests again: the suspect's
    /// parts in `parts` are replaced, and `report` says what the test found after. An error
    /// where no single worker can be blamed, or where the workers still disagree.
    fn repair<T>(&self, parts: &mut Vec<Part<T>>, report: &mut CheckReport) -> Result<(), DlsError>
    where
        T: Send + Wire,
        Id: Fn() -> T + Sync,
        B: Fn(I, &mut T) -> Option<Observation> + Sync,
    {
        let name = self.options.name.as_str();
        let Some(suspect) = report.suspect else {
            return Err(DlsError::FaultCheck(format!(
                "loop `{name}`: the workers disagree (p = {:e}) but no single worker can be \
                 blamed (that needs at least 3 workers, or one with values that are not \
                 finite), so there is nothing to re-execute and the result cannot be trusted",
                report.p.unwrap_or(0.0)
            )));
        };
        // The suspect's positions, in order, and a loop over them on the other workers.
        let (runs, starts, m) = positions_of(parts, suspect);
        parts.retain(|p| p.worker != suspect);
        report.reexecuted = runs.iter().map(|&(a, b)| [a, b - a]).collect();
        // The test after the re-execution: the other workers' first values and the
        // re-executed ones (the re-execution loop's report carries it).
        let kept = summaries(parts);
        let after_of = |again: &Vec<Part<T>>| {
            let mut all = kept.clone();
            for (w, s) in summaries(again).into_iter().enumerate() {
                if w < all.len() {
                    all[w] = WorkerStats::merge(std::mem::take(&mut all[w]), s);
                } else {
                    all.push(s);
                }
            }
            // The suspect took no part: test the workers that did.
            all.retain(|w| w.values.values() > 0 || w.rows.as_ref().is_some_and(|r| r.rows() > 0));
            self.judging.judge(&all).0
        };
        let (alpha, test) = (self.judging.alpha, self.judging.test);
        let report_after = |again: &Vec<Part<T>>| {
            let after = after_of(again);
            let mut r = report.clone();
            r.f_after = after.global.map(|t| t.f);
            r.p_after = after.global.map(|t| t.p);
            r.repaired = after.global.is_some() && !after.rejects_by(test, alpha);
            Some(r)
        };
        let mut again_options = self.options.clone();
        again_options.name = format!("{name} (re-execution)");
        let plan = Plan {
            skip: Some(suspect),
            inspect: Some(&report_after),
            ..Plan::default()
        };
        let red = Reduction {
            identity: Vec::new,
            body: |j: u64, parts: &mut Vec<Part<T>>| {
                let position = position_at(&runs, &starts, j);
                run_position(parts, position, self.order, self.identity, self.body);
            },
            combine: concat,
        };
        let (again, _) = self.plain.plain(&again_options, plan, 0..m, red)?;
        let after = after_of(&again);
        parts.extend(again);
        report.p_after = after.global.map(|t| t.p);
        report.f_after = after.global.map(|t| t.f);
        if after.global.is_none() {
            return Err(DlsError::FaultCheck(format!(
                "loop `{name}`: the workers disagree (p = {:e}); worker {suspect}'s {m} iterates \
                 ran again elsewhere, but the workers left cannot be tested ({:?}), so the \
                 result cannot be trusted",
                report.p.unwrap_or(0.0),
                after.outcome
            )));
        }
        if after.rejects_by(test, alpha) {
            return Err(DlsError::FaultCheck(format!(
                "loop `{name}`: the workers disagree (p = {:e}); after re-executing worker \
                 {suspect}'s {m} iterates elsewhere they still do (p = {:e})",
                report.p.unwrap_or(0.0),
                after.global.map_or(0.0, |t| t.p)
            )));
        }
        report.repaired = true;
        if self.plain.rank() == 0 {
            panic_ctx::say_line(&format!(
                "dls: loop `{name}`: worker {suspect}'s {m} iterates ran again on the other \
                 workers; the check now passes (p = {:e})",
                after.global.map_or(1.0, |t| t.p)
            ));
        }
        Ok(())
    }
}
