//! The performance figures of Casanova, Thomason & Dongarra (1999, §4.3 and App. C) from the
//! long-run moments of a phase: the speed S, the expected execution time Θ1 (Level 1) and its
//! standard deviation σ (Level 2).

use serde::Serialize;

use super::error::MarkovError;

/// Long-run moments of a phase: its duration Φ on processor 0 (seconds) and its iterations N.
///
/// ```
/// use dls_model::markov::PhaseMoments;
/// // Worked example: E[Φ] = 2941/960, Var Φ = 550199/921600, N = 1 (synchronous).
/// let m = PhaseMoments { mean_phi: 2941.0 / 960.0, var_phi: 550199.0 / 921600.0,
///                        mean_n: 1.0, var_n: 0.0, cov_n_phi: 0.0 };
/// assert!((m.speed() - 960.0 / 2941.0).abs() < 1e-15);
/// let c = m.convergence(6.0, 0.05).unwrap();
/// assert!((c.iterations - 120.0).abs() < 1e-9);
/// assert!((c.theta1 - 367.625).abs() < 1e-9);
/// assert!((c.sigma - 8.464071).abs() < 1e-6);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PhaseMoments {
    /// E\[Φ\], seconds.
    pub mean_phi: f64,
    /// Var\[Φ\], seconds².
    pub var_phi: f64,
    /// E\[N\], iterations per phase.
    pub mean_n: f64,
    /// Var\[N\].
    pub var_n: f64,
    /// Cov\[N, Φ\], iterations × seconds.
    pub cov_n_phi: f64,
}

impl PhaseMoments {
    /// Level 1's speed S = E\[N\] / E\[Φ\], iterations per second (the strong law of large numbers).
    ///
    /// ```
    /// use dls_model::markov::PhaseMoments;
    /// let m = PhaseMoments { mean_phi: 2.0, var_phi: 0.0, mean_n: 3.0, var_n: 0.0, cov_n_phi: 0.0 };
    /// assert_eq!(m.speed(), 1.5);
    /// ```
    pub fn speed(&self) -> f64 {
        self.mean_n / self.mean_phi
    }

    /// The standard deviation of Φ, seconds.
    ///
    /// ```
    /// use dls_model::markov::PhaseMoments;
    /// let m = PhaseMoments { mean_phi: 2.0, var_phi: 4.0, mean_n: 1.0, var_n: 0.0, cov_n_phi: 0.0 };
    /// assert_eq!(m.sd_phi(), 2.0);
    /// ```
    pub fn sd_phi(&self) -> f64 {
        self.var_phi.max(0.0).sqrt()
    }

    /// The execution time to divide the initial error by 10^ω at R\* (log10 of the error
    /// reduction per iteration): ω / R\* iterations, Θ1 = ω / (S R\*) (Level 1), and σ from the
    /// Gaussian approximation of App. C: C′ = ω / (E\[N\] R\*) × C with C the per-phase covariance of
    /// (N, Φ), σ = σ_Y √(1 − (σ_XY / (σ_X σ_Y))²). When σ_X = 0 (N constant, as in the
    /// synchronous case) the formula divides by zero; its limit σ = σ_Y is used. Like the paper,
    /// this treats successive phases as independent.
    ///
    /// ```
    /// use dls_model::markov::PhaseMoments;
    /// let m = PhaseMoments { mean_phi: 2.0, var_phi: 1.0, mean_n: 2.0, var_n: 1.0, cov_n_phi: 1.0 };
    /// let c = m.convergence(2.0, 0.1).unwrap();
    /// assert_eq!(c.phases, 10.0);
    /// assert_eq!(c.theta1, 20.0);
    /// assert!(c.sigma.abs() < 1e-6); // N and Φ perfectly correlated: no spread given N
    /// assert!(m.convergence(2.0, 0.0).is_err());
    /// ```
    pub fn convergence(&self, omega: f64, rate: f64) -> Result<Convergence, MarkovError> {
        if !(omega.is_finite() && omega > 0.0) {
            return Err(MarkovError::invalid(
                "omega",
                format!(
                    "{omega} is not a convergence criterion > 0 (divide the error by 10^omega)"
                ),
            ));
        }
        if !(rate.is_finite() && rate > 0.0) {
            return Err(MarkovError::invalid(
                "rate",
                format!(
                    "{rate} is not a convergence rate > 0 (R*: log10 of the error reduction per \
                     iteration, e.g. -log10 rho(A) with rho(A) < 1)"
                ),
            ));
        }
        let iterations = omega / rate;
        let phases = iterations / self.mean_n;
        let theta1 = iterations / self.speed();
        let sx2 = phases * self.var_n;
        let sy2 = phases * self.var_phi;
        let sxy = phases * self.cov_n_phi;
        let sigma = if sx2 <= 1e-12 * (1.0 + sy2) || sy2 <= 0.0 {
            sy2.max(0.0).sqrt()
        } else {
            let r = sxy / (sx2.sqrt() * sy2.sqrt());
            sy2.sqrt() * (1.0 - r * r).max(0.0).sqrt()
        };
        Ok(Convergence {
            omega,
            rate,
            iterations,
            phases,
            theta1,
            sigma,
        })
    }
}

/// Level 1 and Level 2 for one convergence criterion.
///
/// ```
/// use dls_model::markov::PhaseMoments;
/// let m = PhaseMoments { mean_phi: 1.0, var_phi: 0.25, mean_n: 1.0, var_n: 0.0, cov_n_phi: 0.0 };
/// let c = m.convergence(1.0, 0.01).unwrap();
/// assert_eq!((c.iterations, c.theta1, c.sigma), (100.0, 100.0, 5.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Convergence {
    /// ω: the error is divided by 10^ω.
    pub omega: f64,
    /// R\*: log10 of the error reduction per iteration.
    pub rate: f64,
    /// ω / R\*: iterations needed.
    pub iterations: f64,
    /// ω / (E\[N\] R\*): phases needed.
    pub phases: f64,
    /// Θ1 = ω / (S R\*): the expected execution time, seconds (Level 1).
    pub theta1: f64,
    /// σ: the standard deviation of the execution time, seconds (Level 2).
    pub sigma: f64,
}
