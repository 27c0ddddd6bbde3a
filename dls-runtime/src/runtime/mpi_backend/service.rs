//! The scheduler's service thread: answers the workers' requests while rank 0 computes.
//!
//! With re-execution of unfinished chunks (`runtime/reexecution.rs`), a worker that asks once
//! every iterate has been handed out, while chunks are still unconfirmed and none is late, is not
//! answered at once: its request is **deferred** until a chunk becomes late (it gets a copy) or
//! the loop completes (it gets `Done`). While requests are deferred the thread polls with
//! `MPI_Iprobe` (a posted receive could not be withdrawn once the last deferred worker is told
//! `Done`) and re-serves the deferred workers whenever a chunk is confirmed (by a request or by
//! rank 0's own compute thread) or a deadline passes.

use mpi::point_to_point::{Destination, Source};
use mpi::topology::Communicator;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use super::backoff::Backoff;
use super::comm::LoopComm;
use super::messages::{
    Reply, Request, REQUEST_WORDS, TAG_CANCEL, TAG_REPLY, TAG_REQUEST, TAG_SPLIT,
};
use crate::runtime::reexecution::Verdict;
use crate::runtime::reporting_scheduler::{Next, ReportingScheduler};
use crate::runtime::sync::lock;

/// A worker whose request waits for a late chunk or the end of the loop.
struct Deferred {
    rank: i32,
    slot: usize,
    /// The verdict on its previous chunk, sent with the eventual reply.
    verdict: Verdict,
    /// When to serve it again at the latest.
    at: Instant,
}

/// Serves requests until each of the `workers` ranks (1..=workers) has been told `Done` or has
/// left. Rank `r` is scheduler slot `r - first` (`first` = 1 when rank 0 is a coordinator that
/// executes no iterate, else 0). `changed` is notified when a request confirms a chunk (rank 0's
/// compute thread may be waiting for one).
pub(crate) fn serve(
    comm: &LoopComm,
    core: &Mutex<ReportingScheduler>,
    changed: &Condvar,
    own_cancel: &AtomicU64,
    workers: usize,
    first: usize,
) {
    let comm = &comm.0;
    let mut active = workers;
    // Rank 0 computes (`first` = 0) and is bound to one core, which its compute thread keeps
    // busy: this thread may run on the job's other cores.
    if first == 0 && std::thread::available_parallelism().map_or(true, |n| n.get() < 2) {
        widen_affinity();
    }
    let mut backoff = Backoff::default();
    let mut buf = [0u64; REQUEST_WORDS];
    let mut deferred: Vec<Deferred> = Vec::new();
    let done_counter = lock(core).done_counter();
    let mut seen = done_counter.load(std::sync::atomic::Ordering::Relaxed);
    while active > 0 {
        let rank = if deferred.is_empty() {
            // One posted receive per request, completed by polling (MPI_Irecv + MPI_Test):
            // cheaper than probing and then receiving, and it never blocks the thread inside MPI.
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
                            // While every remote worker is inside a chunk, sleep until shortly
                            // before the first should finish (rank r is slot r - first).
                            backoff.wait_expecting(|| {
                                lock(core).next_request_due(1 - first..workers + 1 - first)
                            });
                        }
                    }
                }
            });
            status.source_rank()
        } else {
            match comm
                .any_process()
                .immediate_matched_probe_with_tag(TAG_REQUEST)
            {
                Some((msg, _)) => msg.matched_receive_into(&mut buf[..]).source_rank(),
                None => {
                    // No request: serve the deferred workers again if a chunk was confirmed
                    // since (here or by rank 0's compute thread) or a deadline passed.
                    let now_done = done_counter.load(std::sync::atomic::Ordering::Relaxed);
                    let now = Instant::now();
                    if now_done != seen || deferred.iter().any(|d| d.at <= now) {
                        seen = now_done;
                        active -= serve_deferred(comm, core, &mut deferred);
                    }
                    backoff.wait();
                    continue;
                }
            }
        };
        backoff.reset();
        let slot = rank as usize - first;
        match Request::decode(&buf) {
            Some(Request::Next(timing)) => {
                let (next, verdict) = {
                    let mut core = lock(core);
                    let before = core.unconfirmed();
                    let served = core.serve_at(slot, timing, Instant::now());
                    send_cancels(comm, &mut core, first, own_cancel);
                    if core.unconfirmed() < before {
                        changed.notify_all();
                    }
                    served
                };
                match next {
                    Next::Chunk(c) => reply(comm, rank, Reply::Chunk(c, verdict)),
                    Next::Done => {
                        active -= 1;
                        reply(comm, rank, Reply::Done(verdict));
                    }
                    Next::Wait(at) => deferred.push(Deferred {
                        rank,
                        slot,
                        verdict,
                        at,
                    }),
                }
            }
            Some(Request::Split { ordinal, s, limit }) => {
                // A worker's answer to an ask to split its chunk (no reply): the part split off
                // goes to the next idle worker, served below or by rank 0's compute thread.
                let mut core = lock(core);
                core.split_answered(slot, ordinal, s, limit);
                send_cancels(comm, &mut core, first, own_cancel);
                changed.notify_all();
            }
            Some(Request::Leave(timing)) => {
                if let Some(t) = timing {
                    let mut core = lock(core);
                    let before = core.unconfirmed();
                    core.hand_in(slot, t, Instant::now());
                    send_cancels(comm, &mut core, first, own_cancel);
                    if core.unconfirmed() < before {
                        changed.notify_all();
                    }
                }
                active -= 1;
            }
            None => panic!("dls: malformed request from rank {rank}: {buf:?} (internal error)"),
        }
        if !deferred.is_empty() {
            active -= serve_deferred(comm, core, &mut deferred);
        }
    }
}

