//! The run-time model of pipelined parallel reductions of Kuntraruk, Pottenger & Ross (2005),
//! "Application resource requirement estimation in a parallel-pipeline model of execution",
//! *IEEE Transactions on Parallel and Distributed Systems* 16(3), as pure functions.
//!
//! The paper runs N tasks (a task produces a partial result; two partial results are combined by
//! an associative *merge*) on groups of P processors, P a power of two. In a group, after a first
//! step where all P ranks compute, every step has P/2 ranks that send their partial result and
//! compute a new task while the other P/2 receive and merge; partial results climb a binary tree
//! of lg P levels and rank P−1 accumulates the whole result. This module gives:
//!
//! - the speedup model, eqs. (1)–(5): [`sequential_time`], [`unpipelined_parallel_time`] and
//!   [`PipelineSize`] ([`PipelineSize::depth`], [`PipelineSize::speedup_parallel`],
//!   [`PipelineSize::speedup_overall`]);
//! - the M/M/1 delay of one network hop, eq. (7) ([`mm1_delay`]), and the communication time
//!   T_Comm of a path of hops, eqs. (8)–(11) ([`network_delay`]);
//! - the run time T_Total of eq. (6), with every intermediate value ([`predict`],
//!   [`Prediction`]);
//! - the pipeline's schedule: which rank sends to which at each level ([`pipeline_level`]), with
//!   the sender test corrected (the paper's printed test, Fig. 4, is true for no rank at level 1);
//! - the project's own estimates for a master and a binomial-tree reduction, which the paper does
//!   not model ([`own_estimates`]);
//! - the paper's two worked examples, eqs. (12) and (13) ([`PaperExample`]), and the conventions
//!   under which their printed values come out ([`Units`], [`Rounding`]).
//!
//! ```
//! use dls_model::pipeline_model::{predict, PipelineInputs};
//! // Eq. (13): sorting 512 arrays of 10^6 integers on 8 processors.
//! let inputs = PipelineInputs::new(512, 8, 1.39, 8e6, 1.28e9);
//! let p = predict(&inputs).unwrap();
//! assert_eq!(p.steps, 126);
//! assert!((p.compute_term - 176.53).abs() < 1e-9);
//! assert!((p.total - 209.0633).abs() < 1e-4);
//! ```

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

// ---------------------------------------------------------------------------------------------
// Errors

/// One hop of the network path whose utilisation makes the queueing model meaningless.
///
/// ```
/// use dls_model::pipeline_model::{predict, ModelError, PipelineInputs};
/// let e = predict(&PipelineInputs::new(512, 8, 1.39, 20e6, 1.28e9)).unwrap_err();
/// let ModelError::Unstable { hops } = e else { panic!() };
/// assert_eq!(hops[0].name, "spine");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SaturatedHop {
    /// Position of the hop on the path, from 0.
    pub index: usize,
    /// Name of the hop: `leaf1`, `spine`, `leaf2` on the default three-hop path, else `hop K`.
    pub name: String,
    /// Arrival multiplier (messages per T_Comp) of the hop.
    pub fan_in: f64,
    /// Its utilisation ρ = λ·(L·8/C), at least 1.
    pub utilisation: f64,
}

/// Why the model cannot give a prediction. The message names the setting, the hop or the rule
/// that failed.
///
/// ```
/// use dls_model::pipeline_model::{ModelError, PipelineSize};
/// let e = PipelineSize::new(6).unwrap_err();
/// assert_eq!(e, ModelError::NotPowerOfTwo { p: 6 });
/// assert!(e.to_string().contains("largest power of two"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum ModelError {
    /// P is not a power of two ≥ 2, so the ranks cannot be paired over lg P levels.
    NotPowerOfTwo {
        /// The P given.
        p: u64,
    },
    /// A hop has utilisation ρ ≥ 1: its M/M/1 queue grows without bound, eq. (7) has no meaning.
    Unstable {
        /// Every hop with ρ ≥ 1, in path order.
        hops: Vec<SaturatedHop>,
    },
    /// A setting is out of its range.
    Invalid {
        /// The setting, as the field name of [`PipelineInputs`] (`n`, `t_comp`, `fan_ins`...).
        setting: &'static str,
        /// What is wrong and what is allowed.
        message: String,
    },
}

impl ModelError {
    fn invalid(setting: &'static str, message: impl Into<String>) -> Self {
        ModelError::Invalid {
            setting,
            message: message.into(),
        }
    }
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelError::NotPowerOfTwo { p } if *p < 2 => write!(
                f,
                "P = {p}: the parallel pipeline needs at least 2 ranks (a power of two)"
            ),
            ModelError::NotPowerOfTwo { p } => {
                let q = largest_power_of_two_at_most(*p);
                write!(
                    f,
                    "P = {p} is not a power of two: the parallel pipeline pairs its ranks over \
                     lg P levels. The runtime runs it on the largest power of two <= P ({q}) and \
                     first folds each extra rank r >= {q} into rank r - {q}; predict with P = {q}"
                )
            }
            ModelError::Unstable { hops } => {
                f.write_str("the queueing model has no steady state: ")?;
                for (k, h) in hops.iter().enumerate() {
                    if k > 0 {
                        f.write_str("; ")?;
                    }
                    write!(
                        f,
                        "hop {} (hop {} of the path, fan-in {}) has utilisation rho = {:.4} >= 1",
                        h.name,
                        h.index + 1,
                        h.fan_in,
                        h.utilisation
                    )?;
                }
                f.write_str(
                    " (rho = fan-in x (L x 8 / C) / T_Comp); send fewer bytes per task, raise the \
                     capacity C, or give each task more work",
                )
            }
            ModelError::Invalid { setting, message } => write!(f, "{setting}: {message}"),
        }
    }
}

impl std::error::Error for ModelError {}

/// The pipeline's schedule, which the runtime's pipelined reduction runs (always built; here under
/// its old path too).
pub use crate::pipeline_schedule::{
    fold_target, largest_power_of_two_at_most, level_of_step, pipeline_level, Role,
};

// ---------------------------------------------------------------------------------------------
// Pipeline size and the speedup model, eqs. (1)-(5)

/// The number of processors P of one pipeline: a power of two ≥ 2 (Kuntraruk, Pottenger & Ross
/// 2005, footnote 1). Gives lg P and the values of eqs. (3)–(5) and the step counts of eq. (6).
///
/// ```
/// use dls_model::pipeline_model::PipelineSize;
/// let s = PipelineSize::new(8).unwrap();
/// assert_eq!((s.p(), s.lg(), s.depth()), (8, 3, 7));
/// assert!((s.speedup_overall() - 6.857143).abs() < 1e-6);
/// assert!(PipelineSize::new(12).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PipelineSize {
    p: u64,
}

impl PipelineSize {
    /// P, checked: an error unless it is a power of two ≥ 2. The error says that the runtime
    /// runs a pipeline on the largest power of two ≤ P and folds the extra ranks first.
    ///
    /// ```
    /// use dls_model::pipeline_model::PipelineSize;
    /// assert!(PipelineSize::new(16).is_ok());
    /// assert!(PipelineSize::new(1).is_err());
    /// assert!(PipelineSize::new(24).unwrap_err().to_string().contains("P = 16"));
    /// ```
    pub fn new(p: u64) -> Result<Self, ModelError> {
        if p >= 2 && p.is_power_of_two() {
            Ok(PipelineSize { p })
        } else {
            Err(ModelError::NotPowerOfTwo { p })
        }
    }

