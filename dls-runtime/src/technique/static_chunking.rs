//! STATIC: one chunk of `ceil(N/P)` iterates per rank.

use super::state::LoopState;

/// `c = ceil(N/P)`.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    s.n.div_ceil(s.p as u64)
}
