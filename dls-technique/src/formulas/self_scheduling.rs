//! SS, self-scheduling: every chunk is one iterate, `c = 1` (best balance, one scheduling
//! operation per iterate).

use crate::entry::{Entry, Rule};
use crate::state::LoopState;

/// `c = 1`.
pub(crate) fn chunk(_: &LoopState) -> u64 {
    1
}

/// The registry entry of `ss`.
pub(crate) const ENTRY: Entry = Entry {
    fixed_size: true,
    ..Entry::new(
        "ss",
        "self-scheduling: chunks of one iterate",
        &[],
        Rule::Formula(chunk),
    )
};
