//! Parameters of a technique: the values of a specification such as `fsc,h=200us,sigma=50us`,
//! and the description of every parameter name (for parsing, `--help` and error messages).

use std::fmt;

/// A parameter a technique accepts: its name in specifications, the kind of value, and what it
/// means.
///
/// ```
/// use dls_runtime::technique::Kind;
/// let names: Vec<&str> = Kind::Fsc.parameters().iter().map(|p| p.name).collect();
/// assert_eq!(names, ["h", "sigma", "min", "max", "seed"]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParamSpec {
    /// Name as written in a specification (`h` in `fsc,h=200us`).
    pub name: &'static str,
    /// What kind of value it takes, e.g. `duration > 0`.
    pub value: &'static str,
    /// What it means, with its default.
    pub help: &'static str,
}

pub(crate) const MIN: ParamSpec = ParamSpec {
    name: "min",
    value: "whole number >= 1",
    help: "smallest chunk (default 1)",
};
pub(crate) const MAX: ParamSpec = ParamSpec {
    name: "max",
    value: "whole number >= min",
    help: "largest chunk (default unbounded); for rnd, the upper end of the random range",
};
pub(crate) const SEED: ParamSpec = ParamSpec {
    name: "seed",
    value: "whole number",
    help: "seed of randomised choices (default 0)",
};
pub(crate) const H: ParamSpec = ParamSpec {
    name: "h",
    value: "duration > 0 (ns, us, ms, s; bare number = seconds)",
    help: "scheduling overhead of one chunk (give with sigma; without both, fsc uses mFSC's chunk)",
};
pub(crate) const SIGMA: ParamSpec = ParamSpec {
    name: "sigma",
    value: "duration > 0 (ns, us, ms, s; bare number = seconds)",
    help: "standard deviation of one iterate's time (give with h for fsc, with mu for fac and tap)",
};
pub(crate) const MU: ParamSpec = ParamSpec {
    name: "mu",
    value: "duration > 0 (ns, us, ms, s; bare number = seconds)",
    help: "mean time of one iterate (give with sigma; without both, fac is fac2 and tap is gss)",
};
pub(crate) const WEIGHTS: ParamSpec = ParamSpec {
    name: "weights",
    value: "numbers > 0 separated by `:`, one per rank",
    help: "relative speeds of the ranks, e.g. 1:1:1:3 (default all equal)",
};
pub(crate) const PROBE: ParamSpec = ParamSpec {
    name: "probe",
    value: "whole number >= 0",
    help:
        "largest chunk of a rank's sampling phase, until the technique has measured the rank \
           (default ceil(N/(40P)), at least min; 0 turns the phase off: the published first chunks)",
};
pub(crate) const B: ParamSpec = ParamSpec {
    name: "b",
    value: "whole number >= 2",
    help: "number of stages (default 3)",
};
pub(crate) const X: ParamSpec = ParamSpec {
    name: "x",
    value: "number > 0",
    help: "the first chunk is N/(x*P) (default x = P)",
};
pub(crate) const SWR: ParamSpec = ParamSpec {
    name: "swr",
    value: "number in [0, 1]",
    help: "static workload ratio: share of the iterates handed out statically first (default 0.5)",
};
pub(crate) const ALPHA: ParamSpec = ParamSpec {
    name: "alpha",
    value: "number >= 0",
    help: "taper factor multiplying sigma/mu (default 1.3)",
};
pub(crate) const CRITERION: ParamSpec = ParamSpec {
    name: "criterion",
    value: "a, b or c",
    help: "load balancing criterion of seed 000 §4 (default a)",
};
pub(crate) const MODEL: ParamSpec = ParamSpec {
    name: "model",
    value: "exp, uniform, uniform2 or normal",
    help: "distribution of per-rank task times: exponential, uniform on (0, m), uniform on \
           (m-1, m) (needs m), or normal from measured per-iterate moments (needs mu, sigma) \
           (default exp)",
};
pub(crate) const M: ParamSpec = ParamSpec {
    name: "m",
    value: "number >= 1",
    help: "model=uniform2 only: task times uniform on (m-1, m), in units of the spread",
};
pub(crate) const THETA_MU: ParamSpec = ParamSpec {
    name: "mu",
    value: "duration > 0 (ns, us, ms, s; bare number = seconds)",
    help: "model=normal only: measured mean time of one iterate",
};
pub(crate) const THETA_SIGMA: ParamSpec = ParamSpec {
    name: "sigma",
    value: "duration > 0 (ns, us, ms, s; bare number = seconds)",
    help: "model=normal only: measured standard deviation of one iterate's time",
};
/// The parameters every technique accepts: `min`, `max`, `seed`.
///
/// ```
/// assert_eq!(dls_runtime::technique::COMMON_PARAMETERS[0].name, "min");
/// ```
pub const COMMON_PARAMETERS: [ParamSpec; 3] = [MIN, MAX, SEED];

