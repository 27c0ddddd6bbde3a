//! FISS, fixed increase self-scheduling (Philip & Das 1997): B stages of P chunks each, growing
//! by a fixed step so that the B stages add up to N,
//! `c_0 = N / ((2+B)·P)`, `delta = 2N·(1 − B/(2+B)) / (P·B·(B−1))`, `c_j = c_0 + j·delta`,
//! rounded down (B = 3 by default, `fiss,b=5`). Rounding leaves a few iterates after stage B−1;
//! they form the next stage's chunk.
//!
//! Exact integer form: `c_j = floor((N·B·(B−1) + 4·N·j) / ((2+B)·P·B·(B−1)))`.
//! Test vector (N = 1000, P = 4, B = 3): 50×4, 83×4, 116×4, 4.

use crate::entry::{Entry, Rule};
use crate::spec::params::{ParamSpec, ValueKind};
use crate::state::LoopState;

/// The chunk of stage (batch) j.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    let b = s.params.stages().max(2) as u128;
    let n = s.n as u128;
    let j = s.batch.index as u128;
    // Saturating: B is a user setting and may be huge; a saturated stage is simply capped at R.
    let num = (n.saturating_mul(b).saturating_mul(b - 1))
        .saturating_add(n.saturating_mul(4).saturating_mul(j));
    let den = (2u128.saturating_add(b))
        .saturating_mul(s.p as u128)
        .saturating_mul(b)
        .saturating_mul(b - 1);
    u64::try_from(num / den).unwrap_or(u64::MAX)
}

/// `b`: the number of stages.
pub(crate) const B: ParamSpec = ParamSpec {
    name: "b",
    value: "whole number >= 2",
    help: "number of stages (default 3)",
    kind: ValueKind::Count,
};

/// The registry entry of `fiss`.
pub(crate) const ENTRY: Entry = Entry {
    example: "fiss,b=3",
    ..Entry::new(
        "fiss",
        "fixed increase self-scheduling: B stages of P chunks growing by a fixed step \
         (Philip & Das 1997)",
        &[B],
        Rule::Formula(chunk),
    )
};
