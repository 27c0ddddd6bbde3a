//! GSS, guided self-scheduling (Polychronopoulos & Kuck, IEEE TC 36, 1987):
//! `c = max(k, ceil(R/P))`, k the minimum chunk (applied by the calculator).
//!
//! Test vector (N = 1000, P = 4): 250 188 141 106 79 59 45 33 25 19 14 11 8 6 4 3 3 2 1 1 1 1.

use crate::entry::{Entry, Rule};
use crate::state::LoopState;

/// `c = ceil(R/P)`.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    s.remaining.div_ceil(s.p as u64)
}

/// The registry entry of `gss`.
pub(crate) const ENTRY: Entry = Entry {
    ..Entry::new(
        "gss",
        "guided self-scheduling: c = ceil(R/P) (Polychronopoulos & Kuck, IEEE TC 36, 1987)",
        &[],
        Rule::Formula(chunk),
    )
};