    /// P.
    ///
    /// ```
    /// assert_eq!(dls_model::pipeline_model::PipelineSize::new(4).unwrap().p(), 4);
    /// ```
    pub fn p(self) -> u64 {
        self.p
    }

    /// lg P = log2 P, the depth of the reduction tree.
    ///
    /// ```
    /// assert_eq!(dls_model::pipeline_model::PipelineSize::new(16).unwrap().lg(), 4);
    /// ```
    pub fn lg(self) -> u32 {
        self.p.trailing_zeros()
    }

    /// Pipeline depth 2·lg P + 1, eq. (3): one compute stage, then lg P sends each followed by a
    /// merge.
    ///
    /// ```
    /// assert_eq!(dls_model::pipeline_model::PipelineSize::new(8).unwrap().depth(), 7);
    /// ```
    pub fn depth(self) -> u32 {
        2 * self.lg() + 1
    }

    /// Speedup of the parallel part S_Par = P / (2·lg P + 1), eq. (4) (it assumes T_Comp ≈
    /// T_Merge ≈ T_Comm and N − 1 ≈ N).
    ///
    /// ```
    /// let s = dls_model::pipeline_model::PipelineSize::new(4).unwrap();
    /// assert!((s.speedup_parallel() - 0.8).abs() < 1e-12);
    /// ```
    pub fn speedup_parallel(self) -> f64 {
        self.p as f64 / f64::from(self.depth())
    }

    /// Overall speedup S_overall = S_Par · 2·lg P = 2P·lg P / (2·lg P + 1), eq. (5) (the
    /// pipeline's effective speedup is 2·lg P, not its depth, because of a hazard in its first
    /// two stages).
    ///
    /// ```
    /// let s = dls_model::pipeline_model::PipelineSize::new(4).unwrap();
    /// assert!((s.speedup_overall() - 3.2).abs() < 1e-12);
    /// ```
    pub fn speedup_overall(self) -> f64 {
        self.speedup_parallel() * 2.0 * f64::from(self.lg())
    }

    /// Steady steps after step 0 for `n` tasks: ceil((n − P) / (P/2)), 0 when n ≤ P. Eq. (6)
    /// writes (N − P)/(P/2), assuming that it divides; a last, partial step takes a full step.
    ///
    /// ```
    /// let s = dls_model::pipeline_model::PipelineSize::new(16).unwrap();
    /// assert_eq!(s.steps(512), 62);
    /// assert_eq!(s.steps(513), 63);
    /// assert_eq!(s.steps(10), 0);
    /// ```
    pub fn steps(self, n: u64) -> u64 {
        let half = self.p / 2;
        n.saturating_sub(self.p).div_ceil(half)
    }

    /// All levels (send-and-merge steps after step 0) of a finite run of `n` tasks:
    /// [`steps`](Self::steps) + lg P, the last lg P levels draining the pipeline (the senders
    /// have no task left) until rank P−1 holds the whole result.
    ///
    /// ```
    /// let s = dls_model::pipeline_model::PipelineSize::new(8).unwrap();
    /// assert_eq!(s.levels(512), 129);
    /// ```
    pub fn levels(self, n: u64) -> u64 {
        self.steps(n) + u64::from(self.lg())
    }
}

/// Sequential time T_Seq = N·T_Comp + (N − 1)·T_Merge, eq. (1): N tasks, then N − 1 merges.
///
/// ```
/// use dls_model::pipeline_model::sequential_time;
/// assert_eq!(sequential_time(4, 1.0, 0.5), 5.5);
/// assert_eq!(sequential_time(0, 1.0, 0.5), 0.0);
/// ```
pub fn sequential_time(n: u64, t_comp: f64, t_merge: f64) -> f64 {
    n as f64 * t_comp + n.saturating_sub(1) as f64 * t_merge
}

/// Parallel time without pipelining, T_Par = (N/(P/2))·T_Comp + (N/(P/2))·(T_Merge +
/// T_Comm)·lg P, eq. (2): N tasks on P/2 computing ranks, each output climbing lg P levels.
///
/// ```
/// use dls_model::pipeline_model::{unpipelined_parallel_time, sequential_time, PipelineSize};
/// let s = PipelineSize::new(8).unwrap();
/// let t = unpipelined_parallel_time(80, s, 1.0, 1.0, 1.0);
/// assert_eq!(t, 20.0 + 20.0 * 2.0 * 3.0);
/// // With T_Comp = T_Merge = T_Comm and N large, T_Seq / T_Par tends to eq. (4).
/// let ratio = sequential_time(1_000_000, 1.0, 1.0) / unpipelined_parallel_time(1_000_000, s, 1.0, 1.0, 1.0);
/// assert!((ratio - s.speedup_parallel()).abs() < 1e-5);
/// ```
pub fn unpipelined_parallel_time(
    n: u64,
    size: PipelineSize,
    t_comp: f64,
    t_merge: f64,
    t_comm: f64,
) -> f64 {
    let rounds = n as f64 / (size.p() as f64 / 2.0);
    rounds * t_comp + rounds * (t_merge + t_comm) * f64::from(size.lg())
}

// ---------------------------------------------------------------------------------------------
// Units and rounding conventions

/// How the prefixes k, M, G, T of a message size or a capacity are read: decimal (k = 10^3,
/// M = 10^6, G = 10^9) or binary (2^10, 2^20, 2^30). Kuntraruk, Pottenger & Ross (2005) write
/// "8 MB" and "1.28 Gbit/s" without saying which.
///
/// ```
/// use dls_model::pipeline_model::Units;
/// assert_eq!(Units::Binary.factor('M'), Some(1048576.0));
/// assert_eq!("decimal".parse::<Units>().unwrap(), Units::Decimal);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Units {
    /// k = 1e3, M = 1e6, G = 1e9, T = 1e12.
    #[default]
    Decimal,
    /// k = 2^10, M = 2^20, G = 2^30, T = 2^40.
    Binary,
}

impl Units {
    /// Both, decimal first.
    ///
    /// ```
    /// assert_eq!(dls_model::pipeline_model::Units::ALL.len(), 2);
    /// ```
    pub const ALL: [Units; 2] = [Units::Decimal, Units::Binary];

    /// The multiplier of prefix `k`, `M`, `G` or `T` (`K` too), `None` for another character.
    ///
    /// ```
    /// use dls_model::pipeline_model::Units;
    /// assert_eq!(Units::Decimal.factor('G'), Some(1e9));
    /// assert_eq!(Units::Binary.factor('k'), Some(1024.0));
    /// assert_eq!(Units::Binary.factor('x'), None);
    /// ```
    pub fn factor(self, prefix: char) -> Option<f64> {
        let power = match prefix {
            'k' | 'K' => 1,
            'M' => 2,
            'G' => 3,
            'T' => 4,
            _ => return None,
        };
        let base: f64 = match self {
            Units::Decimal => 1000.0,
            Units::Binary => 1024.0,
        };
        Some(base.powi(power))
    }

    /// `decimal` or `binary`.
    ///
    /// ```
    /// assert_eq!(dls_model::pipeline_model::Units::Binary.name(), "binary");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Units::Decimal => "decimal",
            Units::Binary => "binary",
        }
    }
}

impl fmt::Display for Units {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Units {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "decimal" => Ok(Units::Decimal),
            "binary" => Ok(Units::Binary),
            _ => Err(format!("`{s}` is not a unit system: use decimal or binary")),
        }
    }
}

