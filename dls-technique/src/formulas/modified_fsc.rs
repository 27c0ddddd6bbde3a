//! mFSC, modified fixed size chunking (LB4OMP / DLS4LB practice): a fixed chunk that needs no
//! h or sigma and gives about as many chunks as factoring,
//! `c = floor(0.55 + t·ln 2 / ln t)`, `t = ceil(N/P)` (c = 1 when t < 2, where `ln t` <= 0.69).
//!
//! Test vector: N = 1000, P = 4 gives 31.

use crate::entry::{Entry, Rule};
use crate::formulas::rounding::floor_chunk;
use crate::state::LoopState;

/// The mFSC chunk size for the loop (constant over the loop).
pub(crate) fn chunk(s: &LoopState) -> u64 {
    let t = s.n.div_ceil(s.p as u64);
    if t < 2 {
        return 1;
    }
    let t = t as f64;
    floor_chunk(0.55 + t * std::f64::consts::LN_2 / t.ln())
}

/// The registry entry of `mfsc`.
pub(crate) const ENTRY: Entry = Entry {
    fixed_size: true,
    ..Entry::new(
        "mfsc",
        "modified fixed size chunking: c = floor(0.55 + t·ln2/ln t), t = ceil(N/P) \
     (LB4OMP / DLS4LB practice)",
        &[],
        Rule::Formula(chunk),
    )
};
