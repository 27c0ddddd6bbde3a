//! TFSS, trapezoid factoring self-scheduling (Chronopoulos et al. 2001): batches of P equal
//! chunks, each the mean of the next P TSS chunks,
//! `c_j = F − (j·P + (P−1)/2)·delta` for batch j, with TSS's F, L, C and delta
//! (see [`trapezoid`](crate::formulas::trapezoid)), rounded up and never below L.
//!
//! Exact integer form: `c_j = ceil((2F·(C−1) − (2jP + P − 1)·(F−L)) / (2(C−1)))`.
//! Test vector (N = 1000, P = 4): 113×4, 80×4, 47×4, 14 14 12.

use crate::entry::{Entry, Rule};
use crate::state::LoopState;
use crate::formulas::trapezoid::Trapezoid;

/// The chunk of batch j.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    let p = s.p as u128;
    let j = s.batch.index as u128;
    Trapezoid::new(s.n, s.p).at(2 * j * p + p - 1, 2)
}

/// The registry entry of `tfss`.
pub(crate) const ENTRY: Entry = Entry {
    ..Entry::new(
        "tfss",
        "trapezoid factoring self-scheduling: batches of P chunks, each the mean of the \
     next P TSS chunks (Chronopoulos et al. 2001)",
        &[],
        Rule::Formula(chunk),
    )
};
