//! Fault injection for testing fault checks, only by explicit setting: `DLS_INJECT` makes one
//! worker's values wrong, through [`inject`], which a checked loop's body calls on the value it
//! produces (and uses for its result). Without `DLS_INJECT`, [`inject`] returns its argument.
//!
//! `DLS_INJECT` is a comma-separated list: `worker=<rank or thread>` (required) and one fault:
//! `bias=<k>` (add k times the standard deviation of the values this worker produced so far),
//! `scale=<f>` (multiply by f), or `nan` (a NaN); optionally `prob=<p>`, the probability that
//! the fault hits a given value (default 1; deterministic, so a run repeats).

use crate::runtime::annotate::sync::OnceLock;
use std::cell::Cell;

use crate::runtime::error::DlsError;
use crate::runtime::loops::panic_ctx;

/// A fault to inject (`DLS_INJECT`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Injection {
    /// The worker whose values go wrong (an MPI rank, or a thread of the threads backend).
    pub worker: usize,
    /// What happens to a value.
    pub fault: Fault,
    /// Probability that a value is hit.
    pub prob: f64,
}

/// What an injected fault does to a value.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Fault {
    /// Adds this many standard deviations of the worker's values so far.
    Bias(f64),
    /// Multiplies by this factor.
    Scale(f64),
    /// Replaces the value by NaN.
    Nan,
}

impl Injection {
    /// Parses a `DLS_INJECT` value; the error names the setting and the allowed forms.
    ///
    /// ```
    /// use dls_runtime::runtime::inject::{Fault, Injection};
    /// let i = Injection::parse("worker=2,bias=3").unwrap();
    /// assert_eq!((i.worker, i.fault, i.prob), (2, Fault::Bias(3.0), 1.0));
    /// assert!(Injection::parse("bias=3").unwrap_err().to_string().contains("worker="));
    /// // Repeated or conflicting keys are refused, never resolved silently.
    /// assert!(Injection::parse("worker=1,worker=2,nan").unwrap_err().to_string().contains("twice"));
    /// assert!(Injection::parse("worker=1,bias=3,nan").unwrap_err().to_string().contains("one fault"));
    /// ```
    pub fn parse(value: &str) -> Result<Injection, DlsError> {
        let bad = |why: &str| DlsError::Setting {
            name: "DLS_INJECT",
            value: value.to_string(),
            message: format!(
                "{why}; expected worker=<rank or thread> and one of bias=<k>, scale=<f>, nan, \
                 optionally prob=<p>, e.g. worker=1,bias=3"
            ),
        };
        let (mut worker, mut fault, mut prob) = (None, None, 1.0);
        let mut seen: Vec<&str> = Vec::new();
        for item in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, val) = item.split_once('=').unwrap_or((item, ""));
            let key = key.trim();
            let kind = match key {
                "worker" | "rank" => "worker",
                "bias" | "scale" | "nan" => "fault",
                other => other,
            };
            if seen.contains(&kind) {
                return Err(bad(&if kind == "fault" {
                    format!("`{item}`: give one fault (bias, scale or nan), not two")
                } else {
                    format!("`{key}` is given twice")
                }));
            }
            seen.push(kind);
            let number = || {
                val.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| bad(&format!("`{item}` needs a number")))
            };
            match key {
                "worker" | "rank" => {
                    worker = Some(
                        val.trim()
                            .parse::<usize>()
                            .map_err(|_| bad("worker= takes a whole number"))?,
                    )
                }
                "bias" => fault = Some(Fault::Bias(number()?)),
                "scale" => fault = Some(Fault::Scale(number()?)),
                "nan" => fault = Some(Fault::Nan),
                "prob" => {
                    prob = number()?;
                    if !(0.0..=1.0).contains(&prob) {
                        return Err(bad("prob= takes a probability from 0 to 1"));
                    }
                }
                other => return Err(bad(&format!("unknown item `{other}`"))),
            }
        }
        Ok(Injection {
            worker: worker.ok_or_else(|| bad("worker= is missing"))?,
            fault: fault.ok_or_else(|| bad("no fault given"))?,
            prob,
        })
    }
}

/// `DLS_INJECT`, read once (a bad value ends the program with the setting's message).
fn configured() -> Option<Injection> {
    static INJECTION: OnceLock<Option<Injection>> = OnceLock::new();
    *INJECTION.get_or_init(|| {
        let value = std::env::var("DLS_INJECT").ok()?;
        if value.trim().is_empty() {
            return None;
        }
        match Injection::parse(&value) {
            Ok(i) => Some(i),
            Err(e) => {
                panic_ctx::say_line(&format!("error: {e}"));
                std::process::exit(1)
            }
        }
    })
}

thread_local! {
    /// This thread's values so far (count, mean, M2) and a counter for `prob`.
    static SEEN: Cell<(u64, f64, f64, u64)> = const { Cell::new((0, 0.0, 0.0, 0)) };
}

/// Reads `DLS_INJECT` now, at the runtime's start, so that a change after it has no effect
/// (settings are read once: issue 43 R4-3).
pub(crate) fn read_at_start() {
    let _ = configured();
}

/// `y`, made wrong as `DLS_INJECT` says when this thread works for the faulty worker; `y`
/// otherwise. Call it in a checked loop's body on the value the iterate produces, and use what
/// it returns (for the result and as the checked value).
///
/// ```
/// // Without DLS_INJECT every value passes unchanged.
/// assert_eq!(dls_runtime::runtime::inject::inject(2.5), 2.5);
/// ```
pub fn inject(y: f64) -> f64 {
    match configured() {
        Some(injection) => inject_with(&injection, y),
        None => y,
    }
}

/// The worker this thread works for, as a checked loop groups values: the MPI rank, or the
/// thread's worker slot on the threads backend; `None` outside a loop's chunk on threads.
///
/// ```
/// // Outside a loop on the threads backend: no worker.
/// let _ = dls_runtime::runtime::inject::current_worker();
/// ```
pub fn current_worker() -> Option<usize> {
    panic_ctx::mpi_rank().or_else(panic_ctx::current_worker)
}

/// [`inject`] with a given injection instead of `DLS_INJECT` (for studies of the check, such as
/// `benches/src/bin/check_rates.rs`).
///
/// ```
/// use dls_runtime::runtime::inject::{inject_with, Fault, Injection};
/// // Outside a loop this thread works for no worker: nothing is injected.
/// let i = Injection { worker: 0, fault: Fault::Scale(2.0), prob: 1.0 };
/// assert_eq!(inject_with(&i, 1.5), 1.5);
/// ```
pub fn inject_with(injection: &Injection, y: f64) -> f64 {
    if current_worker() != Some(injection.worker) {
        return y;
    }
    let (n, mean, m2, calls) = SEEN.with(Cell::get);
    // Welford over the values this worker produced, before injection.
    let n1 = n + 1;
    let delta = y - mean;
    let mean1 = mean + delta / n1 as f64;
    let m2_1 = m2 + delta * (y - mean1);
    SEEN.with(|s| s.set((n1, mean1, m2_1, calls + 1)));
    // A deterministic draw in [0, 1) from the call counter (SplitMix64).
    let hit = injection.prob >= 1.0 || {
        let mut z = (calls + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1_u64 << 53) as f64 <= injection.prob
    };
    if !hit {
        return y;
    }
    match injection.fault {
        Fault::Bias(k) => {
            let sd = if n1 > 1 {
                (m2_1 / (n1 - 1) as f64).sqrt()
            } else {
                0.0
            };
            y + k * sd
        }
        Fault::Scale(f) => y * f,
        Fault::Nan => f64::NAN,
    }
}
