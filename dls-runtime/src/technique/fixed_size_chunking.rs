//! FSC, fixed size chunking (Kruskal & Weiss, IEEE TSE 11, 1985): every chunk has the size that
//! balances scheduling overhead against load imbalance,
//! `c = (sqrt(2)·N·h / (sigma·P·sqrt(ln P)))^(2/3)`, rounded up,
//! with h the overhead of scheduling one chunk and sigma the standard deviation of an iterate's
//! time. With P = 1 (`ln P = 0`) there is no imbalance to fight and the whole loop is one chunk.
//!
//! Without h and sigma (`fsc` alone) the optimal size cannot be computed; FSC then uses mFSC's
//! chunk (see [`modified_fsc`](super::modified_fsc)), the fixed size that needs no statistics.
//!
//! Test vector: N = 1000, P = 4, h = 200 µs, sigma = 100 µs gives 72.

use super::modified_fsc;
use super::rounding::ceil_chunk;
use super::state::LoopState;

/// The FSC chunk size for the loop (constant over the loop).
pub(crate) fn chunk(s: &LoopState) -> u64 {
    if s.p <= 1 {
        return s.n;
    }
    let (Some(h), Some(sigma)) = (s.params.h, s.params.sigma) else {
        return modified_fsc::chunk(s);
    };
    let p = s.p as f64;
    let base = std::f64::consts::SQRT_2 * s.n as f64 * h / (sigma * p * p.ln().sqrt());
    ceil_chunk(base.powf(2.0 / 3.0))
}