/// Reads a non-negative number with an optional prefix k, M, G or T scaled by `units`:
/// `8e6`, `8M`, `1.28G`, `23720`.
///
/// ```
/// use dls_model::pipeline_model::{parse_quantity, Units};
/// assert_eq!(parse_quantity("8M", Units::Decimal), Ok(8e6));
/// assert_eq!(parse_quantity("8M", Units::Binary), Ok(8.0 * 1048576.0));
/// assert_eq!(parse_quantity("1.28e9", Units::Binary), Ok(1.28e9));
/// assert!(parse_quantity("8 parsecs", Units::Decimal).is_err());
/// ```
pub fn parse_quantity(text: &str, units: Units) -> Result<f64, String> {
    let t = text.trim();
    let (number, factor) = match t.chars().last().and_then(|c| units.factor(c)) {
        Some(f) => (&t[..t.len() - 1], f),
        None => (t, 1.0),
    };
    match number.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v * factor),
        _ => Err(format!(
            "`{text}` is not a number >= 0 with an optional prefix k, M, G or T (e.g. 8e6, 8M, 1.28G)"
        )),
    }
}

/// What is done to each hop's delay before T_Comm sums them (eq. 11).
///
/// The exact formula is [`Rounding::None`]. Kuntraruk, Pottenger & Ross's (2005) eq. (13)
/// communication term, 31.5 s = 126 × 0.25 s, comes out only when each per-hop delay is cut to
/// two decimals before summing (0.07 + 0.11 + 0.07): rounding with binary units
/// ([`Rounding::Hop2dp`]) or truncating with decimal units ([`Rounding::Hop2dpTruncate`]).
///
/// ```
/// use dls_model::pipeline_model::Rounding;
/// assert_eq!(Rounding::Hop2dp.apply(0.0679135), 0.07);
/// assert_eq!(Rounding::Hop2dpTruncate.apply(0.1177966), 0.11);
/// assert_eq!("hop-2dp".parse::<Rounding>().unwrap(), Rounding::Hop2dp);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Rounding {
    /// The exact delays.
    #[default]
    #[serde(rename = "none")]
    None,
    /// Each hop's delay rounded to two decimals (half away from zero).
    #[serde(rename = "hop-2dp")]
    Hop2dp,
    /// Each hop's delay truncated to two decimals.
    #[serde(rename = "hop-2dp-trunc")]
    Hop2dpTruncate,
}

impl Rounding {
    /// The three conventions.
    ///
    /// ```
    /// assert_eq!(dls_model::pipeline_model::Rounding::ALL.len(), 3);
    /// ```
    pub const ALL: [Rounding; 3] = [Rounding::None, Rounding::Hop2dp, Rounding::Hop2dpTruncate];

    /// `delay` (seconds) under this convention.
    ///
    /// ```
    /// use dls_model::pipeline_model::Rounding;
    /// assert_eq!(Rounding::None.apply(0.1177966), 0.1177966);
    /// assert_eq!(Rounding::Hop2dp.apply(0.1177966), 0.12);
    /// assert_eq!(Rounding::Hop2dpTruncate.apply(0.29), 0.29);
    /// ```
    pub fn apply(self, delay: f64) -> f64 {
        match self {
            Rounding::None => delay,
            Rounding::Hop2dp => (delay * 100.0).round() / 100.0,
            // The small nudge keeps values already on two decimals (0.29 * 100 = 28.999...).
            Rounding::Hop2dpTruncate => ((delay * 100.0) + 1e-9).floor() / 100.0,
        }
    }

    /// `none`, `hop-2dp` or `hop-2dp-trunc`.
    ///
    /// ```
    /// assert_eq!(dls_model::pipeline_model::Rounding::Hop2dpTruncate.name(), "hop-2dp-trunc");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Rounding::None => "none",
            Rounding::Hop2dp => "hop-2dp",
            Rounding::Hop2dpTruncate => "hop-2dp-trunc",
        }
    }
}

impl fmt::Display for Rounding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Rounding {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "none" => Ok(Rounding::None),
            "hop-2dp" => Ok(Rounding::Hop2dp),
            "hop-2dp-trunc" => Ok(Rounding::Hop2dpTruncate),
            _ => Err(format!(
                "`{s}` is not a rounding convention: use none, hop-2dp or hop-2dp-trunc"
            )),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The network: eqs. (7)-(11)

/// Arrival multipliers of the paper's path host → leaf switch → spine → leaf switch (Myrinet
/// 16-port switches, Fig. 3): 8 hosts per leaf, 16 links into a spine, eqs. (8)–(10).
///
/// ```
/// assert_eq!(dls_model::pipeline_model::DEFAULT_FAN_INS, [8.0, 16.0, 8.0]);
/// ```
pub const DEFAULT_FAN_INS: [f64; 3] = [8.0, 16.0, 8.0];

/// The name of hop `index` (from 0) on a path of `count` hops: `leaf1`, `spine`, `leaf2` on a
/// three-hop path as the paper's, else `hop K` with K = index + 1.
///
/// ```
/// use dls_model::pipeline_model::hop_name;
/// assert_eq!(hop_name(1, 3), "spine");
/// assert_eq!(hop_name(0, 2), "hop 1");
/// ```
pub fn hop_name(index: usize, count: usize) -> String {
    match (count, index) {
        (3, 0) => "leaf1".to_string(),
        (3, 1) => "spine".to_string(),
        (3, 2) => "leaf2".to_string(),
        _ => format!("hop {}", index + 1),
    }
}

/// Mean response time of an M/M/1 hop, eq. (7): D = S/(1 − ρ) + τ with ρ = λ·S, where S = L/C is
/// the time to put one message on the link, λ the arrival rate (messages per second) and τ the
/// propagation delay. `None` when ρ ≥ 1 (the queue has no steady state).
///
/// ```
/// use dls_model::pipeline_model::mm1_delay;
/// // S = 0.05 s, λ = 16 / 1.39 per s: the spine of eq. (13), decimal units.
/// let d = mm1_delay(0.05, 16.0 / 1.39, 0.0).unwrap();
/// assert!((d - 0.1177966).abs() < 1e-7);
/// assert_eq!(mm1_delay(0.1, 10.0, 0.0), None);
/// ```
pub fn mm1_delay(service_time: f64, arrival_rate: f64, tau: f64) -> Option<f64> {
    let rho = arrival_rate * service_time;
    (rho < 1.0).then(|| service_time / (1.0 - rho) + tau)
}

/// One hop of T_Comm, with its intermediate values.
///
/// ```
/// use dls_model::pipeline_model::{predict, PipelineInputs};
/// let p = predict(&PipelineInputs::new(512, 8, 1.39, 8e6, 1.28e9)).unwrap();
/// assert_eq!(p.hops[1].name, "spine");
/// assert!((p.hops[1].utilisation - 0.575540).abs() < 1e-6);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HopDelay {
    /// Position on the path, from 0.
    pub index: usize,
    /// `leaf1`, `spine`, `leaf2`, or `hop K` (see [`hop_name`]).
    pub name: String,
    /// Arrival multiplier: messages into this hop per T_Comp.
    pub fan_in: f64,
    /// λ = fan-in / T_Comp, messages per second.
    pub arrival_rate: f64,
    /// ρ = λ·(L·8/C).
    pub utilisation: f64,
    /// D of eq. (7), seconds, before rounding.
    pub exact_delay: f64,
    /// D after the [`Rounding`] convention: the value T_Comm sums.
    pub delay: f64,
}

