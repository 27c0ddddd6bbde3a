//! TAP, taper (Lucco 1992): GSS's `T = R/P` reduced by a margin that grows with the iterate
//! time's coefficient of variation,
//! `v = alpha·sigma/mu`, `c = ceil(T + v²/2 − v·sqrt(2T + v²/4))`,
//! so that the last chunks finish together with high probability. mu and sigma are parameters
//! (`tap,mu=1ms,sigma=500us`), alpha defaults to 1.3. Without them `v = 0`: GSS's `ceil(R/P)`.

use crate::entry::{Entry, ModelFacts, Rule};
use crate::formulas::factoring::fill_moments;
use crate::spec::error::TechniqueError;
use crate::spec::params::{ParamSpec, Params, ValueKind, MU, SIGMA};
use crate::spec::technique::{require_together, Technique};
use crate::formulas::rounding::ceil_chunk;
use crate::state::LoopState;

/// `c = ceil(T + v²/2 − v·sqrt(2T + v²/4))`.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    let v = match (s.params.mu, s.params.sigma) {
        (Some(mu), Some(sigma)) => s.params.taper_alpha() * sigma / mu,
        _ => 0.0,
    };
    let t = s.remaining as f64 / s.p as f64;
    ceil_chunk(t + v * v / 2.0 - v * (2.0 * t + v * v / 4.0).sqrt())
}

/// `alpha`: the taper factor.
pub(crate) const ALPHA: ParamSpec = ParamSpec {
    name: "alpha",
    value: "number >= 0",
    help: "taper factor multiplying sigma/mu (default 1.3)",
    kind: ValueKind::Number,
};

/// The registry entry of `tap`.
pub(crate) const ENTRY: Entry = Entry {
    example: "tap,mu=1ms,sigma=500us,alpha=1.3",
    check: Some(check),
    fill_from_model: Some(fill_from_model),
    ..Entry::new(
        "tap",
        "taper: c = T + v²/2 - v·sqrt(2T + v²/4), T = R/P, v = alpha·sigma/mu (Lucco 1992)",
        &[MU, SIGMA, ALPHA],
        Rule::Formula(chunk),
    )
};

/// mu and sigma work together.
fn check(t: &Technique, p: Option<usize>) -> Result<(), TechniqueError> {
    require_together(t, p, ["mu", "sigma"])
}

/// mu and sigma from the iterate-time model.
fn fill_from_model(params: &mut Params, facts: &ModelFacts) -> Option<String> {
    fill_moments("tap", params, facts)
}
