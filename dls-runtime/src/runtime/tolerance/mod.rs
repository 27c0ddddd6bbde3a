//! What a chunk source does for workers that are late or stop: re-execution of unfinished chunks
//! (rDLB, `reexecution.rs`), splitting a chunk in progress for an idle worker (`split.rs`), and a
//! restart from checkpoints (`checkpoint.rs`). One seam below the engine, reached through
//! [`ChunkSource::tolerance`](crate::runtime::loops::source::ChunkSource::tolerance): a loop that uses none of
//! them never calls it, and its scheduler keeps no ledger (HPX's `replay_executor` manner: the
//! base scheduler knows nothing of it).

pub(crate) mod reexecution;
pub(crate) mod split;
use crate::runtime::annotate::sync::AtomicU64;

use crate::runtime::error::DlsError;
use crate::runtime::tolerance::split::SplitCell;

/// The tolerance side of a chunk source (see the [module documentation](self)).
pub(crate) trait Tolerance {
    /// Lets idle workers take copies of unfinished chunks (rDLB, `runtime/tolerance/reexecution.rs`): the
    /// caller's workers keep every chunk's contribution apart until its verdict; with `split`,
    /// idle workers first take the second half of a long chunk in progress on this process
    /// (`runtime/tolerance/split.rs`). A source that cannot re-execute ignores it.
    fn reexecute(&self, _split: bool) {}

    /// A restarted loop (`runtime/checkpoint.rs`): `finished` (sorted, disjoint ranges) are done;
    /// the scheduler, where this process runs it, hands out only the iterates left. Called before
    /// any worker asks for a chunk.
    fn restore(&self, finished: &[[u64; 2]]) -> Result<(), DlsError> {
        let _ = finished;
        Ok(())
    }

    /// Iterates restored from checkpoints (where this process runs the scheduler; else 0).
    fn restored(&self) -> u64 {
        0
    }

    /// Whether worker `slot` may stop executing its `ordinal`-th chunk of the loop (1, 2, …):
    /// every iterate of it has been confirmed by other copies (re-execution), so its verdict will
    /// be `Discard`. Cheap; the worker loop asks every few iterates.
    fn cancelled(&self, slot: usize, ordinal: u64) -> bool {
        let _ = (slot, ordinal);
        false
    }

    /// The flag behind [`cancelled`](Self::cancelled) for `slot`, where it is one atomic (the
    /// chunk's ordinal is stored in it when the chunk becomes redundant): the worker loop then
    /// reads it after every iterate. `None` where the question needs a message probe.
    fn cancel_flag(&self, slot: usize) -> Option<&AtomicU64> {
        let _ = slot;
        None
    }

    /// Whether the chunk worker `slot` was last handed is a copy of (part of) another worker's
    /// chunk (re-execution), so that its iterates may run beside their first execution: such a
    /// chunk logs its writes to a gathered vector where an original writes them in place
    /// (`gather::Place`). Where the source cannot tell, every chunk counts as a copy.
    fn holds_copy(&self, slot: usize) -> bool {
        let _ = slot;
        true
    }

    /// Whether [`cancelled`](Self::cancelled) is cheap (a memory load) rather than a message
    /// probe: the worker loop asks more often then.
    fn cheap_cancel_check(&self) -> bool {
        true
    }

    /// The cell through which worker `slot`'s chunk in progress may be split for an idle worker
    /// (`runtime/tolerance/split.rs`), where the scheduler runs in this process and arms it at every
    /// hand-out; `None` elsewhere (MPI workers). A worker that keeps its chunks apart
    /// (`engine::drive::apart::drive_apart`) claims its chunk's iterates through it.
    fn split_cell(&self, _slot: usize) -> Option<&SplitCell> {
        None
    }

    /// How often a worker that claims its chunk's iterates in batches calls
    /// [`at_claim`](Self::at_claim) inside a chunk (at a claim, once this much time passed);
    /// `None`: never.
    fn claim_poll(&self) -> Option<std::time::Duration> {
        None
    }

    /// Messages worker `slot` looks for between two of its iterates, inside its `ordinal`-th
    /// chunk begun at `started`: an MPI worker answers the scheduler's asks to split that chunk
    /// (`runtime/tolerance/split.rs`) every [`SPLIT_POLL`](crate::runtime::tolerance::split::SPLIT_POLL); rank 0's compute
    /// thread answers the other ranks' requests (`backend/mpi/service.rs`).
    fn at_claim(&self, _slot: usize, _ordinal: u64, _started: std::time::Instant) {}
}
