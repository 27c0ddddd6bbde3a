//! The designed-experiment scalability test of Lyon & Kacker (1994), "A simple scalability test
//! for MIMD code" (NIST report NISTIR 5417): the analysis behind `dls scaltest`.
//!
//! Each code region under test is a two-level factor: without (−1) or with (+1) a synthetic delay
//! (`DLS_DELAY`, see `dls_runtime::runtime::delay`); the number of workers `s` is one
//! more factor, at two levels p < p'. The run time R is measured for every one of the 2^k
//! combinations (a full factorial), each repeated r times in a random order. With coded levels
//! x = ±1 the fitted model is
//!
//! R = μ + Σ β_j x_j + Σ β_{i,j} x_i x_j + …,
//!
//! and, the design being orthogonal, every coefficient is a signed mean of the trial means
//! ȳ_t: β_S = (1/N) Σ_t (Π_{f∈S} x_{t,f}) ȳ_t, with N = 2^k (Lyon & Kacker's r1–r4). An effect is a
//! *half*-effect, a slope per coded unit.
//!
//! **Standard error.** Either given from prior experience (the paper's ±0.10 for its Table 4), or
//! estimated from the replicates: the pooled within-trial variance s² on Σ(r_t − 1) degrees of
//! freedom gives SE(β̂) = (s/N)·√(Σ_t 1/r_t), i.e. s/√(N·r) for r runs of every trial. This is the
//! SE of a half-effect; the paper's printed (1/4)·√(Σd²) for duplicate runs is that of a contrast,
//! twice as large. The noise band is ± m·SE, with m = 2 for a given SE (the paper's ≈95%) and
//! Student's t quantile t(0.975, df) for an estimated one.
//!
//! **Verdict per region** c (band = m·SE), in this order:
//! 1. β_s ≥ −band: the program does not gain from more workers, so no region can be judged;
//! 2. |β_c| ≤ band: the delay had no measurable effect (region not exercised, or delay too small);
//! 3. β_c,s > band: the region **does not scale**: the program grows more sensitive to it as
//!    workers are added;
//! 4. |β_c,s| ≤ band: the region **does not scale** either: its cost does not shrink with more
//!    workers (a serial region);
//! 5. β_c,s ≤ (β_c/μ)·β_s < 0: the region **scales**: its sensitivity falls at least in
//!    proportion to the run time (the paper's proportionality criterion);
//! 6. otherwise the region scales, but less than in proportion to the run time.
//!
//! ```
//! use dls_model::scaltest::{Experiment, Se, Verdict};
//! // Lyon & Kacker's Table 4: trials a, b, c, d = (cd, s) at (−,−), (+,−), (−,+), (+,+).
//! let e = Experiment::new(vec!["cd".into()], vec![vec![40.0], vec![44.0], vec![24.0], vec![29.0]])
//!     .unwrap();
//! let a = e.analyse(Se::Given(0.10)).unwrap();
//! assert_eq!(a.mu, 34.25);
//! assert_eq!(a.effect("cd").unwrap(), 2.25);
//! assert_eq!(a.effect("s").unwrap(), -7.75);
//! assert_eq!(a.effect("cd,s").unwrap(), 0.25);
//! assert_eq!(a.verdicts[0].verdict, Verdict::DoesNotScale);
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::fault_check::Permutation;

/// The name of the worker-count factor, always the last factor of an experiment.
///
/// ```
/// use dls_model::scaltest::{Experiment, WORKERS};
/// let e = Experiment::new(vec!["body".into()], vec![vec![1.0]; 4]).unwrap();
/// assert_eq!(e.factors().last(), Some(&WORKERS));
/// ```
pub const WORKERS: &str = "s";

/// The most region factors of one experiment (2^(k+1) trials each).
///
/// ```
/// use dls_model::scaltest::{Experiment, MAX_REGIONS};
/// let too_many: Vec<String> = (0..=MAX_REGIONS).map(|i| format!("r{i}")).collect();
/// assert!(Experiment::new(too_many, vec![]).is_err());
/// ```
pub const MAX_REGIONS: usize = 8;

/// Why an experiment cannot be analysed.
///
/// ```
/// use dls_model::scaltest::Experiment;
/// let e = Experiment::new(vec!["cd".into()], vec![vec![1.0]; 3]).unwrap_err();
/// assert!(e.to_string().contains("4 trials"), "{e}");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ScaltestError(pub String);

impl fmt::Display for ScaltestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScaltestError {}

fn err<T>(message: impl Into<String>) -> Result<T, ScaltestError> {
    Err(ScaltestError(message.into()))
}

