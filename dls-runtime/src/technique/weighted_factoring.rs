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

use super::fac2::batch_chunk;
use super::rounding::ceil_chunk;
use super::state::LoopState;

/// `c_ij = w_i · ceil(R_j / (2P))`.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    let w = s.weights.get(s.rank).copied().unwrap_or(1.0);
    ceil_chunk(w * batch_chunk(s) as f64)
}

/// Weights normalised to sum P (the form every weighted technique uses).
pub(crate) fn normalise(weights: &[f64]) -> Vec<f64> {
    let sum: f64 = weights.iter().sum();
    let p = weights.len() as f64;
    weights.iter().map(|w| w * p / sum).collect()
}
