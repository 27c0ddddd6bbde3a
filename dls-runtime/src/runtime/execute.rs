//! Executing a loop's chunks on one worker: the body of `doall`/`doall_reduce` on every backend.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::loop_handle::Loop;
use super::panic_ctx::payload_text;
use super::range::LoopIndex;

/// A panicking iterate on the threads backend.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    pub worker: usize,
    pub iterate: String,
    pub message: String,
}

/// Pulls chunks of `lp` as worker `slot` (None: the current thread's slot) until the loop has no
/// more, folding every iterate into `acc` with `body`.
///
/// With `catch` (threads backend), a panicking iterate stops the loop for every worker and is
/// returned as a [`Failure`]; without it (MPI) the panic hook aborts the job.
pub(crate) fn drive<I, T, B>(
    lp: &Loop<I>,
    slot: Option<usize>,
    acc: &mut T,
    body: &B,
    catch: bool,
) -> Result<(), Failure>
where
    I: LoopIndex,
    B: Fn(I, &mut T),
{
    while let Some((chunk, worker)) = lp.next_chunk_in(slot, catch) {
        if !catch {
            for i in chunk {
                body(i, acc);
            }
            continue;
        }
        let mut current: Option<I> = None;
        let result = catch_unwind(AssertUnwindSafe(|| {
            for i in chunk {
                current = Some(i);
                body(i, &mut *acc);
            }
        }));
        if let Err(payload) = result {
            lp.abort();
            return Err(Failure {
                worker,
                iterate: current.map(|i| i.to_string()).unwrap_or_default(),
                message: payload_text(payload.as_ref()),
            });
        }
    }
    Ok(())
}
