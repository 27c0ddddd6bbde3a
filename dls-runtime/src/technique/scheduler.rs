//! The scheduler state machine: owns the loop state, asks the technique for chunk sizes and hands
//! out chunks. No I/O: the simulator and every backend drive it.

use super::adaptive_weighted_factoring::{learnt_weights, measured, weight};
use super::aggregates::Aggregates;
use super::error::TechniqueError;
use super::kind::Kind;
use super::rank_stats::{RankStats, TimeBasis};
use super::spec::Technique;
use super::state::{Batch, LoopState};
use super::theta_split::theta_for;
use super::weighted_factoring::normalise;

/// A chunk of iterates `[start, start + size)`, counted from the first iterate of the loop.
///
/// ```
/// let c = dls_runtime::Chunk { start: 10, size: 5 };
/// assert_eq!(c.start + c.size, 15);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// Offset of the first iterate.
    pub start: u64,
    /// Number of iterates (at least 1).
    pub size: u64,
}

/// Timing of one executed chunk, reported by the rank that executed it.
///
/// ```
/// let t = dls_runtime::ChunkTiming { iterates: 8, work_s: 0.4, elapsed_s: 0.5 };
/// assert!(t.elapsed_s >= t.work_s);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ChunkTiming {
    /// Iterates in the chunk.
    pub iterates: u64,
    /// Seconds spent executing the iterates.
    pub work_s: f64,
    /// Seconds from receiving the chunk to finishing it (scheduling overhead included).
    pub elapsed_s: f64,
}

/// Hands out the chunks of one loop of `n` iterates over `p` ranks: the one scheduler state
/// machine that the simulator, the threads backend and the MPI scheduler all drive.
///
/// Chunks are contiguous and handed out in order: the first chunk starts at 0 and each next one
/// starts where the previous ended, until N iterates are out; every request costs O(1).
/// Adaptive techniques learn from [`record`](Self::record).
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
    base_weights: Vec<f64>,
    batch_weights: Vec<f64>,
    /// Per rank: measured when `batch_weights` were learnt (empty unless weights are learnt
    /// per batch).
    batch_measured: Vec<bool>,
    /// AWF on its first time step (no weights given, sampling phase on): learns its weights
    /// within the loop as AWF-B does.
    awf_learns: bool,
    aggregates: Aggregates,
    ranks_started: usize,
    records_since_refresh: usize,
    theta: f64,
}

impl ChunkScheduler {
    /// The largest number of ranks a scheduler accepts (2^24): the per-rank state is allocated
    /// up front, so a mistyped rank count must be an error, not an allocation failure.
    ///
    /// ```
    /// use dls_runtime::{ChunkScheduler, Technique};
    /// let t: Technique = "gss".parse().unwrap();
    /// assert!(ChunkScheduler::new(&t, 10, ChunkScheduler::MAX_RANKS + 1).is_err());
    /// ```
    pub const MAX_RANKS: usize = 1 << 24;

    /// A scheduler for `n` iterates on `p` ranks; validates the technique's parameters against
    /// `p` (see [`Technique::validate`]).
    ///
    /// ```
    /// use dls_runtime::{ChunkScheduler, Technique};
    /// let wf: Technique = "wf,weights=1:3".parse().unwrap();
    /// assert!(ChunkScheduler::new(&wf, 100, 2).is_ok());
    /// let e = ChunkScheduler::new(&wf, 100, 4).unwrap_err().to_string();
    /// assert!(e.contains("weights") && e.contains("4 ranks"));
    /// assert!(ChunkScheduler::new(&wf, 100, 0).is_err());
    /// ```
    pub fn new(technique: &Technique, n: u64, p: usize) -> Result<Self, TechniqueError> {
        if p == 0 || p > Self::MAX_RANKS {
            return Err(TechniqueError::new(format!(
                "{}: the number of ranks must be from 1 to {}, got {p}",
                technique.kind.name(),
                Self::MAX_RANKS
            )));
        }
        technique.validate(Some(p))?;
        let base_weights = match &technique.params.weights {
            Some(w) => normalise(w),
            None => vec![1.0; p],
        };
        let theta = if technique.kind == Kind::Theta {
            theta_for(&technique.params, n, p)
        } else {
            1.0
        };
        let awf_learns = technique.kind == Kind::Awf
            && technique.params.weights.is_none()
            && technique.params.probe_chunk(n, p) > 0;
        let mut s = ChunkScheduler {
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
            batch_weights: base_weights.clone(),
            base_weights,
            batch_measured: Vec::new(),
            awf_learns,
            aggregates: Aggregates::default(),
            ranks_started: 0,
            records_since_refresh: 0,
            theta,
        };
        if s.batch_basis().is_some() {
            s.batch_measured = vec![false; p];
        }
        Ok(s)
    }

