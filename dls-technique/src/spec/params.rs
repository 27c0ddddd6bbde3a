//! Parameters of a technique: the values of a specification such as `fsc,h=200us,sigma=50us`,
//! and the description of every parameter name (for parsing, `--help` and error messages).

use std::fmt;

use crate::spec::duration::{format_duration, parse_duration};

/// A parameter a technique accepts: its name in specifications, the kind of value, and what it
/// means.
///
/// ```
/// use dls_technique::Kind;
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
    /// How its value is read and written.
    pub(crate) kind: ValueKind,
}

/// How a parameter's value is read and written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueKind {
    /// A whole number (`b=3`).
    Count,
    /// A number (`x=4`, `alpha=1.3`).
    Number,
    /// A duration (`h=200us`), stored in seconds.
    Duration,
    /// Numbers separated by `:` (`weights=1:1:2`).
    Weights,
    /// One of a few words (`model=exp`).
    Choice,
}

pub(crate) const MIN: ParamSpec = ParamSpec {
    name: "min",
    value: "whole number >= 1",
    help: "smallest chunk (default 1)",
    kind: ValueKind::Count,
};
pub(crate) const MAX: ParamSpec = ParamSpec {
    name: "max",
    value: "whole number >= min",
    help: "largest chunk (default unbounded); for rnd, the upper end of the random range",
    kind: ValueKind::Count,
};
pub(crate) const SEED: ParamSpec = ParamSpec {
    name: "seed",
    value: "whole number",
    help: "seed of randomised choices (default 0)",
    kind: ValueKind::Count,
};
pub(crate) const SIGMA: ParamSpec = ParamSpec {
    name: "sigma",
    value: "duration > 0 (ns, us, ms, s; bare number = seconds)",
    help: "standard deviation of one iterate's time (give with h for fsc, with mu for fac and tap)",
    kind: ValueKind::Duration,
};
pub(crate) const MU: ParamSpec = ParamSpec {
    name: "mu",
    value: "duration > 0 (ns, us, ms, s; bare number = seconds)",
    help: "mean time of one iterate (give with sigma; without both, fac is fac2 and tap is gss)",
    kind: ValueKind::Duration,
};
pub(crate) const WEIGHTS: ParamSpec = ParamSpec {
    name: "weights",
    value: "numbers > 0 separated by `:`, one per rank",
    help: "relative speeds of the ranks, e.g. 1:1:1:3 (default all equal)",
    kind: ValueKind::Weights,
};
pub(crate) const PROBE: ParamSpec = ParamSpec {
    name: "probe",
    value: "whole number >= 0",
    help:
        "largest chunk of a rank's sampling phase, until the technique has measured the rank \
           (default ceil(N/(40P)), at least min; 0 turns the phase off: the published first chunks)",
    kind: ValueKind::Count,
};
pub(crate) const LOCAL: ParamSpec = ParamSpec {
    name: "local",
    value: "0 or 1",
    help: "1 (default): a rank's speed is its time per iterate against the other ranks' on \
           neighbouring iterates, so cost that follows the index is not taken for speed; 0: its \
           time per iterate, as published (probe=0 also gives the published estimate)",
    kind: ValueKind::Count,
};
/// The parameters every technique accepts: `min`, `max`, `seed`.
///
/// ```
/// assert_eq!(dls_technique::COMMON_PARAMETERS[0].name, "min");
/// ```
pub const COMMON_PARAMETERS: [ParamSpec; 3] = [MIN, MAX, SEED];

/// Criterion of Wegman's stochastic load balancing (Wegman c. 2000, §4.1) that fixes θ.
///
/// ```
/// use dls_technique::ThetaCriterion;
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

/// Distribution of the per-rank task times `T_j` from which θ is computed (Wegman c. 2000, §4.2).
///
/// ```
/// use dls_technique::ThetaModel;
/// assert_eq!("EXP".parse::<ThetaModel>().unwrap(), ThetaModel::Exponential);
/// assert_eq!(ThetaModel::ShiftedUniform.to_string(), "uniform2");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ThetaModel {
    /// Exponential (§4.2.1).
    Exponential,
    /// Uniform on `(0, m)` (§4.2.2, case 1).
    Uniform,
    /// Uniform on `(m − 1, m)` (§4.2.3, case 2).
    ShiftedUniform,
    /// Normal, from measured per-iterate moments `mu`, `sigma` (see
    /// [`OrderMoments::normal`](crate::OrderMoments::normal)).
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
/// technique's default applies); [`Technique`](crate::Technique)'s `Display` writes only the
/// given ones, so a specification round-trips.
///
/// ```
/// let p = dls_technique::Params::default();
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
    /// Parameters without a field above (a technique's own parameters declared in its file):
    /// name and value, in the order given; read with [`Params::number`].
    extra: Vec<(&'static str, f64)>,
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
            extra: Vec::new(),
        }
    }
}

