//! The [`Technique`] type: a technique kind and its parameters, parsed from and written as text
//! (`"fsc,h=200us,sigma=50us"`), validated, and (de)serialised by serde as that text.

use std::fmt;
use std::str::FromStr;

use crate::entry::ModelFacts;
use crate::spec::error::TechniqueError;
use crate::spec::kind::Kind;
use crate::spec::params::{ParamSpec, Params};

/// A loop scheduling technique with its parameters.
///
/// Text form: the technique name, then `,key=value` parameters, case-insensitively. Each
/// technique accepts its own parameters ([`Kind::own_parameters`]) plus `min`, `max` and `seed`.
/// Durations take a unit (`ns`, `us`, `ms`, `s`; a bare number is seconds), weights are
/// `:`-separated.
///
/// ```
/// use dls_technique::Technique;
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
    /// use dls_technique::{Kind, Technique};
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
    /// assert!(dls_technique::Technique::valid_names().starts_with("static, ss"));
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
    /// let t: dls_technique::Technique = "tss".parse().unwrap();
    /// assert!(t.description().contains("Tzen & Ni"));
    /// ```
    pub fn description(&self) -> &'static str {
        self.kind.description()
    }

    /// The parameters this technique accepts (its own, then `min`, `max`, `seed`).
    ///
    /// ```
    /// let t: dls_technique::Technique = "tap,mu=1ms,sigma=1ms".parse().unwrap();
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
    /// [`ChunkScheduler::new`](crate::ChunkScheduler::new) with `Some(p)`.
    ///
    /// ```
    /// let t: dls_technique::Technique = "wf,weights=1:2".parse().unwrap();
    /// assert!(t.validate(Some(2)).is_ok());
    /// let e = t.validate(Some(3)).unwrap_err().to_string();
    /// assert!(e.contains("wf") && e.contains("weights"));
    /// let fsc: dls_technique::Technique = "fsc,h=1ms".parse().unwrap();
    /// assert!(fsc.validate(Some(4)).unwrap_err().to_string().contains("`sigma` is required"));
    /// assert!("fsc".parse::<dls_technique::Technique>().unwrap().validate(Some(4)).is_ok());
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
        for param in params.given() {
            if !k.parameters().iter().any(|s| s.name == param) {
                return err(
                    param,
                    format!(
                        "is not a parameter of {name}; valid parameters: {}",
                        k.parameter_names()
                    ),
                );
            }
        }
        if let Some(v) = params.number("local") {
            if v != 0.0 && v != 1.0 {
                return err("local", format!("must be 0 or 1, got `{v}`"));
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
        match k.entry().check {
            Some(check) => check(self, p),
            None => Ok(()),
        }
    }

    /// Fills parameters the specification left unset from a model of the loop, by the
    /// technique's own rule (FSC, FAC, TAP: mu, sigma, h from the iterate-time model and the
    /// overhead; WF: weights from the rank speeds). Values that are zero are left unset
    /// (technique parameters must be positive). Returns a note naming what was filled, or `None`.
    ///
    /// ```
    /// use dls_technique::{ModelFacts, Technique};
    /// let mut t: Technique = "wf".parse().unwrap();
    /// let facts = ModelFacts::new(&|| None, 0.0, &[1.0, 2.0]);
    /// assert!(t.fill_from_model(&facts).unwrap().contains("weights = 1.0000:0.5000"));
    /// let mut gss: Technique = "gss".parse().unwrap();
    /// assert_eq!(gss.fill_from_model(&facts), None);
    /// ```
    pub fn fill_from_model(&mut self, facts: &ModelFacts) -> Option<String> {
        (self.kind.entry().fill_from_model?)(&mut self.params, facts)
    }

    /// Stores one `key=value` parameter (key already lower-case and accepted by the kind).
    fn set(&mut self, spec: &ParamSpec, value: &str) -> Result<(), TechniqueError> {
        self.params.set_text(spec, value).map_err(|what| {
            TechniqueError::new(format!(
                "{}: parameter `{}` must be {what}, got `{value}`",
                self.kind.name(),
                spec.name
            ))
        })
    }
}

/// Checks that two parameters that work together (FSC: h, sigma; FAC and TAP: mu, sigma) are
/// given both or neither, once the number of ranks `p` is known (see [`Technique::validate`]).
pub(crate) fn require_together(
    t: &Technique,
    p: Option<usize>,
    pair: [&str; 2],
) -> Result<(), TechniqueError> {
    if p.is_none() {
        return Ok(());
    }
    let [a, b] = pair;
    for (this, other) in [(a, b), (b, a)] {
        if t.params.is_given(other) && !t.params.is_given(this) {
            return Err(TechniqueError::new(format!(
                "{}: parameter `{this}` is required together with `{other}` (give both or \
                 neither); for example `{}`",
                t.kind.name(),
                t.kind.example()
            )));
        }
    }
    Ok(())
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
            let specs = kind.parameters();
            let Some(spec) = specs.iter().find(|s| s.name == key) else {
                return Err(TechniqueError::new(format!(
                    "{}: unknown parameter `{key}`; valid parameters: {}",
                    kind.name(),
                    kind.parameter_names()
                )));
            };
            if seen.contains(&key) {
                return Err(TechniqueError::new(format!(
                    "{}: parameter `{key}` is given twice",
                    kind.name()
                )));
            }
            t.set(spec, value)?;
            seen.push(key);
        }
        t.validate(None)?;
        Ok(t)
    }
}

impl fmt::Display for Technique {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.name())?;
        for spec in self.kind.parameters() {
            if let Some(v) = self.params.text_of_spec(&spec) {
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