/// Criterion of Wegman's stochastic load balancing (seed 000 §4.1) that fixes θ.
///
/// ```
/// use dls_runtime::technique::ThetaCriterion;
/// assert_eq!("B".parse::<ThetaCriterion>().unwrap(), ThetaCriterion::B);
/// assert_eq!(ThetaCriterion::C.to_string(), "c");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThetaCriterion {
    /// a: all filler tasks are expected to run in the expected idle time;
    /// `θ = E T / E T(k)`.
    A,
    /// b: the longest filler fits the longest expected idle time;
    /// `θ = E T(k) / (2 E T(k) − E T(1))`.
    B,
    /// c: the average filler fits the longest expected idle time;
    /// `θ = E T / (E T + E T(k) − E T(1))`.
    C,
}

impl std::str::FromStr for ThetaCriterion {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "a" => Ok(ThetaCriterion::A),
            "b" => Ok(ThetaCriterion::B),
            "c" => Ok(ThetaCriterion::C),
            _ => Err("a, b or c".to_string()),
        }
    }
}

impl fmt::Display for ThetaCriterion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ThetaCriterion::A => "a",
            ThetaCriterion::B => "b",
            ThetaCriterion::C => "c",
        })
    }
}

/// Distribution of the per-rank task times `T_j` from which θ is computed (seed 000 §4.2).
///
/// ```
/// use dls_runtime::technique::ThetaModel;
/// assert_eq!("EXP".parse::<ThetaModel>().unwrap(), ThetaModel::Exponential);
/// assert_eq!(ThetaModel::ShiftedUniform.to_string(), "uniform2");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ThetaModel {
    /// Exponential (§4.2.1).
    Exponential,
    /// Uniform on `(0, m)` (§4.2.2, case 1).
    Uniform,
    /// Uniform on `(m − 1, m)` (§4.2.3, case 2).
    ShiftedUniform,
    /// Normal, from measured per-iterate moments `mu`, `sigma` (see
    /// [`OrderMoments::normal`](super::OrderMoments::normal)).
    Normal,
}

impl std::str::FromStr for ThetaModel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "exp" => Ok(ThetaModel::Exponential),
            "uniform" => Ok(ThetaModel::Uniform),
            "uniform2" => Ok(ThetaModel::ShiftedUniform),
            "normal" => Ok(ThetaModel::Normal),
            _ => Err("exp, uniform, uniform2 or normal".to_string()),
        }
    }
}

impl fmt::Display for ThetaModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ThetaModel::Exponential => "exp",
            ThetaModel::Uniform => "uniform",
            ThetaModel::ShiftedUniform => "uniform2",
            ThetaModel::Normal => "normal",
        })
    }
}

