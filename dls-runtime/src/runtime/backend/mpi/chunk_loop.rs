//! One loop on an MPI communicator: the scheduler side (rank 0) and the worker side.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use mpi::collective::Root;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::Communicator;

use super::backoff;
use super::comm::LoopComm;
use super::messages::{Reply, Request, REPLY_WORDS, TAG_CANCEL, TAG_REPLY, TAG_REQUEST, TAG_SPLIT};
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
        /// The ordinal of rank 0's own chunk that became redundant (0: none).
        own_cancel: Arc<AtomicU64>,
        /// Rank 0's own chunk in progress, which the service thread may split for an idle rank
        /// (`runtime/tolerance/split.rs`).
        own_split: Arc<SplitCell>,
        service: Mutex<Option<JoinHandle<()>>>,
        /// What the service thread and this rank's compute thread share to answer requests
        /// (`None` with one rank).
        answers: Option<Arc<service::Service>>,
        /// False for a coordinator, which schedules only (see [`MpiLoop::start_private`]).
        computes: bool,
        /// Whether the scheduler arms `own_split`: a re-executing loop that splits.
        splitting: AtomicBool,
    },
    /// Other ranks: whether the scheduler said `Done` (or this rank left), and the rank's chunk
    /// in progress, which it splits when the scheduler asks (`runtime/tolerance/split.rs`).
    Worker {
        done: Mutex<bool>,
        own_split: SplitCell,
    },
}