/// A full 2^k factorial over region factors and the worker count `s` (the last factor), with the
/// responses of every trial.
///
/// Trials are in standard (Yates) order: in trial `t`, factor `f` is at +1 when bit `f` of `t`
/// is set. The regions are factors `0..regions.len()`, `s` is the last.
///
/// ```
/// use dls_model::scaltest::Experiment;
/// let e = Experiment::new(vec!["body".into()], vec![vec![1.0]; 4]).unwrap();
/// assert_eq!(e.factors(), ["body", "s"]);
/// assert_eq!(e.level(1, 0), 1);  // trial b: body delayed,
/// assert_eq!(e.level(1, 1), -1); // at the lower worker count
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Experiment {
    /// The region factors (without `s`).
    pub regions: Vec<String>,
    /// The responses of each trial, in standard order (one per replicate).
    pub responses: Vec<Vec<f64>>,
}

/// Where the standard error of the effects comes from.
///
/// ```
/// use dls_model::scaltest::Se;
/// assert_ne!(Se::Given(0.1), Se::Replicates);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Se {
    /// From prior experience (Lyon & Kacker's Table 4 takes ±0.10); the band is ±2 SE.
    Given(f64),
    /// From the replicates: pooled within-trial variance; the band is ± t(0.975, df) SE.
    Replicates,
}

impl Experiment {
    /// An experiment over `regions` (names of region factors; `s` is added as the last factor)
    /// with `responses[t]` the responses of trial `t` (standard order, at least one each).
    ///
    /// ```
    /// use dls_model::scaltest::Experiment;
    /// assert!(Experiment::new(vec!["s".into()], vec![vec![1.0]; 4]).is_err());
    /// assert!(Experiment::new(vec!["a".into()], vec![vec![], vec![1.0], vec![1.0], vec![1.0]]).is_err());
    /// ```
    pub fn new(regions: Vec<String>, responses: Vec<Vec<f64>>) -> Result<Self, ScaltestError> {
        if regions.is_empty() || regions.len() > MAX_REGIONS {
            return err(format!(
                "an experiment needs 1 to {MAX_REGIONS} regions, got {}",
                regions.len()
            ));
        }
        for (i, r) in regions.iter().enumerate() {
            if r.is_empty() || r == WORKERS || regions[..i].contains(r) {
                return err(format!(
                    "region `{r}` is empty, named `{WORKERS}` (the worker count) or repeated"
                ));
            }
        }
        let n = 1usize << (regions.len() + 1);
        if responses.len() != n {
            return err(format!(
                "{} region(s) and {WORKERS} need {n} trials, got {}",
                regions.len(),
                responses.len()
            ));
        }
        let e = Experiment { regions, responses };
        for (t, ys) in e.responses.iter().enumerate() {
            if ys.is_empty() {
                return err(format!("trial {} has no response", e.label(t)));
            }
            if let Some(y) = ys.iter().find(|y| !y.is_finite()) {
                return err(format!("trial {} has a response {y}", e.label(t)));
            }
        }
        Ok(e)
    }

    /// The factors: the regions, then `s`.
    ///
    /// ```
    /// use dls_model::scaltest::Experiment;
    /// let e = Experiment::new(vec!["a".into(), "b".into()], vec![vec![1.0]; 8]).unwrap();
    /// assert_eq!(e.factors(), ["a", "b", "s"]);
    /// assert_eq!(e.trials(), 8);
    /// ```
    pub fn factors(&self) -> Vec<&str> {
        self.regions
            .iter()
            .map(String::as_str)
            .chain([WORKERS])
            .collect()
    }

    /// Number of trials, 2^k (see [`Experiment::factors`]).
    pub fn trials(&self) -> usize {
        self.responses.len()
    }

    /// The coded level (−1 or +1) of factor `f` in trial `t` (see [`Experiment`]).
    pub fn level(&self, t: usize, f: usize) -> i8 {
        if (t >> f) & 1 == 1 {
            1
        } else {
            -1
        }
    }

    /// A trial's levels as text, e.g. `(body+, between-, s+)`.
    ///
    /// ```
    /// use dls_model::scaltest::Experiment;
    /// let e = Experiment::new(vec!["cd".into()], vec![vec![1.0]; 4]).unwrap();
    /// assert_eq!(e.label(2), "(cd-, s+)");
    /// ```
    pub fn label(&self, t: usize) -> String {
        let parts: Vec<String> = self
            .factors()
            .iter()
            .enumerate()
            .map(|(f, name)| format!("{name}{}", if self.level(t, f) > 0 { '+' } else { '-' }))
            .collect();
        format!("({})", parts.join(", "))
    }

