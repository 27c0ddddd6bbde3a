//! Sums over all ranks that AF and AWF-C/E need at every request, kept up to date in O(1) per
//! recorded chunk so that a request costs O(1) even with thousands of ranks.
//!
//! The [`ChunkScheduler`](super::ChunkScheduler) removes a rank's old contribution and adds its
//! new one on every [`record`](super::ChunkScheduler::record), and recomputes all sums from
//! scratch every P records to bound floating-point drift.

use super::rank_stats::{RankStats, TimeBasis};

/// Sums over the ranks whose measurements are known.
///
/// ```
/// use dls_runtime::technique::{Aggregates, RankStats, TimeBasis};
/// use dls_runtime::ChunkTiming;
/// let mut a = RankStats::default();
/// a.record(ChunkTiming { iterates: 10, work_s: 1.0, elapsed_s: 1.0 });
/// let agg = Aggregates::from_stats(&[a, RankStats::default()]);
/// assert_eq!(agg.awf(TimeBasis::Work).known, 1);
/// assert_eq!(agg.af_known, 0); // AF needs two chunks for sigma
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Aggregates {
    /// AF: ranks with both mu and sigma estimates.
    pub af_known: usize,
    /// AF: `Σ sigma_k² / mu_k` over known ranks.
    pub af_sum_var_over_mu: f64,
    /// AF: `Σ 1 / mu_k` over known ranks.
    pub af_sum_inv_mu: f64,
    /// AF: `Σ mu_k` over known ranks.
    pub af_sum_mu: f64,
    /// AF: `Σ sigma_k²` over known ranks.
    pub af_sum_var: f64,
    /// AWF-B/C: sums of weighted work time per iterate.
    pub work: AwfSums,
    /// AWF-D/E: sums of weighted elapsed time per iterate.
    pub elapsed: AwfSums,
}

/// Sums of AWF's weighted time per iterate `pi` ([`RankStats::awf_pi`]) over measured ranks.
///
/// ```
/// let s = dls_runtime::technique::AwfSums::default();
/// assert_eq!(s.known, 0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AwfSums {
    /// Ranks with at least one measured chunk.
    pub known: usize,
    /// `Σ 1 / pi_k`.
    pub sum_inv_pi: f64,
    /// `Σ pi_k`.
    pub sum_pi: f64,
}

impl Aggregates {
    /// The sums over `stats`, computed from scratch.
    ///
    /// ```
    /// let agg = dls_runtime::technique::Aggregates::from_stats(&[]);
    /// assert_eq!(agg.af_known, 0);
    /// ```
    pub fn from_stats(stats: &[RankStats]) -> Self {
        let mut a = Aggregates::default();
        for s in stats {
            a.add(s);
        }
        a
    }

    /// The AWF sums for a time basis.
    ///
    /// ```
    /// use dls_runtime::technique::{Aggregates, TimeBasis};
    /// assert_eq!(Aggregates::default().awf(TimeBasis::Elapsed).known, 0);
    /// ```
    pub fn awf(&self, basis: TimeBasis) -> &AwfSums {
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