    /// The technique being scheduled.
    ///
    /// ```
    /// use dls_runtime::{ChunkScheduler, Technique};
    /// let s = ChunkScheduler::new(&"ss".parse::<Technique>().unwrap(), 10, 1).unwrap();
    /// assert_eq!(s.technique().to_string(), "ss");
    /// ```
    pub fn technique(&self) -> &Technique {
        &self.technique
    }

    /// N, the number of iterates of the loop.
    ///
    /// ```
    /// use dls_runtime::{ChunkScheduler, Technique};
    /// assert_eq!(ChunkScheduler::new(&"ss".parse::<Technique>().unwrap(), 10, 1).unwrap().n(), 10);
    /// ```
    pub fn n(&self) -> u64 {
        self.n
    }

    /// P, the number of ranks.
    ///
    /// ```
    /// use dls_runtime::{ChunkScheduler, Technique};
    /// assert_eq!(ChunkScheduler::new(&"ss".parse::<Technique>().unwrap(), 10, 3).unwrap().p(), 3);
    /// ```
    pub fn p(&self) -> usize {
        self.p
    }

    /// Iterates not yet handed out.
    ///
    /// ```
    /// use dls_runtime::{ChunkScheduler, Technique};
    /// let mut s = ChunkScheduler::new(&"static".parse::<Technique>().unwrap(), 10, 2).unwrap();
    /// s.next_chunk(1);
    /// assert_eq!(s.remaining(), 5);
    /// ```
    pub fn remaining(&self) -> u64 {
        self.n - self.next_start
    }

    /// Chunks handed out so far.
    ///
    /// ```
    /// use dls_runtime::{ChunkScheduler, Technique};
    /// let mut s = ChunkScheduler::new(&"ss".parse::<Technique>().unwrap(), 10, 2).unwrap();
    /// s.next_chunk(0);
    /// assert_eq!(s.chunks_issued(), 1);
    /// ```
    pub fn chunks_issued(&self) -> u64 {
        self.chunk_index
    }

    /// θ of the theta split for this loop (1 for other techniques).
    ///
    /// ```
    /// use dls_runtime::{ChunkScheduler, Technique};
    /// let t: Technique = "theta,criterion=a,model=uniform".parse().unwrap();
    /// assert_eq!(ChunkScheduler::new(&t, 1000, 4).unwrap().theta(), 0.625);
    /// ```
    pub fn theta(&self) -> f64 {
        self.theta
    }

    /// Per-rank measurements so far.
    ///
    /// ```
    /// use dls_runtime::{ChunkScheduler, Technique};
    /// let mut s = ChunkScheduler::new(&"ss".parse::<Technique>().unwrap(), 10, 2).unwrap();
    /// s.next_chunk(1);
    /// assert_eq!(s.stats()[1].chunks, 1);
    /// ```
    pub fn stats(&self) -> &[RankStats] {
        &self.stats
    }