    /// Fits the model and judges every region.
    ///
    /// ```
    /// use dls_model::scaltest::{Experiment, Se};
    /// // Lyon & Kacker's Table 4 with duplicate runs; no prior SE: it comes from the pairs.
    /// let e = Experiment::new(vec!["cd".into()], vec![
    ///     vec![40.0, 40.4], vec![44.0, 43.6], vec![24.0, 24.2], vec![29.0, 29.4],
    /// ]).unwrap();
    /// let a = e.analyse(Se::Replicates).unwrap();
    /// assert!((a.se - 0.0901388).abs() < 1e-6);
    /// assert_eq!(a.df, Some(4));
    /// ```
    pub fn analyse(&self, se: Se) -> Result<Analysis, ScaltestError> {
        let n = self.trials();
        let k = self.regions.len() + 1;
        let means: Vec<f64> = self
            .responses
            .iter()
            .map(|ys| ys.iter().sum::<f64>() / ys.len() as f64)
            .collect();
        let mu = means.iter().sum::<f64>() / n as f64;
        let factors = self.factors();
        // Every non-empty subset of factors, main effects first, then by factor order.
        let mut subsets: Vec<usize> = (1..1usize << k).collect();
        subsets.sort_by_key(|&m| {
            let members: Vec<usize> = (0..k).filter(|f| m >> f & 1 == 1).collect();
            (m.count_ones(), members)
        });
        let effects: Vec<Effect> = subsets
            .iter()
            .map(|&mask| {
                let value = means
                    .iter()
                    .enumerate()
                    .map(|(t, y)| {
                        let sign = (0..k)
                            .filter(|f| mask >> f & 1 == 1)
                            .map(|f| i32::from(self.level(t, f)))
                            .product::<i32>();
                        f64::from(sign) * y
                    })
                    .sum::<f64>()
                    / n as f64;
                let names: Vec<String> = (0..k)
                    .filter(|f| mask >> f & 1 == 1)
                    .map(|f| factors[f].to_string())
                    .collect();
                Effect {
                    name: names.join(","),
                    factors: names,
                    value,
                    significant: false,
                }
            })
            .collect();
        let (se_value, df, multiplier, source) = match se {
            Se::Given(v) => {
                if !(v.is_finite() && v > 0.0) {
                    return err(format!("the standard error must be > 0, got {v}"));
                }
                (v, None, 2.0, "given".to_string())
            }
            Se::Replicates => {
                let df: usize = self.responses.iter().map(|ys| ys.len() - 1).sum();
                if df == 0 {
                    return err(
                        "no trial has two responses: replicate the trials (e.g. --replicates 3) \
                         or give the standard error of an effect from prior experience (--se)",
                    );
                }
                let ss: f64 = self
                    .responses
                    .iter()
                    .zip(&means)
                    .map(|(ys, m)| ys.iter().map(|y| (y - m).powi(2)).sum::<f64>())
                    .sum();
                let s = (ss / df as f64).sqrt();
                let inv_r: f64 = self.responses.iter().map(|ys| 1.0 / ys.len() as f64).sum();
                let t = StudentsT::new(0.0, 1.0, df as f64)
                    .map(|d| d.inverse_cdf(0.975))
                    .unwrap_or(2.0);
                (
                    s / n as f64 * inv_r.sqrt(),
                    Some(df),
                    t,
                    format!("replicates ({df} degrees of freedom)"),
                )
            }
        };
        let band = multiplier * se_value;
        let mut a = Analysis {
            factors: factors.iter().map(|f| f.to_string()).collect(),
            trials: (0..n)
                .map(|t| Trial {
                    label: self.label(t),
                    levels: (0..k).map(|f| self.level(t, f)).collect(),
                    responses: self.responses[t].clone(),
                    mean: means[t],
                })
                .collect(),
            mu,
            effects,
            se: se_value,
            se_source: source,
            df,
            multiplier,
            band,
            verdicts: Vec::new(),
        };
        for e in &mut a.effects {
            e.significant = e.value.abs() > band;
        }
        let beta_s = a.effect(WORKERS).unwrap_or(0.0);
        a.verdicts = self
            .regions
            .iter()
            .map(|r| {
                let main = a.effect(r).unwrap_or(0.0);
                let with_s = a.effect(&format!("{r},{WORKERS}")).unwrap_or(0.0);
                let bound = main / mu * beta_s;
                let verdict = judge(mu, main, beta_s, with_s, band);
                RegionVerdict {
                    region: r.clone(),
                    verdict,
                    text: verdict.explain(r),
                    effect: main,
                    interaction: with_s,
                    proportional_bound: bound,
                }
            })
            .collect();
        Ok(a)
    }
}