/// The delays of the hops of a path and their sum T_Comm, eqs. (8)–(11): each hop receives
/// `fan_in` messages per `t_comp` (λ = fan_in / T_Comp), each taking `wire_time` = L·8/C seconds
/// to transmit, plus `tau` of propagation per hop; each delay goes through `rounding` before the
/// sum. An error names every hop with ρ ≥ 1.
///
/// ```
/// use dls_model::pipeline_model::{network_delay, ModelError, Rounding};
/// let (hops, t) = network_delay(0.05, 1.39, &[8.0, 16.0, 8.0], 0.0, Rounding::Hop2dpTruncate).unwrap();
/// assert_eq!(hops.iter().map(|h| h.delay).collect::<Vec<_>>(), [0.07, 0.11, 0.07]);
/// assert!((t - 0.25).abs() < 1e-12);
/// let e = network_delay(0.125, 1.39, &[8.0, 16.0, 8.0], 0.0, Rounding::None).unwrap_err();
/// assert!(e.to_string().contains("hop spine"));
/// ```
pub fn network_delay(
    wire_time: f64,
    t_comp: f64,
    fan_ins: &[f64],
    tau: f64,
    rounding: Rounding,
) -> Result<(Vec<HopDelay>, f64), ModelError> {
    let mut hops = Vec::with_capacity(fan_ins.len());
    let mut saturated = Vec::new();
    for (index, &fan_in) in fan_ins.iter().enumerate() {
        let name = hop_name(index, fan_ins.len());
        let arrival_rate = fan_in / t_comp;
        let utilisation = arrival_rate * wire_time;
        match mm1_delay(wire_time, arrival_rate, tau) {
            Some(exact_delay) => hops.push(HopDelay {
                index,
                name,
                fan_in,
                arrival_rate,
                utilisation,
                exact_delay,
                delay: rounding.apply(exact_delay),
            }),
            None => saturated.push(SaturatedHop {
                index,
                name,
                fan_in,
                utilisation,
            }),
        }
    }
    if !saturated.is_empty() {
        return Err(ModelError::Unstable { hops: saturated });
    }
    let t_comm = hops.iter().map(|h| h.delay).sum();
    Ok((hops, t_comm))
}

// ---------------------------------------------------------------------------------------------
// T_Total, eq. (6)

/// The inputs of the run-time model. [`PipelineInputs::new`] sets the paper's defaults for the
/// rest: one group, T_Merge = T_Comp, the fan-ins [8, 16, 8], τ = 0, no drain, exact delays.
///
/// ```
/// use dls_model::pipeline_model::{predict, PipelineInputs};
/// // Eq. (12): 4096 documents on 128 processors in 8 groups of 16.
/// let mut i = PipelineInputs::new(4096, 16, 0.15, 23_720.0, 1.28e9);
/// i.groups = 8;
/// let p = predict(&i).unwrap();
/// assert_eq!((p.n_per_group, p.steps), (512, 62));
/// assert!((p.total - 9.4779).abs() < 1e-4);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PipelineInputs {
    /// N: tasks in all (a task yields one partial result; in dls, a chunk).
    pub n: u64,
    /// P: ranks of one pipeline, a power of two ≥ 2.
    pub p: u64,
    /// G: pipelines running side by side, each on its share N/G of the tasks (rounded up).
    pub groups: u64,
    /// T_Comp: seconds of one task.
    pub t_comp: f64,
    /// T_Merge: seconds of one merge; `None` takes T_Comp, as the paper does.
    pub t_merge: Option<f64>,
    /// L: bytes of one message (one partial result).
    pub message_bytes: f64,
    /// C: capacity of a link, bit/s.
    pub capacity: f64,
    /// The arrival multiplier of each hop of the path (messages per T_Comp).
    pub fan_ins: Vec<f64>,
    /// τ: propagation delay of each hop, seconds (the paper sets it to 0).
    pub tau: f64,
    /// Add eq. (6)'s drain terms lg P·T_Merge + lg P·T_Comm (the paper's worked examples leave
    /// them out).
    pub drain: bool,
    /// What is done to each hop's delay before summing.
    pub rounding: Rounding,
}

impl PipelineInputs {
    /// N tasks of `t_comp` seconds on pipelines of `p` ranks, messages of `message_bytes` bytes on
    /// links of `capacity` bit/s; one group, T_Merge = T_Comp, fan-ins [8, 16, 8], τ = 0, no
    /// drain, no rounding.
    ///
    /// ```
    /// use dls_model::pipeline_model::{PipelineInputs, Rounding};
    /// let i = PipelineInputs::new(512, 8, 1.39, 8e6, 1.28e9);
    /// assert_eq!((i.groups, i.t_merge, i.drain, i.rounding), (1, None, false, Rounding::None));
    /// assert_eq!(i.fan_ins, [8.0, 16.0, 8.0]);
    /// ```
    pub fn new(n: u64, p: u64, t_comp: f64, message_bytes: f64, capacity: f64) -> Self {
        PipelineInputs {
            n,
            p,
            groups: 1,
            t_comp,
            t_merge: None,
            message_bytes,
            capacity,
            fan_ins: DEFAULT_FAN_INS.to_vec(),
            tau: 0.0,
            drain: false,
            rounding: Rounding::None,
        }
    }

    /// T_Merge: the one given, or T_Comp.
    ///
    /// ```
    /// let mut i = dls_model::pipeline_model::PipelineInputs::new(64, 8, 2.0, 1e3, 1e9);
    /// assert_eq!(i.merge_time(), 2.0);
    /// i.t_merge = Some(0.5);
    /// assert_eq!(i.merge_time(), 0.5);
    /// ```
    pub fn merge_time(&self) -> f64 {
        self.t_merge.unwrap_or(self.t_comp)
    }

    /// L·8/C: seconds to transmit one message on one link.
    ///
    /// ```
    /// let i = dls_model::pipeline_model::PipelineInputs::new(512, 8, 1.39, 8e6, 1.28e9);
    /// assert!((i.wire_time() - 0.05).abs() < 1e-15);
    /// ```
    pub fn wire_time(&self) -> f64 {
        self.message_bytes * 8.0 / self.capacity
    }

    /// Checks every setting's range; the error names the setting.
    ///
    /// ```
    /// use dls_model::pipeline_model::{ModelError, PipelineInputs};
    /// let mut i = PipelineInputs::new(512, 8, 1.39, 8e6, 1.28e9);
    /// assert!(i.validate().is_ok());
    /// i.t_comp = 0.0;
    /// assert!(matches!(i.validate(), Err(ModelError::Invalid { setting: "t_comp", .. })));
    /// ```
    pub fn validate(&self) -> Result<PipelineSize, ModelError> {
        let size = PipelineSize::new(self.p)?;
        if self.n == 0 {
            return Err(ModelError::invalid(
                "n",
                "the number of tasks N must be at least 1",
            ));
        }
        if self.groups == 0 || self.groups > self.n {
            return Err(ModelError::invalid(
                "groups",
                format!(
                    "the number of groups G must be from 1 to N = {}, got {}",
                    self.n, self.groups
                ),
            ));
        }
        let positive = |setting: &'static str, v: f64, what: &str| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(ModelError::invalid(
                    setting,
                    format!("{what} must be a number > 0, got {v}"),
                ))
            }
        };
        let non_negative = |setting: &'static str, v: f64, what: &str| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(ModelError::invalid(
                    setting,
                    format!("{what} must be a number >= 0, got {v}"),
                ))
            }
        };
        positive("t_comp", self.t_comp, "T_Comp (seconds of one task)")?;
        if let Some(m) = self.t_merge {
            non_negative("t_merge", m, "T_Merge (seconds of one merge)")?;
        }
        non_negative("message_bytes", self.message_bytes, "L (bytes per message)")?;
        positive("capacity", self.capacity, "C (link capacity, bit/s)")?;
        non_negative("tau", self.tau, "tau (propagation delay per hop, seconds)")?;
        if self.fan_ins.is_empty() {
            return Err(ModelError::invalid(
                "fan_ins",
                "give at least one hop (the paper's path is 8,16,8)",
            ));
        }
        for &f in &self.fan_ins {
            positive("fan_ins", f, "every hop's fan-in")?;
        }
        Ok(size)
    }
}

