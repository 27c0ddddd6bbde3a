//! Sums over all ranks that AF and AWF-C/E need at every request, kept up to date in O(1) per
//! recorded chunk so that a request costs O(1) even with thousands of ranks.
//!
//! The [`ChunkScheduler`](crate::ChunkScheduler) removes a rank's old contribution and adds its
//! new one on every [`record`](crate::ChunkScheduler::record), and recomputes all sums from
//! scratch every P records to bound floating-point drift.

use crate::learning::rank_stats::{RankStats, TimeBasis};

/// Sums over the ranks whose measurements are known.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Aggregates {
    /// AF: ranks with both mu and sigma estimates.
    pub(crate) af_known: usize,
    /// AF: `Σ sigma_k² / mu_k` over known ranks.
    pub(crate) af_sum_var_over_mu: f64,
    /// AF: `Σ 1 / mu_k` over known ranks.
    pub(crate) af_sum_inv_mu: f64,
    /// AF: `Σ mu_k` over known ranks.
    pub(crate) af_sum_mu: f64,
    /// AF: `Σ sigma_k²` over known ranks.
    pub(crate) af_sum_var: f64,
    /// AWF-B/C: sums of weighted work time per iterate.
    pub(crate) work: AwfSums,
    /// AWF-D/E: sums of weighted elapsed time per iterate.
    pub(crate) elapsed: AwfSums,
}

/// Sums of AWF's weighted time per iterate `pi` ([`RankStats::awf_pi`]) over measured ranks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct AwfSums {
    /// Ranks with at least one measured chunk.
    pub(crate) known: usize,
    /// `Σ 1 / pi_k`.
    pub(crate) sum_inv_pi: f64,
    /// `Σ pi_k`.
    pub(crate) sum_pi: f64,
}

impl Aggregates {
    /// The sums over `stats`, computed from scratch.
    pub(crate) fn from_stats(stats: &[RankStats]) -> Self {
        let mut a = Aggregates::default();
        for s in stats {
            a.add(s);
        }
        a
    }

    /// The AWF sums for a time basis.
    pub(crate) fn awf(&self, basis: TimeBasis) -> &AwfSums {
        match basis {
            TimeBasis::Work => &self.work,
            TimeBasis::Elapsed => &self.elapsed,
        }
    }

    /// Adds one rank's contribution.
    pub(crate) fn add(&mut self, s: &RankStats) {
        self.apply(s, 1.0);
    }

    /// Removes one rank's contribution (exactly what [`add`](Self::add) added for the same stats).
    pub(crate) fn remove(&mut self, s: &RankStats) {
        self.apply(s, -1.0);
    }

    fn apply(&mut self, s: &RankStats, sign: f64) {
        let step = |count: &mut usize| {
            if sign > 0.0 {
                *count += 1;
            } else {
                *count = count.saturating_sub(1);
            }
        };
        if let Some((mu, sigma)) = s.moments() {
            step(&mut self.af_known);
            let var = sigma * sigma;
            self.af_sum_var_over_mu += sign * var / mu;
            self.af_sum_inv_mu += sign / mu;
            self.af_sum_mu += sign * mu;
            self.af_sum_var += sign * var;
        }
        for (basis, sums) in [
            (TimeBasis::Work, &mut self.work),
            (TimeBasis::Elapsed, &mut self.elapsed),
        ] {
            if let Some(pi) = s.awf_pi(basis) {
                step(&mut sums.known);
                sums.sum_inv_pi += sign / pi;
                sums.sum_pi += sign * pi;
            }
        }
    }
}