    /// The next chunk for `rank`, or `None` when every iterate has been handed out.
    ///
    /// # Panics
    /// If `rank >= p` (a programming error of the backend, never a user setting).
    ///
    /// ```
    /// use dls_runtime::{Chunk, ChunkScheduler, Technique};
    /// let mut s = ChunkScheduler::new(&"ss".parse::<Technique>().unwrap(), 2, 4).unwrap();
    /// assert_eq!(s.next_chunk(3), Some(Chunk { start: 0, size: 1 }));
    /// assert_eq!(s.next_chunk(0), Some(Chunk { start: 1, size: 1 }));
    /// assert_eq!(s.next_chunk(1), None);
    /// ```
    pub fn next_chunk(&mut self, rank: usize) -> Option<Chunk> {
        assert!(
            rank < self.p,
            "rank {rank} out of range: the loop has {} ranks",
            self.p
        );
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
            if let Some(basis) = self.batch_basis() {
                self.batch_weights = learnt_weights(&self.stats, basis, &self.base_weights);
                self.batch_measured = measured(&self.stats, basis);
            }
        }
        let weights = if self.batch_basis().is_some() {
            &self.batch_weights
        } else {
            &self.base_weights
        };
        let state = LoopState {
            n: self.n,
            remaining,
            p: self.p,
            rank,
            chunk_index: self.chunk_index,
            batch: self.batch,
            stats: &self.stats,
            weights,
            seed: self.technique.params.seed,
            params: &self.technique.params,
            ranks_started: self.ranks_started,
            aggregates: &self.aggregates,
            theta: self.theta,
            batch_measured: &self.batch_measured,
        };
        let size = self.technique.chunk_size(&state).clamp(1, remaining);
        let chunk = Chunk {
            start: self.next_start,
            size,
        };
        self.next_start += size;
        self.chunk_index += 1;
        self.batch.issued += 1;
        if self.stats[rank].chunks == 0 {
            self.ranks_started += 1;
        }
        self.stats[rank].chunks += 1;
        Some(chunk)
    }

    /// Records the timing of a chunk executed by `rank`; adaptive techniques learn from it (see
    /// [`RankStats`] for the estimators). A timing with no iterates or a negative or non-finite
    /// time is ignored.
    ///
    /// # Panics
    /// If `rank >= p` (a programming error of the backend, never a user setting).
    ///
    /// ```
    /// use dls_runtime::{ChunkScheduler, ChunkTiming, Technique};
    /// let mut s = ChunkScheduler::new(&"af".parse::<Technique>().unwrap(), 100, 2).unwrap();
    /// let c = s.next_chunk(0).unwrap();
    /// s.record(0, ChunkTiming { iterates: c.size, work_s: 0.5, elapsed_s: 0.6 });
    /// assert_eq!(s.stats()[0].mu, Some(0.5 / c.size as f64));
    /// ```
    pub fn record(&mut self, rank: usize, timing: ChunkTiming) {
        assert!(
            rank < self.p,
            "rank {rank} out of range: the loop has {} ranks",
            self.p
        );
        self.aggregates.remove(&self.stats[rank]);
        let changed = self.stats[rank].record(timing);
        self.aggregates.add(&self.stats[rank]);
        if changed {
            self.records_since_refresh += 1;
            if self.records_since_refresh >= self.p {
                self.aggregates = Aggregates::from_stats(&self.stats);
                self.records_since_refresh = 0;
            }
        }
    }

    /// Sets the relative rank speeds of WF, AWF (from [`AwfHistory::weights`](super::AwfHistory::weights))
    /// and AWF-B..E (used until measurements take over); they apply from the next chunk on and
    /// are normalised to sum P. For AWF they end its first-time-step learning: its chunks
    /// follow these weights as published. Errors when the technique takes no weights, the count is not P,
    /// or a weight is zero, negative or not finite.
    ///
    /// ```
    /// use dls_runtime::{ChunkScheduler, Technique};
    /// let mut s = ChunkScheduler::new(&"awf".parse::<Technique>().unwrap(), 1000, 2).unwrap();
    /// s.set_weights(vec![3.0, 1.0]).unwrap();
    /// assert_eq!(s.weights(), vec![1.5, 0.5]);
    /// assert_eq!(s.next_chunk(0).unwrap().size, 375); // 1.5 · ceil(1000/4)
    /// assert!(s.set_weights(vec![1.0, 0.0]).is_err());
    /// ```
    pub fn set_weights(&mut self, weights: Vec<f64>) -> Result<(), TechniqueError> {
        let kind = self.technique.kind;
        if !kind.own_parameters().iter().any(|s| s.name == "weights") {
            return Err(TechniqueError::new(format!(
                "{}: takes no weights; techniques with weights: wf, awf, awf-b, awf-c, awf-d, awf-e",
                kind.name()
            )));
        }
        let mut check = Technique::new(kind);
        check.params.weights = Some(weights);
        check.validate(Some(self.p))?;
        self.base_weights = normalise(check.params.weights.as_deref().unwrap_or(&[]));
        // Weights from AWF's history: this is not the first time step, nothing to learn.
        self.awf_learns = false;
        (self.batch_weights, self.batch_measured) = match self.batch_basis() {
            Some(basis) => (
                learnt_weights(&self.stats, basis, &self.base_weights),
                measured(&self.stats, basis),
            ),
            None => (self.base_weights.clone(), Vec::new()),
        };
        Ok(())
    }

    /// The weights in force for every rank (sum P): the given ones for WF and AWF, the ones
    /// learnt at the start of the current batch for AWF-B, AWF-D and AWF on its first time step
    /// (no weights given, see `weighted_factoring`), the ones learnt so far for
    /// AWF-C and AWF-E; all 1 for other techniques.
    ///
    /// ```
    /// use dls_runtime::{ChunkScheduler, Technique};
    /// let s = ChunkScheduler::new(&"wf,weights=1:1:2".parse::<Technique>().unwrap(), 10, 3).unwrap();
    /// assert_eq!(s.weights(), vec![0.75, 0.75, 1.5]);
    /// ```
    pub fn weights(&self) -> Vec<f64> {
        if self.batch_basis().is_some() {
            return self.batch_weights.clone();
        }
        match self.technique.kind {
            Kind::AwfC | Kind::AwfE => {
                let basis = if self.technique.kind == Kind::AwfC {
                    TimeBasis::Work
                } else {
                    TimeBasis::Elapsed
                };
                (0..self.p)
                    .map(|i| {
                        weight(
                            i,
                            &self.stats,
                            &self.aggregates,
                            basis,
                            self.base_weights[i],
                        )
                    })
                    .collect()
            }
            _ => self.base_weights.clone(),
        }
    }

    /// The time basis of the batch-snapshot techniques (AWF-B, AWF-D, and AWF on its first
    /// time step).
    fn batch_basis(&self) -> Option<TimeBasis> {
        match self.technique.kind {
            Kind::AwfB => Some(TimeBasis::Work),
            Kind::Awf if self.awf_learns => Some(TimeBasis::Work),
            Kind::AwfD => Some(TimeBasis::Elapsed),
            _ => None,
        }
    }
}
