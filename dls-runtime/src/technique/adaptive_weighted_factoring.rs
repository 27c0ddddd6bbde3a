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
//! module of [`technique`](super) for the reason and the default; `awf-b,probe=0` turns the
//! phase off and gives the published first batch.

use super::aggregates::Aggregates;
use super::fac2::batch_chunk;
use super::probe;
use super::rank_stats::{RankStats, TimeBasis};
use super::rounding::ceil_chunk;
use super::state::LoopState;

/// AWF-B / AWF-D: `c = w_i · ceil(R_j/(2P))` with the weights learnt at the batch start
/// (`s.weights`), capped at the probe chunk while the rank was unmeasured at the batch start.
pub(crate) fn batched_chunk(s: &LoopState) -> u64 {
    let w = s.weights.get(s.rank).copied().unwrap_or(1.0);
    let measured = s.batch_measured.get(s.rank).copied().unwrap_or(false);
    probe::limit(s, measured, ceil_chunk(w * batch_chunk(s) as f64))
}

/// AWF-C / AWF-E: `c = w_i · ceil(R/(2P))` with the weight learnt from the measurements so far,
/// capped at the probe chunk until the rank has a measurement.
pub(crate) fn chunk_per_request(s: &LoopState, basis: TimeBasis) -> u64 {
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
