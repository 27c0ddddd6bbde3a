//! The scheduler state machine: owns the loop state, asks the technique for chunk sizes, clamps
//! them and hands out chunks. No I/O: the simulator and every backend drive it.

use super::error::TechniqueError;
use super::spec::{Kind, Technique};
use super::state::{Batch, LoopState, RankStats};
use super::{fac2, gss, self_scheduling, static_chunking};

/// A chunk of iterates `[start, start + size)`, counted from the first iterate of the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// Offset of the first iterate.
    pub start: u64,
    /// Number of iterates (at least 1).
    pub size: u64,
}

/// Timing of one executed chunk, reported by the rank that executed it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ChunkTiming {
    /// Iterates in the chunk.
    pub iterates: u64,
    /// Seconds spent executing the iterates.
    pub work_s: f64,
    /// Seconds from receiving the chunk to finishing it (scheduling overhead included).
    pub elapsed_s: f64,
}

/// Hands out the chunks of one loop of `n` iterates over `p` ranks.
///
/// ```
/// use dls_runtime::{ChunkScheduler, Technique};
/// let mut s = ChunkScheduler::new(&"gss".parse::<Technique>().unwrap(), 1000, 4).unwrap();
/// let sizes: Vec<u64> = std::iter::from_fn(|| s.next_chunk(0)).map(|c| c.size).collect();
/// assert_eq!(sizes[..3], [250, 188, 141]);
/// assert_eq!(sizes.iter().sum::<u64>(), 1000);
/// ```
#[derive(Debug, Clone)]
pub struct ChunkScheduler {
    technique: Technique,
    n: u64,
    p: usize,
    next_start: u64,
    chunk_index: u64,
    batch: Batch,
    stats: Vec<RankStats>,
    weights: Vec<f64>,
}

impl ChunkScheduler {
    /// A scheduler for `n` iterates on `p` ranks; validates the technique's parameters.
    pub fn new(technique: &Technique, n: u64, p: usize) -> Result<Self, TechniqueError> {
        if p == 0 {
            return Err(TechniqueError::new(format!(
                "{}: the number of ranks must be at least 1",
                technique.kind.name()
            )));
        }
        if technique.params.min_chunk == 0 {
            return Err(TechniqueError::new(format!(
                "{}: parameter `min` must be at least 1",
                technique.kind.name()
            )));
        }
        if let Some(max) = technique.params.max_chunk {
            if max < technique.params.min_chunk {
                return Err(TechniqueError::new(format!(
                    "{}: parameter `min` ({}) is above parameter `max` ({max})",
                    technique.kind.name(),
                    technique.params.min_chunk
                )));
            }
        }
        Ok(ChunkScheduler {
            technique: technique.clone(),
            n,
            p,
            next_start: 0,
            chunk_index: 0,
            batch: Batch {
                index: 0,
                remaining_at_start: n,
                issued: 0,
            },
            stats: vec![RankStats::default(); p],
            weights: vec![1.0; p],
        })
    }

    /// Iterates not yet handed out.
    pub fn remaining(&self) -> u64 {
        self.n - self.next_start
    }

    /// Per-rank measurements so far.
    pub fn stats(&self) -> &[RankStats] {
        &self.stats
    }

    /// The next chunk for `rank`, or `None` when every iterate has been handed out.
    pub fn next_chunk(&mut self, rank: usize) -> Option<Chunk> {
        let remaining = self.remaining();
        if remaining == 0 {
            return None;
        }
        if self.batch.issued as usize >= self.p {
            self.batch = Batch {
                index: self.batch.index + 1,
                remaining_at_start: remaining,
                issued: 0,
            };
        }
        let state = LoopState {
            n: self.n,
            remaining,
            p: self.p,
            rank,
            chunk_index: self.chunk_index,
            batch: self.batch,
            stats: &self.stats,
            weights: &self.weights,
            seed: self.technique.params.seed,
        };
        let wanted = match self.technique.kind {
            Kind::Static => static_chunking::chunk(&state),
            Kind::Ss => self_scheduling::chunk(&state),
            Kind::Gss => gss::chunk(&state),
            Kind::Fac2 => fac2::chunk(&state),
            _ => fac2::chunk(&state),
        };
        let params = &self.technique.params;
        let mut size = wanted.max(params.min_chunk);
        if let Some(max) = params.max_chunk {
            size = size.min(max);
        }
        let size = size.clamp(1, remaining);
        let chunk = Chunk {
            start: self.next_start,
            size,
        };
        self.next_start += size;
        self.chunk_index += 1;
        self.batch.issued += 1;
        self.stats[rank].chunks += 1;
        Some(chunk)
    }

    /// Records the timing of a chunk executed by `rank` (adaptive techniques learn from it).
    pub fn record(&mut self, rank: usize, timing: ChunkTiming) {
        let s = &mut self.stats[rank];
        s.iterates += timing.iterates;
        s.work_s += timing.work_s;
        s.elapsed_s += timing.elapsed_s;
        if s.iterates > 0 {
            s.mu = Some(s.work_s / s.iterates as f64);
        }
    }
}
