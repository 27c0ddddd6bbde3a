//! RND, random chunk sizes (LB4OMP form): every chunk is drawn uniformly from
//! `[min, max]`, with `max` defaulting to FAC2's first chunk `ceil(N/(2P))` (`rnd,max=50`).
//!
//! The draw is a pure function of the seed and the chunk index (SplitMix64 of both), so a
//! schedule replays exactly from its seed (`rnd,seed=7`).

use crate::entry::{Entry, Rule};
use crate::state::LoopState;

/// A uniform draw from `[min, max]` for the current chunk index.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    let lo = s.params.min_chunk.max(1);
    let hi = s
        .params
        .max_chunk
        .unwrap_or_else(|| s.n.div_ceil(2 * s.p as u64))
        .max(lo);
    let span = (hi - lo) as u128 + 1;
    let draw = splitmix64(s.seed ^ splitmix64(s.chunk_index));
    lo + ((draw as u128 * span) >> 64) as u64
}

/// SplitMix64 (Steele, Lea & Flood 2014): a bijective 64-bit mixer.
pub(crate) fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The registry entry of `rnd`.
pub(crate) const ENTRY: Entry = Entry {
    example: "rnd,max=50,seed=7",
    ..Entry::new(
        "rnd",
        "random chunk sizes, uniform in [min, max] (LB4OMP form)",
        &[],
        Rule::Formula(chunk),
    )
};
