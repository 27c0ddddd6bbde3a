//! The one calculator interface: a technique's chunk rule (its [`Entry`](crate::Entry)) gives
//! the wanted size, and [`Technique::clamp_chunk`] raises it to the minimum chunk, lowers it to
//! the maximum chunk and to R, and merges the tail for the factoring family.

use crate::spec::technique::Technique;
#[cfg(test)]
use crate::{entry::Rule, state::LoopState};

impl Technique {
    /// The size of the next chunk for `state.rank` for a technique without per-loop state:
    /// its formula, then [`clamp_chunk`](Self::clamp_chunk). Returns 0 only when R = 0.
    /// (The [`ChunkScheduler`](crate::ChunkScheduler) also handles per-loop state.)
    #[cfg(test)]
    pub(crate) fn chunk_size(&self, s: &LoopState) -> u64 {
        let Rule::Formula(formula) = self.kind.entry().rule else {
            panic!("{} keeps per-loop state: use a ChunkScheduler", self.kind)
        };
        if s.remaining == 0 || s.p == 0 {
            return 0;
        }
        self.clamp_chunk(formula(s), s.remaining)
    }

    /// `wanted` raised to the minimum chunk, lowered to the maximum chunk and to the remaining
    /// iterates `r` (>= 1). In the factoring family (FAC, FAC2, WF, AWF, AWF-B..E, AF) a chunk
    /// that would leave at most the minimum chunk behind takes that remainder too. Never more
    /// than `r`.
    #[inline]
    pub(crate) fn clamp_chunk(&self, wanted: u64, r: u64) -> u64 {
        let min = self.params.min_chunk.max(1);
        let max = self.params.max_chunk.unwrap_or(u64::MAX).max(min);
        let size = wanted.clamp(min, max).min(r);
        if self.kind.merges_tail() && r - size <= min && r <= max {
            r
        } else {
            size
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::learning::aggregates::Aggregates;
    use crate::learning::rank_stats::RankStats;
    use crate::state::{Batch, LoopState};
    use crate::Technique;

    #[test]
    fn merges_a_tail_of_at_most_min() {
        let t: Technique = "fac2".parse().unwrap();
        let stats = vec![RankStats::default(); 4];
        let mut s = LoopState {
            n: 1000,
            remaining: 2,
            p: 4,
            rank: 0,
            chunk_index: 29,
            batch: Batch {
                index: 7,
                remaining_at_start: 4,
                issued: 2,
            },
            stats: &stats,
            weights: &[1.0; 4],
            seed: 0,
            params: &t.params,
            ranks_started: 4,
            aggregates: &Aggregates::default(),
            growth_cap: None,
        };
        assert_eq!(t.chunk_size(&s), 2); // ceil(4/8) = 1 would leave 1 behind: merged
        s.remaining = 0;
        assert_eq!(t.chunk_size(&s), 0);
        let gss: Technique = "gss".parse().unwrap();
        s.remaining = 1000;
        assert_eq!(gss.chunk_size(&s), 250);
    }
}
