//! The scheduler's service: answers the workers' requests while rank 0 computes.
//!
//! **Who answers.** Two threads of rank 0 share one [`Service`]: the service thread, and rank 0's
//! compute thread, which tests for a request at its claims inside a chunk (`runtime/engine/drive/apart.rs`):
//! every [`SERVE_POLL`] to [`SERVE_POLL_NEAR`] once a request is due at the workers' pace, every
//! [`SERVE_POLL_FAR`] before. Whoever holds the service's bookkeeping receives. One receive is
//! kept posted (`MPI_Irecv`, tested with `MPI_Test` by either thread), the fast path of
//! self-scheduling's request per iterate. While the compute thread looks, the service thread
//! answers only in the [`SPIN`](super::backoff::SPIN) after a request (the next one may follow at
//! once: small chunks) and otherwise sleeps [`RELAXED_SLEEP`] at a time instead of polling every
//! 20-70 µs from the moment a request is due; it answers alone before rank 0's first chunk, in a
//! loop whose chunks rank 0 does not claim in batches, inside an iterate longer than
//! [`RELAX_WINDOW`], and once rank 0 has no chunk left.
//!
//! Why: with every core computing (one rank per core, as mpirun binds them), the service thread
//! waits for a core behind the compute threads. Under `mpirun -np 2` rank 1 started its first
//! chunk 2-8 ms after rank 0 in some runs and waited 1-4 ms for some replies, and the service
//! thread's polls while a request was overdue (3-5 ms of CPU a loop, on the other rank's core)
//! slowed rank 1's iterates (BENCHMARKS.md, "Adaptive techniques on loops whose cost follows the
//! index"). The compute thread answers between two of its own iterates, as Cariño & Banicescu's
//! (2007) scheduler, which also computes, does.
//!
//! With re-execution of unfinished chunks (`runtime/tolerance/reexecution.rs`), a worker that asks once
//! every iterate has been handed out, while chunks are still unconfirmed and none is late, is not
//! answered at once: its request is **deferred** until a chunk becomes late (it gets a copy) or
//! the loop completes (it gets `Done`), re-served whenever a chunk is confirmed (by a request or
//! by rank 0's own compute thread) or a deadline passes. While requests are deferred no receive
//! is posted (one could not be withdrawn once the last deferred worker is told `Done`): both
//! threads probe (`MPI_Improbe`).

use crate::runtime::annotate::sync::AtomicU64;
use crate::runtime::annotate::sync::{Condvar, Mutex};
use mpi::point_to_point::{Destination, Source};
use mpi::raw::AsRaw;
use mpi::topology::Communicator;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use super::backoff::Backoff;
use super::comm::LoopComm;
use super::messages::{
    sender_thread, thread_tag, Reply, Request, REQUEST_WORDS, TAG_CANCEL, TAG_REPLY, TAG_REQUEST,
    TAG_SPLIT,
};
use crate::runtime::sched::reporting::{Next, ReportingScheduler};
use crate::runtime::sync::lock;
use crate::runtime::tolerance::reexecution::Verdict;

/// How often rank 0's compute thread looks for requests at its claims inside a chunk (one
/// `MPI_Test`; an `MPI_Improbe` took about a microsecond here) once a request is due (a worker's chunk should end
/// within [`DUE_LEAD`] at its pace so far), or while no due time is known: every 20 µs at
/// first, twice as long after each look that found nothing, up to [`SERVE_POLL_NEAR`].
pub(crate) const SERVE_POLL: Duration = Duration::from_micros(20);
/// The longest gap between two looks once a request is due.
const SERVE_POLL_NEAR: Duration = Duration::from_micros(40);
/// How often it looks while no request is due: a request that comes earlier than its chunk's
/// pace predicts (cheaper iterates) waits at most this plus a claim's batch (20-80 µs).
const SERVE_POLL_FAR: Duration = Duration::from_micros(200);
/// How long before a request's due time the compute thread starts looking often.
const DUE_LEAD: Duration = Duration::from_micros(100);
/// The compute thread counts as looking for requests if it was at a claim this recently, and
/// its last two claims were at most [`CLAIM_GAP_MAX`] apart; otherwise the service thread
/// answers them (a compute thread inside iterates of a millisecond, say, would leave a request
/// waiting that long).
const RELAX_WINDOW: Duration = Duration::from_millis(1);
/// See [`RELAX_WINDOW`].
const CLAIM_GAP_MAX: Duration = Duration::from_micros(100);
/// How long the service thread sleeps at a time while the compute thread looks for requests (it
/// is woken when the compute thread stops: no chunk left, or the end of the loop).
const RELAXED_SLEEP: Duration = Duration::from_millis(1);