/// The prediction of eq. (6) with every intermediate value.
///
/// T_Total = (steps + 1)·T_Comp + steps·T_Comm [+ lg P·T_Merge + lg P·T_Comm with the drain],
/// steps = ceil((N/G − P)/(P/2)): step 0 where all P ranks compute, then `steps` steady steps
/// each ending with a communication; the drain is the last tasks' lg P merges and sends.
///
/// ```
/// use dls_model::pipeline_model::{predict, PipelineInputs};
/// let mut i = PipelineInputs::new(512, 8, 1.39, 8e6, 1.28e9);
/// i.drain = true;
/// let p = predict(&i).unwrap();
/// assert!((p.drain_term - (3.0 * 1.39 + 3.0 * p.t_comm)).abs() < 1e-12);
/// assert!((p.total - 214.0079).abs() < 1e-4);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    /// N: tasks in all.
    pub n: u64,
    /// G: groups (pipelines side by side).
    pub groups: u64,
    /// N/G rounded up: tasks of the busiest group, which eq. (6) is evaluated with.
    pub n_per_group: u64,
    /// P: ranks per pipeline.
    pub p: u64,
    /// lg P.
    pub lg_p: u32,
    /// Pipeline depth 2·lg P + 1, eq. (3).
    pub depth: u32,
    /// Steady steps after step 0: ceil((N/G − P)/(P/2)), 0 when N/G ≤ P.
    pub steps: u64,
    /// All send-and-merge levels of the finite run: steps + lg P.
    pub levels: u64,
    /// T_Comp, seconds.
    pub t_comp: f64,
    /// T_Merge used by the drain, seconds.
    pub t_merge: f64,
    /// L·8/C, seconds to transmit one message.
    pub wire_time: f64,
    /// Each hop's arrival rate, utilisation and delay.
    pub hops: Vec<HopDelay>,
    /// T_Comm = the sum of the hops' delays, eq. (11).
    pub t_comm: f64,
    /// (steps + 1)·T_Comp.
    pub compute_term: f64,
    /// steps·T_Comm.
    pub comm_term: f64,
    /// lg P·T_Merge + lg P·T_Comm with the drain, else 0.
    pub drain_term: f64,
    /// T_Total, seconds.
    pub total: f64,
    /// Whether the drain terms are in.
    pub drain: bool,
    /// The rounding of the hops' delays.
    pub rounding: Rounding,
}

/// Evaluates eq. (6) of Kuntraruk, Pottenger & Ross (2005) for `inputs`, with T_Comm from the
/// M/M/1 hops of eqs. (7)–(11). Errors: P not a power of two ≥ 2, a setting out of range, or a
/// hop with utilisation ρ ≥ 1 (named, with its ρ).
///
/// ```
/// use dls_model::pipeline_model::{predict, PipelineInputs};
/// let p = predict(&PipelineInputs::new(512, 8, 1.39, 8e6, 1.28e9)).unwrap();
/// assert!((p.t_comm - 0.2582007).abs() < 1e-7);
/// assert!((p.comm_term - 32.5333).abs() < 1e-4);
/// assert!(predict(&PipelineInputs::new(512, 6, 1.39, 8e6, 1.28e9)).is_err());
/// ```
pub fn predict(inputs: &PipelineInputs) -> Result<Prediction, ModelError> {
    let size = inputs.validate()?;
    let wire_time = inputs.wire_time();
    let (hops, t_comm) = network_delay(
        wire_time,
        inputs.t_comp,
        &inputs.fan_ins,
        inputs.tau,
        inputs.rounding,
    )?;
    let n_per_group = inputs.n.div_ceil(inputs.groups);
    let steps = size.steps(n_per_group);
    let lg = f64::from(size.lg());
    let t_merge = inputs.merge_time();
    let compute_term = (steps + 1) as f64 * inputs.t_comp;
    let comm_term = steps as f64 * t_comm;
    let drain_term = if inputs.drain {
        lg * t_merge + lg * t_comm
    } else {
        0.0
    };
    Ok(Prediction {
        n: inputs.n,
        groups: inputs.groups,
        n_per_group,
        p: size.p(),
        lg_p: size.lg(),
        depth: size.depth(),
        steps,
        levels: size.levels(n_per_group),
        t_comp: inputs.t_comp,
        t_merge,
        wire_time,
        hops,
        t_comm,
        compute_term,
        comm_term,
        drain_term,
        total: compute_term + comm_term + drain_term,
        drain: inputs.drain,
        rounding: inputs.rounding,
    })
}

// ---------------------------------------------------------------------------------------------
// The project's own estimates for master and binomial-tree reductions

/// Time of a master reduction of `ranks` partial results: the master receives and merges the
/// other `ranks − 1` one after the other, (P − 1)·(T_Merge + T_Comm). **The project's own
/// estimate**, not from Kuntraruk, Pottenger & Ross (2005), who give no timing model for it.
///
/// ```
/// assert_eq!(dls_model::pipeline_model::master_reduction_time(8, 1.0, 0.5), 10.5);
/// assert_eq!(dls_model::pipeline_model::master_reduction_time(1, 1.0, 0.5), 0.0);
/// ```
pub fn master_reduction_time(ranks: u64, t_merge: f64, t_comm: f64) -> f64 {
    ranks.saturating_sub(1) as f64 * (t_merge + t_comm)
}

/// Time of a binomial-tree reduction of `ranks` partial results: ceil(lg P) levels of one send
/// and one merge, ceil(lg P)·(T_Merge + T_Comm). **The project's own estimate**, not from
/// Kuntraruk, Pottenger & Ross (2005).
///
/// ```
/// assert_eq!(dls_model::pipeline_model::tree_reduction_time(8, 1.0, 0.5), 4.5);
/// assert_eq!(dls_model::pipeline_model::tree_reduction_time(5, 1.0, 0.5), 4.5);
/// assert_eq!(dls_model::pipeline_model::tree_reduction_time(1, 1.0, 0.5), 0.0);
/// ```
pub fn tree_reduction_time(ranks: u64, t_merge: f64, t_comm: f64) -> f64 {
    let levels = if ranks <= 1 {
        0
    } else {
        64 - (ranks - 1).leading_zeros()
    };
    f64::from(levels) * (t_merge + t_comm)
}

