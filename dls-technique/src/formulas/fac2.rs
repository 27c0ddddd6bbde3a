//! FAC2, factoring with x = 2 (Hummel, Schonberg & Flynn, CACM 35(8), 1992): batches of P
//! chunks of `c_j = ceil(R_j / (2P))`, R_j the iterates remaining at the start of batch j; each
//! batch hands out about half of what remains. It is factoring's practical rule when mu and
//! sigma are unknown.
//!
//! As in the whole factoring family, a chunk that would leave at most the minimum chunk behind
//! takes that remainder too. Test vector (N = 1000, P = 4): 125×4, 63×4, 31×4, 16×4, 8×4, 4×4,
//! 2×4, then 1 1 2.

use crate::entry::{Entry, Rule};
use crate::state::LoopState;

/// `c_j = ceil(R_j / (2P))`.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    batch_chunk(s)
}

/// FAC2's batch chunk `ceil(R_j / (2P))`, shared by WF and the AWF variants.
pub(crate) fn batch_chunk(s: &LoopState) -> u64 {
    s.batch.remaining_at_start.div_ceil(2 * s.p as u64)
}

/// The registry entry of `fac2`.
pub(crate) const ENTRY: Entry = Entry {
    example: "fac2,min=4",
    merges_tail: true,
    ..Entry::new(
        "fac2",
        "factoring with x = 2: batches of P chunks of ceil(R_j/(2P)) \
     (Hummel, Schonberg & Flynn, CACM 35(8), 1992)",
        &[],
        Rule::Formula(chunk),
    )
};
