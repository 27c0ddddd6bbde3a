//! Per-rank measurements and the estimators of an iterate's mean and standard deviation.
//!
//! A rank reports, for each chunk `j` it executed, the iterates `n_j`, the work time `t_j` and
//! the elapsed time `e_j` (from receiving the chunk to finishing it). From these sums:
//!
//! * mean time of one iterate: `mu = Σ t_j / Σ n_j` (the time-weighted mean over all iterates);
//! * standard deviation of one iterate's time, from chunk totals only: if iterates are
//!   independent with mean `mu` and variance `sigma²`, a chunk of `n_j` iterates has mean
//!   `n_j·mu` and variance `n_j·sigma²`, so
//!   `sigma² = Σ_j (t_j − n_j·mu)² / n_j / (m − 1)`, `m` the number of chunks, an unbiased
//!   (weighted least squares) estimate. It needs `m >= 2` chunks; it is computed from running
//!   sums as `(Σ t_j²/n_j − (Σ t_j)²/Σ n_j) / (m − 1)`, floored at 0. Variation of iterate cost
//!   along the loop (a trend) shows up as variance, which is what the adaptive techniques should
//!   react to.
//! * AWF-B..E's weighted time per iterate: `pi = Σ_j j·t_j / Σ_j j·n_j` (`j` = 1, 2, ... the
//!   rank's measured chunks in order, so recent chunks count more; Cariño & Banicescu 2008), with
//!   `t_j` the work time (AWF-B, C) or the elapsed time (AWF-D, E).

use crate::chunk::ChunkTiming;

/// Which time AWF weights are learnt from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum TimeBasis {
    /// Time spent executing iterates (AWF-B, AWF-C, AF).
    Work,
    /// Time from receiving a chunk to finishing it, scheduling overhead included (AWF-D, AWF-E).
    Elapsed,
}

/// Measurements of one rank, accumulated by the [`ChunkScheduler`](crate::ChunkScheduler) from the
/// chunk timings the rank reports (see the module documentation for the estimators).
///
/// ```
/// use dls_technique::RankStats;
/// use dls_technique::ChunkTiming;
/// let mut s = RankStats::default();
/// s.record(ChunkTiming { iterates: 10, work_s: 1.0, elapsed_s: 1.5 });
/// assert_eq!(s.mu, Some(0.1));
/// assert_eq!(s.sigma, None); // needs two chunks
/// ```
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
    /// Estimated standard deviation of one iterate's time, seconds (`None` before two chunks).
    pub sigma: Option<f64>,
    /// Chunks whose timing has been reported.
    pub measured_chunks: u64,
    /// `Σ t_j² / n_j` over reported chunks (for the variance estimate), seconds².
    pub work_sq_per_iterate: f64,
    /// `Σ j·t_j` (work time), seconds.
    pub weighted_work_s: f64,
    /// `Σ j·e_j` (elapsed time), seconds.
    pub weighted_elapsed_s: f64,
    /// `Σ j·n_j`.
    pub weighted_iterates: f64,
}