/// A worker whose request waits for a late chunk or the end of the loop.
struct Deferred {
    rank: i32,
    /// Its thread in the rank (threads inside ranks; else 0).
    thread: usize,
    slot: usize,
    /// The verdict on its previous chunk, sent with the eventual reply.
    verdict: Verdict,
    /// When to serve it again at the latest.
    at: Instant,
}

/// The longest the service thread sleeps while every worker it has not told `Done` waits for
/// its answer (deferred: nothing can come from them): a deadline of theirs, or rank 0's compute
/// thread confirming a chunk ([`Service::wake`]), ends the sleep sooner. Polling every 20-70 µs
/// there took a third of a core on rank 0 while its own compute thread ran a long last iterate
/// (`mpi_idle_cpu`: 0.48 s of CPU in 1.5 s); a quarter of a millisecond is the split poll's
/// granularity too (200 µs, `runtime::split::SPLIT_POLL`).
const DEFERRED_SLEEP_MAX: Duration = Duration::from_micros(250);

/// The requests' bookkeeping; the thread that holds it may receive requests.
struct Book {
    /// Workers not yet told `Done` (nor left).
    active: usize,
    deferred: Vec<Deferred>,
    /// The scheduler's count of confirmed chunks when the deferred workers were last served.
    seen: u64,
    /// The receive kept posted while no request is deferred.
    posted: Posted,
}

/// One posted receive of a request (`MPI_Irecv` from any rank), which either thread may test:
/// through the MPI handle, as rsmpi's requests are tied to the scope of the thread that made them.
struct Posted {
    request: Option<mpi::ffi::MPI_Request>,
    buf: Box<[u64; REQUEST_WORDS]>,
}

// SAFETY: an MPI request handle is an opaque reference to an MPI object; under
// `MPI_THREAD_MULTIPLE` (which dls requires, `MpiEnv::init`) any thread may test it, and the
// `Book`'s mutex lets one thread at a time. The buffer is boxed, so it stays where MPI writes
// while the `Posted` moves.
unsafe impl Send for Posted {}

impl Posted {
    fn new() -> Posted {
        Posted {
            request: None,
            buf: Box::new([0; REQUEST_WORDS]),
        }
    }

    /// Posts the receive of the next request on `comm`.
    fn post(&mut self, comm: &mpi::topology::SimpleCommunicator) {
        debug_assert!(self.request.is_none());
        let mut request = std::mem::MaybeUninit::<mpi::ffi::MPI_Request>::uninit();
        // SAFETY: the buffer holds REQUEST_WORDS u64 and outlives the request (it is completed
        // before the `Posted` is dropped: a request is posted only while a worker has yet to send
        // one, and `Drop` completes any left); the datatype and source are MPI's constants.
        unsafe {
            mpi::ffi::MPI_Irecv(
                self.buf.as_mut_ptr().cast(),
                REQUEST_WORDS as i32,
                mpi::ffi::RSMPI_UINT64_T,
                mpi::ffi::RSMPI_ANY_SOURCE,
                TAG_REQUEST,
                comm.as_raw(),
                request.as_mut_ptr(),
            );
            self.request = Some(request.assume_init());
        }
    }

