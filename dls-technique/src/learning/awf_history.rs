//! AWF's weights across time steps (Banicescu, Velusamy & Devaprasad, Cluster Computing 6,
//! 2003): after each outer time step s = 1, 2, ... of an application that runs the same loop
//! repeatedly, each rank's performance is
//! `pi_i = Σ_s s·T_is / Σ_s s·N_is` (T_is its work time and N_is its iterates in step s; later
//! steps count more), `rho_i = mean(pi) / pi_i`, and `w_i = P·rho_i / Σ_k rho_k`.
//! The runtime keeps one history per loop site and hands `weights()` to the next execution's
//! scheduler with [`ChunkScheduler::set_weights`](crate::ChunkScheduler::set_weights).

use crate::learning::rank_stats::{RankStats, MIN_TIME};
use crate::spec::error::TechniqueError;

/// The history of earlier executions of one loop, from which AWF computes its weights.
///
/// ```
/// use dls_technique::AwfHistory;
/// let mut h = AwfHistory::new(2);
/// // step 1: rank 0 ran 100 iterates in 1 s, rank 1 ran 100 iterates in 3 s
/// h.update(&[(100, 1.0), (100, 3.0)]).unwrap();
/// // pi = (0.01, 0.03), rho = (2, 2/3), w = 2·rho/Σrho = (1.5, 0.5)
/// let w = h.weights();
/// assert!((w[0] - 1.5).abs() < 1e-12 && (w[1] - 0.5).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct AwfHistory {
    steps: u64,
    weighted_time: Vec<f64>,
    weighted_iterates: Vec<f64>,
}

impl AwfHistory {
    /// An empty history for `p` ranks (weights all 1 until the first update).
    ///
    /// ```
    /// assert_eq!(dls_technique::AwfHistory::new(3).weights(), vec![1.0; 3]);
    /// ```
    pub fn new(p: usize) -> Self {
        AwfHistory {
            steps: 0,
            weighted_time: vec![0.0; p],
            weighted_iterates: vec![0.0; p],
        }
    }

    /// Time steps recorded so far.
    ///
    /// ```
    /// let mut h = dls_technique::AwfHistory::new(1);
    /// h.update(&[(10, 1.0)]).unwrap();
    /// assert_eq!(h.steps(), 1);
    /// ```
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Records time step `s = steps() + 1`: per rank, the iterates it executed and its work time
    /// in seconds. Errors (and records nothing) when the count is not P or a time is negative or
    /// not finite.
    ///
    /// ```
    /// let mut h = dls_technique::AwfHistory::new(2);
    /// assert!(h.update(&[(1, 1.0)]).is_err());
    /// assert!(h.update(&[(1, 1.0), (1, f64::NAN)]).is_err());
    /// assert_eq!(h.steps(), 0);
    /// ```
    pub fn update(&mut self, per_rank: &[(u64, f64)]) -> Result<(), TechniqueError> {
        let p = self.weighted_time.len();
        if per_rank.len() != p {
            return Err(TechniqueError::new(format!(
                "awf: history has {p} ranks but the time step reports {}",
                per_rank.len()
            )));
        }
        if let Some((_, t)) = per_rank.iter().find(|(_, t)| !(t.is_finite() && *t >= 0.0)) {
            return Err(TechniqueError::new(format!(
                "awf: a rank's time must be finite and >= 0, got {t}"
            )));
        }
        self.steps += 1;
        let s = self.steps as f64;
        for (i, (n, t)) in per_rank.iter().enumerate() {
            self.weighted_time[i] += s * t;
            self.weighted_iterates[i] += s * *n as f64;
        }
        Ok(())
    }

    /// Records a time step from a finished loop's per-rank statistics (iterates and work time),
    /// e.g. [`ChunkScheduler::stats`](crate::ChunkScheduler::stats).
    ///
    /// ```
    /// use dls_technique::{AwfHistory, ChunkScheduler, ChunkTiming, Technique};
    /// let mut s = ChunkScheduler::new(&"awf".parse::<Technique>().unwrap(), 8, 2).unwrap();
    /// while let Some(c) = s.next_chunk(0) {
    ///     s.record(0, ChunkTiming { iterates: c.size, work_s: c.size as f64, elapsed_s: c.size as f64 });
    /// }
    /// let mut h = AwfHistory::new(2);
    /// h.update_from_stats(s.stats()).unwrap();
    /// assert_eq!(h.weights(), vec![1.0, 1.0]); // rank 1 never ran: it counts as average
    /// ```
    pub fn update_from_stats(&mut self, stats: &[RankStats]) -> Result<(), TechniqueError> {
        let steps: Vec<(u64, f64)> = stats.iter().map(|s| (s.iterates, s.work_s)).collect();
        self.update(&steps)
    }

    /// The weights for the next execution, `w_i = P·rho_i / Σ rho` (sum P). A rank that has
    /// executed no iterate yet counts with the mean `pi` of the others; all 1 before any step.
    ///
    /// ```
    /// let mut h = dls_technique::AwfHistory::new(2);
    /// h.update(&[(10, 1.0), (10, 1.0)]).unwrap();
    /// assert_eq!(h.weights(), vec![1.0, 1.0]);
    /// ```
    pub fn weights(&self) -> Vec<f64> {
        let p = self.weighted_time.len();
        let pi: Vec<Option<f64>> = (0..p)
            .map(|i| {
                (self.weighted_iterates[i] > 0.0)
                    .then(|| (self.weighted_time[i] / self.weighted_iterates[i]).max(MIN_TIME))
            })
            .collect();
        let known: Vec<f64> = pi.iter().flatten().copied().collect();
        if known.is_empty() {
            return vec![1.0; p];
        }
        let mean = known.iter().sum::<f64>() / known.len() as f64;
        let rho: Vec<f64> = pi.iter().map(|x| mean / x.unwrap_or(mean)).collect();
        let sum: f64 = rho.iter().sum();
        rho.iter().map(|r| p as f64 * r / sum).collect()
    }
}
