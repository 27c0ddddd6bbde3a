//! The [`Technique`] type: a technique name and its parameters, parsed from text.

use std::fmt;
use std::str::FromStr;

use super::error::TechniqueError;

/// Which loop scheduling technique.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Static chunking: one chunk of ceil(N/P) per rank.
    Static,
    /// Self-scheduling: chunks of one iterate.
    Ss,
    /// Fixed size chunking (Kruskal & Weiss 1985).
    Fsc,
    /// Modified fixed size chunking.
    Mfsc,
    /// Guided self-scheduling (Polychronopoulos & Kuck 1987).
    Gss,
    /// Trapezoid self-scheduling (Tzen & Ni 1993).
    Tss,
    /// Factoring (Hummel, Schonberg & Flynn 1992).
    Fac,
    /// Factoring with x = 2.
    Fac2,
    /// Weighted factoring (Hummel, Schmidt, Uma & Wein 1996).
    Wf,
    /// Adaptive weighted factoring across time steps (Banicescu, Velusamy & Devaprasad 2003).
    Awf,
    /// AWF-B: weights adapted during the loop, batched (Cariño & Banicescu 2008).
    AwfB,
    /// AWF-C: as B, chunk recomputed at every request.
    AwfC,
    /// AWF-D: as B, time includes scheduling overhead.
    AwfD,
    /// AWF-E: as C, time includes scheduling overhead.
    AwfE,
    /// Adaptive factoring (Banicescu & Liu 2000).
    Af,
    /// Trapezoid factoring self-scheduling (Chronopoulos et al. 2001).
    Tfss,
    /// Fixed increase self-scheduling (Philip & Das 1997).
    Fiss,
    /// Variable increase self-scheduling.
    Viss,
    /// Random chunk sizes.
    Rnd,
    /// Performance-based loop scheduling (Shih, Yang & Tseng 2007).
    Pls,
    /// Taper (Lucco 1992).
    Tap,
    /// Wegman's stochastic load balancing: theta split (seed 000 §4).
    Theta,
}

impl Kind {
    /// Every kind, in the order of [`Kind::name`]'s list.
    pub const ALL: [Kind; 22] = [
        Kind::Static,
        Kind::Ss,
        Kind::Fsc,
        Kind::Mfsc,
        Kind::Gss,
        Kind::Tss,
        Kind::Fac,
        Kind::Fac2,
        Kind::Wf,
        Kind::Awf,
        Kind::AwfB,
        Kind::AwfC,
        Kind::AwfD,
        Kind::AwfE,
        Kind::Af,
        Kind::Tfss,
        Kind::Fiss,
        Kind::Viss,
        Kind::Rnd,
        Kind::Pls,
        Kind::Tap,
        Kind::Theta,
    ];

    /// The canonical (lower-case) name, as parsed.
    ///
    /// ```
    /// assert_eq!(dls_runtime::technique::Kind::AwfB.name(), "awf-b");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Kind::Static => "static",
            Kind::Ss => "ss",
            Kind::Fsc => "fsc",
            Kind::Mfsc => "mfsc",
            Kind::Gss => "gss",
            Kind::Tss => "tss",
            Kind::Fac => "fac",
            Kind::Fac2 => "fac2",
            Kind::Wf => "wf",
            Kind::Awf => "awf",
            Kind::AwfB => "awf-b",
            Kind::AwfC => "awf-c",
            Kind::AwfD => "awf-d",
            Kind::AwfE => "awf-e",
            Kind::Af => "af",
            Kind::Tfss => "tfss",
            Kind::Fiss => "fiss",
            Kind::Viss => "viss",
            Kind::Rnd => "rnd",
            Kind::Pls => "pls",
            Kind::Tap => "tap",
            Kind::Theta => "theta",
        }
    }

    /// True for techniques whose chunks depend on measured iterate times.
    ///
    /// ```
    /// assert!(dls_runtime::technique::Kind::Af.is_adaptive());
    /// ```
    pub fn is_adaptive(self) -> bool {
        matches!(
            self,
            Kind::Awf | Kind::AwfB | Kind::AwfC | Kind::AwfD | Kind::AwfE | Kind::Af
        )
    }
}

/// Parameters of a technique. Durations are in seconds.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Params {
    /// Smallest chunk (`min=`), default 1.
    pub min_chunk: u64,
    /// Largest chunk (`max=`), default unbounded.
    pub max_chunk: Option<u64>,
    /// Scheduling overhead per chunk (`h=`).
    pub h: Option<f64>,
    /// Standard deviation of an iterate's time (`sigma=`).
    pub sigma: Option<f64>,
    /// Mean of an iterate's time (`mu=`).
    pub mu: Option<f64>,
    /// Relative rank speeds (`weights=1:1:2`).
    pub weights: Option<Vec<f64>>,
    /// Seed for randomised techniques (`seed=`).
    pub seed: u64,
}

/// A loop scheduling technique with its parameters.
///
/// ```
/// let t: dls_runtime::Technique = "FAC2,min=4".parse().unwrap();
/// assert_eq!(t.to_string(), "fac2,min=4");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Technique {
    /// Which technique.
    pub kind: Kind,
    /// Its parameters.
    pub params: Params,
}

impl Technique {
    /// The technique with default parameters.
    ///
    /// ```
    /// use dls_runtime::{Technique, technique::Kind};
    /// assert_eq!(Technique::new(Kind::Gss).to_string(), "gss");
    /// ```
    pub fn new(kind: Kind) -> Self {
        Technique {
            kind,
            params: Params {
                min_chunk: 1,
                ..Params::default()
            },
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
}

impl FromStr for Technique {
    type Err = TechniqueError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut parts = text.split(',');
        let name = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let kind = Kind::ALL
            .iter()
            .copied()
            .find(|k| k.name() == name)
            .ok_or_else(|| {
                TechniqueError::new(format!(
                    "unknown technique `{}`; valid techniques: {}",
                    name,
                    Technique::valid_names()
                ))
            })?;
        let mut t = Technique::new(kind);
        for part in parts {
            let (key, value) = part.split_once('=').ok_or_else(|| {
                TechniqueError::new(format!(
                    "{}: parameter `{}` needs a value (key=value)",
                    kind.name(),
                    part.trim()
                ))
            })?;
            let key = key.trim().to_ascii_lowercase();
            let value = value.trim();
            let bad = |what: &str| {
                TechniqueError::new(format!(
                    "{}: parameter `{key}` {what}, got `{value}`",
                    kind.name()
                ))
            };
            match key.as_str() {
                "min" => {
                    t.params.min_chunk = value
                        .parse()
                        .map_err(|_| bad("must be a whole number >= 1"))?
                }
                "max" => {
                    t.params.max_chunk = Some(
                        value
                            .parse()
                            .map_err(|_| bad("must be a whole number >= 1"))?,
                    )
                }
                _ => {
                    return Err(TechniqueError::new(format!(
                        "{}: unknown parameter `{key}`; valid parameters: min, max",
                        kind.name()
                    )))
                }
            }
        }
        Ok(t)
    }
}

impl fmt::Display for Technique {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.kind.name())?;
        if self.params.min_chunk != 1 {
            write!(f, ",min={}", self.params.min_chunk)?;
        }
        if let Some(m) = self.params.max_chunk {
            write!(f, ",max={m}")?;
        }
        Ok(())
    }
}
