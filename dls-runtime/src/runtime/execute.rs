//! The worker loop: what every worker of every loop runs, on every backend and at both levels of
//! a two-level loop. It pulls chunks from the loop's source (the request carries the previous
//! chunk's timing), sets the panic context (in `Loop::next_chunk_in`) and keeps the worker's
//! tally (in `UntypedLoop::next`), and folds every iterate into the worker's accumulator.
//! With a `body` delay in `DLS_DELAY` (see `runtime/delay.rs`) each iterate first spends it; the
//! hook is tested once per chunk, so without it the iterates run exactly as before.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::delay;
use super::loop_handle::{Loop, Panics};
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
    B: FnMut(I, &mut T),
{
    while let Some((chunk, worker)) = lp.next_chunk_in(slot, panics) {
        let delay = delay::body();
        if panics == Panics::Unwind {
            match delay {
                None => {
                    for i in chunk {
                        body(i, acc);
                    }
                }
                Some(d) => {
                    for i in chunk {
                        d.wait(1);
                        body(i, acc);
                    }
                }
            }
            continue;
        }
        let mut current: Option<I> = None;
        let result = catch_unwind(AssertUnwindSafe(|| match delay {
            None => {
                for i in chunk {
                    current = Some(i);
                    body(i, &mut *acc);
                }
            }
            Some(d) => {
                for i in chunk {
                    current = Some(i);
                    d.wait(1);
                    body(i, &mut *acc);
                }
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
