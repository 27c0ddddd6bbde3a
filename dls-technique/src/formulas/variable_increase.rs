//! VISS, variable increase self-scheduling (LB4OMP form): stages of P chunks whose increase
//! halves at every stage,
//! `c_0 = N / (X·P)` (X defaults to P, `viss,x=4`), `c_j = c_0·(1 − 0.5^(j+1)) / 0.5`,
//! i.e. c_0, 1.5·c_0, 1.75·c_0, ... approaching 2·c_0; rounded down.

use crate::entry::{Entry, Rule};
use crate::spec::params::{ParamSpec, ValueKind};
use crate::formulas::rounding::floor_chunk;
use crate::state::LoopState;

/// The chunk of stage (batch) j.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    let p = s.p as f64;
    let x = s.params.x.unwrap_or(p);
    let c0 = s.n as f64 / (x * p);
    let j = s.batch.index.min(1100) as i32;
    floor_chunk(c0 * (1.0 - 0.5f64.powi(j + 1)) / 0.5)
}

/// `x`: the divisor of the first chunk.
pub(crate) const X: ParamSpec = ParamSpec {
    name: "x",
    value: "number > 0",
    help: "the first chunk is N/(x*P) (default x = P)",
    kind: ValueKind::Number,
};

/// The registry entry of `viss`.
pub(crate) const ENTRY: Entry = Entry {
    example: "viss,x=4",
    ..Entry::new(
        "viss",
        "variable increase self-scheduling: stages of P chunks growing by halving steps \
         (LB4OMP form)",
        &[X],
        Rule::Formula(chunk),
    )
};
