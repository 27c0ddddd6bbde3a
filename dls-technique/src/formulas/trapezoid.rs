//! TSS, trapezoid self-scheduling (Tzen & Ni, IEEE TPDS 4, 1993): chunk sizes fall linearly from
//! a first chunk F to a last chunk L,
//! `F = ceil(N/(2P))`, `L = 1`, `C = ceil(2N/(F+L))` chunks, `delta = (F−L)/(C−1)`,
//! `c_k = F − k·delta` for the k-th chunk (k from 0), rounded up and never below L.
//!
//! Computed in exact integer arithmetic: `c_k = ceil((F·(C−1) − k·(F−L)) / (C−1))`.
//! Test vector (N = 1000, P = 4): 125 117 109 101 92 84 76 68 59 51 43 35 26 14.

use crate::entry::{Entry, Rule};
use crate::state::LoopState;

/// The trapezoid of a loop: first chunk F, last chunk L, number of chunks C.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Trapezoid {
    pub(crate) first: u64,
    pub(crate) last: u64,
    pub(crate) count: u64,
}

impl Trapezoid {
    /// F, L and C for N iterates on P ranks (N >= 1).
    pub(crate) fn new(n: u64, p: usize) -> Self {
        let first = n.div_ceil(2 * p as u64).max(1);
        let last = 1;
        let count = (2 * n as u128).div_ceil((first + last) as u128) as u64;
        Trapezoid { first, last, count }
    }

    /// `ceil((F·(C−1)·den − num·(F−L)) / ((C−1)·den))`, at least L: the chunk at position
    /// `num/den` along the trapezoid (TSS: k/1, TFSS: (2jP + P − 1)/2).
    pub(crate) fn at(&self, num: u128, den: u128) -> u64 {
        if self.count <= 1 {
            return self.first;
        }
        let steps = (self.count - 1) as u128;
        let top = self.first as u128 * steps * den;
        let fall = num.saturating_mul((self.first - self.last) as u128);
        let floor = self.last as u128 * steps * den;
        if top <= fall.saturating_add(floor) {
            return self.last;
        }
        ((top - fall).div_ceil(steps * den)) as u64
    }
}

/// `c_k = F − k·delta`, k the global chunk index.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    Trapezoid::new(s.n, s.p).at(s.chunk_index as u128, 1)
}

/// The registry entry of `tss`.
pub(crate) const ENTRY: Entry = Entry {
    ..Entry::new(
        "tss",
        "trapezoid self-scheduling: chunks falling linearly from N/(2P) to 1 \
     (Tzen & Ni, IEEE TPDS 4, 1993)",
        &[],
        Rule::Formula(chunk),
    )
};
