//! The simulator's choice of a technique for a measured loop, after SimAS (Mohammed & Ciorba
//! 2020): a [`Workload`] is estimated from one executed loop's report, every candidate technique
//! is simulated on it, and [`select`] takes the smallest predicted makespan. What `auto`
//! (`dls-runtime/src/runtime/memory/auto.rs`) runs between a loop's executions.
//!
//! **The workload.** From the report's chunk map and chunk times (each chunk: its iterates, its
//! rank, its measured work time): the rank speeds and the iterate-time profile over the index
//! are estimated together, alternating (a) the profile, [`Workload::BINS`] bins over the index,
//! each the mean time per iterate of the chunks over it divided by their ranks' time factors,
//! and (b) each rank's time factor, its measured work over the work the profile predicts for its
//! chunks (the fastest rank is 1). Chunks of different ranks over the same bins separate a slow
//! rank from expensive iterates. The spread of iterate times around the profile (its
//! coefficient of variation, from chunks small against their bins, whose relative error is
//! cov/√size) is drawn as gamma noise, so techniques whose last chunks are small see variance.
//! The per-chunk overhead is the median gap, per rank, between the end of a chunk and the start
//! of its next one (the request, the service and the reply), charged to the rank that takes the
//! chunk ([`ServiceModel::Parallel`]: the measured gap already contains any queueing).
//!
//! **Limits.** The profile's resolution is 64 bins and, under a measuring run of FAC2, the first
//! chunks (N/(2P) iterates each) are its only measurements of their bins; a loop above
//! [`Workload::MAX_SIMULATED`] iterates is simulated at that size, its iterate times scaled up
//! (the overhead's share is then underestimated).

use super::config::SimConfig;
use super::engine::simulate;
use super::error::SimError;
use super::iterate_time::IterateTimeModel;
use super::rng::SimRng;
use super::service::ServiceModel;
use crate::technique::{Kind, ModelFacts};
use crate::{LoopReport, Technique};

/// A loop's workload as measured in one execution (see the [module documentation](self)).
///
/// ```
/// use dls_model::sim::selection::Workload;
/// let w = Workload { n: 100, profile: vec![1e-3, 3e-3], cov: 0.5, speeds: vec![1.0, 2.0],
///     overhead_s: 10e-6, chunks: 12 };
/// assert_eq!(w.speeds.len(), 2); // two ranks, the second twice as slow
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    /// Iterates of the loop.
    pub n: u64,
    /// Mean iterate time in each of up to [`Workload::BINS`] equal bins over the index, seconds
    /// at time factor 1.
    pub profile: Vec<f64>,
    /// Coefficient of variation of the iterate times around the profile.
    pub cov: f64,
    /// Per-rank time factors (the fastest is 1; 3 = three times slower).
    pub speeds: Vec<f64>,
    /// Seconds per chunk of scheduling overhead (request, service, reply).
    pub overhead_s: f64,
    /// Chunks whose times were used.
    pub chunks: u64,
}

/// One candidate's predicted makespan.
///
/// ```
/// use dls_model::sim::selection::Prediction;
/// let p = Prediction { technique: "gss".parse().unwrap(), makespan_s: 0.25 };
/// assert_eq!(p.technique.to_string(), "gss");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// The technique, with the parameters its model hook filled (e.g. WF's weights).
    pub technique: Technique,
    /// Mean simulated makespan, seconds.
    pub makespan_s: f64,
}

/// What [`select`] chose and why.
///
/// ```
/// use dls_model::sim::selection::{select, Workload};
/// let w = Workload { n: 1000, profile: vec![1e-3], cov: 0.0, speeds: vec![1.0; 2],
///     overhead_s: 0.0, chunks: 0 };
/// let s = select(&w, &"fac2".parse().unwrap(), 0.03, 1).unwrap();
/// assert!(s.predicted.iter().any(|p| p.technique == s.chose) && !s.why.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// The technique to run.
    pub chose: Technique,
    /// Every candidate's prediction, fastest first.
    pub predicted: Vec<Prediction>,
    /// Why, in words.
    pub why: String,
}

