//! One loop on an MPI communicator: the scheduler side (rank 0) and the worker side.

use crate::runtime::annotate::sync::{AtomicBool, AtomicU64};
use crate::runtime::annotate::sync::{Condvar, Mutex};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use mpi::collective::Root;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::Communicator;

use super::backoff;
use super::comm::LoopComm;
use super::messages::{
    thread_tag, Reply, Request, REPLY_WORDS, TAG_CANCEL, TAG_REPLY, TAG_REQUEST, TAG_SPLIT,
};
use super::service;
use crate::report::LoopReport;
use crate::runtime::combine::Exchange;
use crate::runtime::error::DlsError;
use crate::runtime::loops::source::ChunkSource;
use crate::runtime::sched::reporting::{Next, ReportingScheduler};
use crate::runtime::sync::lock;
use crate::runtime::tolerance::reexecution::Verdict;
use crate::runtime::tolerance::split::{SplitCell, NOT_STARTED, SPLIT_MIN, SPLIT_POLL};
use crate::runtime::tolerance::Tolerance;
use crate::{Chunk, ChunkTiming, Technique};

/// Which side of the scheduler/worker protocol this rank is on.
enum Side {
    /// Rank 0: the scheduler state, shared with the service thread.
    Scheduler {
        core: Arc<Mutex<ReportingScheduler>>,
        /// Notified when a chunk is confirmed (rank 0's compute thread may wait for one).
        changed: Arc<Condvar>,
        /// Per thread of rank 0: the ordinal of its chunk that became redundant (0: none).
        own_cancel: Arc<[AtomicU64]>,
        /// Per thread of rank 0: its chunk in progress, which the service thread may split for
        /// an idle worker (`runtime/tolerance/split.rs`).
        own_split: Vec<Arc<SplitCell>>,
        service: Mutex<Option<JoinHandle<()>>>,
        /// What the service thread and this rank's compute thread share to answer requests
        /// (`None` with one rank).
        answers: Option<Arc<service::Service>>,
        /// False for a coordinator, which schedules only (see [`MpiLoop::start_private`]).
        computes: bool,
        /// Whether the scheduler arms `own_split`: a re-executing loop that splits.
        splitting: AtomicBool,
    },
    /// Other ranks, per thread: whether the scheduler told it `Done` (or it left), and its chunk
    /// in progress, which it splits when the scheduler asks (`runtime/tolerance/split.rs`).
    Worker {
        done: Vec<Mutex<bool>>,
        own_split: Vec<SplitCell>,
    },
}

/// A loop in progress on this rank.
///
/// **Threads inside ranks** ([`start_threads`](Self::start_threads)): every rank runs `k`
/// worker threads, and each thread is a worker of the scheduler of its own (slot `rank·k + t`
/// for thread `t`), with the protocol of a rank of one thread: a request per chunk, the reply,
/// cancellations and asks to split on tags of the thread's own (`messages::thread_tag`). This
/// is how loops that re-execute unfinished chunks or write checkpoints run on threads inside
/// ranks: the scheduler's ledger follows every chunk to the thread that runs it, and every
/// verdict comes back to that thread. Loops without them take batches (`hybrid.rs`).
pub(crate) struct MpiLoop {
    comm: Arc<LoopComm>,
    rank: usize,
    size: usize,
    /// Worker threads per rank (1 but for [`start_threads`](Self::start_threads)).
    k: usize,
    /// `Some(k)` for a loop over threads inside ranks: the report says so.
    threads: Option<usize>,
    side: Side,
}

impl MpiLoop {
    /// `DLS_StartLoop` on `comm` (collective over `comm`): validates the technique (and the
    /// weights, if any) on every rank (so that all fail alike, before any communication),
    /// duplicates the communicator and, on rank 0, starts the service thread.
    pub(crate) fn start<C: Communicator>(
        comm: &C,
        technique: &Technique,
        n: u64,
        weights: Option<Vec<f64>>,
    ) -> Result<MpiLoop, DlsError> {
        let mut core = ReportingScheduler::new(technique, n, comm.size() as usize)?;
        if let Some(w) = weights {
            core.set_weights(w)?;
        }
        Ok(Self::launch(
            Arc::new(LoopComm(comm.duplicate())),
            core,
            Rank0::Computes,
            1,
        ))
    }

