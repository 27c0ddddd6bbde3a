//! The theta split: Wegman's stochastic load balancing (Wegman c. 2000, §4).
//!
//! Each of the k = P ranks has a task of N/P iterates whose time `T_j` is random. The task is
//! split into a first part `U_j = θ·T_j`, which the rank starts with, and a filler part
//! `V_j = (1 − θ)·T_j`, held back and handed to whichever rank becomes idle. So each rank's first
//! chunk is `floor(θ·N/P)` iterates and the remaining iterates are handed out as P filler chunks
//! of `ceil((N − P·first)/P)`, first come first served (a filler never takes the first chunk
//! still owed to a rank that has not asked yet; when only owed first chunks are left, an idle
//! rank gets `ceil(R/P)` of them rather than stalling).
//!
//! θ follows from the expected task time `E T`, the expected longest `E T(k)` and the expected
//! shortest `E T(1)` of k tasks, by one of three criteria (§4.1):
//!
//! * a, all filler is expected to run in the expected idle time: `θ_a = E T / E T(k)`;
//! * b, the longest filler fits the longest expected idle time:
//!   `θ_b = E T(k) / (2·E T(k) − E T(1))`;
//! * c, the average filler fits the longest expected idle time:
//!   `θ_c = E T / (E T + E T(k) − E T(1))`.
//!
//! The moments come from a model (§4.2): exponential (`E T = λ`, `E T(k) = λ·H_k`,
//! `E T(1) = λ/k`, so `θ_a = 1/H_k`), uniform on (0, m) (`θ_a = (k+1)/(2k)`,
//! `θ_b = k/(2k−1)`, `θ_c = (k+1)/(3k−1)`), uniform on (m−1, m), or normal from measured
//! per-iterate moments mu and sigma: a task of n = N/P independent iterates has mean `n·mu` and
//! standard deviation `sqrt(n)·sigma`, and `E T(k) = n·mu + sqrt(n)·sigma·e_k`, `E T(1) =
//! n·mu − sqrt(n)·sigma·e_k` with `e_k` the expected largest of k standard normal variables
//! (computed by numerical integration). θ is clamped to [0, 1].

use crate::entry::{Entry, LoopPlan, Rule};
use crate::spec::error::TechniqueError;
use crate::spec::params::{ParamSpec, Params, ThetaCriterion, ThetaModel, ValueKind};
use crate::spec::technique::Technique;
use crate::formulas::performance_based::first_then;
use crate::formulas::rounding::{ceil_chunk, floor_chunk};
use crate::state::LoopState;

/// Expected task time, expected longest and expected shortest of k task times: the moments
/// the theta criteria need.
///
/// ```
/// use dls_technique::{OrderMoments, ThetaCriterion};
/// let m = OrderMoments::uniform(4);
/// assert!((m.theta(ThetaCriterion::A) - 5.0 / 8.0).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrderMoments {
    /// `E T_j`.
    pub mean: f64,
    /// `E T(k) = E max T_j`.
    pub max: f64,
    /// `E T(1) = E min T_j`.
    pub min: f64,
}

impl OrderMoments {
    /// Exponential task times, λ = 1 (θ does not depend on λ): `(1, H_k, 1/k)` (Wegman c. 2000 (4.2)–(4.4)).
    ///
    /// ```
    /// let m = dls_technique::OrderMoments::exponential(2);
    /// assert_eq!((m.mean, m.max, m.min), (1.0, 1.5, 0.5));
    /// ```
    pub fn exponential(k: usize) -> Self {
        let k = k.max(1);
        let h: f64 = (1..=k).map(|i| 1.0 / i as f64).sum();
        OrderMoments {
            mean: 1.0,
            max: h,
            min: 1.0 / k as f64,
        }
    }

    /// Task times uniform on (0, 1) (θ does not depend on m): `(1/2, k/(k+1), 1/(k+1))`
    /// (Wegman c. 2000 (4.5), (4.6)).
    ///
    /// ```
    /// let m = dls_technique::OrderMoments::uniform(3);
    /// assert_eq!((m.mean, m.max, m.min), (0.5, 0.75, 0.25));
    /// ```
    pub fn uniform(k: usize) -> Self {
        let k = k.max(1) as f64;
        OrderMoments {
            mean: 0.5,
            max: k / (k + 1.0),
            min: 1.0 / (k + 1.0),
        }
    }

