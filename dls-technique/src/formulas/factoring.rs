//! FAC, factoring (Hummel, Schonberg & Flynn, CACM 35(8), 1992): batches of P equal chunks whose
//! size follows from the mean mu and standard deviation sigma of an iterate's time, so that the
//! batch finishes before the expected imbalance exceeds what remains:
//!
//! * `b_j = P·sigma / (2·mu·sqrt(R_j))`, R_j the iterates remaining at the start of batch j;
//! * `x_0 = 1 + b_0² + b_0·sqrt(b_0² + 2)`, `x_j = 2 + b_j² + b_j·sqrt(b_j² + 4)` for j >= 1;
//! * `c_j = ceil(R_j / (x_j·P))`.
//!
//! mu and sigma are parameters (`fac,mu=1ms,sigma=500us`); only their ratio matters. Without
//! them, `x_j = 2` for every batch: FAC2, the paper's rule for unknown statistics. A chunk that
//! would leave at most the minimum chunk behind takes that remainder too.

use crate::entry::{fill_durations, Entry, ModelFacts, Rule};
use crate::spec::error::TechniqueError;
use crate::spec::params::{Params, MU, SIGMA};
use crate::spec::technique::{require_together, Technique};
use crate::formulas::fac2::batch_chunk;
use crate::formulas::rounding::ceil_chunk;
use crate::state::LoopState;

/// `c_j = ceil(R_j / (x_j·P))`.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    let (Some(mu), Some(sigma)) = (s.params.mu, s.params.sigma) else {
        return batch_chunk(s);
    };
    let r = s.batch.remaining_at_start as f64;
    let p = s.p as f64;
    let b = p * sigma / (2.0 * mu * r.sqrt());
    let x = if s.batch.index == 0 {
        1.0 + b * b + b * (b * b + 2.0).sqrt()
    } else {
        2.0 + b * b + b * (b * b + 4.0).sqrt()
    };
    ceil_chunk(r / (x * p))
}

/// The registry entry of `fac`.
pub(crate) const ENTRY: Entry = Entry {
    example: "fac,mu=1ms,sigma=500us",
    merges_tail: true,
    check: Some(check),
    fill_from_model: Some(fill_from_model),
    ..Entry::new(
        "fac",
        "factoring: batches of P chunks sized from mu and sigma \
         (Hummel, Schonberg & Flynn, CACM 35(8), 1992)",
        &[MU, SIGMA],
        Rule::Formula(chunk),
    )
};

/// mu and sigma work together.
fn check(t: &Technique, p: Option<usize>) -> Result<(), TechniqueError> {
    require_together(t, p, ["mu", "sigma"])
}

/// mu and sigma from the iterate-time model.
pub(crate) fn fill_from_model(params: &mut Params, facts: &ModelFacts) -> Option<String> {
    fill_moments("fac", params, facts)
}

/// mu and sigma from the iterate-time model (FAC and TAP).
pub(crate) fn fill_moments(name: &str, params: &mut Params, facts: &ModelFacts) -> Option<String> {
    let (mean, sd) = (facts.moments)()?;
    fill_durations(
        name,
        [(&mut params.mu, "mu", mean), (&mut params.sigma, "sigma", sd)],
    )
}
