//! The scheduler's service thread: answers the workers' requests while rank 0 computes.

use mpi::point_to_point::{Destination, Source};
use mpi::topology::Communicator;
use std::sync::Mutex;

use super::backoff::Backoff;
use super::comm::LoopComm;
use super::messages::{Reply, Request, REQUEST_WORDS, TAG_REPLY, TAG_REQUEST};
use crate::runtime::reporting_scheduler::ReportingScheduler;
use crate::runtime::sync::lock;

/// Serves requests until each of the `workers` ranks (1..=workers) has been told `Done` or has
/// left. Rank `r` is scheduler slot `r - first` (`first` = 1 when rank 0 is a coordinator that
/// executes no iterate, else 0).
pub(crate) fn serve(
    comm: &LoopComm,
    core: &Mutex<ReportingScheduler>,
    workers: usize,
    first: usize,
) {
    let comm = &comm.0;
    let mut active = workers;
    let mut backoff = Backoff::default();
    let mut buf = [0u64; REQUEST_WORDS];
    while active > 0 {
        // One posted receive per request, completed by polling (MPI_Irecv + MPI_Test): cheaper
        // than probing and then receiving, and it never blocks the thread inside MPI.
        let status = mpi::request::scope(|scope| {
            let mut request = comm.any_process().immediate_receive_into_with_tag(
                scope,
                &mut buf[..],
                TAG_REQUEST,
            );
            loop {
                match request.test() {
                    Ok(status) => break status,
                    Err(r) => {
                        request = r;
                        backoff.wait();
                    }
                }
            }
        });
        backoff.reset();
        let rank = status.source_rank();
        let slot = rank as usize - first;
        match Request::decode(&buf) {
            Some(Request::Next(timing)) => {
                let chunk = lock(core).serve(slot, timing);
                let reply = match chunk {
                    Some(c) => Reply::Chunk(c),
                    None => {
                        active -= 1;
                        Reply::Done
                    }
                };
                comm.process_at_rank(rank)
                    .send_with_tag(&reply.encode()[..], TAG_REPLY);
            }
            Some(Request::Leave(timing)) => {
                if let Some(t) = timing {
                    lock(core).record(slot, t);
                }
                active -= 1;
            }
            None => panic!("dls: malformed request from rank {rank}: {buf:?} (internal error)"),
        }
    }
}
