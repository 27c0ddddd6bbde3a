//! The [`Technique`] type: a technique kind and its parameters, parsed from and written as text
//! (`"fsc,h=200us,sigma=50us"`), validated, and (de)serialised by serde as that text.

use std::fmt;
use std::str::FromStr;

use super::duration::{format_duration, parse_duration};
use super::error::TechniqueError;
use super::kind::Kind;
use super::params::{ParamSpec, Params, ThetaModel};

/// A loop scheduling technique with its parameters.
///
/// Text form: the technique name, then `,key=value` parameters, case-insensitively. Each
/// technique accepts its own parameters ([`Kind::own_parameters`]) plus `min`, `max` and `seed`.
/// Durations take a unit (`ns`, `us`, `ms`, `s`; a bare number is seconds), weights are
/// `:`-separated.
///
/// ```
/// use dls_runtime::Technique;
/// let t: Technique = "FSC,h=200us,sigma=50us".parse().unwrap();
/// assert_eq!(t.params.h, Some(0.0002));
/// assert_eq!(t.to_string(), "fsc,h=200us,sigma=50us");
/// assert_eq!(t.to_string().parse::<Technique>().unwrap(), t);
/// let e = "fsc,q=1".parse::<Technique>().unwrap_err().to_string();
/// assert!(e.contains("`q`") && e.contains("h, sigma, min, max, seed"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Technique {
    /// Which technique.
    pub kind: Kind,
    /// Its parameters.
    pub params: Params,
}

impl Technique {
    /// The technique with default parameters; valid for every kind (FSC, FAC and TAP without
    /// their statistics fall back to mFSC's chunk, FAC2 and GSS respectively, see their modules).
    ///
    /// ```
    /// use dls_runtime::{Technique, technique::Kind};
    /// assert_eq!(Technique::new(Kind::Gss).to_string(), "gss");
    /// ```
    pub fn new(kind: Kind) -> Self {
        Technique {
            kind,
            params: Params::default(),
        }
    }

