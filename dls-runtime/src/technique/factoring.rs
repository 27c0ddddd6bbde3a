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

use super::fac2::batch_chunk;
use super::rounding::ceil_chunk;
use super::state::LoopState;

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