    /// Task times uniform on (m − 1, m): `(m − 1/2, m − 1/(k+1), m − k/(k+1))` (Wegman c. 2000, §4.2.3).
    ///
    /// ```
    /// use dls_technique::{OrderMoments, ThetaCriterion};
    /// // Wegman (c. 2000) table 5, m = 3, k = 4: θ_a = .893
    /// let t = OrderMoments::shifted_uniform(4, 3.0).theta(ThetaCriterion::A);
    /// assert!((t - 0.893).abs() < 5e-4);
    /// ```
    pub fn shifted_uniform(k: usize, m: f64) -> Self {
        let k = k.max(1) as f64;
        OrderMoments {
            mean: m - 0.5,
            max: m - 1.0 / (k + 1.0),
            min: m - k / (k + 1.0),
        }
    }

    /// Normal task times with the given mean and standard deviation:
    /// `(mean, mean + sd·e_k, mean − sd·e_k)`, `e_k` the expected largest of k standard normals.
    ///
    /// ```
    /// let m = dls_technique::OrderMoments::normal(2, 10.0, 1.0);
    /// // e_2 = 1/sqrt(pi)
    /// assert!((m.max - 10.0 - 1.0 / std::f64::consts::PI.sqrt()).abs() < 1e-6);
    /// ```
    pub fn normal(k: usize, mean: f64, sd: f64) -> Self {
        let e = expected_max_std_normal(k.max(1));
        OrderMoments {
            mean,
            max: mean + sd * e,
            min: mean - sd * e,
        }
    }

    /// θ by a criterion of Wegman (c. 2000) §4.1, clamped to [0, 1] (1 when the moments are degenerate).
    ///
    /// ```
    /// use dls_technique::{OrderMoments, ThetaCriterion};
    /// let t = OrderMoments::exponential(4).theta(ThetaCriterion::C);
    /// assert!((t - 1.0 / (2.0 + 0.5 + 1.0 / 3.0)).abs() < 1e-12);
    /// ```
    pub fn theta(&self, criterion: ThetaCriterion) -> f64 {
        let OrderMoments { mean, max, min } = *self;
        let theta = match criterion {
            ThetaCriterion::A => mean / max,
            ThetaCriterion::B => max / (2.0 * max - min),
            ThetaCriterion::C => mean / (mean + max - min),
        };
        if theta.is_finite() {
            theta.clamp(0.0, 1.0)
        } else {
            1.0
        }
    }
}

/// θ of a theta-split technique for N iterates on P ranks (1 if the parameters are incomplete).
fn theta_for(params: &Params, n: u64, p: usize) -> f64 {
    let k = p.max(1);
    let moments = match params.theta_model() {
        ThetaModel::Exponential => OrderMoments::exponential(k),
        ThetaModel::Uniform => OrderMoments::uniform(k),
        ThetaModel::ShiftedUniform => OrderMoments::shifted_uniform(k, params.m.unwrap_or(1.0)),
        ThetaModel::Normal => {
            let per_rank = n as f64 / k as f64;
            let (Some(mu), Some(sigma)) = (params.mu, params.sigma) else {
                return 1.0;
            };
            OrderMoments::normal(k, per_rank * mu, per_rank.sqrt() * sigma)
        }
    };
    moments.theta(params.theta_criterion())
}

/// `floor(θ·N/P)` on a rank's first request, a filler chunk afterwards.
fn chunk(s: &LoopState, theta: f64) -> u64 {
    let p = s.p as u64;
    let first = floor_chunk(theta * s.n as f64 / s.p as f64).min(s.n / p);
    let filler = ceil_chunk((s.n - first * p) as f64 / s.p as f64);
    first_then(s, first, |dynamic| filler.min(dynamic))
}

/// The theta split's per-loop state: θ, computed once per loop.
#[derive(Debug, Clone, Copy)]
struct Theta(f64);

impl LoopPlan for Theta {
    fn chunk(&self, s: &LoopState) -> u64 {
        chunk(s, self.0)
    }
    fn theta(&self) -> Option<f64> {
        Some(self.0)
    }
    fn clone_box(&self) -> Box<dyn LoopPlan> {
        Box::new(*self)
    }
}

/// `criterion`: which criterion fixes θ.
pub(crate) const CRITERION: ParamSpec = ParamSpec {
    name: "criterion",
    value: "a, b or c",
    help: "load balancing criterion of Wegman (c. 2000) §4 (default a)",
    kind: ValueKind::Choice,
};
/// `model`: the distribution of task times.
pub(crate) const MODEL: ParamSpec = ParamSpec {
    name: "model",
    value: "exp, uniform, uniform2 or normal",
    help: "distribution of per-rank task times: exponential, uniform on (0, m), uniform on \
           (m-1, m) (needs m), or normal from measured per-iterate moments (needs mu, sigma) \
           (default exp)",
    kind: ValueKind::Choice,
};
/// `m`: location of the shifted uniform model.
pub(crate) const M: ParamSpec = ParamSpec {
    name: "m",
    value: "number >= 1",
    help: "model=uniform2 only: task times uniform on (m-1, m), in units of the spread",
    kind: ValueKind::Number,
};
/// `mu` of the normal model.
pub(crate) const THETA_MU: ParamSpec = ParamSpec {
    name: "mu",
    value: "duration > 0 (ns, us, ms, s; bare number = seconds)",
    help: "model=normal only: measured mean time of one iterate",
    kind: ValueKind::Duration,
};
/// `sigma` of the normal model.
pub(crate) const THETA_SIGMA: ParamSpec = ParamSpec {
    name: "sigma",
    value: "duration > 0 (ns, us, ms, s; bare number = seconds)",
    help: "model=normal only: measured standard deviation of one iterate's time",
    kind: ValueKind::Duration,
};

