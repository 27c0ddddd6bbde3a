//! TAP, taper (Lucco 1992): GSS's `T = R/P` reduced by a margin that grows with the iterate
//! time's coefficient of variation,
//! `v = alpha·sigma/mu`, `c = ceil(T + v²/2 − v·sqrt(2T + v²/4))`,
//! so that the last chunks finish together with high probability. mu and sigma are parameters
//! (`tap,mu=1ms,sigma=500us`), alpha defaults to 1.3. Without them `v = 0`: GSS's `ceil(R/P)`.

use super::rounding::ceil_chunk;
use super::state::LoopState;

/// `c = ceil(T + v²/2 − v·sqrt(2T + v²/4))`.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    let v = match (s.params.mu, s.params.sigma) {
        (Some(mu), Some(sigma)) => s.params.taper_alpha() * sigma / mu,
        _ => 0.0,
    };
    let t = s.remaining as f64 / s.p as f64;
    ceil_chunk(t + v * v / 2.0 - v * (2.0 * t + v * v / 4.0).sqrt())
}
