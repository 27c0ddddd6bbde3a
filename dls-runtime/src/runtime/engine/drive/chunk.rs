//! What every driver shares: a chunk run with its panics caught ([`run_chunk`]), the
//! [`Failure`] a panicking iterate becomes, and a body of one iterate as a body of runs
//! ([`each`]).

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::runtime::loops::handle::{ChunkRange, Iterates, Loop, Panics};
use crate::runtime::loops::panic_ctx::payload_text;
use crate::runtime::loops::range::LoopIndex;

/// A panicking iterate on the threads backend.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    /// The panic came from the merge function, not from an iterate.
    pub merging: bool,
    pub worker: usize,
    pub iterate: String,
    pub message: String,
}

/// A body of one iterate as a body of runs ([`Iterates`]), what the engine's drivers call.
#[inline]
pub(crate) fn each<I: LoopIndex, T>(
    body: impl Fn(I, &mut T) + Sync,
) -> impl Fn(Iterates<I>, &mut T) + Sync {
    move |run, acc| {
        for i in run {
            body(i, acc);
        }
    }
}

/// Runs the iterates of one chunk of `lp` as `worker`: `each` goes through them (in runs taken
/// from the chunk). With [`Panics::Catch`] (threads backend) a panicking iterate stops the loop
/// for every worker and comes back as a [`Failure`] naming it; with [`Panics::Unwind`] it
/// unwinds.
#[inline]
pub(crate) fn run_chunk<I: LoopIndex>(
    lp: &Loop<I>,
    worker: usize,
    panics: Panics,
    mut chunk: ChunkRange<'_, I>,
    mut each: impl FnMut(&mut ChunkRange<'_, I>),
) -> Result<(), Failure> {
    if panics == Panics::Unwind {
        each(&mut chunk);
        return Ok(());
    }
    let result = catch_unwind(AssertUnwindSafe(|| each(&mut chunk)));
    result.map_err(|payload| {
        lp.abort();
        Failure {
            merging: false,
            worker,
            iterate: chunk.current().to_string(),
            message: payload_text(payload.as_ref()),
        }
    })
}