impl Workload {
    /// Bins of the iterate-time profile.
    ///
    /// ```
    /// assert_eq!(dls_model::sim::selection::Workload::BINS, 64);
    /// ```
    pub const BINS: usize = 64;
    /// Most iterates simulated per candidate; larger loops are simulated at this size.
    ///
    /// ```
    /// assert!(dls_model::sim::selection::Workload::MAX_SIMULATED >= 1_000_000);
    /// ```
    pub const MAX_SIMULATED: u64 = 1_000_000;

    /// Estimates the workload from `report` (its chunk map and chunk times; without them, from
    /// the per-rank work times alone: a constant profile and per-rank speeds).
    ///
    /// ```
    /// use dls_model::{report::{LoopReport, RankReport}, sim::selection::Workload};
    /// // Rank 1 took three times as long per iterate as rank 0.
    /// let r = LoopReport {
    ///     n: 200, p: 2,
    ///     ranks: vec![
    ///         RankReport { rank: 0, iterates: 150, work_time_s: 0.15, ..Default::default() },
    ///         RankReport { rank: 1, iterates: 50, work_time_s: 0.15, ..Default::default() },
    ///     ],
    ///     ..Default::default()
    /// };
    /// let w = Workload::from_report(&r).unwrap();
    /// assert!((w.speeds[1] - 3.0).abs() < 1e-9);
    /// ```
    pub fn from_report(report: &LoopReport) -> Result<Workload, SimError> {
        let (n, p) = (report.n, report.p.max(report.ranks.len()));
        if n == 0 || p == 0 {
            return Err(SimError::new(format!(
                "loop `{}`: nothing measured (n = {n}, p = {p})",
                report.name
            )));
        }
        let chunks: Vec<(u64, u64, usize, f64)> = report
            .chunk_map
            .iter()
            .zip(&report.chunk_times)
            .filter_map(|(&[start, size, rank], t)| {
                let [a, b] = (*t)?;
                (size > 0 && start + size <= n && (rank as usize) < p).then_some((
                    start,
                    size,
                    rank as usize,
                    (b - a).max(0.0),
                ))
            })
            .collect();
        if chunks.is_empty() {
            return Self::from_ranks(report, n, p);
        }
        let bins = (Self::BINS as u64).min(n) as usize;
        let bin_of = |i: u64| (i as u128 * bins as u128 / n as u128) as usize;
        let bin_start = |b: usize| (b as u128 * n as u128).div_ceil(bins as u128) as u64;
        // Overlap of a chunk with each bin: (bin, iterates).
        let overlaps = |start: u64, size: u64| {
            let mut v = Vec::new();
            let mut i = start;
            while i < start + size {
                let b = bin_of(i);
                let end = bin_start(b + 1).min(start + size);
                v.push((b, end - i));
                i = end;
            }
            v
        };
        let over: Vec<Vec<(usize, u64)>> =
            chunks.iter().map(|&(s, k, _, _)| overlaps(s, k)).collect();
        let mut speeds = estimate_speeds(&chunks, &over, p, bins);
        held_without_result(report, &mut speeds, |s, k| {
            let o = overlaps(s, k);
            let known: Vec<(usize, f64)> = chunks
                .iter()
                .zip(&over)
                .flat_map(|(c, ov)| ov.iter().map(move |&(b, _)| (b, c.3 / c.1 as f64)))
                .collect();
            let mean = known.iter().map(|x| x.1).sum::<f64>() / known.len().max(1) as f64;
            o.iter().map(|&(_, k)| k as f64 * mean).sum()
        });
        let mut profile = vec![0.0; bins];
        let mut count = vec![0u64; bins];
        // The profile at those speeds.
        let mut sum = vec![0.0; bins];
        for (c, o) in chunks.iter().zip(&over) {
            let per = c.3 / c.1 as f64 / speeds[c.2];
            for &(b, k) in o {
                sum[b] += per * k as f64;
                count[b] += k;
            }
        }
        let known = sum.iter().sum::<f64>() / count.iter().sum::<u64>().max(1) as f64;
        for b in 0..bins {
            profile[b] = if count[b] > 0 {
                sum[b] / count[b] as f64
            } else {
                known
            };
        }
        // Spread: chunks that hold under half of their bins' measured iterates.
        let (mut acc, mut m) = (0.0, 0u32);
        for (c, o) in chunks.iter().zip(&over) {
            let data: u64 = o.iter().map(|&(b, _)| count[b]).sum();
            let want: f64 = o.iter().map(|&(b, k)| profile[b] * k as f64).sum();
            if 2 * c.1 < data && want > 0.0 {
                let e = c.3 / speeds[c.2] / want - 1.0;
                acc += c.1 as f64 * e * e;
                m += 1;
            }
        }
        let cov = if m > 0 { (acc / m as f64).sqrt() } else { 0.0 };
        Ok(Workload {
            n,
            profile,
            cov,
            speeds,
            overhead_s: median_gap(report),
            chunks: chunks.len() as u64,
        })
    }

