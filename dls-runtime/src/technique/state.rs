//! The loop state a technique computes its next chunk from.

use super::aggregates::Aggregates;
use super::params::Params;
use super::rank_stats::RankStats;

/// The current batch: techniques of the factoring family (and the staged ones: TFSS, FISS, VISS)
/// hand out batches of P chunks computed from the remaining iterates at the start of the batch.
///
/// ```
/// let b = dls_runtime::technique::Batch { index: 0, remaining_at_start: 1000, issued: 0 };
/// assert_eq!(b.remaining_at_start, 1000);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Batch {
    /// Batch number j, from 0.
    pub index: u64,
    /// R_j: iterates remaining when the batch started.
    pub remaining_at_start: u64,
    /// Chunks already handed out in this batch.
    pub issued: u64,
}

/// Everything a technique may look at to size the next chunk: N, R, P, the requesting rank, the
/// batch, per-rank measurements (mean and standard deviation of iterate time), weights, the
/// technique's parameters (h, sigma, mu, min/max chunk, ...) and a seed.
///
/// [`Technique::chunk_size`](super::Technique::chunk_size) is a pure function of this state;
/// the [`ChunkScheduler`](super::ChunkScheduler) builds it for every request.
///
/// ```
/// use dls_runtime::technique::{Aggregates, Batch, LoopState, Params, RankStats};
/// let stats = vec![RankStats::default(); 4];
/// let params = Params::default();
/// let s = LoopState {
///     n: 1000, remaining: 1000, p: 4, rank: 0, chunk_index: 0,
///     batch: Batch { index: 0, remaining_at_start: 1000, issued: 0 },
///     stats: &stats, weights: &[1.0; 4], seed: 0, params: &params,
///     ranks_started: 0, aggregates: &Aggregates::default(), theta: 1.0, batch_measured: &[],
/// };
/// assert_eq!("gss".parse::<dls_runtime::Technique>().unwrap().chunk_size(&s), 250);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct LoopState<'a> {
    /// N, the number of iterates of the loop.
    pub n: u64,
    /// R, iterates not yet handed out.
    pub remaining: u64,
    /// P, the number of ranks that execute iterates.
    pub p: usize,
    /// The rank asking for a chunk.
    pub rank: usize,
    /// Chunks handed out so far (all ranks).
    pub chunk_index: u64,
    /// The current batch.
    pub batch: Batch,
    /// Per-rank measurements, `p` entries.
    pub stats: &'a [RankStats],
    /// Relative speeds of the ranks in force (sum P), `p` entries: the given weights for WF and
    /// AWF, the weights learnt at the start of the batch for AWF-B and AWF-D, the fallback before
    /// any measurement for AWF-C and AWF-E; all 1 otherwise.
    pub weights: &'a [f64],
    /// Seed for randomised techniques.
    pub seed: u64,
    /// The technique's parameters.
    pub params: &'a Params,
    /// Ranks that have received at least one chunk (PLS and theta reserve a first chunk for each
    /// of the others).
    pub ranks_started: usize,
    /// Sums over the ranks' measurements (AF, AWF-C, AWF-E).
    pub aggregates: &'a Aggregates,
    /// When weights are learnt per batch (AWF-B, AWF-D, AWF on its first time step), `p`
    /// entries: whether each rank had been measured when the current batch's weights were
    /// learnt (a rank that had not is still in the sampling phase, see the `probe` module of
    /// [`technique`](super)); empty otherwise.
    pub batch_measured: &'a [bool],
    /// θ of the theta split, computed once per loop (1 for other techniques).
    pub theta: f64,
}