/// Serves every deferred worker again: sends a copy or `Done` to those that can have one and
/// keeps the others with their new deadline. Returns how many were told `Done`.
fn serve_deferred(
    comm: &mpi::topology::SimpleCommunicator,
    core: &Mutex<ReportingScheduler>,
    deferred: &mut Vec<Deferred>,
) -> usize {
    let mut finished = 0;
    let mut core = lock(core);
    let first = deferred.first().map_or(0, |d| d.rank as usize - d.slot);
    deferred.retain_mut(|d| match core.serve_at(d.slot, None, Instant::now()).0 {
        Next::Chunk(c) => {
            reply(comm, d.rank, Reply::Chunk(c, d.verdict));
            false
        }
        Next::Done => {
            reply(comm, d.rank, Reply::Done(d.verdict));
            finished += 1;
            false
        }
        Next::Wait(at) => {
            d.at = at;
            true
        }
    });
    send_split_asks(comm, &mut core, first);
    finished
}

/// Tells every worker whose chunk became redundant: rank 0's own compute thread through
/// `own_cancel`, the others by a `TAG_CANCEL` message. Called with the scheduler locked, so a
/// cancellation is sent before any later reply to the same worker (which the lock orders after
/// it): a worker that leaves the loop after its `Done` finds every cancellation addressed to it.
pub(crate) fn send_cancels(
    comm: &mpi::topology::SimpleCommunicator,
    core: &mut ReportingScheduler,
    first: usize,
    own_cancel: &AtomicU64,
) {
    for (slot, ordinal) in core.take_cancels() {
        let rank = slot + first;
        if rank == 0 {
            own_cancel.store(ordinal, Ordering::Relaxed);
        } else {
            comm.process_at_rank(rank as i32)
                .send_with_tag(&[ordinal][..], TAG_CANCEL);
        }
    }
    send_split_asks(comm, core, first);
}

/// Sends the asks to split a chunk (`TAG_SPLIT`) that serving requests produced
/// (`runtime/split.rs`); with the scheduler locked, like cancellations.
pub(crate) fn send_split_asks(
    comm: &mpi::topology::SimpleCommunicator,
    core: &mut ReportingScheduler,
    first: usize,
) {
    for (slot, ordinal, keep) in core.take_split_asks() {
        comm.process_at_rank((slot + first) as i32)
            .send_with_tag(&[ordinal, keep][..], TAG_SPLIT);
    }
}

fn reply(comm: &mpi::topology::SimpleCommunicator, rank: i32, reply: Reply) {
    comm.process_at_rank(rank)
        .send_with_tag(&reply.encode()[..], TAG_REPLY);
}

/// Lets the service thread run on any core of the job's share of the node (the launcher's CPUs)
/// when mpirun bound rank 0 to one core, which its compute thread keeps busy: the kernel can
/// then run a request's answer on another core (beside another rank's computation, for the few
/// microseconds it takes) instead of only in the compute thread's time slices. Measured under
/// `mpirun -np 2` (bound to cores by default): see the README's "Adaptive techniques on loops
/// whose cost follows the index". Linux only; elsewhere, or if the launcher's CPUs cannot be
/// read, nothing changes.
fn widen_affinity() {
    #[cfg(target_os = "linux")]
    if let Some(cpus) = crate::report::launcher_cpus() {
        if cpus.len() < 2 {
            return;
        }
        // SAFETY: a zeroed cpu_set_t is the empty set; CPU_SET writes within it for indices
        // below CPU_SETSIZE (checked); sched_setaffinity(0, ...) applies to the calling thread.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for cpu in cpus.into_iter().filter(|&c| c < libc::CPU_SETSIZE as usize) {
                libc::CPU_SET(cpu, &mut set);
            }
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
        }
    }
}
