//! WF, weighted factoring (Hummel, Schmidt, Uma & Wein, SPAA 1996), and AWF, adaptive weighted
//! factoring across time steps (Banicescu, Velusamy & Devaprasad, Cluster Computing 6, 2003).
//!
//! WF: FAC2 batches scaled by the relative speed of the requesting rank,
//! `c_ij = w_i · ceil(R_j / (2P))`, rounded up, with weights normalised to `Σ w_i = P`
//! (`wf,weights=1:1:1:3`; all 1 by default, which is FAC2).
//!
//! AWF uses the same rule; its weights come from earlier executions of the same loop
//! ([`AwfHistory`](super::AwfHistory)), handed to the scheduler with
//! [`ChunkScheduler::set_weights`](super::ChunkScheduler::set_weights).
//!
//! AWF's first time step has no history. Published, it runs with equal weights (FAC2 chunks)
//! throughout, so a slow rank slows the whole first step. dls instead learns the weights within
//! that step as AWF-B does (weights from work times, fixed per batch) with AWF-B's sampling
//! phase: a rank's chunks are capped at the probe chunk (parameter `probe`, default
//! `ceil(N/(40P))`) until it was measured when the batch's weights were learnt. This applies
//! only while neither `weights=` nor [`set_weights`](super::ChunkScheduler::set_weights) gave
//! weights; from the second time step on, AWF uses its history's weights as published.
//! `awf,probe=0` turns both off (the published first step). See the `probe` module of
//! [`technique`](super) for the reason.

use super::fac2::batch_chunk;
use super::probe;
use super::rounding::ceil_chunk;
use super::state::LoopState;

/// `c_ij = w_i · ceil(R_j / (2P))`; while AWF learns its weights within the loop (first time
/// step: `s.batch_measured` is filled), capped at the probe chunk for ranks not yet measured at
/// the batch start.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    let w = s.weights.get(s.rank).copied().unwrap_or(1.0);
    let c = ceil_chunk(w * batch_chunk(s) as f64);
    match s.batch_measured.get(s.rank) {
        // WF, and AWF with weights from its history or `weights=`: the published rule.
        None => c,
        Some(&measured) => probe::limit(s, measured, c),
    }
}

/// Weights normalised to sum P (the form every weighted technique uses).
pub(crate) fn normalise(weights: &[f64]) -> Vec<f64> {
    let sum: f64 = weights.iter().sum();
    let p = weights.len() as f64;
    weights.iter().map(|w| w * p / sum).collect()
}
