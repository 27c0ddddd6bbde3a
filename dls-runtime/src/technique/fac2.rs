//! FAC2, factoring with x = 2 (Hummel, Schonberg & Flynn, CACM 35(8), 1992): batches of P chunks
//! of `ceil(R_j / (2P))`, R_j the iterates remaining at the start of batch j.

use super::state::LoopState;

/// `c_j = ceil(R_j / (2P))`.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    s.batch.remaining_at_start.div_ceil(2 * s.p as u64)
}