/// The project's own estimates (not from the paper) of the same N tasks on `ranks` ranks when each
/// rank folds its tasks into one partial result as it goes (as a dls loop with `reduce` does) and
/// the `ranks` partial results are combined once at the end.
///
/// ```
/// use dls_model::pipeline_model::own_estimates;
/// let e = own_estimates(512, 8, 1.39, 1.39, 0.25);
/// assert!((e.compute - 64.0 * 1.39).abs() < 1e-9);
/// assert!((e.master - (e.compute + 7.0 * 1.64)).abs() < 1e-9);
/// assert!((e.tree - (e.compute + 3.0 * 1.64)).abs() < 1e-9);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OwnEstimates {
    /// The ranks.
    pub ranks: u64,
    /// ceil(N / ranks)·T_Comp: the busiest rank's tasks.
    pub compute: f64,
    /// compute + [`master_reduction_time`].
    pub master: f64,
    /// compute + [`tree_reduction_time`].
    pub tree: f64,
}

/// Computes [`OwnEstimates`] for `n` tasks of `t_comp` seconds on `ranks` ranks (at least 1),
/// merges of `t_merge` and messages of `t_comm` seconds.
///
/// ```
/// let e = dls_model::pipeline_model::own_estimates(10, 4, 1.0, 0.1, 0.1);
/// assert_eq!(e.compute, 3.0);
/// ```
pub fn own_estimates(n: u64, ranks: u64, t_comp: f64, t_merge: f64, t_comm: f64) -> OwnEstimates {
    let ranks = ranks.max(1);
    let compute = n.div_ceil(ranks) as f64 * t_comp;
    OwnEstimates {
        ranks,
        compute,
        master: compute + master_reduction_time(ranks, t_merge, t_comm),
        tree: compute + tree_reduction_time(ranks, t_merge, t_comm),
    }
}

// ---------------------------------------------------------------------------------------------
// The paper's worked examples

/// One of the two worked examples of Kuntraruk, Pottenger & Ross (2005), with its inputs and the
/// values the paper prints.
///
/// ```
/// use dls_model::pipeline_model::{predict, PaperExample, Rounding, Units};
/// let mut i = PaperExample::Eq13.inputs(Units::Binary);
/// i.rounding = Rounding::Hop2dp;
/// let p = predict(&i).unwrap();
/// assert!((p.total - PaperExample::Eq13.printed().total).abs() < 1e-9);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PaperExample {
    /// Eq. (12), feature extraction (Sec. VI-B): N = 4096 documents on 128 processors in G = 8
    /// groups of P = 16, T_Comp = 0.15 s, L = 23,720 bytes, C = 1.28 Gbit/s.
    Eq12,
    /// Eq. (13), sorting (Sec. VII-D): N = 512 arrays of 10^6 integers, P = 8, T_Comp = 1.39 s,
    /// L = 8 MB, C = 1.28 Gbit/s.
    Eq13,
}

/// The values a worked example prints: the compute term, the communication term and T_Total
/// (seconds; the drain left out).
///
/// ```
/// let v = dls_model::pipeline_model::PaperExample::Eq12.printed();
/// assert_eq!((v.compute_term, v.comm_term, v.total), (9.45, 0.16, 9.61));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PrintedValues {
    /// The printed compute term.
    pub compute_term: f64,
    /// The printed communication term.
    pub comm_term: f64,
    /// The printed T_Total.
    pub total: f64,
}

impl PaperExample {
    /// Both examples.
    ///
    /// ```
    /// assert_eq!(dls_model::pipeline_model::PaperExample::ALL.len(), 2);
    /// ```
    pub const ALL: [PaperExample; 2] = [PaperExample::Eq12, PaperExample::Eq13];

    /// The example's inputs, its sizes read with `units` (eq. 12's L is plain bytes; its C and
    /// eq. 13's L and C carry prefixes). The drain is off and delays exact, as in the paper's
    /// derivation; set [`PipelineInputs::rounding`] and [`PipelineInputs::drain`] to vary them.
    ///
    /// ```
    /// use dls_model::pipeline_model::{PaperExample, Units};
    /// let i = PaperExample::Eq13.inputs(Units::Binary);
    /// assert_eq!(i.message_bytes, 8.0 * 1048576.0);
    /// assert_eq!(i.capacity, 1.28 * 1073741824.0);
    /// assert_eq!(PaperExample::Eq12.inputs(Units::Binary).message_bytes, 23_720.0);
    /// ```
    pub fn inputs(self, units: Units) -> PipelineInputs {
        let giga = units.factor('G').unwrap_or(1e9);
        let mega = units.factor('M').unwrap_or(1e6);
        match self {
            PaperExample::Eq12 => {
                let mut i = PipelineInputs::new(4096, 16, 0.15, 23_720.0, 1.28 * giga);
                i.groups = 8;
                i
            }
            PaperExample::Eq13 => PipelineInputs::new(512, 8, 1.39, 8.0 * mega, 1.28 * giga),
        }
    }

    /// What the paper prints: eq. (12) 9.45 + 0.16 = 9.61 s, eq. (13) 176.53 + 31.5 = 208.03 s.
    ///
    /// ```
    /// let v = dls_model::pipeline_model::PaperExample::Eq13.printed();
    /// assert_eq!(v.total, 208.03);
    /// ```
    pub fn printed(self) -> PrintedValues {
        match self {
            PaperExample::Eq12 => PrintedValues {
                compute_term: 9.45,
                comm_term: 0.16,
                total: 9.61,
            },
            PaperExample::Eq13 => PrintedValues {
                compute_term: 176.53,
                comm_term: 31.5,
                total: 208.03,
            },
        }
    }

    /// `eq12` or `eq13`.
    ///
    /// ```
    /// assert_eq!(dls_model::pipeline_model::PaperExample::Eq12.name(), "eq12");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            PaperExample::Eq12 => "eq12",
            PaperExample::Eq13 => "eq13",
        }
    }

    /// One line on what the example is.
    ///
    /// ```
    /// assert!(dls_model::pipeline_model::PaperExample::Eq13.describe().contains("sorting"));
    /// ```
    pub fn describe(self) -> &'static str {
        match self {
            PaperExample::Eq12 => {
                "eq. (12), feature extraction: N = 4096 documents, 128 processors in G = 8 groups \
                 of P = 16, T_Comp = 0.15 s, L = 23720 bytes, C = 1.28 Gbit/s"
            }
            PaperExample::Eq13 => {
                "eq. (13), sorting: N = 512 arrays of 10^6 integers, P = 8, T_Comp = 1.39 s, \
                 L = 8 MB, C = 1.28 Gbit/s"
            }
        }
    }
}