    /// The sender of the request received, if the posted receive completed (its words in `buf`).
    fn test(&mut self) -> Option<i32> {
        let request = self.request.as_mut()?;
        let mut flag = 0;
        let mut status = std::mem::MaybeUninit::<mpi::ffi::MPI_Status>::uninit();
        // SAFETY: `request` is an active request made by `post`; MPI writes flag and status.
        unsafe {
            mpi::ffi::MPI_Test(request, &mut flag, status.as_mut_ptr());
            if flag == 0 {
                return None;
            }
            self.request = None;
            Some(status.assume_init().MPI_SOURCE)
        }
    }
}

impl Drop for Posted {
    fn drop(&mut self) {
        // Never posted at a loop's end (every worker sent its last request); if a panic ended
        // the loop early, withdraw it so that MPI does not write into freed memory.
        if let Some(mut request) = self.request.take() {
            // SAFETY: an active receive request; cancelled, then completed.
            unsafe {
                mpi::ffi::MPI_Cancel(&mut request);
                mpi::ffi::MPI_Wait(&mut request, mpi::ffi::RSMPI_STATUS_IGNORE);
            }
        }
    }
}

/// Everything answering a request needs, shared by rank 0's service thread and compute thread.
pub(crate) struct Service {
    comm: Arc<LoopComm>,
    core: Arc<Mutex<ReportingScheduler>>,
    /// Notified when a request confirms a chunk (rank 0's compute thread may wait for one).
    changed: Arc<Condvar>,
    own_cancel: Arc<[AtomicU64]>,
    /// Thread t of rank r is scheduler slot `(r - first)·k + t` (`first` = 1 when rank 0 is a
    /// coordinator that executes no iterate, else 0; `k` threads per rank, 1 but for threads
    /// inside ranks).
    first: usize,
    k: usize,
    book: Mutex<Book>,
    /// The scheduler's count of confirmed chunks (re-serves deferred workers when it moves).
    done_counter: Arc<AtomicU64>,
    origin: Instant,
    /// When the compute thread last was at a claim (ns after `origin`; 0: not looking).
    looked_ns: AtomicU64,
    /// The time between its last two claims (ns).
    claim_gap_ns: AtomicU64,
    /// When it last probed for requests (ns after `origin`).
    probed_ns: AtomicU64,
    /// The service thread's tests for a request so far: while it polls (right after a request:
    /// small chunks come in quick succession), the count moves between two of the compute
    /// thread's looks, which leaves the requests to it.
    service_polls: AtomicU64,
    /// The count at the compute thread's last look.
    polls_seen: AtomicU64,
    /// When the next request is due (ns after `origin`; 0: unknown).
    due_ns: AtomicU64,
    /// Set while the service thread sleeps with every active worker deferred: rank 0's compute
    /// thread wakes it when it confirms a chunk ([`Service::wake`]).
    asleep_deferred: crate::runtime::annotate::sync::AtomicBool,
    /// The compute thread's gap between two looks once a request is due (ns).
    gap_ns: AtomicU64,
    /// The service thread, to wake when the compute thread stops looking.
    thread: Mutex<Option<thread::Thread>>,
    /// Whether rank 0's compute thread answers requests at its claims: not where rank 0 is a
    /// coordinator, nor on a node with more ranks than cores, where Open MPI's calls yield the
    /// core while they wait (`mpi_yield_when_idle`), so that each look would cost rank 0 a time
    /// slice (SS over 1 ms iterates, `speed_change` at `mpirun -np 8` on 2 cores: 0.87-0.954
    /// over 12 runs with the looks, 0.959-0.969 without, 0.957-0.968 before this service).
    compute_answers: bool,
}

/// Whether this node runs more ranks than it has cores (asked once per process).
fn node_oversubscribed(ranks: usize) -> bool {
    static OVER: crate::runtime::annotate::sync::OnceLock<bool> =
        crate::runtime::annotate::sync::OnceLock::new();
    *OVER.get_or_init(|| crate::report::Oversubscribed::on_this_node(ranks, true).is_some())
}

