//! The one calculator interface: [`Technique::chunk_size`] maps a [`LoopState`] to the size of
//! the next chunk for the requesting rank, by dispatching to the technique's module and then
//! clamping the result to `[min, max]` and to R.

use super::kind::Kind;
use super::rank_stats::TimeBasis;
use super::spec::Technique;
use super::state::LoopState;
use super::{
    adaptive_factoring, adaptive_weighted_factoring, fac2, factoring, fixed_increase,
    fixed_size_chunking, guided, modified_fsc, performance_based, random, self_scheduling,
    static_chunking, taper, theta_split, trapezoid, trapezoid_factoring, variable_increase,
    weighted_factoring,
};

impl Technique {
    /// The size of the next chunk for `state.rank`: the technique's formula, raised to the
    /// minimum chunk, lowered to the maximum chunk and to the remaining iterates R. In the
    /// factoring family (FAC, FAC2, WF, AWF, AWF-B..E, AF) a chunk that would leave at most the
    /// minimum chunk behind takes that remainder too. Returns 0 only when R = 0; never more
    /// than R. A pure function of the state.
    ///
    /// ```
    /// use dls_runtime::technique::{Aggregates, Batch, LoopState, Params, RankStats};
    /// use dls_runtime::Technique;
    /// let t: Technique = "fac2".parse().unwrap();
    /// let stats = vec![RankStats::default(); 4];
    /// let mut s = LoopState {
    ///     n: 1000, remaining: 2, p: 4, rank: 0, chunk_index: 29,
    ///     batch: Batch { index: 7, remaining_at_start: 4, issued: 2 },
    ///     stats: &stats, weights: &[1.0; 4], seed: 0, params: &t.params,
    ///     ranks_started: 4, aggregates: &Aggregates::default(), theta: 1.0,
    ///     batch_measured: &[],
    /// };
    /// assert_eq!(t.chunk_size(&s), 2); // ceil(4/8) = 1 would leave 1 behind: merged
    /// s.remaining = 0;
    /// assert_eq!(t.chunk_size(&s), 0);
    /// ```
    pub fn chunk_size(&self, s: &LoopState) -> u64 {
        let r = s.remaining;
        if r == 0 || s.p == 0 {
            return 0;
        }
        let wanted = match self.kind {
            Kind::Static => static_chunking::chunk(s),
            Kind::Ss => self_scheduling::chunk(s),
            Kind::Fsc => fixed_size_chunking::chunk(s),
            Kind::Mfsc => modified_fsc::chunk(s),
            Kind::Gss => guided::chunk(s),
            Kind::Tss => trapezoid::chunk(s),
            Kind::Fac => factoring::chunk(s),
            Kind::Fac2 => fac2::chunk(s),
            Kind::Wf | Kind::Awf => weighted_factoring::chunk(s),
            Kind::AwfB | Kind::AwfD => adaptive_weighted_factoring::batched_chunk(s),
            Kind::AwfC => adaptive_weighted_factoring::chunk_per_request(s, TimeBasis::Work),
            Kind::AwfE => adaptive_weighted_factoring::chunk_per_request(s, TimeBasis::Elapsed),
            Kind::Af => adaptive_factoring::chunk(s),
            Kind::Tfss => trapezoid_factoring::chunk(s),
            Kind::Fiss => fixed_increase::chunk(s),
            Kind::Viss => variable_increase::chunk(s),
            Kind::Rnd => random::chunk(s),
            Kind::Pls => performance_based::chunk(s),
            Kind::Tap => taper::chunk(s),
            Kind::Theta => theta_split::chunk(s),
        };
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
