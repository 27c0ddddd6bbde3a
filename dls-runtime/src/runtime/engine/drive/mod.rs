//! The drivers: what one worker of a loop runs, chosen once per loop by its plan
//! ([`Driver`](super::plan::Driver)). [`direct`] pulls chunks from the loop's source and folds
//! every iterate into the worker's value; [`claimed`] is its fast path where the workers claim
//! fixed-size chunks themselves; [`apart`] keeps each chunk's value apart until the scheduler
//! confirms it (re-execution and checkpoints). Every driver runs a chunk through [`run_chunk`]
//! and reports a panicking iterate as a [`Failure`].

use crate::runtime::checkpoint::LoopCheckpoints;
use crate::runtime::loops::handle::{Iterates, Loop};
use crate::runtime::loops::range::LoopIndex;
use crate::runtime::sync::lock;
use apart::Apart;
use claimed::{Ended, Keep};
use serde::Serialize;

use super::plan::{Driver, LoopPlan};
use crate::runtime::loops::reduction::Reduction;

pub(crate) mod apart;
pub(crate) mod chunk;
pub(crate) mod claimed;
pub(crate) mod direct;

pub(crate) use chunk::{each, Failure};

/// What a worker of a loop that keeps chunks apart starts from: the loop's checkpoints and the
/// value they restored (worker 0 of the scheduling process starts from it).
pub(crate) struct Restart<'a, T> {
    /// The loop's checkpoints, when it writes them.
    pub(crate) checkpoints: Option<&'a LoopCheckpoints<T>>,
    /// The value the checkpoints held, taken by the first worker that starts from it.
    pub(crate) restored: &'a crate::runtime::annotate::sync::Mutex<Option<T>>,
    /// This process's rank in the loop.
    pub(crate) process_rank: usize,
}

/// Runs worker `slot` of `lp` to the loop's end with the driver `plan` names, folding its
/// iterates with `red`. Returns the worker's value, or the failure that ended the loop.
pub(crate) fn run<I, T, Id, B, C>(
    lp: &Loop<I>,
    plan: &LoopPlan,
    slot: usize,
    red: &Reduction<Id, B, C>,
    restart: &Restart<'_, T>,
) -> Result<T, Failure>
where
    I: LoopIndex,
    T: Serialize,
    Id: Fn() -> T,
    B: Fn(Iterates<I>, &mut T) + Sync,
    C: Fn(T, T) -> T,
{
    let panics = plan.panics;
    let claims = lp.core().source().claims();
    match (plan.driver, claims) {
        (Driver::Claimed { apart }, Some(claims)) => {
            let ended = if apart {
                let keep = Keep::Apart {
                    identity: &red.identity,
                    combine: &red.combine,
                };
                claimed::drive_claimed(lp, slot, claims, (red.identity)(), keep, &red.body, panics)
            } else {
                let keep = Keep::<Id, C>::Direct;
                claimed::drive_claimed(lp, slot, claims, (red.identity)(), keep, &red.body, panics)
            };
            match ended? {
                Ended::Done(value) => Ok(value),
                // The loop's tail is the scheduler's: the worker goes on apart with its value so
                // far and its last chunk's value, whose verdict the scheduler gives.
                Ended::Tail {
                    kept,
                    pending,
                    ordinal,
                } => {
                    let apart = Apart {
                        identity: &red.identity,
                        combine: &red.combine,
                        initial: Some(kept),
                        checkpoints: None,
                        resume: pending,
                        ordinal,
                    };
                    apart::drive_apart(lp, Some(slot), apart, &red.body, panics)
                }
            }
        }
        (Driver::Apart, _) => {
            // Worker 0 of the scheduling process starts from what the checkpoints held.
            let first = slot == 0 && restart.process_rank == 0;
            let initial = if first {
                lock(restart.restored).take()
            } else {
                None
            };
            let checkpoints = restart.checkpoints.map(|c| {
                // Worker `rank·k + slot` of the loop (k threads per rank; 1 on MPI alone, rank 0
                // alone on threads).
                let me = restart.process_rank * lp.core().source().local_slots() + slot;
                let ranges = if first {
                    c.restored_ranges.clone()
                } else {
                    Vec::new()
                };
                (&c.writer, c.writer.worker(me, ranges))
            });
            let apart = Apart {
                identity: &red.identity,
                combine: &red.combine,
                initial,
                checkpoints,
                resume: None,
                ordinal: 0,
            };
            apart::drive_apart(lp, Some(slot), apart, &red.body, panics)
        }
        _ => {
            let mut acc = (red.identity)();
            direct::drive(lp, Some(slot), &mut acc, &red.body, panics).map(|()| acc)
        }
    }
}