/// The parameters with a typed field in [`Params`], every other one is kept by name.
const TYPED: [&str; 15] = [
    "h",
    "sigma",
    "mu",
    "weights",
    "b",
    "x",
    "swr",
    "alpha",
    "criterion",
    "model",
    "m",
    "probe",
    "min",
    "max",
    "seed",
];

impl Params {
    /// The value of a parameter without a typed field (a technique's own parameter declared in
    /// its file), `None` when not given.
    ///
    /// ```
    /// assert_eq!(dls_technique::Params::default().number("k"), None);
    /// ```
    pub fn number(&self, name: &str) -> Option<f64> {
        self.extra.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    /// Whether parameter `name` is given (not at its "not given" default).
    pub(crate) fn is_given(&self, name: &str) -> bool {
        self.text_of(name).is_some()
    }

    /// The names of every given parameter.
    pub(crate) fn given(&self) -> impl Iterator<Item = &str> {
        TYPED
            .into_iter()
            .filter(|n| self.is_given(n))
            .chain(self.extra.iter().map(|(n, _)| *n))
    }

    /// The value of parameter `name` as written in a specification, `None` when not given.
    pub(crate) fn text_of(&self, name: &str) -> Option<String> {
        let p = self;
        match name {
            "h" => p.h.map(format_duration),
            "sigma" => p.sigma.map(format_duration),
            "mu" => p.mu.map(format_duration),
            "weights" => p.weights.as_ref().map(|w| {
                w.iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(":")
            }),
            "b" => p.b.map(|v| v.to_string()),
            "x" => p.x.map(|v| v.to_string()),
            "swr" => p.swr.map(|v| v.to_string()),
            "alpha" => p.alpha.map(|v| v.to_string()),
            "criterion" => p.criterion.map(|v| v.to_string()),
            "model" => p.model.map(|v| v.to_string()),
            "m" => p.m.map(|v| v.to_string()),
            "probe" => p.probe.map(|v| v.to_string()),
            "min" => (p.min_chunk != 1).then(|| p.min_chunk.to_string()),
            "max" => p.max_chunk.map(|v| v.to_string()),
            "seed" => (p.seed != 0).then(|| p.seed.to_string()),
            _ => None,
        }
    }

    /// The text of parameter `spec` (typed or not), `None` when not given.
    pub(crate) fn text_of_spec(&self, spec: &ParamSpec) -> Option<String> {
        if TYPED.contains(&spec.name) {
            return self.text_of(spec.name);
        }
        let v = self.number(spec.name)?;
        Some(match spec.kind {
            ValueKind::Duration => format_duration(v),
            _ => v.to_string(),
        })
    }

    /// Stores parameter `spec` from its text; on a bad value, `Err` with what it must be.
    pub(crate) fn set_text(&mut self, spec: &ParamSpec, value: &str) -> Result<(), &'static str> {
        const COUNT: &str = "a whole number";
        const NUMBER: &str = "a number such as 0.5 or 1e-3";
        const DURATION: &str =
            "a duration such as 200us, 1.5ms or 0.002 (ns, us, ms, s; bare number = seconds)";
        let count = |v: &str| v.parse::<u64>().map_err(|_| COUNT);
        let number = |v: &str| v.parse::<f64>().map_err(|_| NUMBER);
        let duration = |v: &str| parse_duration(v).ok_or(DURATION);
        let p = self;
        match spec.name {
            "min" => p.min_chunk = count(value)?,
            "max" => p.max_chunk = Some(count(value)?),
            "seed" => p.seed = count(value)?,
            "h" => p.h = Some(duration(value)?),
            "sigma" => p.sigma = Some(duration(value)?),
            "mu" => p.mu = Some(duration(value)?),
            "weights" => {
                let w: Result<Vec<f64>, _> = value.split(':').map(|v| v.trim().parse()).collect();
                p.weights = Some(w.map_err(|_| "numbers > 0 separated by `:`, e.g. 1:1:2")?);
            }
            "b" => p.b = Some(count(value)?),
            "x" => p.x = Some(number(value)?),
            "swr" => p.swr = Some(number(value)?),
            "alpha" => p.alpha = Some(number(value)?),
            "criterion" => p.criterion = Some(value.parse().map_err(|_| "a, b or c")?),
            "model" => {
                p.model = Some(
                    value
                        .parse()
                        .map_err(|_| "exp, uniform, uniform2 or normal")?,
                )
            }
            "m" => p.m = Some(number(value)?),
            "probe" => p.probe = Some(count(value)?),
            name => {
                let v = match spec.kind {
                    ValueKind::Count => count(value)? as f64,
                    ValueKind::Duration => duration(value)?,
                    _ => number(value)?,
                };
                if !v.is_finite() {
                    return Err(NUMBER);
                }
                p.extra.retain(|(n, _)| *n != name);
                p.extra.push((spec.name, v));
            }
        }
        Ok(())
    }

