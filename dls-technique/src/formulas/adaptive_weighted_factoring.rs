//! AWF-B, AWF-C, AWF-D, AWF-E: adaptive weighted factoring with weights learnt during the loop
//! (Cariño & Banicescu, J. Supercomputing 44, 2008).
//!
//! Each rank's weighted time per iterate is `pi_i = Σ_j j·t_ij / Σ_j j·n_ij` over its measured
//! chunks j = 1, 2, ... (recent chunks count more), then `rho_i = mean(pi) / pi_i` and
//! `w_i = P·rho_i / Σ rho = P·(1/pi_i) / Σ_k (1/pi_k)` (the mean cancels). A rank not yet
//! measured counts with the mean `pi` of the measured ranks; before any measurement the given
//! weights (default all 1) apply.
//!
//! * AWF-B: batches of `B_j = P·ceil(R_j/(2P))`, `c = w_i·B_j/P = w_i·ceil(R_j/(2P))`, weights
//!   learnt from work times and fixed at the start of each batch.
//! * AWF-C: `c = w_i·ceil(R/(2P))`, R and weights taken afresh at every request.
//! * AWF-D, AWF-E: as B and C, but times are elapsed times (from receiving the chunk to finishing
//!   it), so scheduling overhead and waiting count against a rank.
//!
//! The chunk is rounded up; a chunk that would leave at most the minimum chunk behind takes that
//! remainder too.
//!
//! Sampling phase (a dls choice): the published variants give an unmeasured rank the chunk of
//! its fallback weight (default 1), `ceil(R_j/(2P))` in the first batch, which a rank much slower
//! than the others may not finish within the whole loop's lower bound. dls caps a rank's chunk
//! at the probe chunk (parameter `probe`, default `ceil(N/(40P))`) until its own measurement is
//! in the weight that sizes the chunk: for AWF-C and AWF-E after its first measured chunk, for
//! AWF-B and AWF-D once it was measured when the batch's weights were learnt. See the `probe`
//! module of [`technique`](crate) for the reason and the default; `awf-b,probe=0` turns the
//! phase off and gives the published first batch. By default (`local=1`) the times behind pi
//! are compared with the other ranks' on neighbouring iterates, so cost that follows the index
//! is not taken for speed, and a measured rank's chunk grows at most as fast as its measured
//! time (the `local_speed` module of [`technique`](crate)); `local=0` takes raw times.

use crate::learning::aggregates::Aggregates;
use crate::entry::{Entry, Learnt, LoopPlan, Rule};
use crate::formulas::fac2::batch_chunk;
use crate::formulas::weighted_factoring::normalise;
use crate::spec::params::{Params, LOCAL, PROBE, WEIGHTS};
use crate::learning::probe;
use crate::learning::rank_stats::{RankStats, TimeBasis};
use crate::formulas::rounding::ceil_chunk;
use crate::state::LoopState;

/// AWF-B / AWF-D (and AWF on its first time step): the weights learnt at each batch start and
/// whether each rank had been measured then.
#[derive(Debug, Clone)]
pub(crate) struct Batched {
    basis: TimeBasis,
    weights: Vec<f64>,
    measured: Vec<bool>,
}

impl Batched {
    /// Before any measurement: the given weights, no rank measured.
    pub(crate) fn start(basis: TimeBasis, params: &Params, p: usize) -> Self {
        Batched {
            basis,
            weights: base_weights(params, p),
            measured: vec![false; p],
        }
    }

    /// Learns the weights from the measurements so far.
    pub(crate) fn learn(&mut self, learnt: &Learnt) {
        self.weights = learnt_weights(learnt.stats, self.basis, learnt.base_weights);
        self.measured = measured(learnt.stats, self.basis);
    }

    /// The weights learnt at the batch start.
    pub(crate) fn weights(&self) -> Vec<f64> {
        self.weights.clone()
    }

    /// `c = w_i · ceil(R_j/(2P))` with the weights learnt at the batch start, capped at the probe
    /// chunk while the rank was unmeasured at the batch start.
    pub(crate) fn chunk(&self, s: &LoopState) -> u64 {
        let w = self.weights.get(s.rank).copied().unwrap_or(1.0);
        let measured = self.measured.get(s.rank).copied().unwrap_or(false);
        probe::limit(s, measured, ceil_chunk(w * batch_chunk(s) as f64))
    }
}

impl LoopPlan for Batched {
    fn chunk(&self, s: &LoopState) -> u64 {
        Batched::chunk(self, s)
    }
    fn new_batch(&mut self, learnt: &Learnt) {
        self.learn(learnt);
    }
    fn weights_given(&mut self, learnt: &Learnt) {
        self.learn(learnt);
    }
    fn weights(&self, _: &Learnt) -> Option<Vec<f64>> {
        Some(Batched::weights(self))
    }
    fn clone_box(&self) -> Box<dyn LoopPlan> {
        Box::new(self.clone())
    }
}