    fn from_ranks(report: &LoopReport, n: u64, p: usize) -> Result<Workload, SimError> {
        let per: Vec<Option<f64>> = (0..p)
            .map(|r| {
                let rr = report.ranks.iter().find(|x| x.rank == r)?;
                (rr.iterates > 0 && rr.work_time_s > 0.0)
                    .then(|| rr.work_time_s / rr.iterates as f64)
            })
            .collect();
        let fastest = per.iter().flatten().copied().fold(f64::INFINITY, f64::min);
        if !fastest.is_finite() {
            return Err(SimError::new(format!(
                "loop `{}`: no rank's work time was measured",
                report.name
            )));
        }
        Ok(Workload {
            n,
            profile: vec![fastest],
            cov: 0.0,
            speeds: per.iter().map(|t| t.map_or(1.0, |t| t / fastest)).collect(),
            overhead_s: 0.0,
            chunks: 0,
        })
    }

    /// Per-iterate times at time factor 1 for a simulation of `n` iterates (the profile, times
    /// gamma noise of the measured cov, drawn from `seed`).
    fn times(&self, n: u64, seed: u64) -> Vec<f64> {
        let mut rng = SimRng::new(seed);
        let bins = self.profile.len() as u128;
        let scale = self.n as f64 / n as f64;
        let shape = (self.cov > 0.01).then(|| 1.0 / (self.cov * self.cov));
        (0..n)
            .map(|i| {
                let t = self.profile[(i as u128 * bins / n as u128) as usize] * scale;
                match shape {
                    Some(k) => t * rng.gamma(k) / k,
                    None => t,
                }
            })
            .collect()
    }
}

/// Each rank's time factor (the fastest 1): the median, over its chunks, of the chunk's
/// measured time over the time the *other* ranks' iterates predict for it (their per-iterate
/// times in the chunk's bins, divided by their own factors; a bin only this rank ran takes the
/// nearest bins the others ran). Chunks whose bins the others all ran vote; a rank with none
/// (a slow rank that took one chunk) uses all its chunks. Leaving the rank out keeps an
/// expensive region it alone ran from passing for its own slowness, as far as the others'
/// neighbouring bins tell. Repeated, since the others' factors change the profile.
fn estimate_speeds(
    chunks: &[(u64, u64, usize, f64)],
    over: &[Vec<(usize, u64)>],
    p: usize,
    bins: usize,
) -> Vec<f64> {
    let mut speeds = vec![1.0; p];
    for _ in 0..8 {
        let mut sum = vec![vec![0.0; bins]; p];
        let mut cnt = vec![vec![0u64; bins]; p];
        for (c, o) in chunks.iter().zip(over) {
            let per = c.3 / c.1 as f64 / speeds[c.2];
            for &(b, k) in o {
                sum[c.2][b] += per * k as f64;
                cnt[c.2][b] += k;
            }
        }
        let all_sum: Vec<f64> = (0..bins).map(|b| (0..p).map(|r| sum[r][b]).sum()).collect();
        let all_cnt: Vec<u64> = (0..bins).map(|b| (0..p).map(|r| cnt[r][b]).sum()).collect();
        let mut next = speeds.clone();
        for (r, slot) in next.iter_mut().enumerate() {
            let own: Vec<Option<f64>> = (0..bins)
                .map(|b| {
                    let n = all_cnt[b] - cnt[r][b];
                    (n > 0).then(|| (all_sum[b] - sum[r][b]) / n as f64)
                })
                .collect();
            let filled = fill_nearest(&own);
            let (mut shared, mut any) = (Vec::new(), Vec::new());
            for (c, o) in chunks.iter().zip(over).filter(|(c, _)| c.2 == r) {
                let Some(filled) = &filled else { break };
                let want: f64 = o.iter().map(|&(b, k)| filled[b] * k as f64).sum();
                if want <= 0.0 || c.3 <= 0.0 {
                    continue;
                }
                let ratio = c.3 / want;
                any.push(ratio);
                if o.iter().all(|&(b, _)| own[b].is_some()) {
                    shared.push(ratio);
                }
            }
            let votes = if shared.is_empty() { any } else { shared };
            if !votes.is_empty() {
                *slot = median(votes);
            }
        }
        let fastest = next.iter().copied().fold(f64::INFINITY, f64::min);
        if fastest.is_finite() && fastest > 0.0 {
            next.iter_mut().for_each(|s| *s /= fastest);
        }
        speeds = next;
    }
    speeds
}