    /// [`start`](Self::start) for `k` worker threads on every rank, each a worker of the
    /// scheduler (see [`MpiLoop`]); `weights`, if any, are per thread.
    pub(crate) fn start_threads<C: Communicator>(
        comm: &C,
        technique: &Technique,
        n: u64,
        k: usize,
        weights: Option<Vec<f64>>,
    ) -> Result<MpiLoop, DlsError> {
        let mut core = ReportingScheduler::new(technique, n, comm.size() as usize * k)?;
        if let Some(w) = weights {
            core.set_weights(w)?;
        }
        let mut lp = Self::launch(
            Arc::new(LoopComm(comm.duplicate())),
            core,
            Rank0::Computes,
            k,
        );
        lp.threads = Some(k);
        Ok(lp)
    }

    /// `DLS_StartLoop` on a communicator that the caller keeps private to loops run one after
    /// the other (the inner loops of a group, the outer loops of a two-level loop), without
    /// duplicating it: no `MPI_Comm_dup` per loop. Collective over `comm`; validates the
    /// technique on every rank first.
    ///
    /// Successive loops on one communicator cannot mix their messages: a rank leaves a loop
    /// (`finish`) only after it received every reply addressed to it, and
    /// only after rank 0's end-of-loop broadcast, which follows the end of the service thread,
    /// that is the receipt of every request of the loop; so every message of a loop is received
    /// before any rank sends one of the next.
    ///
    /// With [`Rank0::Coordinates`], rank 0 schedules and executes no iterate (Cariño & Banicescu 2007, fig. 3.4's
    /// coordinator): the iterates are shared among ranks `1..size`, scheduler slot `r - 1` for
    /// rank `r`, and the report's ranks are those slots.
    pub(crate) fn start_private(
        comm: &Arc<LoopComm>,
        technique: &Technique,
        n: u64,
        rank0: Rank0,
    ) -> Result<MpiLoop, DlsError> {
        let size = comm.0.size() as usize;
        let coordinator = rank0 == Rank0::Coordinates;
        let core = ReportingScheduler::new(technique, n, size - usize::from(coordinator))?;
        Ok(Self::launch(comm.clone(), core, rank0, 1))
    }

    fn launch(comm: Arc<LoopComm>, core: ReportingScheduler, rank0: Rank0, k: usize) -> MpiLoop {
        let coordinator = rank0 == Rank0::Coordinates;
        let size = comm.0.size() as usize;
        let rank = comm.0.rank() as usize;
        let side = if rank == 0 {
            let mut core = core;
            let own_split: Vec<Arc<SplitCell>> =
                (0..k).map(|_| Arc::new(SplitCell::default())).collect();
            if !coordinator {
                for (t, cell) in own_split.iter().enumerate() {
                    core.set_split_cell(t, cell.clone());
                }
            }
            core.set_remote_split();
            let core = Arc::new(Mutex::new(core));
            let changed = Arc::new(Condvar::new());
            let own_cancel: Arc<[AtomicU64]> = (0..k).map(|_| AtomicU64::new(0)).collect();
            let first = usize::from(coordinator);
            let answers = (size > 1).then(|| {
                Arc::new(service::Service::new(
                    comm.clone(),
                    core.clone(),
                    changed.clone(),
                    own_cancel.clone(),
                    size - 1,
                    first,
                    k,
                ))
            });
            let service = answers.clone().map(|a| {
                thread::Builder::new()
                    .name("dls-scheduler".into())
                    .spawn(move || a.serve())
                    .expect("dls: cannot start the scheduler's service thread")
            });
            Side::Scheduler {
                core,
                changed,
                own_cancel,
                own_split,
                service: Mutex::new(service),
                answers,
                computes: !coordinator,
                splitting: AtomicBool::new(false),
            }
        } else {
            Side::Worker {
                done: (0..k).map(|_| Mutex::new(false)).collect(),
                own_split: (0..k).map(|_| SplitCell::default()).collect(),
            }
        };
        MpiLoop {
            comm,
            rank,
            size,
            k,
            threads: None,
            side,
        }
    }

