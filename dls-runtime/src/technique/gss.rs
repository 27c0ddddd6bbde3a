//! GSS, guided self-scheduling (Polychronopoulos & Kuck, IEEE TC 36, 1987): `c = ceil(R/P)`.

use super::state::LoopState;

/// `c = ceil(R/P)` (the scheduler raises it to the minimum chunk k).
pub(crate) fn chunk(s: &LoopState) -> u64 {
    s.remaining.div_ceil(s.p as u64)
}
