//! WF, weighted factoring (Hummel, Schmidt, Uma & Wein, SPAA 1996).
//!
//! WF: FAC2 batches scaled by the relative speed of the requesting rank,
//! `c_ij = w_i · ceil(R_j / (2P))`, rounded up, with weights normalised to `Σ w_i = P`
//! (`wf,weights=1:1:1:3`; all 1 by default, which is FAC2).
//!
//! AWF uses the same rule with weights learnt over time steps: see `awf_time_steps`.

use crate::formulas::fac2::batch_chunk;
use crate::entry::{Entry, ModelFacts, Rule};
use crate::spec::params::{Params, WEIGHTS};
use crate::formulas::rounding::ceil_chunk;
use crate::state::LoopState;

/// `c_ij = w_i · ceil(R_j / (2P))` with the given weights (`s.weights`).
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

/// The registry entry of `wf`.
pub(crate) const ENTRY: Entry = Entry {
    merges_tail: true,
    fill_from_model: Some(fill_from_model),
    ..Entry::new(
        "wf",
        "weighted factoring: FAC2 batches scaled by relative rank speeds \
         (Hummel, Schmidt, Uma & Wein, SPAA 1996)",
        &[WEIGHTS],
        Rule::Formula(chunk),
    )
};

/// The weights `1 / speeds[i]` of the simulated ranks, unless given.
fn fill_from_model(params: &mut Params, facts: &ModelFacts) -> Option<String> {
    if params.weights.is_some() || facts.speeds.is_empty() {
        return None;
    }
    let w: Vec<f64> = facts.speeds.iter().map(|f| 1.0 / f).collect();
    let text: Vec<String> = w.iter().map(|x| format!("{x:.4}")).collect();
    params.weights = Some(w);
    Some(format!(
        "wf: weights = {} (relative speeds 1 / --speeds) taken from the simulated loop \
         (set them in the technique spec to override)",
        text.join(":")
    ))
}
