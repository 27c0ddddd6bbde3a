//! The scheduler state machine: owns the loop state, asks the technique for chunk sizes and hands
//! out chunks. No I/O: the simulator and every backend drive it.

use crate::chunk::{Chunk, ChunkTiming};
use crate::entry::{Learnt, LoopPlan, Rule};
use crate::formulas::adaptive_weighted_factoring::base_weights;
use crate::formulas::weighted_factoring::normalise;
use crate::learning::aggregates::Aggregates;
use crate::learning::local_speed::LocalSpeeds;
use crate::learning::rank_stats::RankStats;
use crate::spec::error::TechniqueError;
use crate::spec::kind::Kind;
use crate::spec::technique::Technique;
use crate::state::{Batch, LoopState};

/// How this loop's chunks are sized: the technique's formula, or its per-loop plan.
#[derive(Debug)]
enum Sizer {
    Formula(fn(&LoopState) -> u64),
    Plan(Box<dyn LoopPlan>),
}

impl Clone for Sizer {
    fn clone(&self) -> Self {
        match self {
            Sizer::Formula(f) => Sizer::Formula(*f),
            Sizer::Plan(plan) => Sizer::Plan(plan.clone_box()),
        }
    }
}

/// Hands out the chunks of one loop of `n` iterates over `p` ranks: the one scheduler state
/// machine that the simulator, the threads backend and the MPI scheduler all drive.
///
/// Chunks are contiguous and handed out in order: the first chunk starts at 0 and each next one
/// starts where the previous ended, until N iterates are out; every request costs O(1). The
/// one exception is static-steal, whose plan places every chunk in a rank's own block (see
/// its file in `formulas/`): its chunks cover [0, N) exactly once, in another order.
/// Adaptive techniques learn from [`record`](Self::record).
///
/// ```
/// use dls_technique::{ChunkScheduler, Technique};
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
    /// Iterates handed out (`next_start` unless a plan places chunks).
    handed: u64,
    chunk_index: u64,
    batch: Batch,
    stats: Vec<RankStats>,
    /// The given weights (sum P): `weights=` or [`set_weights`](Self::set_weights), else all 1.
    base_weights: Vec<f64>,
    sizer: Sizer,
    aggregates: Aggregates,
    ranks_started: usize,
    records_since_refresh: usize,
    /// The adaptive techniques' measurements compared on neighbouring iterates (`local=1`).
    local: Option<LocalSpeeds>,
}

impl ChunkScheduler {
    /// The largest number of ranks a scheduler accepts (2^24): the per-rank state is allocated
    /// up front, so a mistyped rank count must be an error, not an allocation failure.
    ///
    /// ```
    /// use dls_technique::{ChunkScheduler, Technique};
    /// let t: Technique = "gss".parse().unwrap();
    /// assert!(ChunkScheduler::new(&t, 10, ChunkScheduler::MAX_RANKS + 1).is_err());
    /// ```
    pub const MAX_RANKS: usize = 1 << 24;