    /// The next chunk for this rank; `finished` is the timing of its previous chunk.
    pub(crate) fn next(&self, finished: Option<ChunkTiming>) -> Option<Chunk> {
        self.next_verdict(0, finished, Instant::now()).0
    }

    /// [`next`](Self::next) for thread `t` of this rank, with the verdict on its previous chunk
    /// (re-execution); `now` is when it asked.
    pub(crate) fn next_verdict(
        &self,
        t: usize,
        finished: Option<ChunkTiming>,
        now: Instant,
    ) -> (Option<Chunk>, Verdict) {
        match &self.side {
            Side::Scheduler {
                core,
                changed,
                own_cancel,
                computes,
                answers,
                ..
            } => {
                if !*computes {
                    return (None, Verdict::Keep);
                }
                let mut core = lock(core);
                let before = core.unconfirmed();
                let (mut next, verdict) = core.serve_at(t, finished, now);
                service::send_cancels(&self.comm.0, &mut core, 0, self.k, own_cancel);
                if core.unconfirmed() < before {
                    changed.notify_all();
                    // Workers waiting for this chunk's end are answered at once.
                    if let Some(a) = answers {
                        a.wake();
                    }
                }
                // No chunk now: this thread stops answering requests at its claims.
                if !matches!(next, Next::Chunk(_)) {
                    if let Some(a) = answers {
                        a.stop_looking();
                    }
                }
                // Every iterate handed out, some not confirmed: wait for a chunk to become late
                // (then execute a copy of it) or for the loop to complete.
                while let Next::Wait(at) = next {
                    let wait = at
                        .saturating_duration_since(Instant::now())
                        .min(Duration::from_millis(20));
                    core = changed
                        .wait_timeout(core, wait)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                    next = core.serve_at(t, None, Instant::now()).0;
                    service::send_cancels(&self.comm.0, &mut core, 0, self.k, own_cancel);
                }
                (next.chunk(), verdict)
            }
            Side::Worker { done, own_split } => {
                let mut done = lock(&done[t]);
                if *done {
                    return (None, Verdict::Keep);
                }
                let root = self.comm.0.process_at_rank(0);
                root.send_with_tag(&Request::Next(finished).encode_from(t)[..], TAG_REQUEST);
                // The reply is due within a round trip (the service thread answers at once) —
                // except at the end of a loop that re-executes unfinished chunks, where the
                // scheduler answers when a chunk becomes late or the loop completes: so the
                // receive is polled, spinning first and then sleeping (`backoff`), not a blocking
                // receive that would busy-wait a core for as long.
                let mut buf = [0u64; REPLY_WORDS];
                mpi::request::scope(|scope| {
                    backoff::complete(root.immediate_receive_into_with_tag(
                        scope,
                        &mut buf[..],
                        thread_tag(TAG_REPLY, t),
                    ))
                });
                match Reply::decode(&buf) {
                    Some(Reply::Chunk(c, v)) => {
                        own_split[t].arm(c.size);
                        (Some(c), v)
                    }
                    Some(Reply::Done(v)) => {
                        *done = true;
                        (None, v)
                    }
                    None => {
                        panic!("dls: malformed reply from the scheduler: {buf:?} (internal error)")
                    }
                }
            }
        }
    }