/// The verdict list of the module docs, for one region: μ, its main effect β_c, β_s, its
/// interaction with s β_c,s, and the noise band.
///
/// ```
/// use dls_model::scaltest::{judge, Verdict};
/// assert_eq!(judge(34.25, 2.25, -7.75, 0.25, 0.2), Verdict::DoesNotScale);
/// assert_eq!(judge(79.25, 3.25, -25.75, -1.75, 0.2), Verdict::Scales);
/// assert_eq!(judge(51.75, 4.25, -13.25, -0.75, 0.2), Verdict::LessThanProportional);
/// ```
pub fn judge(mu: f64, main: f64, beta_s: f64, with_s: f64, band: f64) -> Verdict {
    if beta_s >= -band {
        Verdict::NoGainFromWorkers
    } else if main.abs() <= band {
        Verdict::InsensitiveToDelay
    } else if with_s > band {
        Verdict::DoesNotScale
    } else if with_s >= -band {
        Verdict::DoesNotShrink
    } else if with_s <= main / mu * beta_s {
        Verdict::Scales
    } else {
        Verdict::LessThanProportional
    }
}

/// What the experiment says about one region.
///
/// ```
/// use dls_model::scaltest::Verdict;
/// assert!(!Verdict::DoesNotShrink.scales());
/// assert!(Verdict::Scales.scales());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Verdict {
    /// β_s inside the band or positive: more workers do not make the program faster.
    NoGainFromWorkers,
    /// The region's delay had no measurable effect.
    InsensitiveToDelay,
    /// β_c,s above the band: the region's cost grows with the worker count.
    DoesNotScale,
    /// β_c,s inside the band: the region's cost does not shrink with more workers.
    DoesNotShrink,
    /// β_c,s ≤ (β_c/μ)·β_s < 0: the proportionality criterion holds.
    Scales,
    /// β_c,s below the band but above (β_c/μ)·β_s.
    LessThanProportional,
}

impl Verdict {
    /// True for the verdicts that say the region's cost shrinks with more workers (see
    /// [`Verdict`]).
    pub fn scales(self) -> bool {
        matches!(self, Verdict::Scales | Verdict::LessThanProportional)
    }

    /// One sentence about `region`.
    ///
    /// ```
    /// use dls_model::scaltest::Verdict;
    /// assert_eq!(Verdict::DoesNotScale.explain("cd()"),
    ///     "cd() does not scale: the program grows more sensitive to it as workers are added");
    /// ```
    pub fn explain(self, region: &str) -> String {
        match self {
            Verdict::NoGainFromWorkers => format!(
                "no verdict on {region}: the program does not gain from more workers (β_s is \
                 not below the noise band)"
            ),
            Verdict::InsensitiveToDelay => format!(
                "no verdict on {region}: its delay had no measurable effect (is the region \
                 run? is the delay large enough?)"
            ),
            Verdict::DoesNotScale => format!(
                "{region} does not scale: the program grows more sensitive to it as workers \
                 are added"
            ),
            Verdict::DoesNotShrink => format!(
                "{region} does not scale: its cost does not shrink with more workers (its \
                 interaction with s is inside the noise band)"
            ),
            Verdict::Scales => {
                format!("{region} scales: its effect falls at least in proportion to the run time")
            }
            Verdict::LessThanProportional => {
                format!("{region} scales, but less than in proportion to the run time")
            }
        }
    }
}

/// One fitted coefficient.
///
/// ```
/// use dls_model::scaltest::{Experiment, Se};
/// let e = Experiment::new(vec!["cd".into()], vec![vec![40.0], vec![44.0], vec![24.0], vec![29.0]])
///     .unwrap();
/// let a = e.analyse(Se::Given(0.1)).unwrap();
/// let e = &a.effects[2];
/// assert_eq!((e.name.as_str(), e.value, e.significant), ("cd,s", 0.25, true));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Effect {
    /// The factors joined by commas: `cd`, `s`, `cd,s` (the paper's β_cd,s).
    pub name: String,
    /// The factors.
    pub factors: Vec<String>,
    /// The half-effect (slope per coded unit).
    pub value: f64,
    /// |value| above the noise band.
    pub significant: bool,
}

/// One trial of the design, with its responses.
///
/// ```
/// use dls_model::scaltest::{Experiment, Se};
/// let e = Experiment::new(vec!["cd".into()], vec![vec![40.0], vec![44.0], vec![24.0], vec![29.0]])
///     .unwrap();
/// let a = e.analyse(Se::Given(0.1)).unwrap();
/// assert_eq!(a.trials[3].levels, [1, 1]);
/// assert_eq!(a.trials[3].mean, 29.0);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    /// Its levels as text, e.g. `(cd+, s-)`.
    pub label: String,
    /// Coded levels, one per factor (regions, then s).
    pub levels: Vec<i8>,
    /// The responses (replicates).
    pub responses: Vec<f64>,
    /// Their mean.
    pub mean: f64,
}

