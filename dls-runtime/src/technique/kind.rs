//! [`Kind`]: which loop scheduling technique, with its name, description, source and parameters.

use std::fmt;

use super::params::{
    ParamSpec, ALPHA, B, COMMON_PARAMETERS, CRITERION, H, M, MODEL, MU, PROBE, SIGMA, SWR,
    THETA_MU, THETA_SIGMA, WEIGHTS, X,
};

/// Which loop scheduling technique.
///
/// ```
/// use dls_runtime::technique::Kind;
/// assert_eq!(Kind::from_name("AWF-B"), Some(Kind::AwfB));
/// assert_eq!(Kind::Tss.to_string(), "tss");
/// ```
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
    /// Every kind, in the order of [`Technique::valid_names`](super::Technique::valid_names).
    ///
    /// ```
    /// assert_eq!(dls_runtime::technique::Kind::ALL.len(), 22);
    /// ```
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

    /// The kind with this name, case-insensitively.
    ///
    /// ```
    /// use dls_runtime::technique::Kind;
    /// assert_eq!(Kind::from_name(" Fac2 "), Some(Kind::Fac2));
    /// assert_eq!(Kind::from_name("guided"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Kind> {
        let name = name.trim().to_ascii_lowercase();
        Kind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// True for techniques whose chunks depend on measured iterate times (AWF takes weights
    /// from earlier executions of the loop, the others measure while the loop runs).
    ///
    /// ```
    /// assert!(dls_runtime::technique::Kind::Af.is_adaptive());
    /// assert!(!dls_runtime::technique::Kind::Fac2.is_adaptive());
    /// ```
    pub fn is_adaptive(self) -> bool {
        matches!(
            self,
            Kind::Awf | Kind::AwfB | Kind::AwfC | Kind::AwfD | Kind::AwfE | Kind::Af
        )
    }

    /// One line: what the technique is and its source.
    ///
    /// ```
    /// assert!(dls_runtime::technique::Kind::Gss.description().contains("Polychronopoulos"));
    /// ```
    pub fn description(self) -> &'static str {
        match self {
            Kind::Static => "static chunking: one chunk of ceil(N/P) per rank",
            Kind::Ss => "self-scheduling: chunks of one iterate",
            Kind::Fsc => {
                "fixed size chunking: c = (sqrt(2)·N·h / (sigma·P·sqrt(ln P)))^(2/3) \
                 (Kruskal & Weiss, IEEE TSE 11, 1985)"
            }
            Kind::Mfsc => {
                "modified fixed size chunking: c = floor(0.55 + t·ln2/ln t), t = ceil(N/P) \
                 (LB4OMP / DLS4LB practice)"
            }
            Kind::Gss => {
                "guided self-scheduling: c = ceil(R/P) (Polychronopoulos & Kuck, IEEE TC 36, 1987)"
            }
            Kind::Tss => {
                "trapezoid self-scheduling: chunks falling linearly from N/(2P) to 1 \
                 (Tzen & Ni, IEEE TPDS 4, 1993)"
            }
            Kind::Fac => {
                "factoring: batches of P chunks sized from mu and sigma \
                 (Hummel, Schonberg & Flynn, CACM 35(8), 1992)"
            }
            Kind::Fac2 => {
                "factoring with x = 2: batches of P chunks of ceil(R_j/(2P)) \
                 (Hummel, Schonberg & Flynn, CACM 35(8), 1992)"
            }
            Kind::Wf => {
                "weighted factoring: FAC2 batches scaled by relative rank speeds \
                 (Hummel, Schmidt, Uma & Wein, SPAA 1996)"
            }
            Kind::Awf => {
                "adaptive weighted factoring: WF with weights learnt over earlier time steps \
                 (Banicescu, Velusamy & Devaprasad, Cluster Computing 6, 2003)"
            }
            Kind::AwfB => {
                "AWF-B: WF with weights learnt from work times during the loop, per batch \
                 (Cariño & Banicescu, J. Supercomputing 44, 2008)"
            }
            Kind::AwfC => {
                "AWF-C: WF with weights learnt from work times during the loop, per chunk \
                 (Cariño & Banicescu, J. Supercomputing 44, 2008)"
            }
            Kind::AwfD => {
                "AWF-D: AWF-B timed with scheduling overhead included \
                 (Cariño & Banicescu, J. Supercomputing 44, 2008)"
            }
            Kind::AwfE => {
                "AWF-E: AWF-C timed with scheduling overhead included \
                 (Cariño & Banicescu, J. Supercomputing 44, 2008)"
            }
            Kind::Af => {
                "adaptive factoring: chunks from per-rank mu and sigma measured during the loop \
                 (Banicescu & Liu, HPC Symposium 2000)"
            }
            Kind::Tfss => {
                "trapezoid factoring self-scheduling: batches of P chunks, each the mean of the \
                 next P TSS chunks (Chronopoulos et al. 2001)"
            }
            Kind::Fiss => {
                "fixed increase self-scheduling: B stages of P chunks growing by a fixed step \
                 (Philip & Das 1997)"
            }
            Kind::Viss => {
                "variable increase self-scheduling: stages of P chunks growing by halving steps \
                 (LB4OMP form)"
            }
            Kind::Rnd => "random chunk sizes, uniform in [min, max] (LB4OMP form)",
            Kind::Pls => {
                "performance-based loop scheduling: a static share first, the rest by GSS \
                 (Shih, Yang & Tseng 2007)"
            }
            Kind::Tap => {
                "taper: c = T + v²/2 - v·sqrt(2T + v²/4), T = R/P, v = alpha·sigma/mu (Lucco 1992)"
            }
            Kind::Theta => {
                "stochastic load balancing: theta·N/P per rank first, the rest as filler chunks \
                 (Wegman, seed 000 §4)"
            }
        }
    }

    /// The parameters this technique's own formula takes (without the common `min`, `max`,
    /// `seed`).
    ///
    /// ```
    /// use dls_runtime::technique::Kind;
    /// assert_eq!(Kind::Fiss.own_parameters()[0].name, "b");
    /// assert!(Kind::Gss.own_parameters().is_empty());
    /// ```
    pub fn own_parameters(self) -> &'static [ParamSpec] {
        match self {
            Kind::Fsc => &[H, SIGMA],
            Kind::Fac => &[MU, SIGMA],
            Kind::Wf => &[WEIGHTS],
            Kind::Awf | Kind::AwfB | Kind::AwfC | Kind::AwfD | Kind::AwfE => &[WEIGHTS, PROBE],
            Kind::Af => &[PROBE],
            Kind::Fiss => &[B],
            Kind::Viss => &[X],
            Kind::Pls => &[SWR],
            Kind::Tap => &[MU, SIGMA, ALPHA],
            Kind::Theta => &[CRITERION, MODEL, M, THETA_MU, THETA_SIGMA],
            Kind::Static
            | Kind::Ss
            | Kind::Mfsc
            | Kind::Gss
            | Kind::Tss
            | Kind::Fac2
            | Kind::Tfss
            | Kind::Rnd => &[],
        }
    }

    /// Every parameter this technique accepts: its own, then `min`, `max`, `seed`.
    ///
    /// ```
    /// use dls_runtime::technique::Kind;
    /// let names: Vec<&str> = Kind::Pls.parameters().iter().map(|p| p.name).collect();
    /// assert_eq!(names, ["swr", "min", "max", "seed"]);
    /// ```
    pub fn parameters(self) -> Vec<ParamSpec> {
        let mut all = self.own_parameters().to_vec();
        all.extend(COMMON_PARAMETERS);
        all
    }

    /// The accepted parameter names, comma-separated (for error messages).
    ///
    /// ```
    /// assert_eq!(dls_runtime::technique::Kind::Fsc.parameter_names(), "h, sigma, min, max, seed");
    /// ```
    pub fn parameter_names(self) -> String {
        self.parameters()
            .iter()
            .map(|p| p.name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A valid specification of this technique, with example values for its required parameters.
    ///
    /// ```
    /// use dls_runtime::{technique::Kind, Technique};
    /// for k in Kind::ALL {
    ///     assert_eq!(k.example().parse::<Technique>().unwrap().kind, k);
    /// }
    /// ```
    pub fn example(self) -> &'static str {
        match self {
            Kind::Fsc => "fsc,h=200us,sigma=100us",
            Kind::Fac => "fac,mu=1ms,sigma=500us",
            Kind::Tap => "tap,mu=1ms,sigma=500us,alpha=1.3",
            Kind::Fiss => "fiss,b=3",
            Kind::Viss => "viss,x=4",
            Kind::Rnd => "rnd,max=50,seed=7",
            Kind::Pls => "pls,swr=0.5",
            Kind::Theta => "theta,criterion=b,model=uniform",
            Kind::Fac2 => "fac2,min=4",
            other => other.name(),
        }
    }

    /// True for the factoring family, whose last chunk absorbs a remainder of at most the
    /// minimum chunk (this is what yields the published FAC2 vector's tail `1 1 2`).
    pub(crate) fn merges_tail(self) -> bool {
        matches!(
            self,
            Kind::Fac
                | Kind::Fac2
                | Kind::Wf
                | Kind::Awf
                | Kind::AwfB
                | Kind::AwfC
                | Kind::AwfD
                | Kind::AwfE
                | Kind::Af
        )
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
