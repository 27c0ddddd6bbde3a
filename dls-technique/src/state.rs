//! The loop state a technique computes its next chunk from.

use crate::learning::aggregates::Aggregates;
use crate::learning::rank_stats::RankStats;
use crate::spec::params::Params;

/// The current batch: techniques of the factoring family (and the staged ones: TFSS, FISS, VISS)
/// hand out batches of P chunks computed from the remaining iterates at the start of the batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Batch {
    /// Batch number j, from 0.
    pub(crate) index: u64,
    /// R_j: iterates remaining when the batch started.
    pub(crate) remaining_at_start: u64,
    /// Chunks already handed out in this batch.
    pub(crate) issued: u64,
}

/// Everything a technique may look at to size the next chunk: N, R, P, the requesting rank, the
/// batch, per-rank measurements (mean and standard deviation of iterate time), weights, the
/// technique's parameters (h, sigma, mu, min/max chunk, ...) and a seed.
///
/// A technique's chunk rule is a function of this state (and of its per-loop state, see
/// [`Entry`](crate::Entry)); the [`ChunkScheduler`](crate::ChunkScheduler) builds it for every
/// request. It holds only what every technique may need.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoopState<'a> {
    /// N, the number of iterates of the loop.
    pub(crate) n: u64,
    /// R, iterates not yet handed out.
    pub(crate) remaining: u64,
    /// P, the number of ranks that execute iterates.
    pub(crate) p: usize,
    /// The rank asking for a chunk.
    pub(crate) rank: usize,
    /// Chunks handed out so far (all ranks).
    pub(crate) chunk_index: u64,
    /// The current batch.
    pub(crate) batch: Batch,
    /// Per-rank measurements, `p` entries.
    pub(crate) stats: &'a [RankStats],
    /// The given relative speeds of the ranks (sum P), `p` entries: `weights=` or
    /// [`set_weights`](crate::ChunkScheduler::set_weights); all 1 otherwise. Techniques that
    /// learn their own weights keep them in their per-loop state.
    pub(crate) weights: &'a [f64],
    /// Seed for randomised techniques.
    pub(crate) seed: u64,
    /// The technique's parameters.
    pub(crate) params: &'a Params,
    /// Ranks that have received at least one chunk (PLS and theta reserve a first chunk for each
    /// of the others).
    pub(crate) ranks_started: usize,
    /// Sums over the ranks' measurements (AF, AWF-C, AWF-E).
    pub(crate) aggregates: &'a Aggregates,
    /// The largest chunk a measured rank may take while its estimate settles (`local=1`): the
    /// iterates it could run at the loop's front in the time measured on it so far; `None`
    /// without that comparison.
    pub(crate) growth_cap: Option<u64>,
}