/// Parameters of a technique. Durations are in seconds. `None` means "not given" (the
/// technique's default applies); [`Technique`](super::Technique)'s `Display` writes only the
/// given ones, so a specification round-trips.
///
/// ```
/// let p = dls_runtime::technique::Params::default();
/// assert_eq!(p.min_chunk, 1);
/// assert_eq!(p.stages(), 3);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// Smallest chunk (`min=`), default 1.
    pub min_chunk: u64,
    /// Largest chunk (`max=`), default unbounded.
    pub max_chunk: Option<u64>,
    /// Scheduling overhead per chunk (`h=`), FSC.
    pub h: Option<f64>,
    /// Standard deviation of an iterate's time (`sigma=`): FSC, FAC, TAP, theta (model=normal).
    pub sigma: Option<f64>,
    /// Mean of an iterate's time (`mu=`): FAC, TAP, theta (model=normal).
    pub mu: Option<f64>,
    /// Relative rank speeds (`weights=1:1:2`), as given (not normalised): WF, AWF, AWF-B..E.
    pub weights: Option<Vec<f64>>,
    /// Seed for randomised techniques (`seed=`), default 0.
    pub seed: u64,
    /// Number of stages of FISS (`b=`), default 3.
    pub b: Option<u64>,
    /// Divisor X of VISS's first chunk N/(X·P) (`x=`), default P.
    pub x: Option<f64>,
    /// Static workload ratio of PLS (`swr=`), default 0.5.
    pub swr: Option<f64>,
    /// Taper factor of TAP (`alpha=`), default 1.3.
    pub alpha: Option<f64>,
    /// Criterion of the theta split (`criterion=`), default a.
    pub criterion: Option<ThetaCriterion>,
    /// Task time model of the theta split (`model=`), default exp.
    pub model: Option<ThetaModel>,
    /// Location of the shifted uniform model (`m=`).
    pub m: Option<f64>,
    /// Largest chunk of the sampling (probe) phase of AF, AWF and AWF-B..E (`probe=`), default
    /// `ceil(N/(40P))`; `Some(0)` turns the phase off (see [`Params::probe_chunk`]).
    pub probe: Option<u64>,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            min_chunk: 1,
            max_chunk: None,
            h: None,
            sigma: None,
            mu: None,
            weights: None,
            seed: 0,
            b: None,
            x: None,
            swr: None,
            alpha: None,
            criterion: None,
            model: None,
            m: None,
            probe: None,
        }
    }
}

impl Params {
    /// FISS stages B (default 3).
    ///
    /// ```
    /// let p: dls_runtime::Technique = "fiss,b=5".parse().unwrap();
    /// assert_eq!(p.params.stages(), 5);
    /// ```
    pub fn stages(&self) -> u64 {
        self.b.unwrap_or(3)
    }

    /// PLS static workload ratio (default 0.5).
    ///
    /// ```
    /// assert_eq!(dls_runtime::technique::Params::default().static_ratio(), 0.5);
    /// ```
    pub fn static_ratio(&self) -> f64 {
        self.swr.unwrap_or(0.5)
    }

    /// TAP taper factor (default 1.3).
    ///
    /// ```
    /// assert_eq!(dls_runtime::technique::Params::default().taper_alpha(), 1.3);
    /// ```
    pub fn taper_alpha(&self) -> f64 {
        self.alpha.unwrap_or(1.3)
    }

    /// The probe chunk of the adaptive techniques' sampling phase for a loop of `n` iterates on
    /// `p` ranks: `probe=` when given, else `ceil(N/(40P))` raised to the minimum chunk; 0 means
    /// no sampling phase (the published first chunks). See the `probe` module of
    /// [`technique`](super) for why this default.
    ///
    /// ```
    /// let t: dls_runtime::Technique = "af".parse().unwrap();
    /// assert_eq!(t.params.probe_chunk(20_000, 8), 63); // ceil(20000 / 320)
    /// let t: dls_runtime::Technique = "af,min=100".parse().unwrap();
    /// assert_eq!(t.params.probe_chunk(20_000, 8), 100);
    /// let t: dls_runtime::Technique = "awf-b,probe=0".parse().unwrap();
    /// assert_eq!(t.params.probe_chunk(20_000, 8), 0);
    /// ```
    pub fn probe_chunk(&self, n: u64, p: usize) -> u64 {
        match self.probe {
            Some(k) => k,
            None => n
                .div_ceil(40u64.saturating_mul(p.max(1) as u64))
                .max(self.min_chunk),
        }
    }

    /// Theta criterion (default a).
    ///
    /// ```
    /// use dls_runtime::technique::{Params, ThetaCriterion};
    /// assert_eq!(Params::default().theta_criterion(), ThetaCriterion::A);
    /// ```
    pub fn theta_criterion(&self) -> ThetaCriterion {
        self.criterion.unwrap_or(ThetaCriterion::A)
    }

    /// Theta model (default exponential).
    ///
    /// ```
    /// use dls_runtime::technique::{Params, ThetaModel};
    /// assert_eq!(Params::default().theta_model(), ThetaModel::Exponential);
    /// ```
    pub fn theta_model(&self) -> ThetaModel {
        self.model.unwrap_or(ThetaModel::Exponential)
    }
}
