//! One loop of a two-level loop on MPI, run on the runtime's MPI loop machinery
//! (`runtime::mpi_backend`): the same scheduler/worker protocol, messages and service thread as
//! one-level loops, over a communicator private to the two-level code.
//!
//! - An inner loop runs over its group's communicator: rank 0 (the group leader) schedules on a
//!   service thread and executes iterates on its own thread, so a request of the group's other
//!   ranks is answered promptly whatever the length of the leader's iterates.
//! - The outer loop runs over the coordinator and the group leaders, the coordinator as rank 0,
//!   which only schedules (`MpiLoop::start_private` with `coordinator`).
//!
//! Loops on one communicator run one after the other without a duplicate each (see
//! `MpiLoop::start_private` for why their messages cannot mix); each level has its own
//! communicator, split from a private duplicate of `MPI_COMM_WORLD`, so no message of one level
//! can match a receive of the other, nor one of a one-level loop.

use std::sync::Arc;
use std::time::Instant;

use crate::runtime::mpi_backend::{all_gather_values, LoopComm, MpiLoop};
use crate::runtime::{DlsError, Wire};
use crate::{ChunkTiming, Technique};

/// What the calling rank did in one loop.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tally {
    pub iterates: u64,
    pub chunks: u64,
    pub work_s: f64,
}

/// Runs a loop of `n` iterates shared by every rank of `comm` (rank 0 schedules on a service
/// thread and executes iterates too); `body(k)` executes iterate offset `k`. Collective: every
/// rank calls it with the same `n` and technique, and an invalid technique fails on every rank
/// before any communication. Returns what this rank did.
pub(crate) fn run_shared(
    comm: &Arc<LoopComm>,
    technique: &Technique,
    n: u64,
    body: &mut dyn FnMut(u64),
) -> Result<Tally, DlsError> {
    let lp = MpiLoop::start_private(comm, technique, n, false)?;
    let mut tally = Tally::default();
    let mut previous = None;
    loop {
        let requested = Instant::now();
        let Some(c) = lp.next(previous.take()) else {
            break;
        };
        let handed = Instant::now();
        for k in c.start..c.start + c.size {
            body(k);
        }
        let work_s = handed.elapsed().as_secs_f64();
        tally.iterates += c.size;
        tally.chunks += 1;
        tally.work_s += work_s;
        previous = Some(ChunkTiming {
            iterates: c.size,
            work_s,
            elapsed_s: requested.elapsed().as_secs_f64(),
        });
    }
    // The end of the loop without a report (this rank's tally is all the caller needs).
    lp.finish_quietly();
    Ok(tally)
}

/// One optional value per rank of `comm`, combined in rank order with `combine`; every rank gets
/// the total, `identity()` when no rank passes a value. Collective over `comm`.
pub(crate) fn combine_all<T: Wire>(
    comm: &LoopComm,
    mine: Option<T>,
    identity: &dyn Fn() -> T,
    combine: &dyn Fn(T, T) -> T,
) -> Result<T, DlsError> {
    let all: Vec<Option<T>> = all_gather_values(&comm.0, &mine)?;
    Ok(all
        .into_iter()
        .flatten()
        .reduce(combine)
        .unwrap_or_else(identity))
}