/// A rank whose last chunk never reported a time (re-executed by others and cancelled, or still
/// running at the end) held it from its previous chunk's end to the loop's end without
/// finishing: its time factor is at least that time over the chunk's predicted work
/// (`work(start, size)`, at factor 1).
fn held_without_result(report: &LoopReport, speeds: &mut [f64], work: impl Fn(u64, u64) -> f64) {
    let p = speeds.len();
    // Per rank, its last chunk: start, size, and its time if it reported one.
    type Last = Option<(u64, u64, Option<[f64; 2]>)>;
    let mut last: Vec<Last> = vec![None; p];
    let mut prev_end = vec![0.0f64; p];
    let mut open_from = vec![0.0f64; p];
    for (&[start, size, rank], t) in report.chunk_map.iter().zip(&report.chunk_times) {
        let r = rank as usize;
        if r >= p {
            continue;
        }
        open_from[r] = prev_end[r];
        if let Some([_, b]) = *t {
            prev_end[r] = b;
        }
        last[r] = Some((start, size, *t));
    }
    let before = speeds.to_vec();
    let fastest_others = |r: usize| {
        (0..p)
            .filter(|&q| q != r)
            .map(|q| before[q])
            .fold(f64::INFINITY, f64::min)
    };
    for r in 0..p {
        let Some((start, size, None)) = last[r] else {
            continue;
        };
        let want = work(start, size);
        let held = report.parallel_time_s - open_from[r];
        if want > 0.0 && held > 0.0 {
            let base = fastest_others(r);
            let base = if base.is_finite() { base } else { 1.0 };
            speeds[r] = speeds[r].max(base * held / want);
        }
    }
}

/// Fills each missing value with the mean of the nearest known values on either side; `None`
/// when none is known.
fn fill_nearest(v: &[Option<f64>]) -> Option<Vec<f64>> {
    if v.iter().all(Option::is_none) {
        return None;
    }
    Some(
        (0..v.len())
            .map(|i| {
                v[i].unwrap_or_else(|| {
                    let left = v[..i].iter().rev().flatten().next();
                    let right = v[i + 1..].iter().flatten().next();
                    match (left, right) {
                        (Some(a), Some(b)) => (a + b) / 2.0,
                        (Some(a), None) | (None, Some(a)) => *a,
                        (None, None) => 0.0,
                    }
                })
            })
            .collect(),
    )
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    }
}

/// The median, over consecutive chunks of one rank, of the time from a chunk's end to the
/// start of the next (0 without two timed chunks on one rank).
fn median_gap(report: &LoopReport) -> f64 {
    let mut last: Vec<Option<f64>> = vec![None; report.p.max(1)];
    let mut gaps = Vec::new();
    for (&[_, _, rank], t) in report.chunk_map.iter().zip(&report.chunk_times) {
        let Some([a, b]) = *t else { continue };
        let Some(slot) = last.get_mut(rank as usize) else {
            continue;
        };
        if let Some(end) = *slot {
            gaps.push((a - end).max(0.0));
        }
        *slot = Some(b);
    }
    if gaps.is_empty() {
        return 0.0;
    }
    gaps.sort_by(f64::total_cmp);
    gaps[gaps.len() / 2]
}