impl Service {
    /// The service of a loop whose `workers` ranks (1..=workers), of `k` threads each, will
    /// send requests.
    pub(crate) fn new(
        comm: Arc<LoopComm>,
        core: Arc<Mutex<ReportingScheduler>>,
        changed: Arc<Condvar>,
        own_cancel: Arc<[AtomicU64]>,
        workers: usize,
        first: usize,
        k: usize,
    ) -> Service {
        let done_counter = lock(&core).done_counter();
        let seen = done_counter.load(Ordering::Relaxed);
        Service {
            comm,
            core,
            changed,
            own_cancel,
            first,
            k,
            book: Mutex::new(Book {
                active: workers * k,
                deferred: Vec::new(),
                seen,
                posted: Posted::new(),
            }),
            done_counter,
            origin: Instant::now(),
            looked_ns: AtomicU64::new(0),
            claim_gap_ns: AtomicU64::new(u64::MAX),
            probed_ns: AtomicU64::new(0),
            service_polls: AtomicU64::new(0),
            polls_seen: AtomicU64::new(0),
            due_ns: AtomicU64::new(0),
            asleep_deferred: crate::runtime::annotate::sync::AtomicBool::new(false),
            gap_ns: AtomicU64::new(SERVE_POLL.as_nanos() as u64),
            thread: Mutex::new(None),
            // With threads inside ranks, rank 0's threads compute and its service thread answers.
            compute_answers: first == 0 && k == 1 && !node_oversubscribed(workers + 1),
        }
    }

    /// Whether rank 0's compute thread answers requests at its claims ([`look`](Self::look)).
    pub(crate) fn compute_answers(&self) -> bool {
        self.compute_answers
    }

    /// Rank 0's compute thread, at a claim inside a chunk: answers every request waiting (unless
    /// the service thread is answering one right now).
    pub(crate) fn look(&self) {
        let now = (self.origin.elapsed().as_nanos() as u64).max(1);
        let before = self.looked_ns.swap(now, Ordering::Relaxed);
        let gap = if before == 0 { u64::MAX } else { now - before };
        self.claim_gap_ns.store(gap, Ordering::Relaxed);
        let due = self.due_ns.load(Ordering::Relaxed);
        let near = due == 0 || now + DUE_LEAD.as_nanos() as u64 >= due;
        let gap = if near {
            self.gap_ns.load(Ordering::Relaxed)
        } else {
            SERVE_POLL_FAR.as_nanos() as u64
        };
        if now < self.probed_ns.load(Ordering::Relaxed) + gap {
            return;
        }
        self.probed_ns.store(now, Ordering::Relaxed);
        let polls = self.service_polls.load(Ordering::Relaxed);
        if polls != self.polls_seen.swap(polls, Ordering::Relaxed) {
            // The service thread is polling.
            return;
        }
        let Ok(mut book) = self.book.try_lock() else {
            return;
        };
        let mut got = false;
        while book.active > 0 && self.receive(&mut book) {
            got = true;
        }
        if got {
            self.gap_ns
                .store(SERVE_POLL.as_nanos() as u64, Ordering::Relaxed);
        } else if near {
            let longer = (gap * 2).min(SERVE_POLL_NEAR.as_nanos() as u64);
            self.gap_ns.store(longer, Ordering::Relaxed);
        }
    }

    /// Records when the next request is due: the earliest end of a worker's chunk at its pace
    /// (unknown before every worker has a pace).
    fn expect(&self, core: &ReportingScheduler) {
        let due = self.next_due(core).map_or(0, |at| {
            (at.saturating_duration_since(self.origin).as_nanos() as u64).max(1)
        });
        self.due_ns.store(due, Ordering::Relaxed);
        self.gap_ns
            .store(SERVE_POLL.as_nanos() as u64, Ordering::Relaxed);
    }

