//! AWF, adaptive weighted factoring across time steps (Banicescu, Velusamy & Devaprasad, Cluster
//! Computing 6, 2003): WF's rule `c_ij = w_i · ceil(R_j / (2P))` with weights learnt from
//! earlier executions of the same loop ([`AwfHistory`](crate::AwfHistory), kept per loop by
//! [`History`](crate::History) and handed to the scheduler with
//! [`ChunkScheduler::set_weights`](crate::ChunkScheduler::set_weights)).
//!
//! AWF's first time step has no history. Published, it runs with equal weights (FAC2 chunks)
//! throughout, so a slow rank slows the whole first step. dls instead learns the weights within
//! that step as AWF-B does (weights from work times, fixed per batch) with AWF-B's sampling
//! phase: a rank's chunks are capped at the probe chunk (parameter `probe`, default
//! `ceil(N/(40P))`) until it was measured when the batch's weights were learnt. This applies
//! only while neither `weights=` nor [`set_weights`](crate::ChunkScheduler::set_weights) gave
//! weights; from the second time step on, AWF uses its history's weights as published.
//! `awf,probe=0` turns both off (the published first step). See the `probe` module of
//! [`dls_technique`](crate) for the reason.

use crate::entry::{Entry, Learnt, LoopPlan, Rule};
use crate::formulas::adaptive_weighted_factoring::Batched;
use crate::formulas::weighted_factoring;
use crate::learning::rank_stats::TimeBasis;
use crate::spec::params::{Params, LOCAL, PROBE, WEIGHTS};
use crate::state::LoopState;

/// AWF's per-loop state: learning within the loop (first time step) or not.
#[derive(Debug, Clone)]
struct Awf {
    /// `Some` on the first time step (no weights given, sampling phase on): learns its weights
    /// within the loop as AWF-B does.
    learning: Option<Batched>,
}

/// Learns within the loop unless weights are given or the sampling phase is off.
fn start(params: &Params, n: u64, p: usize) -> Box<dyn LoopPlan> {
    let learns = params.weights.is_none() && params.probe_chunk(n, p) > 0;
    Box::new(Awf {
        learning: learns.then(|| Batched::start(TimeBasis::Work, params, p)),
    })
}

impl LoopPlan for Awf {
    fn chunk(&self, s: &LoopState) -> u64 {
        match &self.learning {
            Some(batched) => batched.chunk(s),
            // Weights from the history or `weights=`: the published rule.
            None => weighted_factoring::chunk(s),
        }
    }
    fn new_batch(&mut self, learnt: &Learnt) {
        if let Some(batched) = &mut self.learning {
            batched.learn(learnt);
        }
    }
    fn weights_given(&mut self, _: &Learnt) {
        // Weights from AWF's history: this is not the first time step, nothing to learn.
        self.learning = None;
    }
    fn weights(&self, _: &Learnt) -> Option<Vec<f64>> {
        self.learning.as_ref().map(Batched::weights)
    }
    fn clone_box(&self) -> Box<dyn LoopPlan> {
        Box::new(self.clone())
    }
}

/// The registry entry of `awf`.
pub(crate) const ENTRY: Entry = Entry {
    merges_tail: true,
    adaptive: true,
    learns_across_loops: true,
    ..Entry::new(
        "awf",
        "adaptive weighted factoring: WF with weights learnt over earlier time steps \
         (Banicescu, Velusamy & Devaprasad, Cluster Computing 6, 2003)",
        &[WEIGHTS, PROBE, LOCAL],
        Rule::PerLoop(start),
    )
};
