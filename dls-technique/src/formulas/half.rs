//! HALF (scratch, to show what adding a technique takes): `c = ceil(R / (k·P))`, k default 2.

use crate::entry::{Entry, Rule};
use crate::spec::params::{ParamSpec, ValueKind};
use crate::state::LoopState;

/// `k`: the divisor.
const K: ParamSpec = ParamSpec {
    name: "k",
    value: "number > 0",
    help: "divisor of R/P (default 2)",
    kind: ValueKind::Number,
};

/// `c = ceil(R / (k·P))`.
fn chunk(s: &LoopState) -> u64 {
    let k = s.params.number("k").unwrap_or(2.0);
    (s.remaining as f64 / (k * s.p as f64)).ceil() as u64
}

/// The registry entry of `half`.
pub(crate) const ENTRY: Entry = Entry {
    example: "half,k=3",
    ..Entry::new("half", "scratch: c = ceil(R/(k·P))", &[K], Rule::Formula(chunk))
};