    /// Rank 0's compute thread confirmed a chunk: if the service thread sleeps while every
    /// remote worker waits for its answer, it wakes to serve them (one atomic load otherwise).
    pub(crate) fn wake(&self) {
        if self.asleep_deferred.load(Ordering::SeqCst) {
            if let Some(t) = lock(&self.thread).as_ref() {
                t.unpark();
            }
        }
    }

    /// Rank 0's compute thread stops looking for requests (it has no chunk, or waits for one):
    /// the service thread answers from now on.
    pub(crate) fn stop_looking(&self) {
        if self.looked_ns.swap(0, Ordering::Relaxed) != 0 {
            if let Some(t) = lock(&self.thread).as_ref() {
                t.unpark();
            }
        }
    }

    /// Whether the compute thread looks for requests often enough (see [`RELAX_WINDOW`]).
    fn compute_looks(&self) -> bool {
        let at = self.looked_ns.load(Ordering::Relaxed);
        at != 0
            && self.claim_gap_ns.load(Ordering::Relaxed) <= CLAIM_GAP_MAX.as_nanos() as u64
            && self.origin.elapsed().as_nanos() as u64 <= at + RELAX_WINDOW.as_nanos() as u64
    }

    /// The service thread: serves requests until each worker has been told `Done` or has left.
    pub(crate) fn serve(&self) {
        *lock(&self.thread) = Some(thread::current());
        // Rank 0 computes (`first` = 0) and is bound to one core, which its compute thread keeps
        // busy: this thread may run on the job's other cores.
        if self.first == 0 && thread::available_parallelism().map_or(true, |n| n.get() < 2) {
            widen_affinity();
        }
        let mut backoff = Backoff::default();
        let mut polls = 0u64;
        loop {
            // The compute thread may be testing for a request (inside MPI, which may yield the
            // core on an oversubscribed node): wait as if nothing came rather than block.
            let mut book = match self.book.try_lock() {
                Ok(book) => book,
                Err(std::sync::TryLockError::WouldBlock) => {
                    backoff.wait();
                    continue;
                }
                Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            };
            if book.active == 0 {
                return;
            }
            polls += 1;
            self.service_polls.store(polls, Ordering::Relaxed);
            if self.receive(&mut book) {
                backoff.reset();
                continue;
            }
            let expecting = book.deferred.is_empty();
            // Every worker not yet told `Done` waits for its answer: no message can come.
            let all_waiting = !expecting && book.deferred.len() >= book.active;
            let until = book.deferred.iter().map(|d| d.at).min();
            let seen = book.seen;
            drop(book);
            if !backoff.fresh() && self.compute_looks() {
                // The compute thread answers at its claims.
                thread::park_timeout(RELAXED_SLEEP);
            } else if all_waiting && !backoff.fresh() {
                // Until the first deadline, rank 0's compute thread confirming a chunk (it
                // unparks this thread), or DEFERRED_SLEEP_MAX.
                let sleep = until
                    .map_or(DEFERRED_SLEEP_MAX, |at| {
                        at.saturating_duration_since(Instant::now())
                    })
                    .min(DEFERRED_SLEEP_MAX);
                self.asleep_deferred.store(true, Ordering::SeqCst);
                if self.done_counter.load(Ordering::SeqCst) == seen {
                    thread::park_timeout(sleep);
                }
                self.asleep_deferred.store(false, Ordering::SeqCst);
            } else {
                // While every remote worker that is not waiting for an answer is inside a chunk,
                // sleep until shortly before the first should finish (rank r is slot r - first),
                // or until the first deferred worker's deadline.
                backoff.wait_expecting(|| {
                    let due = self.next_due(&lock(&self.core));
                    match (due, until.filter(|_| !expecting)) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    }
                });
            }
        }
    }

    /// When the first remote worker's request is due at its pace (the slots of ranks 1, 2, …).
    fn next_due(&self, core: &ReportingScheduler) -> Option<Instant> {
        let workers = self.comm.0.size() as usize - 1;
        core.next_request_due((1 - self.first) * self.k..(workers + 1 - self.first) * self.k)
    }

    /// Receives and answers one request if one came (the posted receive completed; while
    /// requests are deferred, `MPI_Improbe`); otherwise, while requests are deferred, serves the
    /// deferred workers again if a chunk was confirmed since (here or by rank 0's compute
    /// thread) or a deadline passed. Whether a request came.
    fn receive(&self, book: &mut Book) -> bool {
        let comm = &self.comm.0;
        if book.posted.request.is_none() && book.deferred.is_empty() && book.active > 0 {
            book.posted.post(comm);
        }
        let (rank, buf) = if book.posted.request.is_some() {
            match book.posted.test() {
                Some(rank) => (rank, *book.posted.buf),
                None => return false,
            }
        } else {
            let mut buf = [0u64; REQUEST_WORDS];
            match comm
                .any_process()
                .immediate_matched_probe_with_tag(TAG_REQUEST)
            {
                Some((msg, _)) => (msg.matched_receive_into(&mut buf[..]).source_rank(), buf),
                None => {
                    let now_done = self.done_counter.load(Ordering::Relaxed);
                    let now = Instant::now();
                    if now_done != book.seen || book.deferred.iter().any(|d| d.at <= now) {
                        book.seen = now_done;
                        book.active -= self.serve_deferred(&mut book.deferred);
                    }
                    return false;
                }
            }
        };
        self.answer(book, rank, &buf);
        true
    }

    /// Answers request `buf` from `rank`.
    fn answer(&self, book: &mut Book, rank: i32, buf: &[u64; REQUEST_WORDS]) {
        let arrived = Instant::now();
        let comm = &self.comm.0;
        let (core, first, k) = (&self.core, self.first, self.k);
        let thread = sender_thread(buf);
        if thread >= k {
            panic!(
                "dls: request from thread {thread} of rank {rank}, which has {k} (internal error)"
            );
        }
        let slot = (rank as usize - first) * k + thread;
        let reply = |r: Reply| reply(comm, rank, thread, r);
        match Request::decode(buf) {
            Some(Request::Next(timing)) => {
                let mut core = lock(core);
                if let Some(next) = core.answer_first(slot, timing) {
                    // A loop that does not re-execute: the answer goes out first, the
                    // bookkeeping (report, the next request's due time) follows while the
                    // worker starts its chunk; no cancellation, ask to split or deferral.
                    match next {
                        Next::Chunk(c) => reply(Reply::Chunk(c, Verdict::Keep)),
                        Next::Done => {
                            book.active -= 1;
                            reply(Reply::Done(Verdict::Keep));
                        }
                        Next::Wait(_) => unreachable!("only a re-executing loop defers"),
                    }
                    core.settle(slot, timing, next, Instant::now());
                    self.expect(&core);
                    core.note_served(arrived.elapsed());
                } else {
                    let before = core.unconfirmed();
                    let (next, verdict) = core.serve_at(slot, timing, Instant::now());
                    send_cancels(comm, &mut core, first, k, &self.own_cancel);
                    if core.unconfirmed() < before {
                        self.changed.notify_all();
                    }
                    self.expect(&core);
                    // The answer's send follows: not counted in this path's cost.
                    core.note_served(arrived.elapsed());
                    drop(core);
                    match next {
                        Next::Chunk(c) => reply(Reply::Chunk(c, verdict)),
                        Next::Done => {
                            book.active -= 1;
                            reply(Reply::Done(verdict));
                        }
                        Next::Wait(at) => book.deferred.push(Deferred {
                            rank,
                            thread,
                            slot,
                            verdict,
                            at,
                        }),
                    }
                }
            }
            Some(Request::Split { ordinal, s, limit }) => {
                // A worker's answer to an ask to split its chunk (no reply): the part split off
                // goes to the next idle worker, served below or by rank 0's compute thread.
                let mut core = lock(core);
                core.split_answered(slot, ordinal, s, limit);
                send_cancels(comm, &mut core, first, k, &self.own_cancel);
                self.changed.notify_all();
            }
            Some(Request::Leave(timing)) => {
                if let Some(t) = timing {
                    let mut core = lock(core);
                    let before = core.unconfirmed();
                    core.hand_in(slot, t, Instant::now());
                    send_cancels(comm, &mut core, first, k, &self.own_cancel);
                    if core.unconfirmed() < before {
                        self.changed.notify_all();
                    }
                }
                book.active -= 1;
            }
            None => panic!("dls: malformed request from rank {rank}: {buf:?} (internal error)"),
        }
        if !book.deferred.is_empty() {
            book.active -= self.serve_deferred(&mut book.deferred);
        }
    }

    /// Serves every deferred worker again: sends a copy or `Done` to those that can have one and
    /// keeps the others with their new deadline. Returns how many were told `Done`.
    fn serve_deferred(&self, deferred: &mut Vec<Deferred>) -> usize {
        let comm = &self.comm.0;
        let mut finished = 0;
        let mut core = lock(&self.core);
        deferred.retain_mut(|d| match core.serve_at(d.slot, None, Instant::now()).0 {
            Next::Chunk(c) => {
                reply(comm, d.rank, d.thread, Reply::Chunk(c, d.verdict));
                false
            }
            Next::Done => {
                reply(comm, d.rank, d.thread, Reply::Done(d.verdict));
                finished += 1;
                false
            }
            Next::Wait(at) => {
                d.at = at;
                true
            }
        });
        send_split_asks(comm, &mut core, self.first, self.k);
        finished
    }
}