    /// FISS stages B (default 3).
    ///
    /// ```
    /// let p: dls_technique::Technique = "fiss,b=5".parse().unwrap();
    /// assert_eq!(p.params.stages(), 5);
    /// ```
    pub fn stages(&self) -> u64 {
        self.b.unwrap_or(3)
    }

    /// PLS static workload ratio (default 0.5).
    ///
    /// ```
    /// assert_eq!(dls_technique::Params::default().static_ratio(), 0.5);
    /// ```
    pub fn static_ratio(&self) -> f64 {
        self.swr.unwrap_or(0.5)
    }

    /// TAP taper factor (default 1.3).
    ///
    /// ```
    /// assert_eq!(dls_technique::Params::default().taper_alpha(), 1.3);
    /// ```
    pub fn taper_alpha(&self) -> f64 {
        self.alpha.unwrap_or(1.3)
    }

    /// The probe chunk of the adaptive techniques' sampling phase for a loop of `n` iterates on
    /// `p` ranks: `probe=` when given, else `ceil(N/(40P))` raised to the minimum chunk; 0 means
    /// no sampling phase (the published first chunks). See the `probe` module of
    /// [`technique`](crate) for why this default.
    ///
    /// ```
    /// let t: dls_technique::Technique = "af".parse().unwrap();
    /// assert_eq!(t.params.probe_chunk(20_000, 8), 63); // ceil(20000 / 320)
    /// let t: dls_technique::Technique = "af,min=100".parse().unwrap();
    /// assert_eq!(t.params.probe_chunk(20_000, 8), 100);
    /// let t: dls_technique::Technique = "awf-b,probe=0".parse().unwrap();
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

    /// Whether an adaptive technique compares a rank's time per iterate with the other ranks'
    /// on neighbouring iterates (`local=1`, the default) rather than taking it for the rank's
    /// speed (`local=0`, or `probe=0`: the published estimate). See the `local_speed` module of
    /// [`technique`](crate).
    ///
    /// ```
    /// let t: dls_technique::Technique = "af".parse().unwrap();
    /// assert!(t.params.local_speeds(1000, 4));
    /// let t: dls_technique::Technique = "af,local=0".parse().unwrap();
    /// assert!(!t.params.local_speeds(1000, 4));
    /// let t: dls_technique::Technique = "af,probe=0".parse().unwrap();
    /// assert!(!t.params.local_speeds(1000, 4));
    /// ```
    pub fn local_speeds(&self, n: u64, p: usize) -> bool {
        self.number("local") != Some(0.0) && self.probe_chunk(n, p) > 0
    }

    /// Theta criterion (default a).
    ///
    /// ```
    /// use dls_technique::{Params, ThetaCriterion};
    /// assert_eq!(Params::default().theta_criterion(), ThetaCriterion::A);
    /// ```
    pub fn theta_criterion(&self) -> ThetaCriterion {
        self.criterion.unwrap_or(ThetaCriterion::A)
    }

    /// Theta model (default exponential).
    ///
    /// ```
    /// use dls_technique::{Params, ThetaModel};
    /// assert_eq!(Params::default().theta_model(), ThetaModel::Exponential);
    /// ```
    pub fn theta_model(&self) -> ThetaModel {
        self.model.unwrap_or(ThetaModel::Exponential)
    }
}
