//! FAC2a, factoring with x = 2 by chunk recurrence (LB4OMP's `fac2a`; Korndörfer, Eleliemy,
//! Mohammed, Ciorba & Banicescu, IEEE TPDS 33(4), 2022, after Hummel, Schonberg & Flynn, CACM
//! 35(8), 1992): batches of P equal chunks whose size halves from batch to batch,
//!
//! `c_0 = ceil(N / (2P))`, `c_j = ceil(c_{j−1} / 2)`, i.e. `c_j = ceil(N / (P·2^(j+1)))`
//!
//! (for whole numbers `ceil(ceil(a/b)/c) = ceil(a/(b·c))`, so the recurrence and the closed form
//! agree exactly). LB4OMP lets every thread compute this recurrence on its own, from the batch
//! index alone, so that no thread waits for the iterates remaining at the start of a batch; the
//! chunks therefore do not depend on R. FAC2 (`fac2`) instead sizes batch j from the measured
//! remainder, `ceil(R_j / (2P))`: the two agree while every chunk is exactly its formula, and
//! part ways as soon as one is rounded up (FAC2a's batches are then slightly larger). As in
//! LB4OMP, the last chunk is whatever is left (no tail merge).
//!
//! Test vector (N = 1000, P = 4), hand-derived: 125×4 (R = 500), 63×4 (R = 248), 32×4 (R = 120),
//! 16×4 (R = 56), 8×4 (R = 24), 4×4 (R = 8), 2×4 (R = 0): 28 chunks, where FAC2 takes 31.

use crate::entry::{Entry, Rule};
use crate::state::LoopState;

/// `c_j = ceil(N / (P·2^(j+1)))`, j the batch index (1 once 2^(j+1) exceeds any N).
pub(crate) fn chunk(s: &LoopState) -> u64 {
    let shift = s.batch.index.saturating_add(1);
    if shift >= 64 {
        return 1;
    }
    let den = (s.p.max(1) as u128) << shift;
    u64::try_from((s.n as u128).div_ceil(den)).unwrap_or(u64::MAX)
}

/// The registry entry of `fac2a`.
pub(crate) const ENTRY: Entry = Entry {
    example: "fac2a,min=4",
    ..Entry::new(
        "fac2a",
        "factoring with x = 2 by chunk recurrence: batches of P chunks, c_j = ceil(N/(P·2^(j+1))) \
         (LB4OMP, Korndörfer et al., IEEE TPDS 33(4), 2022; Hummel, Schonberg & Flynn 1992)",
        &[],
        Rule::Formula(chunk),
    )
};