/// The verdict on one region, with the figures it rests on.
///
/// ```
/// use dls_model::scaltest::{Experiment, Se};
/// let e = Experiment::new(vec!["cd".into()], vec![vec![40.0], vec![44.0], vec![24.0], vec![29.0]])
///     .unwrap();
/// let a = e.analyse(Se::Given(0.1)).unwrap();
/// let v = &a.verdicts[0];
/// assert_eq!((v.region.as_str(), v.effect, v.interaction), ("cd", 2.25, 0.25));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegionVerdict {
    /// The region.
    pub region: String,
    /// The verdict.
    pub verdict: Verdict,
    /// The verdict as a sentence.
    pub text: String,
    /// β_c, the region's main effect.
    pub effect: f64,
    /// β_c,s, its interaction with the worker count.
    pub interaction: f64,
    /// (β_c/μ)·β_s, the proportionality bound.
    pub proportional_bound: f64,
}

/// The fitted model, its noise and the verdicts ([`Experiment::analyse`]).
///
/// ```
/// use dls_model::scaltest::{Experiment, Se};
/// let e = Experiment::new(vec!["cd".into()], vec![vec![40.0], vec![44.0], vec![24.0], vec![29.0]])
///     .unwrap();
/// let a = e.analyse(Se::Given(0.1)).unwrap();
/// assert_eq!((a.mu, a.se, a.band), (34.25, 0.1, 0.2));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// The factors: the regions, then `s`.
    pub factors: Vec<String>,
    /// Every trial, in standard order.
    pub trials: Vec<Trial>,
    /// μ, the mean response (the model at the design's centre).
    pub mu: f64,
    /// Every main effect and interaction.
    pub effects: Vec<Effect>,
    /// The standard error of one (half-)effect; that of μ is the same.
    pub se: f64,
    /// Where it comes from: `given`, or the replicates and their degrees of freedom.
    pub se_source: String,
    /// Degrees of freedom of an estimated SE.
    pub df: Option<usize>,
    /// The band's multiplier: 2, or Student's t(0.975, df).
    pub multiplier: f64,
    /// The noise band: effects within ± band are not significant.
    pub band: f64,
    /// One verdict per region.
    pub verdicts: Vec<RegionVerdict>,
}

impl Analysis {
    /// The value of the effect named `name` (`cd`, `s`, `cd,s`, ...).
    ///
    /// ```
    /// use dls_model::scaltest::{Experiment, Se};
    /// let e = Experiment::new(vec!["cd".into()], vec![vec![40.0], vec![44.0], vec![24.0], vec![29.0]])
    ///     .unwrap();
    /// let a = e.analyse(Se::Given(0.1)).unwrap();
    /// assert_eq!(a.effect("s"), Some(-7.75));
    /// assert_eq!(a.effect("x"), None);
    /// ```
    pub fn effect(&self, name: &str) -> Option<f64> {
        self.effects
            .iter()
            .find(|e| e.name == name)
            .map(|e| e.value)
    }

    /// The analysis as text: the trials, μ, every effect with its significance, the SE and the
    /// band, and the verdicts.
    ///
    /// ```
    /// use dls_model::scaltest::{Experiment, Se};
    /// let e = Experiment::new(vec!["cd".into()], vec![vec![40.0], vec![44.0], vec![24.0], vec![29.0]])
    ///     .unwrap();
    /// let text = e.analyse(Se::Given(0.1)).unwrap().to_text();
    /// assert!(text.contains("cd does not scale"), "{text}");
    /// ```
    pub fn to_text(&self) -> String {
        use std::fmt::Write as _;
        let mut t = String::new();
        let width = self
            .trials
            .iter()
            .map(|x| x.label.len())
            .max()
            .unwrap_or(5)
            .max(5);
        let _ = writeln!(t, "{:<width$}  {:>12}  responses", "trial", "mean");
        for x in &self.trials {
            let ys: Vec<String> = x.responses.iter().map(|y| fmt_num(*y)).collect();
            let _ = writeln!(
                t,
                "{:<width$}  {:>12}  {}",
                x.label,
                fmt_num(x.mean),
                ys.join(" ")
            );
        }
        let _ = writeln!(t);
        let ew = self
            .effects
            .iter()
            .map(|e| e.name.chars().count() + 2)
            .max()
            .unwrap_or(0)
            .max("coefficient".len());
        let _ = writeln!(t, "{:<ew$}  {:>12}", "coefficient", "value");
        let _ = writeln!(t, "{:<ew$}  {:>12}", "μ", fmt_num(self.mu));
        for e in &self.effects {
            let _ = writeln!(
                t,
                "{:<ew$}  {:>12}  {}",
                format!("β_{}", e.name),
                fmt_num(e.value),
                if e.significant {
                    "significant"
                } else {
                    "in the noise"
                }
            );
        }
        let _ = writeln!(t);
        let _ = writeln!(
            t,
            "SE of an effect (and of μ): {} ({}); noise band ± {} × SE = ± {}",
            fmt_num(self.se),
            self.se_source,
            fmt_num(self.multiplier),
            fmt_num(self.band)
        );
        for v in &self.verdicts {
            let _ = writeln!(
                t,
                "{}  [β_{r} = {}, β_{r},s = {}, (β_{r}/μ)·β_s = {}]",
                v.text,
                fmt_num(v.effect),
                fmt_num(v.interaction),
                fmt_num(v.proportional_bound),
                r = v.region
            );
        }
        t
    }
}