/// AWF-C / AWF-E: the weight is learnt afresh at every request.
#[derive(Debug, Clone, Copy)]
struct PerRequest(TimeBasis);

impl LoopPlan for PerRequest {
    fn chunk(&self, s: &LoopState) -> u64 {
        chunk_per_request(s, self.0)
    }
    fn weights(&self, l: &Learnt) -> Option<Vec<f64>> {
        Some(
            (0..l.stats.len())
                .map(|i| weight(i, l.stats, l.aggregates, self.0, l.base_weights[i]))
                .collect(),
        )
    }
    fn clone_box(&self) -> Box<dyn LoopPlan> {
        Box::new(*self)
    }
}

/// The given weights normalised to sum P, all 1 when none are given.
pub(crate) fn base_weights(params: &Params, p: usize) -> Vec<f64> {
    match &params.weights {
        Some(w) => normalise(w),
        None => vec![1.0; p],
    }
}

/// AWF-C / AWF-E: `c = w_i · ceil(R/(2P))` with the weight learnt from the measurements so far,
/// capped at the probe chunk until the rank has a measurement.
fn chunk_per_request(s: &LoopState, basis: TimeBasis) -> u64 {
    let w = weight(
        s.rank,
        s.stats,
        s.aggregates,
        basis,
        s.weights.get(s.rank).copied().unwrap_or(1.0),
    );
    let measured = s.stats.get(s.rank).and_then(|r| r.awf_pi(basis)).is_some();
    probe::limit(
        s,
        measured,
        ceil_chunk(w * s.remaining.div_ceil(2 * s.p as u64) as f64),
    )
}

/// `w_i = P·(1/pi_i) / Σ_k (1/pi_k)` from running sums, O(1); `fallback` before any measurement.
pub(crate) fn weight(
    rank: usize,
    stats: &[RankStats],
    agg: &Aggregates,
    basis: TimeBasis,
    fallback: f64,
) -> f64 {
    let sums = agg.awf(basis);
    if sums.known == 0 {
        return fallback;
    }
    let p = stats.len();
    let mean_pi = sums.sum_pi / sums.known as f64;
    let pi = stats
        .get(rank)
        .and_then(|s| s.awf_pi(basis))
        .unwrap_or(mean_pi);
    let total_inv = sums.sum_inv_pi + p.saturating_sub(sums.known) as f64 / mean_pi;
    p as f64 * (1.0 / pi) / total_inv
}

/// Whether each rank has a measurement on `basis` (whose weight is its own, not the mean's).
pub(crate) fn measured(stats: &[RankStats], basis: TimeBasis) -> Vec<bool> {
    stats.iter().map(|s| s.awf_pi(basis).is_some()).collect()
}

/// Every rank's learnt weight (sum P), computed from scratch; `fallback` before any measurement.
pub(crate) fn learnt_weights(stats: &[RankStats], basis: TimeBasis, fallback: &[f64]) -> Vec<f64> {
    let agg = Aggregates::from_stats(stats);
    (0..stats.len())
        .map(|i| {
            weight(
                i,
                stats,
                &agg,
                basis,
                fallback.get(i).copied().unwrap_or(1.0),
            )
        })
        .collect()
}

/// An AWF-B..E entry: name, description, chunk rule.
const fn variant(
    name: &'static str,
    description: &'static str,
    start: fn(&Params, u64, usize) -> Box<dyn LoopPlan>,
) -> Entry {
    Entry {
        merges_tail: true,
        adaptive: true,
        ..Entry::new(name, description, &[WEIGHTS, PROBE, LOCAL], Rule::PerLoop(start))
    }
}

/// The registry entry of `awf-b`.
pub(crate) const AWF_B: Entry = variant(
    "awf-b",
    "AWF-B: WF with weights learnt from work times during the loop, per batch \
     (Cariño & Banicescu, J. Supercomputing 44, 2008)",
    |params, _, p| Box::new(Batched::start(TimeBasis::Work, params, p)),
);

/// The registry entry of `awf-c`.
pub(crate) const AWF_C: Entry = variant(
    "awf-c",
    "AWF-C: WF with weights learnt from work times during the loop, per chunk \
     (Cariño & Banicescu, J. Supercomputing 44, 2008)",
    |_, _, _| Box::new(PerRequest(TimeBasis::Work)),
);

/// The registry entry of `awf-d`.
pub(crate) const AWF_D: Entry = variant(
    "awf-d",
    "AWF-D: AWF-B timed with scheduling overhead included \
     (Cariño & Banicescu, J. Supercomputing 44, 2008)",
    |params, _, p| Box::new(Batched::start(TimeBasis::Elapsed, params, p)),
);

/// The registry entry of `awf-e`.
pub(crate) const AWF_E: Entry = variant(
    "awf-e",
    "AWF-E: AWF-C timed with scheduling overhead included \
     (Cariño & Banicescu, J. Supercomputing 44, 2008)",
    |_, _, _| Box::new(PerRequest(TimeBasis::Elapsed)),
);
