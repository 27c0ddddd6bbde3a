//! STATIC, static chunking: one chunk of `c = ceil(N/P)` iterates per rank (the last one
//! shorter). No source needed: it is the baseline every paper compares against.

use crate::entry::{Entry, Rule};
use crate::state::LoopState;

/// `c = ceil(N/P)`.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    s.n.div_ceil(s.p as u64)
}

/// The registry entry of `static`.
pub(crate) const ENTRY: Entry = Entry {
    fixed_size: true,
    ..Entry::new(
        "static",
        "static chunking: one chunk of ceil(N/P) per rank",
        &[],
        Rule::Formula(chunk),
    )
};