    /// The worker's side of leaving the loop, once for every way of ending it: hands in the
    /// open chunk of each of this rank's threads (`(thread, timing)`; the scheduler records it;
    /// a thread that has not been told `Done` tells the scheduler it leaves) and, on rank 0,
    /// joins the service thread, which ends after every worker's last request.
    fn hand_in(&self, open: &[(usize, ChunkTiming)]) {
        match &self.side {
            Side::Scheduler {
                core,
                service,
                answers,
                ..
            } => {
                for &(t, timing) in open {
                    lock(core).hand_in(t, timing, Instant::now());
                }
                if let Some(a) = answers {
                    a.stop_looking();
                }
                if let Some(h) = lock(service).take() {
                    // A panic on the service thread has already aborted the job (panic hook).
                    let _ = h.join();
                }
            }
            Side::Worker { done, .. } => {
                for (t, done) in done.iter().enumerate() {
                    let mut done = lock(done);
                    if !*done {
                        let timing = open.iter().find(|o| o.0 == t).map(|o| o.1);
                        let root = self.comm.0.process_at_rank(0);
                        root.send_with_tag(&Request::Leave(timing).encode_from(t)[..], TAG_REQUEST);
                        *done = true;
                    }
                    // Cancellations and asks to split that arrived after the chunk they name
                    // had ended: received, so that none is left on the communicator.
                    while self.cancelled_chunk(t).is_some() {}
                    while self.split_ask(t).is_some() {}
                }
            }
        }
    }

    /// `DLS_EndLoop` (collective): hands in this rank's open chunk and waits for the end of the
    /// loop on every rank: rank 0 broadcasts after its service thread ended, so every rank leaves
    /// after the loop's last message. With `report` (the loop's name and start), returns the
    /// report, identical on every rank except that only rank 0 has the chunk map and chunk times; without it
    /// (loops whose caller keeps its own tally) the broadcast is one word.
    ///
    /// `open` holds the open chunk of each of this rank's threads (`(thread, timing)`); `cpu_s`
    /// is the CPU time this rank's workers used in their chunks: with `report`, rank 0 gathers
    /// every rank's into the report.
    pub(crate) fn finish(
        &self,
        open: &[(usize, ChunkTiming)],
        cpu_s: f64,
        report: Option<(&str, Instant)>,
    ) -> Option<LoopReport> {
        self.hand_in(open);
        let root = self.comm.0.process_at_rank(0);
        let built = match (&self.side, report) {
            (Side::Scheduler { core, computes, .. }, Some((name, started))) => {
                let mut cpu = vec![0.0f64; self.size];
                mpi::request::scope(|scope| {
                    backoff::complete(root.immediate_gather_into_root(scope, &cpu_s, &mut cpu[..]))
                });
                let mut core = lock(core);
                // A coordinator executes nothing: scheduler slot r - 1 is rank r. With threads
                // inside ranks, a rank's CPU time is shared among its slots.
                let first = usize::from(!*computes);
                let k = self.k;
                for (r, c) in cpu.into_iter().enumerate().skip(first) {
                    for t in 0..k {
                        core.add_cpu((r - first) * k + t, c / k as f64);
                    }
                }
                let mut r = core.report(name, started);
                if let Some(k) = self.threads {
                    r.threads_per_rank = k;
                }
                Some(r)
            }
            (Side::Worker { .. }, Some(_)) => {
                mpi::request::scope(|scope| {
                    backoff::complete(root.immediate_gather_into(scope, &cpu_s))
                });
                None
            }
            _ => None,
        };
        share_report(&root, self.rank == 0, report.is_some(), built)
    }
}

/// The end of `DLS_EndLoop` on every rank (collective): rank 0 sends the loop's report `built`
/// to every rank, without the chunk map and chunk times, which stay on rank 0; without a report
/// (`wanted` false: loops whose caller keeps its own tally) the broadcast is one word.
pub(crate) fn share_report<R: Root>(
    root: &R,
    is_root: bool,
    wanted: bool,
    built: Option<LoopReport>,
) -> Option<LoopReport> {
    if !wanted {
        broadcast_politely(root, &mut 0u64);
        return None;
    }
    if is_root {
        let mut report = built.expect("dls: rank 0 builds the loop's report (internal error)");
        // The other ranks get the figures without the chunk map and chunk times (up to
        // 10^6 entries each, `DLS_CHUNK_MAP`): set aside while serialising, not copied.
        let map = std::mem::take(&mut report.chunk_map);
        let times = std::mem::take(&mut report.chunk_times);
        let mut bytes = serde_json::to_vec(&report).expect("dls: a loop report always serialises");
        report.chunk_map = map;
        report.chunk_times = times;
        let mut len = bytes.len() as u64;
        broadcast_politely(root, &mut len);
        broadcast_politely(root, &mut bytes[..]);
        Some(report)
    } else {
        let mut len = 0u64;
        broadcast_politely(root, &mut len);
        let mut bytes = vec![0u8; len as usize];
        broadcast_politely(root, &mut bytes[..]);
        Some(
            serde_json::from_slice(&bytes)
                .expect("dls: the scheduler's loop report always deserialises"),
        )
    }
}