/// The registry entry of `theta`.
pub(crate) const ENTRY: Entry = Entry {
    example: "theta,criterion=b,model=uniform",
    check: Some(check),
    ..Entry::new(
        "theta",
        "stochastic load balancing: theta·N/P per rank first, the rest as filler chunks \
         (Wegman c. 2000, §4)",
        &[CRITERION, MODEL, M, THETA_MU, THETA_SIGMA],
        Rule::PerLoop(|params, n, p| Box::new(Theta(theta_for(params, n, p)))),
    )
};

/// The model's parameters: mu and sigma with model=normal, m with model=uniform2, and none of
/// them with another model.
fn check(t: &Technique, p: Option<usize>) -> Result<(), TechniqueError> {
    let params = &t.params;
    let model = params.theta_model();
    let err = |param: &str, what: String| {
        Err(TechniqueError::new(format!("theta: parameter `{param}` {what}")))
    };
    let required: &[&str] = match model {
        ThetaModel::Normal => &["mu", "sigma"],
        ThetaModel::ShiftedUniform => &["m"],
        _ => &[],
    };
    for param in required.iter().filter(|_| p.is_some()) {
        if !params.is_given(param) {
            let example = match *param {
                "m" => "theta,model=uniform2,m=3",
                _ => "theta,model=normal,mu=1ms,sigma=1ms",
            };
            return err(
                param,
                format!("is required with model={model}; for example `{example}`"),
            );
        }
    }
    if params.m.is_some() && model != ThetaModel::ShiftedUniform {
        return err(
            "m",
            format!("applies only to model=uniform2, not model={model}"),
        );
    }
    for (param, v) in [("mu", params.mu), ("sigma", params.sigma)] {
        if v.is_some() && model != ThetaModel::Normal {
            return err(
                param,
                format!("applies only to model=normal, not model={model}"),
            );
        }
    }
    Ok(())
}

/// `e_k = ∫ x·k·φ(x)·Φ(x)^(k−1) dx`, by Simpson's rule on [−12, 12 + sqrt(2 ln k)].
fn expected_max_std_normal(k: usize) -> f64 {
    if k == 1 {
        return 0.0;
    }
    let km1 = (k - 1) as f64;
    let f = |x: f64| {
        let pdf = (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
        let log_cdf = ln_std_normal_cdf(x);
        if log_cdf == f64::NEG_INFINITY {
            0.0
        } else {
            x * k as f64 * pdf * (km1 * log_cdf).exp()
        }
    };
    let (a, b) = (-12.0, 12.0 + (2.0 * (k as f64).ln()).sqrt());
    let steps = 20_000;
    let h = (b - a) / steps as f64;
    let mut sum = f(a) + f(b);
    for i in 1..steps {
        let x = a + i as f64 * h;
        sum += if i % 2 == 1 { 4.0 } else { 2.0 } * f(x);
    }
    sum * h / 3.0
}

/// `ln Φ(x)`, accurate in both tails.
fn ln_std_normal_cdf(x: f64) -> f64 {
    let q = 0.5 * erfc(x.abs() / std::f64::consts::SQRT_2);
    if x >= 0.0 {
        (-q).ln_1p()
    } else {
        q.ln()
    }
}

/// Complementary error function, relative error below 1.2e-7 everywhere (Chebyshev fit of
/// Press et al., Numerical Recipes, §6.2).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_max_of_normals_matches_closed_forms() {
        let sqrt_pi = std::f64::consts::PI.sqrt();
        assert!((expected_max_std_normal(2) - 1.0 / sqrt_pi).abs() < 1e-6);
        assert!((expected_max_std_normal(3) - 1.5 / sqrt_pi).abs() < 1e-6);
        // e_4 = 6/sqrt(pi)·(1/pi)·atan(sqrt 2) (Bose & Gupta 1959) ≈ 1.0293754
        assert!((expected_max_std_normal(4) - 1.029_375_4).abs() < 1e-6);
        assert_eq!(expected_max_std_normal(1), 0.0);
    }
}
