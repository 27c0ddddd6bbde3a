//! SS, self-scheduling: every chunk is one iterate, `c = 1` (best balance, one scheduling
//! operation per iterate).

use super::state::LoopState;

/// `c = 1`.
pub(crate) fn chunk(_: &LoopState) -> u64 {
    1
}