    /// A scheduler for `n` iterates on `p` ranks; validates the technique's parameters against
    /// `p` (see [`Technique::validate`]).
    ///
    /// ```
    /// use dls_technique::{ChunkScheduler, Technique};
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
        let sizer = match technique.kind.entry().rule {
            Rule::Formula(f) => Sizer::Formula(f),
            Rule::PerLoop(start) => Sizer::Plan(start(&technique.params, n, p)),
        };
        Ok(ChunkScheduler {
            technique: technique.clone(),
            n,
            p,
            next_start: 0,
            handed: 0,
            chunk_index: 0,
            batch: Batch {
                index: 0,
                remaining_at_start: n,
                issued: 0,
            },
            stats: vec![RankStats::default(); p],
            base_weights: base_weights(&technique.params, p),
            sizer,
            aggregates: Aggregates::default(),
            ranks_started: 0,
            records_since_refresh: 0,
            local: (p > 1
                && technique
                    .kind
                    .parameters()
                    .iter()
                    .any(|s| s.name == "local")
                && technique.params.local_speeds(n, p))
            .then(|| LocalSpeeds::new(p)),
        })
    }

    /// The technique being scheduled.
    ///
    /// ```
    /// use dls_technique::{ChunkScheduler, Technique};
    /// let s = ChunkScheduler::new(&"ss".parse::<Technique>().unwrap(), 10, 1).unwrap();
    /// assert_eq!(s.technique().to_string(), "ss");
    /// ```
    pub fn technique(&self) -> &Technique {
        &self.technique
    }

    /// N, the number of iterates of the loop.
    ///
    /// ```
    /// use dls_technique::{ChunkScheduler, Technique};
    /// assert_eq!(ChunkScheduler::new(&"ss".parse::<Technique>().unwrap(), 10, 1).unwrap().n(), 10);
    /// ```
    pub fn n(&self) -> u64 {
        self.n
    }

    /// P, the number of ranks.
    ///
    /// ```
    /// use dls_technique::{ChunkScheduler, Technique};
    /// assert_eq!(ChunkScheduler::new(&"ss".parse::<Technique>().unwrap(), 10, 3).unwrap().p(), 3);
    /// ```
    pub fn p(&self) -> usize {
        self.p
    }

    /// Iterates not yet handed out.
    ///
    /// ```
    /// use dls_technique::{ChunkScheduler, Technique};
    /// let mut s = ChunkScheduler::new(&"static".parse::<Technique>().unwrap(), 10, 2).unwrap();
    /// s.next_chunk(1);
    /// assert_eq!(s.remaining(), 5);
    /// ```
    pub fn remaining(&self) -> u64 {
        self.n - self.handed
    }

    /// Chunks handed out so far.
    ///
    /// ```
    /// use dls_technique::{ChunkScheduler, Technique};
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
    /// use dls_technique::{ChunkScheduler, Technique};
    /// let t: Technique = "theta,criterion=a,model=uniform".parse().unwrap();
    /// assert_eq!(ChunkScheduler::new(&t, 1000, 4).unwrap().theta(), 0.625);
    /// ```
    pub fn theta(&self) -> f64 {
        match &self.sizer {
            Sizer::Plan(plan) => plan.theta().unwrap_or(1.0),
            Sizer::Formula(_) => 1.0,
        }
    }

    /// Per-rank measurements so far.
    ///
    /// ```
    /// use dls_technique::{ChunkScheduler, Technique};
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
    /// use dls_technique::{Chunk, ChunkScheduler, Technique};
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
            if let Sizer::Plan(plan) = &mut self.sizer {
                plan.new_batch(&Learnt {
                    stats: learnt_stats(&self.local, &self.stats),
                    aggregates: learnt_aggregates(&self.local, &self.aggregates),
                    base_weights: &self.base_weights,
                });
            }
        }
        let state = LoopState {
            n: self.n,
            remaining,
            p: self.p,
            rank,
            chunk_index: self.chunk_index,
            batch: self.batch,
            stats: learnt_stats(&self.local, &self.stats),
            weights: &self.base_weights,
            seed: self.technique.params.seed,
            params: &self.technique.params,
            ranks_started: self.ranks_started,
            aggregates: learnt_aggregates(&self.local, &self.aggregates),
            growth_cap: self.local.as_ref().map(|l| l.growth_cap(rank)),
        };
        let placed = match &mut self.sizer {
            Sizer::Plan(plan) => plan.place(&state),
            Sizer::Formula(_) => None,
        };
        let chunk = match placed {
            Some(c) => {
                assert!(
                    c.size >= 1 && c.size <= remaining && c.start.saturating_add(c.size) <= self.n,
                    "{}: placed chunk {c:?} with R = {remaining}, N = {}",
                    self.technique.kind,
                    self.n
                );
                c
            }
            None => {
                let wanted = match &self.sizer {
                    Sizer::Formula(formula) => formula(&state),
                    Sizer::Plan(plan) => plan.chunk(&state),
                };
                let size = self
                    .technique
                    .clamp_chunk(wanted, remaining)
                    .clamp(1, remaining);
                let c = Chunk {
                    start: self.next_start,
                    size,
                };
                self.next_start += size;
                c
            }
        };
        let size = chunk.size;
        self.handed += size;
        self.chunk_index += 1;
        self.batch.issued += 1;
        if self.stats[rank].chunks == 0 {
            self.ranks_started += 1;
        }
        self.stats[rank].chunks += 1;
        if let Some(local) = &mut self.local {
            local.handed(rank, chunk);
        }
        Some(chunk)
    }

    /// The one size of every chunk of this loop but the last, for a technique whose chunks all
    /// have the size set at the loop's start ([`Entry::fixed_size`](crate::Entry): SS, STATIC,
    /// FSC, mFSC, after `min`/`max`), asked before any chunk is handed out; `None` for every other
    /// technique, or once chunks were handed out. Chunk `k` is then
    /// `[k·c, min((k+1)·c, N))`, whoever asks and in whatever order: exactly what
    /// [`next_chunk`](Self::next_chunk) hands out, so a backend may hand the chunks out with one
    /// atomic add on `k` (as an OpenMP runtime does for `schedule(dynamic, c)`).
    ///
    /// ```
    /// use dls_technique::{ChunkScheduler, Technique};
    /// let s = ChunkScheduler::new(&"ss,min=3".parse::<Technique>().unwrap(), 10, 4).unwrap();
    /// assert_eq!(s.fixed_chunk(), Some(3));
    /// let s = ChunkScheduler::new(&"mfsc".parse::<Technique>().unwrap(), 1000, 4).unwrap();
    /// assert_eq!(s.fixed_chunk(), Some(31));
    /// let s = ChunkScheduler::new(&"gss".parse::<Technique>().unwrap(), 1000, 4).unwrap();
    /// assert_eq!(s.fixed_chunk(), None);
    /// ```
    pub fn fixed_chunk(&self) -> Option<u64> {
        let Sizer::Formula(formula) = self.sizer else {
            return None;
        };
        if !self.technique.kind.entry().fixed_size || self.chunk_index != 0 || self.n == 0 {
            return None;
        }
        let state = LoopState {
            n: self.n,
            remaining: self.n,
            p: self.p,
            rank: 0,
            chunk_index: 0,
            batch: self.batch,
            stats: &self.stats,
            weights: &self.base_weights,
            seed: self.technique.params.seed,
            params: &self.technique.params,
            ranks_started: 0,
            aggregates: &self.aggregates,
            growth_cap: None,
        };
        // The clamp is against the whole loop: every later chunk is the same size, the last
        // one cut to what is left (no fixed-size technique merges a tail).
        Some(self.technique.clamp_chunk(formula(&state), self.n).max(1))
    }

    /// Whether [`record`](Self::record) can change the chunks handed out after it: true for the
    /// adaptive techniques ([`Entry::adaptive`](crate::Entry)), whose chunks follow measured
    /// times. For every other technique the next chunk is the same whether a timing was
    /// recorded before it or after, so a scheduler may hand the chunk out first and record the
    /// timing afterwards (the MPI service answers a request before its bookkeeping).
    ///
    /// ```
    /// use dls_technique::{ChunkScheduler, Technique};
    /// let ss = ChunkScheduler::new(&"ss".parse::<Technique>().unwrap(), 10, 2).unwrap();
    /// let af = ChunkScheduler::new(&"af".parse::<Technique>().unwrap(), 10, 2).unwrap();
    /// assert!(!ss.learns() && af.learns());
    /// ```
    pub fn learns(&self) -> bool {
        self.technique.kind.entry().adaptive || self.local.is_some()
    }

    /// Records the timing of a chunk executed by `rank`; adaptive techniques learn from it (see
    /// [`RankStats`] for the estimators). A timing with no iterates or a negative or non-finite
    /// time is ignored.
    ///
    /// # Panics
    /// If `rank >= p` (a programming error of the backend, never a user setting).
    ///
    /// ```
    /// use dls_technique::{ChunkScheduler, ChunkTiming, Technique};
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
        if let Some(local) = &mut self.local {
            local.record(rank, timing);
        }
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

    /// Sets the relative rank speeds of WF, AWF (from [`AwfHistory::weights`](crate::AwfHistory::weights))
    /// and AWF-B..E (used until measurements take over); they apply from the next chunk on and
    /// are normalised to sum P. For AWF they end its first-time-step learning: its chunks
    /// follow these weights as published. Errors when the technique takes no weights, the count is not P,
    /// or a weight is zero, negative or not finite.
    ///
    /// ```
    /// use dls_technique::{ChunkScheduler, Technique};
    /// let mut s = ChunkScheduler::new(&"awf".parse::<Technique>().unwrap(), 1000, 2).unwrap();
    /// s.set_weights(vec![3.0, 1.0]).unwrap();
    /// assert_eq!(s.weights(), vec![1.5, 0.5]);
    /// assert_eq!(s.next_chunk(0).unwrap().size, 375); // 1.5 · ceil(1000/4)
    /// assert!(s.set_weights(vec![1.0, 0.0]).is_err());
    /// ```
    pub fn set_weights(&mut self, weights: Vec<f64>) -> Result<(), TechniqueError> {
        let kind = self.technique.kind;
        let takes_weights = |k: Kind| k.own_parameters().iter().any(|s| s.name == "weights");
        if !takes_weights(kind) {
            let with: Vec<&str> = Kind::ALL
                .into_iter()
                .filter(|k| takes_weights(*k))
                .map(Kind::name)
                .collect();
            return Err(TechniqueError::new(format!(
                "{}: takes no weights; techniques with weights: {}",
                kind.name(),
                with.join(", ")
            )));
        }
        let mut check = Technique::new(kind);
        check.params.weights = Some(weights);
        check.validate(Some(self.p))?;
        self.base_weights = normalise(check.params.weights.as_deref().unwrap_or(&[]));
        if let Sizer::Plan(plan) = &mut self.sizer {
            plan.weights_given(&Learnt {
                stats: learnt_stats(&self.local, &self.stats),
                aggregates: learnt_aggregates(&self.local, &self.aggregates),
                base_weights: &self.base_weights,
            });
        }
        Ok(())
    }

    /// The weights in force for every rank (sum P): the given ones for WF and AWF, the ones
    /// learnt at the start of the current batch for AWF-B, AWF-D and AWF on its first time step
    /// (no weights given, see `weighted_factoring`), the ones learnt so far for
    /// AWF-C and AWF-E; all 1 for other techniques.
    ///
    /// ```
    /// use dls_technique::{ChunkScheduler, Technique};
    /// let s = ChunkScheduler::new(&"wf,weights=1:1:2".parse::<Technique>().unwrap(), 10, 3).unwrap();
    /// assert_eq!(s.weights(), vec![0.75, 0.75, 1.5]);
    /// ```
    pub fn weights(&self) -> Vec<f64> {
        let learnt = match &self.sizer {
            Sizer::Plan(plan) => plan.weights(&Learnt {
                stats: learnt_stats(&self.local, &self.stats),
                aggregates: learnt_aggregates(&self.local, &self.aggregates),
                base_weights: &self.base_weights,
            }),
            Sizer::Formula(_) => None,
        };
        learnt.unwrap_or_else(|| self.base_weights.clone())
    }
}

/// The per-rank statistics the techniques learn from: compared on neighbouring iterates when
/// `local` is on, else the raw ones.
fn learnt_stats<'a>(local: &'a Option<LocalSpeeds>, raw: &'a [RankStats]) -> &'a [RankStats] {
    local.as_ref().map_or(raw, |l| l.stats())
}

/// The sums of [`learnt_stats`].
fn learnt_aggregates<'a>(local: &'a Option<LocalSpeeds>, raw: &'a Aggregates) -> &'a Aggregates {
    local.as_ref().map_or(raw, |l| l.aggregates())
}