impl fmt::Display for PaperExample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for PaperExample {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "eq12" => Ok(PaperExample::Eq12),
            "eq13" => Ok(PaperExample::Eq13),
            _ => Err(format!("`{s}` is not a worked example: use eq12 or eq13")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    fn eq12(units: Units, rounding: Rounding, drain: bool) -> Prediction {
        let mut i = PaperExample::Eq12.inputs(units);
        i.rounding = rounding;
        i.drain = drain;
        predict(&i).unwrap()
    }

    fn eq13(units: Units, rounding: Rounding, drain: bool) -> Prediction {
        let mut i = PaperExample::Eq13.inputs(units);
        i.rounding = rounding;
        i.drain = drain;
        predict(&i).unwrap()
    }

    #[test]
    fn eq12_exact_formula() {
        let p = eq12(Units::Decimal, Rounding::None, false);
        assert_eq!(
            (p.n_per_group, p.p, p.lg_p, p.steps, p.levels),
            (512, 16, 4, 62, 66)
        );
        assert!(close(p.compute_term, 9.45, 1e-12), "{}", p.compute_term);
        assert!(close(p.wire_time, 1.4825e-4, 1e-12));
        assert!(close(p.hops[0].utilisation, 0.0079067, 1e-7));
        assert!(close(p.hops[1].utilisation, 0.0158133, 1e-7));
        assert!(close(p.hops[2].utilisation, 0.0079067, 1e-7));
        assert!(close(p.hops[0].delay, 1.494315e-4, 1e-10));
        assert!(close(p.hops[1].delay, 1.506320e-4, 1e-10));
        assert!(close(p.t_comm, 4.494950e-4, 1e-10), "{}", p.t_comm);
        assert!(close(p.comm_term, 0.02787, 1e-5));
        assert_eq!(p.drain_term, 0.0);
        assert!(close(p.total, 9.4779, 5e-5), "{}", p.total);
        // The paper's 0.16 s is about 5.7 times the formula's communication term.
        assert!(close(0.16 / p.comm_term, 5.74, 0.01));

        let b = eq12(Units::Binary, Rounding::None, false);
        assert!(close(b.t_comm, 4.183180e-4, 1e-10), "{}", b.t_comm);
        assert!(close(b.comm_term, 0.02594, 1e-5));
        assert!(close(b.total, 9.4759, 5e-5), "{}", b.total);

        let d = eq12(Units::Decimal, Rounding::None, true);
        assert!(close(d.drain_term, 4.0 * 0.15 + 4.0 * d.t_comm, 1e-12));
        assert!(close(d.total, 10.0797, 5e-5), "{}", d.total);
    }

    #[test]
    fn eq13_exact_formula_both_units() {
        let d = eq13(Units::Decimal, Rounding::None, false);
        assert_eq!((d.steps, d.levels, d.depth), (126, 129, 7));
        assert!(close(d.compute_term, 176.53, 1e-9));
        assert!(close(d.wire_time, 0.05, 1e-15));
        let rho: Vec<f64> = d.hops.iter().map(|h| h.utilisation).collect();
        assert!(close(rho[0], 0.287770, 1e-6) && close(rho[1], 0.575540, 1e-6));
        assert!(close(rho[2], 0.287770, 1e-6));
        assert!(close(d.hops[0].delay, 0.0702020, 1e-7));
        assert!(close(d.hops[1].delay, 0.1177966, 1e-7));
        assert!(close(d.t_comm, 0.2582007, 1e-7), "{}", d.t_comm);
        assert!(close(d.comm_term, 32.5333, 1e-4));
        assert!(close(d.total, 209.0633, 5e-5), "{}", d.total);

        let b = eq13(Units::Binary, Rounding::None, false);
        assert!(close(b.wire_time, 0.048828125, 1e-15));
        assert!(close(b.hops[0].utilisation, 0.281025, 1e-6));
        assert!(close(b.hops[1].utilisation, 0.562050, 1e-6));
        assert!(close(b.hops[0].delay, 0.0679135, 1e-7));
        assert!(close(b.hops[1].delay, 0.1114926, 1e-7));
        assert!(close(b.t_comm, 0.2473196, 1e-7), "{}", b.t_comm);
        assert!(close(b.comm_term, 31.1623, 1e-4));
        assert!(close(b.total, 207.6923, 5e-5), "{}", b.total);

        let drained = eq13(Units::Decimal, Rounding::None, true);
        assert!(close(drained.total, 214.0079, 5e-5), "{}", drained.total);
    }

    #[test]
    fn eq13_paper_value_only_with_hop_delays_cut_to_two_decimals() {
        // Rounding with binary units, or truncating with decimal units: 0.07 + 0.11 + 0.07.
        for (units, rounding) in [
            (Units::Binary, Rounding::Hop2dp),
            (Units::Decimal, Rounding::Hop2dpTruncate),
        ] {
            let p = eq13(units, rounding, false);
            let delays: Vec<f64> = p.hops.iter().map(|h| h.delay).collect();
            assert_eq!(delays, [0.07, 0.11, 0.07], "{units} {rounding}");
            assert!(close(p.t_comm, 0.25, 1e-12));
            assert!(close(p.comm_term, 31.5, 1e-9), "{}", p.comm_term);
            assert!(close(p.total, 208.03, 1e-9), "{}", p.total);
        }
        // Rounding with decimal units gives 0.07 + 0.12 + 0.07 = 0.26 and 32.76.
        let p = eq13(Units::Decimal, Rounding::Hop2dp, false);
        assert!(close(p.comm_term, 32.76, 1e-9));
        assert!(close(p.total, 209.29, 1e-9));
        // Truncating with binary units: 0.06 + 0.11 + 0.06.
        let p = eq13(Units::Binary, Rounding::Hop2dpTruncate, false);
        assert!(close(p.t_comm, 0.23, 1e-12));
        // No convention reproduces eq. (12)'s 0.16 s.
        for units in Units::ALL {
            for rounding in Rounding::ALL {
                let p = eq12(units, rounding, false);
                assert!(p.comm_term < 0.03, "{units} {rounding}: {}", p.comm_term);
            }
        }
    }

    #[test]
    fn speedup_table() {
        let table = [
            (2, 3, 0.666_666_7, 1.333_333_3),
            (4, 5, 0.8, 3.2),
            (8, 7, 1.142_857, 6.857_143),
            (16, 9, 1.777_778, 14.222_222),
            (32, 11, 2.909_091, 29.090_909),
            (64, 13, 4.923_077, 59.076_923),
            (128, 15, 8.533_333, 119.466_667),
        ];
        for (p, depth, s_par, s_all) in table {
            let s = PipelineSize::new(p).unwrap();
            assert_eq!(s.depth(), depth, "P = {p}");
            assert!(close(s.speedup_parallel(), s_par, 1e-6), "P = {p}");
            assert!(close(s.speedup_overall(), s_all, 1e-6), "P = {p}");
        }
    }

    #[test]
    fn sizes_that_are_not_powers_of_two_are_errors_that_explain_the_fold() {
        for p in [0, 1, 3, 6, 12, 100] {
            let e = PipelineSize::new(p).unwrap_err();
            assert_eq!(e, ModelError::NotPowerOfTwo { p });
            let text = e.to_string();
            assert!(text.contains(&format!("P = {p}")), "{text}");
            if p >= 2 {
                let q = largest_power_of_two_at_most(p);
                assert!(text.contains("largest power of two") && text.contains("folds"));
                assert!(text.contains(&format!("P = {q}")), "{text}");
            }
        }
        assert_eq!(fold_target(12, 8), Some(0));
        assert_eq!(fold_target(12, 11), Some(3));
        assert_eq!(fold_target(12, 12), None);
    }

    #[test]
    fn saturated_spine_is_an_error_naming_it() {
        // L = 20 MB, T_Comp = 1.39: L*8/C = 0.125 s, rho_spine = 16 * 0.125 / 1.39 = 1.4388.
        let e = predict(&PipelineInputs::new(512, 8, 1.39, 20e6, 1.28e9)).unwrap_err();
        let ModelError::Unstable { hops } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(hops.len(), 1);
        assert_eq!((hops[0].index, hops[0].name.as_str()), (1, "spine"));
        assert!(close(hops[0].utilisation, 1.438849, 1e-6));
        let text = e.to_string();
        assert!(text.contains("spine") && text.contains("1.4388"), "{text}");
        // Every saturated hop is named; other paths name hops by number.
        let mut i = PipelineInputs::new(512, 8, 1.39, 40e6, 1.28e9);
        i.fan_ins = vec![8.0, 16.0];
        let ModelError::Unstable { hops } = predict(&i).unwrap_err() else {
            panic!()
        };
        let names: Vec<&str> = hops.iter().map(|h| h.name.as_str()).collect();
        assert_eq!(names, ["hop 1", "hop 2"]);
        // rho exactly 1 is unstable too.
        assert_eq!(mm1_delay(0.5, 2.0, 0.0), None);
    }

    #[test]
    fn invalid_settings_name_the_setting() {
        let base = PipelineInputs::new(512, 8, 1.39, 8e6, 1.28e9);
        type Change = fn(&mut PipelineInputs);
        let cases: [(&str, Change); 10] = [
            ("n", |i| i.n = 0),
            ("groups", |i| i.groups = 0),
            ("groups", |i| i.groups = 513),
            ("t_comp", |i| i.t_comp = f64::NAN),
            ("t_merge", |i| i.t_merge = Some(-1.0)),
            ("message_bytes", |i| i.message_bytes = -1.0),
            ("capacity", |i| i.capacity = 0.0),
            ("tau", |i| i.tau = f64::INFINITY),
            ("fan_ins", |i| i.fan_ins.clear()),
            ("fan_ins", |i| i.fan_ins = vec![8.0, 0.0]),
        ];
        for (name, change) in cases {
            let mut i = base.clone();
            change(&mut i);
            match predict(&i) {
                Err(ModelError::Invalid { setting, .. }) => assert_eq!(setting, name),
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn tau_and_merge_time_enter_where_they_should() {
        let mut i = PipelineInputs::new(512, 8, 1.39, 8e6, 1.28e9);
        let base = predict(&i).unwrap();
        i.tau = 0.001;
        let with_tau = predict(&i).unwrap();
        assert!(close(with_tau.t_comm - base.t_comm, 0.003, 1e-12));
        i.tau = 0.0;
        i.drain = true;
        i.t_merge = Some(0.5);
        let p = predict(&i).unwrap();
        assert!(close(p.drain_term, 3.0 * 0.5 + 3.0 * p.t_comm, 1e-12));
        assert!(close(p.total, base.total + p.drain_term, 1e-9));
    }

    #[test]
    fn steps_round_up_and_small_inputs_have_no_steady_step() {
        let s = PipelineSize::new(8).unwrap();
        assert_eq!(s.steps(512), 126);
        assert_eq!(s.steps(513), 127);
        assert_eq!(s.steps(8), 0);
        assert_eq!(s.steps(1), 0);
        let mut i = PipelineInputs::new(4097, 16, 0.15, 23_720.0, 1.28e9);
        i.groups = 8;
        let p = predict(&i).unwrap();
        assert_eq!((p.n_per_group, p.steps), (513, 63));
    }

    /// Simulates a finite run: each rank holds a set of task ids; at each step the senders hand
    /// their set to their partner and take the next task while tasks remain. Returns the step at
    /// which rank P−1 first holds all N ids, and the step at which all of step 0's P outputs are
    /// there.
    fn simulate_holdings(p: usize, n: u64) -> (u64, u64) {
        let mut held: Vec<BTreeSet<u64>> = vec![BTreeSet::new(); p];
        let mut next = 0u64;
        for h in held.iter_mut() {
            if next < n {
                h.insert(next);
                next += 1;
            }
        }
        let first: BTreeSet<u64> = (0..(p as u64).min(n)).collect();
        let mut first_done = None;
        let mut step = 0u64;
        loop {
            if first_done.is_none() && first.is_subset(&held[p - 1]) {
                first_done = Some(step);
            }
            if held[p - 1].len() as u64 == n {
                return (step, first_done.unwrap());
            }
            step += 1;
            assert!(step < 10 * n + 100, "P = {p}, N = {n}: no end");
            let level = level_of_step(p, step);
            let roles: Vec<Role> = (0..p).map(|r| pipeline_level(p, r, level)).collect();
            let mut incoming: Vec<BTreeSet<u64>> = vec![BTreeSet::new(); p];
            for (r, role) in roles.iter().enumerate() {
                if let Role::Send { to } = *role {
                    incoming[to] = std::mem::take(&mut held[r]);
                    if next < n {
                        held[r].insert(next);
                        next += 1;
                    }
                }
            }
            for (r, set) in incoming.into_iter().enumerate() {
                held[r].extend(set);
            }
        }
    }

    #[test]
    fn simulated_holdings_reach_the_last_rank_as_the_model_counts() {
        for p in [2u64, 4, 8, 16, 32] {
            let size = PipelineSize::new(p).unwrap();
            // The outputs of step 0 are all at rank P-1 after exactly lg P levels.
            let (_, first) = simulate_holdings(p as usize, 4 * p);
            assert_eq!(first, u64::from(size.lg()), "P = {p}");
            // The whole result is there after ceil((N-P)/(P/2)) + lg P levels.
            for n in 1..=(6 * p + 3) {
                let (all, _) = simulate_holdings(p as usize, n);
                assert_eq!(all, size.levels(n), "P = {p}, N = {n}");
            }
        }
    }

    #[test]
    fn unpipelined_time_and_speedup_agree_in_the_limit() {
        for p in [4u64, 8, 16, 128] {
            let s = PipelineSize::new(p).unwrap();
            let n = 1 << 24;
            let ratio =
                sequential_time(n, 1.0, 1.0) / unpipelined_parallel_time(n, s, 1.0, 1.0, 1.0);
            assert!(close(ratio, s.speedup_parallel(), 1e-5), "P = {p}");
        }
    }

    #[test]
    fn own_estimates_are_as_documented() {
        let e = own_estimates(512, 8, 1.39, 1.39, 0.2582007);
        assert!(close(e.compute, 88.96, 1e-9));
        assert!(close(e.master - e.compute, 7.0 * (1.39 + 0.2582007), 1e-9));
        assert!(close(e.tree - e.compute, 3.0 * (1.39 + 0.2582007), 1e-9));
        assert_eq!(tree_reduction_time(2, 1.0, 0.0), 1.0);
        assert_eq!(tree_reduction_time(9, 1.0, 0.0), 4.0);
        assert_eq!(own_estimates(5, 0, 1.0, 0.0, 0.0).ranks, 1);
    }

    #[test]
    fn quantities_and_conventions_parse() {
        assert_eq!(parse_quantity("1.28G", Units::Decimal), Ok(1.28e9));
        assert_eq!(parse_quantity(" 23720 ", Units::Binary), Ok(23_720.0));
        assert_eq!(parse_quantity("2k", Units::Binary), Ok(2048.0));
        for bad in ["", "G", "-1", "1.2.3", "8MB", "nan", "inf"] {
            assert!(parse_quantity(bad, Units::Decimal).is_err(), "{bad}");
        }
        assert_eq!("BINARY".parse::<Units>(), Ok(Units::Binary));
        assert!("metric"
            .parse::<Units>()
            .unwrap_err()
            .contains("decimal or binary"));
        assert!("2dp".parse::<Rounding>().unwrap_err().contains("hop-2dp"));
        assert_eq!("eq13".parse::<PaperExample>(), Ok(PaperExample::Eq13));
        assert!("eq14"
            .parse::<PaperExample>()
            .unwrap_err()
            .contains("eq12 or eq13"));
    }
}