impl RankStats {
    /// Adds one chunk's timing and updates the estimates. A timing with no iterates, or a
    /// negative or non-finite time, carries no information and is ignored (returns `false`).
    ///
    /// ```
    /// use dls_technique::{RankStats, ChunkTiming};
    /// let mut s = RankStats::default();
    /// assert!(s.record(ChunkTiming { iterates: 2, work_s: 2.0, elapsed_s: 2.0 }));
    /// assert!(s.record(ChunkTiming { iterates: 2, work_s: 6.0, elapsed_s: 6.0 }));
    /// assert!(!s.record(ChunkTiming { iterates: 1, work_s: f64::NAN, elapsed_s: 1.0 }));
    /// assert_eq!(s.mu, Some(2.0));
    /// // chunks of 2 iterates took 2 s and 6 s, expected 4 s each: (2²/2 + 2²/2) / (2 - 1) = 4 = sigma²
    /// assert_eq!(s.sigma, Some(2.0));
    /// ```
    pub fn record(&mut self, t: ChunkTiming) -> bool {
        let valid = |x: f64| x.is_finite() && x >= 0.0;
        if t.iterates == 0 || !valid(t.work_s) || !valid(t.elapsed_s) {
            return false;
        }
        let n = t.iterates as f64;
        self.measured_chunks += 1;
        let j = self.measured_chunks as f64;
        self.iterates = self.iterates.saturating_add(t.iterates);
        self.work_s += t.work_s;
        self.elapsed_s += t.elapsed_s;
        self.work_sq_per_iterate += t.work_s * t.work_s / n;
        self.weighted_work_s += j * t.work_s;
        self.weighted_elapsed_s += j * t.elapsed_s;
        self.weighted_iterates += j * n;
        let total = self.iterates as f64;
        self.mu = Some(self.work_s / total);
        if self.measured_chunks >= 2 {
            let ss = self.work_sq_per_iterate - self.work_s * self.work_s / total;
            let var = (ss / (self.measured_chunks - 1) as f64).max(0.0);
            self.sigma = Some(var.sqrt());
        }
        true
    }

    /// AWF's weighted time per iterate `pi = Σ j·t_j / Σ j·n_j`, or `None` before any
    /// measurement. Floored at [`MIN_TIME`] so a rank timed at zero does not divide by zero.
    pub(crate) fn awf_pi(&self, basis: TimeBasis) -> Option<f64> {
        if self.measured_chunks == 0 {
            return None;
        }
        let time = match basis {
            TimeBasis::Work => self.weighted_work_s,
            TimeBasis::Elapsed => self.weighted_elapsed_s,
        };
        Some((time / self.weighted_iterates).max(MIN_TIME))
    }

    /// `(mu, sigma)` floored at 1e-12 s for mu, when both are known (AF's inputs).
    ///
    /// ```
    /// use dls_technique::{RankStats, ChunkTiming};
    /// let mut s = RankStats::default();
    /// s.record(ChunkTiming { iterates: 1, work_s: 0.0, elapsed_s: 0.0 });
    /// assert_eq!(s.moments(), None);
    /// s.record(ChunkTiming { iterates: 1, work_s: 0.0, elapsed_s: 0.0 });
    /// assert_eq!(s.moments(), Some((1e-12, 0.0)));
    /// ```
    pub fn moments(&self) -> Option<(f64, f64)> {
        match (self.mu, self.sigma) {
            (Some(mu), Some(sigma)) => Some((mu.max(MIN_TIME), sigma)),
            _ => None,
        }
    }
}

/// Smallest time per iterate the adaptive techniques use (1 ps): a rank measured at zero time
/// (coarse timer) counts as very fast, never as infinitely fast.
pub(crate) const MIN_TIME: f64 = 1e-12;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::learning::aggregates::Aggregates;

    #[test]
    fn awf_pi_weighs_recent_chunks_more() {
        let mut s = RankStats::default();
        s.record(ChunkTiming {
            iterates: 10,
            work_s: 1.0,
            elapsed_s: 2.0,
        });
        s.record(ChunkTiming {
            iterates: 10,
            work_s: 4.0,
            elapsed_s: 4.0,
        });
        // (1·1 + 2·4) / (1·10 + 2·10) = 0.3
        assert!((s.awf_pi(TimeBasis::Work).unwrap() - 0.3).abs() < 1e-12);
        assert_eq!(MIN_TIME, 1e-12);
    }

    #[test]
    fn aggregates_count_measured_ranks() {
        let mut a = RankStats::default();
        a.record(ChunkTiming {
            iterates: 10,
            work_s: 1.0,
            elapsed_s: 1.0,
        });
        let agg = Aggregates::from_stats(&[a, RankStats::default()]);
        assert_eq!(agg.awf(TimeBasis::Work).known, 1);
        assert_eq!(agg.awf(TimeBasis::Elapsed).known, 1);
        assert_eq!(agg.af_known, 0); // AF needs two chunks for sigma
    }
}
