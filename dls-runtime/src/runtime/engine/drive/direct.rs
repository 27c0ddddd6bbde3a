//! The direct driver: the worker loop of every loop that keeps no chunk apart, on every backend
//! and at both levels of a two-level loop. It pulls chunks from the loop's source (the request
//! carries the previous chunk's timing), sets the panic context (in `Loop::next_chunk_in`) and
//! keeps the worker's tally (in `UntypedLoop::next`), and folds every iterate into the worker's
//! accumulator. With a `body` delay in `DLS_DELAY` (see `runtime/observe/delay.rs`) each iterate
//! first spends it; the hook is tested once per chunk, so without it the iterates run exactly as
//! before.

use super::chunk::{run_chunk, Failure};
use crate::runtime::loops::handle::{Iterates, Loop, Panics};
use crate::runtime::loops::range::LoopIndex;
use crate::runtime::observe::delay;

/// Pulls chunks of `lp` as worker `slot` (None: the current thread's slot) until the loop has no
/// more, folding every iterate into `acc` with `body`, which goes through a run of iterates
/// ([`Iterates`]: here, a whole chunk).
///
/// With [`Panics::Catch`] (threads backend), a panicking iterate stops the loop for every worker
/// and is returned as a [`Failure`]; with [`Panics::Unwind`] it unwinds (under MPI the panic
/// hook aborts the job).
pub(crate) fn drive<I, T, B>(
    lp: &Loop<I>,
    slot: Option<usize>,
    acc: &mut T,
    mut body: B,
    panics: Panics,
) -> Result<(), Failure>
where
    I: LoopIndex,
    B: FnMut(Iterates<I>, &mut T),
{
    while let Some((chunk, worker)) = lp.next_chunk_in(slot, panics) {
        match delay::body() {
            None => run_chunk(lp, worker, panics, chunk, |c| {
                body(c.take_run(u64::MAX), acc)
            })?,
            Some(d) => run_chunk(lp, worker, panics, chunk, |c| {
                while !c.is_done() {
                    d.wait(1);
                    body(c.take_run(1), acc);
                }
            })?,
        }
    }
    Ok(())
}