/// Tells every worker whose chunk became redundant: rank 0's own compute threads through
/// `own_cancel` (one word per thread), the others by a `TAG_CANCEL` message to the thread. Called
/// with the scheduler locked, so a cancellation is sent before any later reply to the same worker
/// (which the lock orders after it): a worker that leaves the loop after its `Done` finds every
/// cancellation addressed to it. Slot `s` is thread `s % k` of rank `s / k + first`.
pub(crate) fn send_cancels(
    comm: &mpi::topology::SimpleCommunicator,
    core: &mut ReportingScheduler,
    first: usize,
    k: usize,
    own_cancel: &[AtomicU64],
) {
    for (slot, ordinal) in core.take_cancels() {
        let (rank, thread) = (slot / k + first, slot % k);
        if rank == 0 {
            own_cancel[thread].store(ordinal, Ordering::Relaxed);
        } else {
            comm.process_at_rank(rank as i32)
                .send_with_tag(&[ordinal][..], thread_tag(TAG_CANCEL, thread));
        }
    }
    send_split_asks(comm, core, first, k);
}

/// Sends the asks to split a chunk (`TAG_SPLIT`) that serving requests produced
/// (`runtime/tolerance/split.rs`); with the scheduler locked, like cancellations.
pub(crate) fn send_split_asks(
    comm: &mpi::topology::SimpleCommunicator,
    core: &mut ReportingScheduler,
    first: usize,
    k: usize,
) {
    for (slot, ordinal, keep) in core.take_split_asks() {
        let (rank, thread) = (slot / k + first, slot % k);
        comm.process_at_rank(rank as i32)
            .send_with_tag(&[ordinal, keep][..], thread_tag(TAG_SPLIT, thread));
    }
}

fn reply(comm: &mpi::topology::SimpleCommunicator, rank: i32, thread: usize, reply: Reply) {
    comm.process_at_rank(rank)
        .send_with_tag(&reply.encode()[..], thread_tag(TAG_REPLY, thread));
}

/// Lets the service thread run on any core of the job's share of the node (the launcher's CPUs)
/// when mpirun bound rank 0 to one core, which its compute thread keeps busy: the kernel can
/// then run a request's answer on another core (beside another rank's computation, for the few
/// microseconds it takes) instead of only in the compute thread's time slices. Measured under
/// `mpirun -np 2` (bound to cores by default): see BENCHMARKS.md, "Adaptive techniques on loops
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