/// A number with at most 6 significant decimals and no trailing zeros (`34.25`, `-0.509124`).
fn fmt_num(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

/// The order in which to run `replicates` runs of each of `trials` trials: `(trial, replicate)`
/// pairs in a seeded random order (Lyon & Kacker: randomise trials and replicates so that drift
/// of the machine does not masquerade as an effect).
///
/// ```
/// use dls_model::scaltest::run_order;
/// let order = run_order(4, 3, 7);
/// assert_eq!(order.len(), 12);
/// assert_eq!(order, run_order(4, 3, 7));
/// let mut sorted = order.clone();
/// sorted.sort();
/// assert_eq!(sorted, (0..4).flat_map(|t| (0..3).map(move |r| (t, r))).collect::<Vec<_>>());
/// ```
pub fn run_order(trials: usize, replicates: usize, seed: u64) -> Vec<(usize, usize)> {
    let n = (trials * replicates) as u64;
    let p = Permutation::new(n, seed);
    (0..n)
        .map(|k| {
            let j = p.apply(k) as usize;
            (j / replicates, j % replicates)
        })
        .collect()
}

/// Reads an experiment from its text table (`dls scaltest --from-table`).
///
/// The format: lines starting with `#` are comments and blank lines are skipped; the first other
/// line is the header, the rest are runs, one per line. Columns are separated by commas (or, in
/// a line without commas, by spaces or tabs). The header names one column per region factor,
/// a column `s` (the worker count), and, last, the response column (any name, e.g. `seconds`).
/// A level is `-1`, `-`, `+1`, `1` or `+`; a response is a number. Runs with the same levels are
/// replicates of one trial; every one of the 2^k trials needs at least one run.
///
/// ```
/// use dls_model::scaltest::from_table;
/// let e = from_table("# Table 4\ncd, s, R\n-,-,40\n+,-,44\n-,+,24\n+,+,29\n").unwrap();
/// assert_eq!(e.regions, ["cd"]);
/// assert_eq!(e.responses, [[40.0], [44.0], [24.0], [29.0]]);
/// assert!(from_table("cd,s,R\n-,-,40\n").unwrap_err().to_string().contains("(cd+, s-)"));
/// ```
pub fn from_table(text: &str) -> Result<Experiment, ScaltestError> {
    let split = |line: &str| -> Vec<String> {
        if line.contains(',') {
            line.split(',').map(|c| c.trim().to_string()).collect()
        } else {
            line.split_whitespace().map(str::to_string).collect()
        }
    };
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let Some((_, header)) = lines.next() else {
        return err("the table is empty: expected a header such as `body, between, s, seconds`");
    };
    let names = split(header);
    if names.len() < 3 {
        return err(format!(
            "the header `{header}` needs a column per region, a column `{WORKERS}` and the \
             response column last, e.g. `cd, s, seconds`"
        ));
    }
    let factor_names = &names[..names.len() - 1];
    let Some(s_col) = factor_names.iter().position(|n| n == WORKERS) else {
        return err(format!(
            "the header `{header}` has no column `{WORKERS}` (the worker count factor)"
        ));
    };
    let regions: Vec<String> = factor_names
        .iter()
        .filter(|n| *n != WORKERS)
        .cloned()
        .collect();
    if regions.len() > MAX_REGIONS {
        return err(format!(
            "at most {MAX_REGIONS} regions, got {}",
            regions.len()
        ));
    }
    // Column of each factor (regions, then s).
    let columns: Vec<usize> = factor_names
        .iter()
        .enumerate()
        .filter(|(_, n)| *n != WORKERS)
        .map(|(c, _)| c)
        .chain([s_col])
        .collect();
    let mut responses = vec![Vec::new(); 1usize << (regions.len() + 1)];
    for (number, line) in lines {
        let cells = split(line);
        if cells.len() != names.len() {
            return err(format!(
                "line {number}: {} columns, the header has {}",
                cells.len(),
                names.len()
            ));
        }
        let mut trial = 0usize;
        for (f, &c) in columns.iter().enumerate() {
            match cells[c].as_str() {
                "-1" | "-" => {}
                "+1" | "1" | "+" => trial |= 1 << f,
                other => {
                    return err(format!(
                        "line {number}: `{other}` in column `{}` is not a level: expected -1, -, \
                         +1, 1 or +",
                        names[c]
                    ))
                }
            }
        }
        let last = &cells[names.len() - 1];
        let y = last
            .parse::<f64>()
            .ok()
            .filter(|y| y.is_finite())
            .ok_or_else(|| {
                ScaltestError(format!(
                    "line {number}: response `{last}` is not a finite number"
                ))
            })?;
        responses[trial].push(y);
    }
    let probe = Experiment {
        regions: regions.clone(),
        responses: responses.clone(),
    };
    if let Some(t) = responses.iter().position(Vec::is_empty) {
        return err(format!(
            "trial {} has no run: every one of the {} combinations of levels needs at least one",
            probe.label(t),
            responses.len()
        ));
    }
    Experiment::new(regions, responses)
}

/// Writes an experiment as a table that [`from_table`] reads back: one line per run, in
/// standard order, after `comments` (each line prefixed with `# `).
///
/// ```
/// use dls_model::scaltest::{from_table, to_table, Experiment};
/// let e = Experiment::new(vec!["cd".into()], vec![vec![40.0, 41.0], vec![44.0], vec![24.0], vec![29.0]])
///     .unwrap();
/// assert_eq!(from_table(&to_table(&e, "seconds", &["a note"])).unwrap(), e);
/// ```
pub fn to_table(e: &Experiment, response: &str, comments: &[&str]) -> String {
    let mut t = String::new();
    for c in comments {
        t.push_str(&format!("# {c}\n"));
    }
    let factors = e.factors();
    t.push_str(&format!("{}, {response}\n", factors.join(", ")));
    for (trial, ys) in e.responses.iter().enumerate() {
        for y in ys {
            let levels: Vec<&str> = (0..factors.len())
                .map(|f| if e.level(trial, f) > 0 { "+1" } else { "-1" })
                .collect();
            t.push_str(&format!("{}, {y}\n", levels.join(", ")));
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// Lyon & Kacker (1994), Table 4 and §3.1.2: μ, β_cd, β_s, β_cd,s and "cd() does not
    /// scale" at SE 0.10.
    #[test]
    fn table_4() {
        let e = Experiment::new(
            vec!["cd".into()],
            vec![vec![40.0], vec![44.0], vec![24.0], vec![29.0]],
        )
        .unwrap();
        let a = e.analyse(Se::Given(0.10)).unwrap();
        assert!(close(a.mu, 34.25));
        assert!(close(a.effect("cd").unwrap(), 2.25));
        assert!(close(a.effect("s").unwrap(), -7.75));
        assert!(close(a.effect("cd,s").unwrap(), 0.25));
        assert!(close(a.band, 0.2));
        assert!(a.effects.iter().all(|e| e.significant));
        let v = &a.verdicts[0];
        assert_eq!(v.verdict, Verdict::DoesNotScale);
        assert!(close(v.proportional_bound, 2.25 / 34.25 * -7.75));
        assert!(
            (v.proportional_bound - -0.509124).abs() < 1e-6,
            "{}",
            v.proportional_bound
        );
    }

    /// Hand-computed 2^2 examples beside Table 4: one that scales and one that scales less than
    /// in proportion.
    #[test]
    fn more_two_by_two_examples() {
        for (ys, want, bound) in [
            ([100.0, 110.0, 52.0, 55.0], Verdict::Scales, -1.055994),
            (
                [60.0, 70.0, 35.0, 42.0],
                Verdict::LessThanProportional,
                -1.088164,
            ),
        ] {
            let e =
                Experiment::new(vec!["cd".into()], ys.iter().map(|y| vec![*y]).collect()).unwrap();
            let a = e.analyse(Se::Given(0.1)).unwrap();
            assert_eq!(a.verdicts[0].verdict, want, "{ys:?}");
            assert!((a.verdicts[0].proportional_bound - bound).abs() < 1e-6);
        }
    }

    /// Duplicate runs: the SE of a half-effect is √(Σd²)/(2N), half of the paper's printed
    /// (1/4)·√(Σd²) for N = 4 (that of a contrast).
    #[test]
    fn replicated_se_is_that_of_a_half_effect() {
        let e = Experiment::new(
            vec!["cd".into()],
            vec![
                vec![40.0, 40.4],
                vec![44.0, 43.6],
                vec![24.0, 24.2],
                vec![29.0, 29.4],
            ],
        )
        .unwrap();
        let a = e.analyse(Se::Replicates).unwrap();
        assert!(close(a.mu, 34.325));
        assert!(close(a.effect("cd").unwrap(), 2.175));
        assert!(close(a.effect("s").unwrap(), -7.675));
        assert!(close(a.effect("cd,s").unwrap(), 0.375));
        let paper = 0.25 * (0.16_f64 + 0.16 + 0.04 + 0.16).sqrt();
        assert!(close(a.se, paper / 2.0), "{}", a.se);
        assert_eq!(a.df, Some(4));
        // t(0.975, 4) = 2.776.
        assert!((a.multiplier - 2.776445).abs() < 1e-5, "{}", a.multiplier);
        assert_eq!(a.verdicts[0].verdict, Verdict::DoesNotScale);
    }

    /// A 2^3 design (body delay, merge delay, s) computed by hand.
    #[test]
    fn two_regions() {
        let ys = [50.0, 56.0, 51.0, 57.5, 27.0, 30.0, 29.5, 33.0];
        let e = Experiment::new(
            vec!["body".into(), "merge".into()],
            ys.iter().map(|y| vec![*y]).collect(),
        )
        .unwrap();
        let a = e.analyse(Se::Given(0.1)).unwrap();
        for (name, want) in [
            ("body", 2.375),
            ("merge", 1.0),
            ("s", -11.875),
            ("body,merge", 0.125),
            ("body,s", -0.75),
            ("merge,s", 0.375),
            ("body,merge,s", 0.0),
        ] {
            assert!(close(a.effect(name).unwrap(), want), "{name}");
        }
        assert!(close(a.mu, 41.75));
        assert_eq!(a.verdicts[0].verdict, Verdict::Scales);
        assert_eq!(a.verdicts[1].verdict, Verdict::DoesNotScale);
        let names: Vec<&str> = a.effects.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "body",
                "merge",
                "s",
                "body,merge",
                "body,s",
                "merge,s",
                "body,merge,s"
            ]
        );
    }

    /// Synthetic responses of a program with a parallel body and a serial region: the body's
    /// delay is shared by the workers, the serial region's is not.
    #[test]
    fn a_parallel_and_a_serial_region() {
        let (base, body, serial) = (0.30, 0.40, 0.10);
        let mut responses = vec![Vec::new(); 8];
        for (t, ys) in responses.iter_mut().enumerate() {
            let workers = if t & 4 != 0 { 4.0 } else { 2.0 };
            for rep in 0..3 {
                let noise = [0.001, -0.002, 0.0015][rep] * (1.0 + t as f64 / 8.0);
                let mut y = base * 2.0 / workers + noise;
                if t & 1 != 0 {
                    y += body * 2.0 / workers;
                }
                if t & 2 != 0 {
                    y += serial;
                }
                ys.push(y);
            }
        }
        let e = Experiment::new(vec!["body".into(), "between".into()], responses).unwrap();
        let a = e.analyse(Se::Replicates).unwrap();
        assert_eq!(a.verdicts[0].verdict, Verdict::Scales, "{}", a.to_text());
        assert_eq!(
            a.verdicts[1].verdict,
            Verdict::DoesNotShrink,
            "{}",
            a.to_text()
        );
    }

    #[test]
    fn no_replicates_and_no_se_is_an_error() {
        let e = Experiment::new(vec!["cd".into()], vec![vec![1.0]; 4]).unwrap();
        let m = e.analyse(Se::Replicates).unwrap_err().to_string();
        assert!(m.contains("--se") && m.contains("--replicates"), "{m}");
        assert!(e.analyse(Se::Given(0.0)).is_err());
    }

    #[test]
    fn table_errors_name_the_line_and_the_column() {
        for (text, want) in [
            ("", "empty"),
            ("cd, R\n", "needs a column"),
            ("cd, x, R\n-,-,1\n", "no column `s`"),
            ("cd,s,R\n-,-\n", "line 2: 2 columns"),
            ("cd,s,R\n-,0,1\n", "`0` in column `s`"),
            ("cd,s,R\n-,-,fast\n", "response `fast`"),
            (
                "cd,s,R\n-,-,1\n+,-,1\n-,+,1\n",
                "trial (cd+, s+) has no run",
            ),
        ] {
            let m = from_table(text).unwrap_err().to_string();
            assert!(m.contains(want), "{text:?}: {m}");
        }
        // Whitespace-separated, columns in any order, s first.
        let e = from_table("s cd R\n-1 -1 40\n-1 1 44\n1 -1 24\n1 1 29\n").unwrap();
        assert_eq!(e.responses, [[40.0], [44.0], [24.0], [29.0]]);
    }
}