/// A loop in progress on this rank.
pub(crate) struct MpiLoop {
    comm: Arc<LoopComm>,
    rank: usize,
    size: usize,
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
        ))
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
        Ok(Self::launch(comm.clone(), core, rank0))
    }

    fn launch(comm: Arc<LoopComm>, core: ReportingScheduler, rank0: Rank0) -> MpiLoop {
        let coordinator = rank0 == Rank0::Coordinates;
        let size = comm.0.size() as usize;
        let rank = comm.0.rank() as usize;
        let side = if rank == 0 {
            let mut core = core;
            let own_split = Arc::new(SplitCell::default());
            if !coordinator {
                core.set_split_cell(0, own_split.clone());
            }
            core.set_remote_split();
            let core = Arc::new(Mutex::new(core));
            let changed = Arc::new(Condvar::new());
            let own_cancel = Arc::new(AtomicU64::new(0));
            let first = usize::from(coordinator);
            let answers = (size > 1).then(|| {
                Arc::new(service::Service::new(
                    comm.clone(),
                    core.clone(),
                    changed.clone(),
                    own_cancel.clone(),
                    size - 1,
                    first,
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
                done: Mutex::new(false),
                own_split: SplitCell::default(),
            }
        };
        MpiLoop {
            comm,
            rank,
            size,
            side,
        }
    }

    /// The next chunk for this rank; `finished` is the timing of its previous chunk.
    pub(crate) fn next(&self, finished: Option<ChunkTiming>) -> Option<Chunk> {
        self.next_verdict(finished, Instant::now()).0
    }

    /// [`next`](Self::next) with the verdict on the previous chunk (re-execution); `now` is when
    /// this rank asked.
    pub(crate) fn next_verdict(
        &self,
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
                let (mut next, verdict) = core.serve_at(0, finished, now);
                service::send_cancels(&self.comm.0, &mut core, 0, own_cancel);
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
                    next = core.serve_at(0, None, Instant::now()).0;
                    service::send_cancels(&self.comm.0, &mut core, 0, own_cancel);
                }
                (next.chunk(), verdict)
            }
            Side::Worker { done, own_split } => {
                let mut done = lock(done);
                if *done {
                    return (None, Verdict::Keep);
                }
                let root = self.comm.0.process_at_rank(0);
                root.send_with_tag(&Request::Next(finished).encode()[..], TAG_REQUEST);
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
                        TAG_REPLY,
                    ))
                });
                match Reply::decode(&buf) {
                    Some(Reply::Chunk(c, v)) => {
                        own_split.arm(c.size);
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

    /// The worker's side of leaving the loop, once for every way of ending it: hands in this
    /// rank's open chunk (the scheduler records it; a worker that has not been told `Done` tells
    /// the scheduler it leaves) and, on rank 0, joins the service thread, which ends after every
    /// worker's last request.
    fn hand_in(&self, open: Option<ChunkTiming>) {
        match &self.side {
            Side::Scheduler {
                core,
                service,
                answers,
                ..
            } => {
                if let Some(t) = open {
                    lock(core).hand_in(0, t, Instant::now());
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
                let mut done = lock(done);
                if !*done {
                    let root = self.comm.0.process_at_rank(0);
                    root.send_with_tag(&Request::Leave(open).encode()[..], TAG_REQUEST);
                    *done = true;
                }
                // Cancellations and asks to split that arrived after the chunk they name had
                // ended: received, so that none is left on the communicator.
                while self.cancelled_chunk().is_some() {}
                while self.split_ask().is_some() {}
            }
        }
    }

    /// `DLS_EndLoop` (collective): hands in this rank's open chunk and waits for the end of the
    /// loop on every rank: rank 0 broadcasts after its service thread ended, so every rank leaves
    /// after the loop's last message. With `report` (the loop's name and start), returns the
    /// report, identical on every rank except that only rank 0 has the chunk map and chunk times; without it
    /// (loops whose caller keeps its own tally) the broadcast is one word.
    ///
    /// `cpu_s` is the CPU time this rank's worker used in its chunks: with `report`, rank 0
    /// gathers every rank's into the report.
    pub(crate) fn finish(
        &self,
        open: Option<ChunkTiming>,
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
                // A coordinator executes nothing: scheduler slot r - 1 is rank r.
                let first = usize::from(!*computes);
                for (r, c) in cpu.into_iter().enumerate().skip(first) {
                    core.add_cpu(r - first, c);
                }
                Some(core.report(name, started))
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

    /// An ask to split (`[ordinal, keep]`), if a `TAG_SPLIT` message is waiting.
    fn split_ask(&self) -> Option<[u64; 2]> {
        self.waiting(TAG_SPLIT)
    }

    /// The ordinal of a chunk the scheduler said is redundant, if a `TAG_CANCEL` message is
    /// waiting (received here); `None` otherwise.
    fn cancelled_chunk(&self) -> Option<u64> {
        self.waiting::<1>(TAG_CANCEL).map(|[ordinal]| ordinal)
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
        _slot: usize,
        finished: Option<ChunkTiming>,
        now: Instant,
    ) -> (Option<Chunk>, Verdict) {
        MpiLoop::next_verdict(self, finished, now)
    }

    fn terminated(&self) -> bool {
        match &self.side {
            Side::Scheduler { core, .. } => lock(core).remaining() == 0,
            Side::Worker { done, .. } => *lock(done),
        }
    }

    fn workers(&self) -> usize {
        self.size
    }

    fn local_slots(&self) -> usize {
        1
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
        // One compute thread per rank: at most one open chunk, summed in case of several.
        let open = open.into_iter().map(|(_, t)| t).reduce(|a, b| ChunkTiming {
            iterates: a.iterates + b.iterates,
            work_s: a.work_s + b.work_s,
            elapsed_s: a.elapsed_s + b.elapsed_s,
        });
        MpiLoop::finish(self, open, cpu.iter().map(|c| c.1).sum(), report)
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

    fn cancel_flag(&self, _slot: usize) -> Option<&AtomicU64> {
        match &self.side {
            Side::Scheduler { own_cancel, .. } => Some(own_cancel.as_ref()),
            Side::Worker { .. } => None,
        }
    }

    fn split_cell(&self, _slot: usize) -> Option<&SplitCell> {
        match &self.side {
            Side::Scheduler {
                own_split,
                computes: true,
                splitting,
                ..
            } if splitting.load(Ordering::Relaxed) => Some(own_split.as_ref()),
            Side::Worker { own_split, .. } => Some(own_split),
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

    fn at_claim(&self, ordinal: u64, started: Instant) {
        let own_split = match &self.side {
            Side::Worker { own_split, .. } => own_split,
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
        while let Some([asked, keep]) = self.split_ask() {
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
                .send_with_tag(&answer.encode()[..], TAG_REQUEST);
        }
    }

    fn cancelled(&self, _slot: usize, ordinal: u64) -> bool {
        match &self.side {
            Side::Scheduler { own_cancel, .. } => own_cancel.load(Ordering::Relaxed) == ordinal,
            Side::Worker { .. } => {
                // Every cancellation that arrived: a stale one (of an earlier chunk) is dropped.
                while let Some(c) = self.cancelled_chunk() {
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
