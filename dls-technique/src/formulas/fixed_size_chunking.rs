//! FSC, fixed size chunking (Kruskal & Weiss, IEEE TSE 11, 1985): every chunk has the size that
//! balances scheduling overhead against load imbalance,
//! `c = (sqrt(2)·N·h / (sigma·P·sqrt(ln P)))^(2/3)`, rounded up,
//! with h the overhead of scheduling one chunk and sigma the standard deviation of an iterate's
//! time. With P = 1 (`ln P = 0`) there is no imbalance to fight and the whole loop is one chunk.
//!
//! Without h and sigma (`fsc` alone) the optimal size cannot be computed; FSC then uses mFSC's
//! chunk (see [`modified_fsc`](crate::formulas::modified_fsc)), the fixed size that needs no statistics.
//!
//! Test vector: N = 1000, P = 4, h = 200 µs, sigma = 100 µs gives 72.

use crate::entry::{fill_durations, Entry, ModelFacts, Rule};
use crate::spec::params::{ParamSpec, Params, ValueKind, SIGMA};
use crate::spec::technique::{require_together, Technique};
use crate::spec::error::TechniqueError;
use crate::formulas::modified_fsc;
use crate::formulas::rounding::ceil_chunk;
use crate::state::LoopState;

/// The FSC chunk size for the loop (constant over the loop).
pub(crate) fn chunk(s: &LoopState) -> u64 {
    if s.p <= 1 {
        return s.n;
    }
    let (Some(h), Some(sigma)) = (s.params.h, s.params.sigma) else {
        return modified_fsc::chunk(s);
    };
    let p = s.p as f64;
    let base = std::f64::consts::SQRT_2 * s.n as f64 * h / (sigma * p * p.ln().sqrt());
    ceil_chunk(base.powf(2.0 / 3.0))
}

/// `h`: FSC's scheduling overhead per chunk.
pub(crate) const H: ParamSpec = ParamSpec {
    name: "h",
    value: "duration > 0 (ns, us, ms, s; bare number = seconds)",
    help: "scheduling overhead of one chunk (give with sigma; without both, fsc uses mFSC's chunk)",
    kind: ValueKind::Duration,
};

/// The registry entry of `fsc`.
pub(crate) const ENTRY: Entry = Entry {
    fixed_size: true,
    example: "fsc,h=200us,sigma=100us",
    check: Some(check),
    fill_from_model: Some(fill_from_model),
    ..Entry::new(
        "fsc",
        "fixed size chunking: c = (sqrt(2)·N·h / (sigma·P·sqrt(ln P)))^(2/3) \
         (Kruskal & Weiss, IEEE TSE 11, 1985)",
        &[H, SIGMA],
        Rule::Formula(chunk),
    )
};

/// h and sigma work together.
fn check(t: &Technique, p: Option<usize>) -> Result<(), TechniqueError> {
    require_together(t, p, ["h", "sigma"])
}

/// sigma from the iterate-time model, h from the simulated overhead (none: mFSC's chunk).
fn fill_from_model(params: &mut Params, facts: &ModelFacts) -> Option<String> {
    if params.h.is_none() && params.sigma.is_none() && facts.overhead_s <= 0.0 {
        // FSC's formula needs h > 0 with sigma; without an overhead there is none to take.
        return Some(
            "fsc: no --overhead, so h is unknown and FSC uses mFSC's chunk (give --overhead, \
             or h= and sigma= in the technique spec)"
                .to_string(),
        );
    }
    let (_, sd) = (facts.moments)()?;
    fill_durations(
        "fsc",
        [
            (&mut params.sigma, "sigma", sd),
            (&mut params.h, "h", facts.overhead_s),
        ],
    )
}