    /// Every valid technique name, comma-separated (for error messages).
    ///
    /// ```
    /// assert!(dls_runtime::Technique::valid_names().starts_with("static, ss"));
    /// ```
    pub fn valid_names() -> String {
        Kind::ALL
            .iter()
            .map(|k| k.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// One line: what the technique is and its source.
    ///
    /// ```
    /// let t: dls_runtime::Technique = "tss".parse().unwrap();
    /// assert!(t.description().contains("Tzen & Ni"));
    /// ```
    pub fn description(&self) -> &'static str {
        self.kind.description()
    }

    /// The parameters this technique accepts (its own, then `min`, `max`, `seed`).
    ///
    /// ```
    /// let t: dls_runtime::Technique = "tap,mu=1ms,sigma=1ms".parse().unwrap();
    /// assert_eq!(t.parameters()[2].name, "alpha");
    /// ```
    pub fn parameters(&self) -> Vec<ParamSpec> {
        self.kind.parameters()
    }

    /// Checks every parameter: durations and weights finite and > 0, `min` >= 1 and <= `max`,
    /// parameters the technique does not take absent, and, when the number of ranks `p` is
    /// known, one weight per rank and parameters that only work together present together
    /// (FSC: h with sigma; FAC and TAP: mu with sigma; theta: mu and sigma with model=normal, m
    /// with model=uniform2). Parsing calls it with `None` (so a caller may complete the
    /// parameters after parsing, as the simulator does from its iterate-time model),
    /// [`ChunkScheduler::new`](super::ChunkScheduler::new) with `Some(p)`.
    ///
    /// ```
    /// let t: dls_runtime::Technique = "wf,weights=1:2".parse().unwrap();
    /// assert!(t.validate(Some(2)).is_ok());
    /// let e = t.validate(Some(3)).unwrap_err().to_string();
    /// assert!(e.contains("wf") && e.contains("weights"));
    /// let fsc: dls_runtime::Technique = "fsc,h=1ms".parse().unwrap();
    /// assert!(fsc.validate(Some(4)).unwrap_err().to_string().contains("`sigma` is required"));
    /// assert!("fsc".parse::<dls_runtime::Technique>().unwrap().validate(Some(4)).is_ok());
    /// ```
    pub fn validate(&self, p: Option<usize>) -> Result<(), TechniqueError> {
        let k = self.kind;
        let name = k.name();
        let err = |param: &str, what: String| {
            Err(TechniqueError::new(format!(
                "{name}: parameter `{param}` {what}"
            )))
        };
        let params = &self.params;
        for (param, given) in self.given() {
            if given && !k.parameters().iter().any(|s| s.name == param) {
                return err(
                    param,
                    format!(
                        "is not a parameter of {name}; valid parameters: {}",
                        k.parameter_names()
                    ),
                );
            }
        }
        if params.min_chunk == 0 {
            return err("min", "must be a whole number >= 1, got `0`".into());
        }
        if let Some(max) = params.max_chunk {
            if max < params.min_chunk {
                return err(
                    "min",
                    format!(
                        "({}) is above parameter `max` ({max}); min must be <= max",
                        params.min_chunk
                    ),
                );
            }
        }
        for (param, value) in [("h", params.h), ("sigma", params.sigma), ("mu", params.mu)] {
            if let Some(v) = value {
                if !(v.is_finite() && v > 0.0) {
                    return err(param, format!("must be a finite duration > 0, got `{v}`"));
                }
            }
        }
        if let Some(w) = &params.weights {
            if let Some(bad) = w.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
                return err(
                    "weights",
                    format!("must all be finite numbers > 0, got `{bad}`"),
                );
            }
            if w.is_empty() {
                return err("weights", "needs at least one weight".into());
            }
            if let Some(p) = p {
                if w.len() != p {
                    return err(
                        "weights",
                        format!(
                            "has {} values but there are {p} ranks (one weight per rank)",
                            w.len()
                        ),
                    );
                }
            }
        }
        if let Some(b) = params.b {
            if b < 2 {
                return err("b", format!("must be a whole number >= 2, got `{b}`"));
            }
        }
        if let Some(x) = params.x {
            if !(x.is_finite() && x > 0.0) {
                return err("x", format!("must be a finite number > 0, got `{x}`"));
            }
        }
        if let Some(s) = params.swr {
            if !(0.0..=1.0).contains(&s) {
                return err("swr", format!("must be a number in [0, 1], got `{s}`"));
            }
        }
        if let Some(a) = params.alpha {
            if !(a.is_finite() && a >= 0.0) {
                return err("alpha", format!("must be a finite number >= 0, got `{a}`"));
            }
        }
        if let Some(m) = params.m {
            if !(m.is_finite() && m >= 1.0) {
                return err("m", format!("must be a finite number >= 1, got `{m}`"));
            }
        }
        let is_given = |param: &str| self.given().iter().any(|(n, g)| *n == param && *g);
        let pair: Option<[&str; 2]> = match k {
            Kind::Fsc => Some(["h", "sigma"]),
            Kind::Fac | Kind::Tap => Some(["mu", "sigma"]),
            _ => None,
        };
        if let (Some([a, b]), Some(_)) = (pair, p) {
            for (this, other) in [(a, b), (b, a)] {
                if is_given(other) && !is_given(this) {
                    return err(
                        this,
                        format!(
                            "is required together with `{other}` (give both or neither); \
                             for example `{}`",
                            k.example()
                        ),
                    );
                }
            }
        }
        let required: &[&str] = match k {
            Kind::Theta => match params.theta_model() {
                ThetaModel::Normal => &["mu", "sigma"],
                ThetaModel::ShiftedUniform => &["m"],
                _ => &[],
            },
            _ => &[],
        };
        for param in required.iter().filter(|_| p.is_some()) {
            if !is_given(param) {
                return err(
                    param,
                    format!(
                        "is required with model={}; for example `{}`",
                        params.theta_model(),
                        k.example_with(param)
                    ),
                );
            }
        }
        if k == Kind::Theta {
            let model = params.theta_model();
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
        }
        Ok(())
    }