impl MpiLoop {
    /// A message of `N` words from the scheduler with `tag`, if one is waiting (received here).
    fn waiting<const N: usize>(&self, tag: i32) -> Option<[u64; N]> {
        let (msg, _) = self
            .comm
            .0
            .process_at_rank(0)
            .immediate_matched_probe_with_tag(tag)?;
        let mut words = [0u64; N];
        msg.matched_receive_into(&mut words[..]);
        Some(words)
    }

    /// An ask to split (`[ordinal, keep]`) of thread `t`'s chunk, if one is waiting.
    fn split_ask(&self, t: usize) -> Option<[u64; 2]> {
        self.waiting(thread_tag(TAG_SPLIT, t))
    }

    /// The ordinal of a chunk of thread `t` that the scheduler said is redundant, if such a
    /// message is waiting (received here); `None` otherwise.
    fn cancelled_chunk(&self, t: usize) -> Option<u64> {
        self.waiting::<1>(thread_tag(TAG_CANCEL, t))
            .map(|[ordinal]| ordinal)
    }
}

/// Who rank 0 of a loop's communicator is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rank0 {
    /// The scheduler, which also executes iterates (Cariño & Banicescu 2007, fig. 3.3).
    Computes,
    /// A coordinator, which schedules only (the outer loop of a two-level loop).
    Coordinates,
}

impl ChunkSource for MpiLoop {
    fn next(
        &self,
        slot: usize,
        finished: Option<ChunkTiming>,
        now: Instant,
    ) -> (Option<Chunk>, Verdict) {
        MpiLoop::next_verdict(self, slot, finished, now)
    }

    fn terminated(&self) -> bool {
        match &self.side {
            Side::Scheduler { core, .. } => lock(core).remaining() == 0,
            Side::Worker { done, .. } => done.iter().all(|d| *lock(d)),
        }
    }

    fn workers(&self) -> usize {
        self.size * self.k
    }

    fn local_slots(&self) -> usize {
        self.k
    }

    fn rank(&self) -> usize {
        self.rank
    }

    fn stop_flag(&self) -> Option<&Arc<AtomicBool>> {
        None
    }

    fn finish(
        &self,
        open: Vec<(usize, ChunkTiming)>,
        cpu: Vec<(usize, f64)>,
        report: Option<(&str, Instant)>,
    ) -> Option<LoopReport> {
        // At most one open chunk per thread, summed in case of several.
        let mut per_thread: Vec<(usize, ChunkTiming)> = Vec::new();
        for (t, timing) in open {
            match per_thread.iter_mut().find(|o| o.0 == t) {
                Some(o) => o.1 += timing,
                None => per_thread.push((t, timing)),
            }
        }
        MpiLoop::finish(self, &per_thread, cpu.iter().map(|c| c.1).sum(), report)
    }

    fn exchange(&self) -> Option<&dyn Exchange> {
        Some(&*self.comm)
    }

    fn done_counter(&self) -> Option<Arc<AtomicU64>> {
        match &self.side {
            Side::Scheduler { core, .. } => Some(lock(core).done_counter()),
            Side::Worker { .. } => None,
        }
    }

    fn tolerance(&self) -> Option<&dyn Tolerance> {
        Some(self)
    }
}

impl Tolerance for MpiLoop {
    fn reexecute(&self, split: bool) {
        if let Side::Scheduler {
            core, splitting, ..
        } = &self.side
        {
            let mut core = lock(core);
            core.reexecute();
            core.set_split(split);
            splitting.store(split, Ordering::Relaxed);
        }
    }

