//! SS, self-scheduling: every chunk is one iterate.

use super::state::LoopState;

/// `c = 1`.
pub(crate) fn chunk(_: &LoopState) -> u64 {
    1
}