    /// Which parameters are given (not at their "not given" default), by name.
    fn given(&self) -> [(&'static str, bool); 15] {
        let p = &self.params;
        [
            ("h", p.h.is_some()),
            ("sigma", p.sigma.is_some()),
            ("mu", p.mu.is_some()),
            ("weights", p.weights.is_some()),
            ("b", p.b.is_some()),
            ("x", p.x.is_some()),
            ("swr", p.swr.is_some()),
            ("alpha", p.alpha.is_some()),
            ("criterion", p.criterion.is_some()),
            ("model", p.model.is_some()),
            ("m", p.m.is_some()),
            ("probe", p.probe.is_some()),
            ("min", p.min_chunk != 1),
            ("max", p.max_chunk.is_some()),
            ("seed", p.seed != 0),
        ]
    }

    /// Stores one `key=value` parameter (key already lower-case and accepted by the kind).
    fn set(&mut self, key: &str, value: &str) -> Result<(), TechniqueError> {
        let name = self.kind.name();
        let bad = |what: &str| {
            TechniqueError::new(format!(
                "{name}: parameter `{key}` must be {what}, got `{value}`"
            ))
        };
        let count = |v: &str| v.parse::<u64>().map_err(|_| bad("a whole number"));
        let number = |v: &str| {
            v.parse::<f64>()
                .map_err(|_| bad("a number such as 0.5 or 1e-3"))
        };
        let duration = |v: &str| {
            parse_duration(v).ok_or_else(|| {
                bad("a duration such as 200us, 1.5ms or 0.002 (ns, us, ms, s; bare number = seconds)")
            })
        };
        let p = &mut self.params;
        match key {
            "min" => p.min_chunk = count(value)?,
            "max" => p.max_chunk = Some(count(value)?),
            "seed" => p.seed = count(value)?,
            "h" => p.h = Some(duration(value)?),
            "sigma" => p.sigma = Some(duration(value)?),
            "mu" => p.mu = Some(duration(value)?),
            "weights" => {
                let w: Result<Vec<f64>, _> = value.split(':').map(|v| v.trim().parse()).collect();
                p.weights = Some(w.map_err(|_| bad("numbers > 0 separated by `:`, e.g. 1:1:2"))?);
            }
            "b" => p.b = Some(count(value)?),
            "x" => p.x = Some(number(value)?),
            "swr" => p.swr = Some(number(value)?),
            "alpha" => p.alpha = Some(number(value)?),
            "criterion" => p.criterion = Some(value.parse().map_err(|e: String| bad(&e))?),
            "model" => p.model = Some(value.parse().map_err(|e: String| bad(&e))?),
            "m" => p.m = Some(number(value)?),
            "probe" => p.probe = Some(count(value)?),
            _ => {
                return Err(TechniqueError::new(format!(
                    "{name}: unknown parameter `{key}`; valid parameters: {}",
                    self.kind.parameter_names()
                )))
            }
        }
        Ok(())
    }
}

impl Kind {
    /// The example specification, or one that shows `param` when the example lacks it.
    fn example_with(self, param: &str) -> String {
        let ex = self.example();
        if ex.contains(&format!("{param}=")) {
            return ex.to_string();
        }
        match param {
            "m" => "theta,model=uniform2,m=3".into(),
            _ => "theta,model=normal,mu=1ms,sigma=1ms".into(),
        }
    }
}

impl FromStr for Technique {
    type Err = TechniqueError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut parts = text.split(',');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let kind = Kind::from_name(&name).ok_or_else(|| {
            TechniqueError::new(format!(
                "unknown technique `{name}`; valid techniques: {}",
                Technique::valid_names()
            ))
        })?;
        let mut t = Technique::new(kind);
        let mut seen: Vec<String> = Vec::new();
        for part in parts {
            let part = part.trim();
            let Some((key, value)) = part.split_once('=') else {
                return Err(TechniqueError::new(format!(
                    "{}: parameter `{part}` needs a value (key=value); valid parameters: {}",
                    kind.name(),
                    kind.parameter_names()
                )));
            };
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim();
            if !kind.parameters().iter().any(|s| s.name == key) {
                return Err(TechniqueError::new(format!(
                    "{}: unknown parameter `{key}`; valid parameters: {}",
                    kind.name(),
                    kind.parameter_names()
                )));
            }
            if seen.contains(&key) {
                return Err(TechniqueError::new(format!(
                    "{}: parameter `{key}` is given twice",
                    kind.name()
                )));
            }
            t.set(&key, value)?;
            seen.push(key);
        }
        t.validate(None)?;
        Ok(t)
    }
}

impl fmt::Display for Technique {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.name())?;
        let p = &self.params;
        for spec in self.kind.parameters() {
            let value = match spec.name {
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
            };
            if let Some(v) = value {
                write!(f, ",{}={v}", spec.name)?;
            }
        }
        Ok(())
    }
}

impl serde::Serialize for Technique {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> serde::Deserialize<'de> for Technique {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