/// The candidates: every technique that is one technique (not a choice, as `auto`) and learns
/// nothing across executions (AWF's learning is what WF with the measured speeds as weights
/// gives at once).
///
/// ```
/// let c = dls_model::sim::selection::candidates();
/// assert!(c.iter().all(|k| !k.entry().selects) && c.iter().any(|k| k.name() == "fac2"));
/// ```
pub fn candidates() -> Vec<Kind> {
    Kind::ALL
        .into_iter()
        .filter(|k| !k.entry().selects && !k.entry().learns_across_loops)
        .collect()
}

/// Simulates every candidate on `w` (the mean of `replications` noise draws, the same draws for
/// every candidate) and chooses the fastest; `default` (the measuring technique) is kept unless
/// a candidate is predicted more than `margin` (a fraction, e.g. 0.03) faster, since the model
/// is an estimate.
///
/// ```
/// use dls_model::sim::selection::{select, Workload};
/// // Constant 1 ms iterates, rank 3 three times slower, no overhead: static or plain
/// // factoring lose to a technique that weights the ranks.
/// let w = Workload { n: 2000, profile: vec![1e-3], cov: 0.0, speeds: vec![1.0, 1.0, 1.0, 3.0],
///     overhead_s: 20e-6, chunks: 0 };
/// let s = select(&w, &"fac2".parse().unwrap(), 0.03, 2).unwrap();
/// assert_ne!(s.chose.kind.name(), "static");
/// assert!(s.predicted[0].makespan_s <= s.predicted.last().unwrap().makespan_s);
/// ```
pub fn select(
    w: &Workload,
    default: &Technique,
    margin: f64,
    replications: u64,
) -> Result<Selection, SimError> {
    let n = w.n.min(Workload::MAX_SIMULATED);
    let p = w.speeds.len();
    let draws: Vec<IterateTimeModel> = (1..=replications.max(1))
        .map(|seed| IterateTimeModel::recorded("measured workload", w.times(n, seed)))
        .collect::<Result<_, _>>()?;
    let mut techniques: Vec<Technique> = candidates().into_iter().map(Technique::new).collect();
    if !techniques.contains(default) {
        techniques.push(default.clone());
    }
    let mut predicted = Vec::new();
    for t in techniques {
        let mut total = 0.0;
        let mut filled = t.clone();
        let mut ok = true;
        for model in &draws {
            let mut c = SimConfig::new(t.clone(), n, p);
            c.iterate_time = model.clone();
            c.speeds = w.speeds.clone();
            c.overhead_s = w.overhead_s;
            c.service = ServiceModel::Parallel;
            let moments = || model.moments(n);
            let facts = ModelFacts::new(&moments, w.overhead_s, &w.speeds);
            c.technique.fill_from_model(&facts);
            if c.technique.validate(Some(p)).is_err() {
                ok = false;
                break;
            }
            match simulate(&c) {
                Ok(out) => total += out.report.parallel_time_s,
                Err(_) => {
                    ok = false;
                    break;
                }
            }
            filled = c.technique;
        }
        if ok {
            predicted.push(Prediction {
                technique: filled,
                makespan_s: total / draws.len() as f64,
            });
        }
    }
    predicted.sort_by(|a, b| a.makespan_s.total_cmp(&b.makespan_s));
    let Some(best) = predicted.first().cloned() else {
        return Err(SimError::new("no candidate technique could be simulated"));
    };
    let base = predicted
        .iter()
        .find(|x| x.technique.kind == default.kind)
        .map(|x| x.makespan_s);
    let speeds: Vec<String> = w.speeds.iter().map(|s| format!("{s:.2}")).collect();
    let workload = format!(
        "measured: mean iterate {:.3} ms, cov {:.2}, rank time factors {}, overhead {:.1} us per \
         chunk, from {} chunks",
        w.profile.iter().sum::<f64>() / w.profile.len() as f64 * 1e3,
        w.cov,
        speeds.join(":"),
        w.overhead_s * 1e6,
        w.chunks
    );
    let (chose, why) = match base {
        Some(b) if best.makespan_s > b * (1.0 - margin) => (
            default.clone(),
            format!(
                "kept {default}: predicted {:.4} s, the fastest ({}) {:.4} s is within {:.0}% \
                 ({workload})",
                b,
                best.technique,
                best.makespan_s,
                margin * 100.0
            ),
        ),
        _ => (
            best.technique.clone(),
            format!(
                "{} has the smallest predicted makespan, {:.4} s{} ({workload})",
                best.technique,
                best.makespan_s,
                base.map_or(String::new(), |b| format!(
                    " against {:.4} s for {default} ({:+.1}%)",
                    b,
                    (best.makespan_s / b - 1.0) * 100.0
                ))
            ),
        ),
    };
    Ok(Selection {
        chose,
        predicted,
        why,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(t: &str, w: &Workload) -> LoopReport {
        let mut c = SimConfig::new(t.parse().unwrap(), w.n, w.speeds.len());
        c.iterate_time = IterateTimeModel::recorded("t", w.times(w.n, 9)).unwrap();
        c.speeds = w.speeds.clone();
        c.overhead_s = w.overhead_s;
        c.chunk_map = true;
        simulate(&c).unwrap().report
    }

    /// A measured run of FAC2 recovers a slow rank and the profile; the choice on it is the
    /// known answer: a technique that weights the ranks (WF with the measured weights) beats
    /// FAC2 by far.
    #[test]
    fn a_slow_rank_is_measured_and_a_weighting_technique_is_chosen() {
        let truth = Workload {
            n: 4000,
            profile: vec![1e-3],
            cov: 0.0,
            speeds: vec![1.0, 1.0, 1.0, 3.0],
            overhead_s: 0.0,
            chunks: 0,
        };
        let w = Workload::from_report(&run("fac2", &truth)).unwrap();
        for (got, want) in w.speeds.iter().zip(&truth.speeds) {
            assert!((got - want).abs() < 0.05, "{:?}", w.speeds);
        }
        assert!(w.profile.iter().all(|t| (t - 1e-3).abs() < 5e-5), "{w:?}");
        assert!(w.cov < 0.05, "{}", w.cov);
        let s = select(&w, &"fac2".parse().unwrap(), 0.03, 2).unwrap();
        assert_ne!(s.chose.kind, Kind::Fac2, "{}", s.why);
        let fac2 = s.predicted.iter().find(|p| p.technique.kind == Kind::Fac2);
        assert!(s.predicted[0].makespan_s < 0.9 * fac2.unwrap().makespan_s);
        // The best possible: 4000 ms of work over speeds 1 + 1 + 1 + 1/3.
        assert!(s.predicted[0].makespan_s < 1.05 * 4.0 / (3.0 + 1.0 / 3.0));
    }

    /// Iterate times growing with the index (the last quarter 8× the rest) are seen as such, not
    /// as a slow rank; the spread of exponential times is measured.
    #[test]
    fn index_dependence_and_spread_are_measured() {
        let mut profile = vec![1e-3; 48];
        profile.extend([8e-3; 16]);
        let truth = Workload {
            n: 6400,
            profile,
            cov: 0.0,
            speeds: vec![1.0; 4],
            overhead_s: 0.0,
            chunks: 0,
        };
        let w = Workload::from_report(&run("fac2", &truth)).unwrap();
        assert!(w.speeds.iter().all(|s| *s < 1.1), "{:?}", w.speeds);
        assert!(
            w.profile[10] < 1.2e-3 && w.profile[60] > 6e-3,
            "{:?}",
            w.profile
        );
        let exp = Workload {
            n: 6400,
            profile: vec![1e-3],
            cov: 1.0,
            speeds: vec![1.0; 4],
            overhead_s: 0.0,
            chunks: 0,
        };
        let w = Workload::from_report(&run("fac2", &exp)).unwrap();
        assert!((0.5..1.5).contains(&w.cov), "{}", w.cov);
    }

    /// Uniform iterates, no overhead: no candidate beats FAC2 by 3%, so FAC2 is kept.
    #[test]
    fn a_balanced_loop_keeps_the_default() {
        let w = Workload {
            n: 4000,
            profile: vec![1e-3],
            cov: 0.0,
            speeds: vec![1.0; 4],
            overhead_s: 1e-6,
            chunks: 0,
        };
        let s = select(&w, &"fac2".parse().unwrap(), 0.03, 1).unwrap();
        assert_eq!(s.chose.kind, Kind::Fac2, "{}", s.why);
        assert!(s.why.starts_with("kept fac2"));
    }
}
