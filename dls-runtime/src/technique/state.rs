//! The loop state a technique computes its next chunk from.

/// Measurements of one rank, accumulated by the [`ChunkScheduler`](super::ChunkScheduler) from the
/// chunk timings the rank reports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RankStats {
    /// Chunks handed to this rank so far.
    pub chunks: u64,
    /// Iterates whose time has been reported.
    pub iterates: u64,
    /// Sum of the reported work times, seconds.
    pub work_s: f64,
    /// Sum of the reported times from receiving a chunk to finishing it, seconds.
    pub elapsed_s: f64,
    /// Estimated mean time of one iterate, seconds (`None` before any measurement).
    pub mu: Option<f64>,
    /// Estimated standard deviation of one iterate's time, seconds.
    pub sigma: Option<f64>,
}

/// The current batch: techniques of the factoring family hand out batches of P chunks computed
/// from the remaining iterates at the start of the batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Batch {
    /// Batch number j, from 0.
    pub index: u64,
    /// R_j: iterates remaining when the batch started.
    pub remaining_at_start: u64,
    /// Chunks already handed out in this batch.
    pub issued: u64,
}

/// Everything a technique may look at to size the next chunk.
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
    /// Relative speeds of the ranks (sum P), `p` entries.
    pub weights: &'a [f64],
    /// Seed for randomised techniques.
    pub seed: u64,
}
