//! PLS, performance-based loop scheduling (Shih, Yang & Tseng 2007): a static share first, the
//! rest dynamically. Each rank's first chunk is `floor(SWR·N/P)` iterates (SWR, the static
//! workload ratio, 0.5 by default, `pls,swr=0.7`); later chunks follow GSS over the dynamic
//! part, `c = ceil(R_d / P)`, where `R_d` is R minus the static shares still owed to ranks that
//! have not asked yet (so a late rank still finds its share).

use crate::entry::{Entry, Rule};
use crate::spec::params::{ParamSpec, ValueKind};
use crate::formulas::rounding::floor_chunk;
use crate::state::LoopState;

/// The rank's static share on its first request, GSS afterwards.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    let share = floor_chunk(s.params.static_ratio() * s.n as f64 / s.p as f64);
    first_then(s, share, |dynamic| dynamic.div_ceil(s.p as u64))
}

/// `first` on a rank's first request; otherwise `rest(R_d)`, R_d the remaining iterates less
/// `first` for every rank that has not started yet. When nothing but owed first chunks is left
/// (`R_d = 0`), an idle rank gets `ceil(R/P)` of them rather than waiting (a rank that never asks
/// must not stall the loop); late ranks then get what remains.
pub(crate) fn first_then(s: &LoopState, first: u64, rest: impl Fn(u64) -> u64) -> u64 {
    let started = s.stats.get(s.rank).is_some_and(|r| r.chunks > 0);
    if !started {
        return first;
    }
    let owed = (s.p.saturating_sub(s.ranks_started) as u64).saturating_mul(first);
    match s.remaining.saturating_sub(owed) {
        0 => s.remaining.div_ceil(s.p as u64),
        dynamic => rest(dynamic),
    }
}

/// `swr`: the static workload ratio.
pub(crate) const SWR: ParamSpec = ParamSpec {
    name: "swr",
    value: "number in [0, 1]",
    help: "static workload ratio: share of the iterates handed out statically first (default 0.5)",
    kind: ValueKind::Number,
};

/// The registry entry of `pls`.
pub(crate) const ENTRY: Entry = Entry {
    example: "pls,swr=0.5",
    ..Entry::new(
        "pls",
        "performance-based loop scheduling: a static share first, the rest by GSS \
         (Shih, Yang & Tseng 2007)",
        &[SWR],
        Rule::Formula(chunk),
    )
};