    fn restore(&self, finished: &[[u64; 2]]) -> Result<(), DlsError> {
        if let Side::Scheduler { core, .. } = &self.side {
            lock(core).restore(finished)?;
        }
        Ok(())
    }

    fn cheap_cancel_check(&self) -> bool {
        matches!(self.side, Side::Scheduler { .. })
    }

    fn cancel_flag(&self, slot: usize) -> Option<&AtomicU64> {
        match &self.side {
            Side::Scheduler { own_cancel, .. } => own_cancel.get(slot),
            Side::Worker { .. } => None,
        }
    }

    fn split_cell(&self, slot: usize) -> Option<&SplitCell> {
        match &self.side {
            Side::Scheduler {
                own_split,
                computes: true,
                splitting,
                ..
            } if splitting.load(Ordering::Relaxed) => own_split.get(slot).map(|c| c.as_ref()),
            Side::Worker { own_split, .. } => own_split.get(slot),
            _ => None,
        }
    }

    fn claim_poll(&self) -> Option<Duration> {
        match &self.side {
            Side::Scheduler {
                answers: Some(a),
                computes: true,
                ..
            } if a.compute_answers() => Some(service::SERVE_POLL),
            Side::Scheduler { .. } => None,
            Side::Worker { .. } => Some(SPLIT_POLL),
        }
    }

    fn at_claim(&self, slot: usize, ordinal: u64, started: Instant) {
        let own_split = match &self.side {
            Side::Worker { own_split, .. } => &own_split[slot],
            Side::Scheduler {
                answers: Some(a), ..
            } => {
                a.look();
                return;
            }
            Side::Scheduler { .. } => return,
        };
        // At a chunk's first claim nothing of it has run: an ask waits for the next look (a
        // probe per chunk would cost small chunks, e.g. SS's, a probe each, and on an
        // oversubscribed node the probe yields the core).
        if own_split.state().0 == 0 {
            return;
        }
        while let Some([asked, keep]) = self.split_ask(slot) {
            // Only the chunk in progress can be split, if at least SPLIT_MIN is left at its pace
            // so far; an ask about an earlier one is refused.
            let (claimed, limit) = own_split.state();
            let left = (claimed > 0 && limit > claimed).then(|| {
                started.elapsed().as_secs_f64() / claimed as f64 * (limit - claimed) as f64
            });
            let worth = left.is_some_and(|l| l >= SPLIT_MIN.as_secs_f64());
            let (s, limit) = if asked == ordinal && claimed == 0 && limit >= 2 {
                (0, NOT_STARTED)
            } else if asked == ordinal && worth {
                own_split.split(keep).unwrap_or((0, 0))
            } else {
                (0, 0)
            };
            let answer = Request::Split {
                ordinal: asked,
                s,
                limit,
            };
            self.comm
                .0
                .process_at_rank(0)
                .send_with_tag(&answer.encode_from(slot)[..], TAG_REQUEST);
        }
    }

    fn cancelled(&self, slot: usize, ordinal: u64) -> bool {
        match &self.side {
            Side::Scheduler { own_cancel, .. } => {
                own_cancel[slot].load(Ordering::Relaxed) == ordinal
            }
            Side::Worker { .. } => {
                // Every cancellation that arrived: a stale one (of an earlier chunk) is dropped.
                while let Some(c) = self.cancelled_chunk(slot) {
                    if c == ordinal {
                        return true;
                    }
                }
                false
            }
        }
    }

    fn restored(&self) -> u64 {
        match &self.side {
            Side::Scheduler { core, .. } => lock(core).restored(),
            Side::Worker { .. } => 0,
        }
    }
}

/// `MPI_Ibcast` completed by polling (a worker may wait here for the scheduler's last chunk).
fn broadcast_politely<R: Root, B: mpi::datatype::BufferMut + ?Sized>(root: &R, buf: &mut B) {
    mpi::request::scope(|scope| backoff::complete(root.immediate_broadcast_into(scope, buf)));
}
