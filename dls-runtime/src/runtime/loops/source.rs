//! The chunk-source seam: where a loop's chunks come from.
//!
//! Every loop, on every backend and at both levels of a two-level loop, is an
//! [`UntypedLoop`](crate::runtime::loops::handle::UntypedLoop) over a `Box<dyn ChunkSource>`, pulled by **one**
//! worker loop (`drive` (`runtime/engine/drive/direct.rs`)) that times chunks, sets the panic context and
//! keeps the per-worker [`Tally`]. The sources are:
//!
//! | source | where | chunks come from |
//! |--------|-------|------------------|
//! | [`SharedSource`] | threads backend, loops nested in an iterate | a [`ReportingScheduler`] behind a mutex in this process, one slot per thread |
//! | `mpi_backend::MpiLoop` | MPI, one-level loops and inner loops of a group | rank 0's scheduler, over the loop's communicator |
//! | `mpi_backend::OuterRelay` | MPI, the outer loop of a two-level loop | the coordinator, relayed by the group leader to its group |
//! | `mpi_backend::HybridLoop` | MPI with threads inside ranks (`DLS_THREADS` under a launcher) | rank 0's scheduler over every thread, a batch of chunks per request, shared by the rank's threads through a local queue |
//!
//! Backends are chosen in one place (`Runtime::from_parts` and the `Platform` trait in
//! `runtime/backend/platform.rs`); everything else calls the trait's methods: one virtual call per chunk.
//!
//! **What plugs in where (design for the next steps).**
//! - *Reduction strategies* (master, tree, pipelined) plug into the one combine function,
//!   [`combine_partials`](crate::runtime::combine::combine_partials), through [`ChunkSource::exchange`].
//! - *Fault checks* (per-rank statistics, a worker that stops answering) plug into the worker
//!   loop (it sees every chunk's timing, in [`Tally`]) and into a source's `next` (the scheduler
//!   side sees every request): one place each, not one per backend and level.
//! - *Re-execution of unfinished chunks* (rDLB, Mohammed, Cavelan & Ciorba (2019)): a chunk's
//!   contribution must be kept apart until the scheduler confirms it; the worker loop is where a
//!   chunk starts and ends, so it is where a per-chunk accumulator is folded in on confirmation,
//!   and `next`'s reply is where the confirmation arrives.
//! - *Loops started inside an iterate* run serially on the calling worker (a [`SharedSource`] of
//!   one slot, see `Runtime::make_loop`), on every backend. The "inside an iterate" state follows
//!   the running loops: a nested loop saves the enclosing iterate's panic context when it starts
//!   and restores it when it ends (`UntypedLoop::nested_in`), so ending one nested loop no longer
//!   makes the next one a full parallel loop (issue 17 case 9b). The state is set by
//!   `Loop::next_chunk_in` and cleared, keyed by the loop's id, when that loop has no more chunks
//!   for the thread or ends (`panic_ctx::leave_loop`); a chunk borrows its loop, so none outlives
//!   it. A loop started by a thread that executes no iterate while a loop over all workers runs
//!   (a thread spawned inside an iterate) runs serially on that thread too (case 9a).

use crate::runtime::annotate::sync::{AtomicBool, AtomicU64, AtomicUsize};
use crate::runtime::annotate::sync::{Condvar, Mutex};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use crate::report::LoopReport;
use crate::runtime::error::DlsError;
use crate::runtime::loops::exchange::Exchange;
use crate::runtime::sched::claim::{Claimed, Claims};
use crate::runtime::sched::reporting::{Next, ReportingScheduler};
use crate::runtime::sync::{lock, Padded};
use crate::runtime::tolerance::reexecution::Verdict;
use crate::runtime::tolerance::split::SplitCell;
use crate::runtime::tolerance::Tolerance;
use crate::{Chunk, ChunkTiming, Technique};

/// Where a loop's chunks come from (one implementation per backend and loop level).
pub(crate) trait ChunkSource: Send + Sync {
    /// The next chunk for worker `slot` of this process, handing in `finished`, the timing of the
    /// slot's previous chunk; `None` when the loop has no more for this worker. With it, the
    /// verdict on that previous chunk: [`Verdict::Discard`] when another copy of it finished first
    /// (re-execution, see [`reexecute`](Self::reexecute)). `now` is when the worker asked (the
    /// end of its previous chunk), read once for everything the request records: a clock read
    /// costs tens of nanoseconds, a chunk of self-scheduling's one iterate a few microseconds.
    fn next(
        &self,
        slot: usize,
        finished: Option<ChunkTiming>,
        now: Instant,
    ) -> (Option<Chunk>, Verdict);

    /// `DLS_Terminated`: every iterate handed out (or, on an MPI worker, `Done` received).
    fn terminated(&self) -> bool;

    /// P: the workers (ranks or threads) the loop is scheduled over.
    fn workers(&self) -> usize;

    /// Worker slots in this process (threads: P; MPI: 1; MPI with threads inside ranks: the
    /// rank's threads).
    fn local_slots(&self) -> usize;

    /// This process's rank in the loop (0 when the loop runs in one process).
    fn rank(&self) -> usize;

    /// The flag that stops the source handing out chunks after a panicking iterate (threads
    /// backend; `None` where a panic aborts the job instead).
    fn stop_flag(&self) -> Option<&Arc<AtomicBool>>;

    /// `DLS_EndLoop`: hands in the open chunks (`(slot, timing)`) and the CPU seconds each slot
    /// used in its chunks (`(slot, seconds)`), waits for the end of the loop on every process
    /// and, when `report` gives the loop's name and start, returns the report (collective on
    /// MPI).
    fn finish(
        &self,
        open: Vec<(usize, ChunkTiming)>,
        cpu: Vec<(usize, f64)>,
        report: Option<(&str, Instant)>,
    ) -> Option<LoopReport>;

    /// How partial results travel between the loop's processes; `None` when the loop runs in one
    /// process.
    fn exchange(&self) -> Option<&dyn Exchange>;

    /// The scheduler's counter of iterates of finished chunks, where this process runs the
    /// scheduler of the loop (threads; MPI rank 0); `None` elsewhere. The progress display
    /// (`runtime/observe/progress.rs`) reads it.
    fn done_counter(&self) -> Option<Arc<AtomicU64>> {
        None
    }

    /// What the source does for late and stopped workers (re-execution, split, restarts from
    /// checkpoints: `runtime/tolerance/mod.rs`); `None` for a source without (an inner loop's, a
    /// relay's). Only a loop that asks for them calls it.
    fn tolerance(&self) -> Option<&dyn Tolerance> {
        None
    }

    /// The chunks its workers claim themselves, while they do (`runtime/sched/claim.rs`: a
    /// fixed-size technique on threads); `None` for every other source. A source with claims
    /// also answers [`next`](Self::next) without waiting (no lock another worker may hold, no
    /// message): the worker then takes the request's time as the chunk's start, one clock read
    /// per chunk.
    fn claims(&self) -> Option<&Claims> {
        None
    }
}

/// What one worker (or one process) did in a loop: chunks, iterates and work time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Tally {
    pub iterates: u64,
    pub chunks: u64,
    pub work_s: f64,
}

impl Tally {
    /// Adds a finished chunk.
    #[inline]
    pub(crate) fn finished(&mut self, t: &ChunkTiming) {
        self.iterates += t.iterates;
        self.work_s += t.work_s;
    }

    /// Adds another tally.
    pub(crate) fn add(&mut self, other: &Tally) {
        self.iterates += other.iterates;
        self.chunks += other.chunks;
        self.work_s += other.work_s;
    }
}

/// How long a worker waiting for a late chunk watches for a change before it sleeps.
const WATCH: std::time::Duration = std::time::Duration::from_micros(100);

/// The longest a worker waiting for a late chunk sleeps before it looks at the stop flag.
const POLL_STOP: std::time::Duration = std::time::Duration::from_millis(20);

/// The scheduler state in this process, shared by `p` worker slots (threads backend, and loops
/// nested inside an iterate, which run on one thread).
pub(crate) struct SharedSource {
    scheduler: Mutex<ReportingScheduler>,
    /// Per slot: the ordinal of a chunk it holds that became redundant (0: none). Its worker
    /// reads it after every iterate: each on lines of its own, so that no write near it (another
    /// slot's, or an allocation next to it) moves the line away from the reader.
    cancelled: Vec<Padded<AtomicU64>>,
    /// Per slot: whether the chunk it was last handed is a copy of another worker's
    /// (re-execution), written by the slot's worker when it takes the chunk: an original writes
    /// a gathered vector in place, a copy logs its writes (`gather::Place`).
    copies: Vec<Padded<AtomicBool>>,
    /// Workers waiting for a late chunk or the end of the loop (re-execution).
    changed: Condvar,
    /// Counts the notifications of `changed`: what a waiting worker watches before it sleeps.
    changes: AtomicU64,
    /// Workers asleep on `changed` (changed under the scheduler's lock, like `changes`): a
    /// change wakes them only when there are any (a condition variable's notification is a
    /// system call, and a re-executing loop has one change per chunk).
    sleeping: AtomicUsize,
    /// Whether a waiting worker watches before it sleeps (the threads fit the cores).
    watch: bool,
    p: usize,
    /// Raised when a panic left an iterate (threads backend, the worker loop): no more chunks are
    /// handed out.
    stop: Arc<AtomicBool>,
    /// Per slot: its chunk in progress, which may be split (`runtime/tolerance/split.rs`).
    splits: Vec<Arc<SplitCell>>,
    /// Whether the scheduler arms the cells: a re-executing loop that splits. The others' workers
    /// neither claim through the cells nor read them.
    splitting: AtomicBool,
    /// A fixed-size technique's chunks claimed with one atomic add (`runtime/sched/claim.rs`),
    /// with the workers' logs; folded into `scheduler` at the loop's end.
    claims: Option<Claims>,
    /// Whether chunks are claimed through `claims`: set for a fixed-size technique, cleared
    /// before the first chunk by re-execution and restarts, which need the scheduler's state
    /// at every chunk.
    claiming: AtomicBool,
}

impl SharedSource {
    /// A source of `n` iterates over `p` slots; validates the technique (and the weights).
    pub(crate) fn new(
        technique: &Technique,
        n: u64,
        p: usize,
        weights: Option<Vec<f64>>,
    ) -> Result<SharedSource, DlsError> {
        let mut scheduler = ReportingScheduler::new(technique, n, p)?;
        if let Some(w) = weights {
            scheduler.set_weights(w)?;
        }
        let splits: Vec<Arc<SplitCell>> = (0..p).map(|_| Arc::default()).collect();
        for (slot, cell) in splits.iter().enumerate() {
            scheduler.set_split_cell(slot, cell.clone());
        }
        let claims = scheduler
            .fixed_chunk()
            .filter(|_| !crate::runtime::observe::delay::chunk_delayed())
            .map(|c| {
                Claims::new(
                    c,
                    n,
                    p,
                    scheduler.chunk_map_max(),
                    scheduler.origin(),
                    scheduler.done_counter(),
                )
            });
        Ok(SharedSource {
            claiming: AtomicBool::new(claims.is_some()),
            claims,
            splits,
            scheduler: Mutex::new(scheduler),
            cancelled: (0..p).map(|_| Padded(AtomicU64::new(0))).collect(),
            copies: (0..p).map(|_| Padded(AtomicBool::new(false))).collect(),
            changed: Condvar::new(),
            changes: AtomicU64::new(0),
            sleeping: AtomicUsize::new(0),
            watch: p > 1 && p <= crate::runtime::sync::cores(),
            p,
            stop: Arc::new(AtomicBool::new(false)),
            splitting: AtomicBool::new(false),
        })
    }
}

impl ChunkSource for SharedSource {
    fn next(
        &self,
        slot: usize,
        finished: Option<ChunkTiming>,
        now: Instant,
    ) -> (Option<Chunk>, Verdict) {
        let mut finished = finished;
        if let Some(claims) = self.claims() {
            let stop = self.stop.load(Ordering::Relaxed);
            let cell = self
                .splitting
                .load(Ordering::Relaxed)
                .then(|| &*self.splits[slot % self.p]);
            match claims.next(slot, finished, now, stop, cell) {
                Claimed::Chunk(c) => return (Some(c), Verdict::Keep),
                Claimed::Done => return (None, Verdict::Keep),
                Claimed::Tail { recorded } => {
                    // Every chunk is out in a re-executing loop: the scheduler takes over
                    // (copies, splits, verdicts), holding every worker's unfinished chunk.
                    claims.hand_over(&mut lock(&self.scheduler));
                    self.claiming.store(false, Ordering::Relaxed);
                    if recorded {
                        finished = None;
                    }
                }
            }
        }
        let rank = slot % self.p;
        let mut scheduler = lock(&self.scheduler);
        if self.stop.load(Ordering::Relaxed) {
            let verdict = finished.map_or(Verdict::Keep, |t| scheduler.hand_in(rank, t, now));
            return (None, verdict);
        }
        let confirmed = scheduler.unconfirmed();
        let (mut next, verdict) = scheduler.serve_at(rank, finished, now);
        for (w, ordinal) in scheduler.take_cancels() {
            self.cancelled[w].store(ordinal, Ordering::Relaxed);
        }
        if scheduler.unconfirmed() < confirmed {
            self.changed_under_lock();
        }
        while let Next::Wait(at) = next {
            // Watched for a while before sleeping (when the threads fit the cores): the loop's
            // last chunks end microseconds apart, and waking a sleeping thread costs tens of
            // microseconds (a loop of a few iterates spent most of its time there).
            let seen = self.changes.load(Ordering::Acquire);
            if self.watch {
                drop(scheduler);
                let until = at.min(Instant::now() + WATCH);
                let mut spins = 0u32;
                while self.changes.load(Ordering::Acquire) == seen
                    && !self.stop.load(Ordering::Relaxed)
                {
                    spins = spins.wrapping_add(1);
                    if spins % 64 == 0 {
                        if Instant::now() >= until {
                            break;
                        }
                        std::thread::yield_now();
                    } else {
                        std::hint::spin_loop();
                    }
                }
                scheduler = lock(&self.scheduler);
            }
            let now = Instant::now();
            if self.changes.load(Ordering::Acquire) == seen && now < at {
                self.sleeping.fetch_add(1, Ordering::Relaxed);
                scheduler = self
                    .changed
                    .wait_timeout(scheduler, at.saturating_duration_since(now).min(POLL_STOP))
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
                self.sleeping.fetch_sub(1, Ordering::Relaxed);
            }
            if self.stop.load(Ordering::Relaxed) {
                return (None, verdict);
            }
            let confirmed = scheduler.unconfirmed();
            next = scheduler.serve_at(rank, None, Instant::now()).0;
            if scheduler.unconfirmed() < confirmed {
                self.changed_under_lock();
            }
        }
        self.copies[rank].store(scheduler.holds_copy(rank), Ordering::Relaxed);
        (next.chunk(), verdict)
    }

    fn terminated(&self) -> bool {
        if let Some(claims) = self.claims() {
            return claims.all_out() || self.stop.load(Ordering::Relaxed);
        }
        lock(&self.scheduler).remaining() == 0 || self.stop.load(Ordering::Relaxed)
    }

    fn claims(&self) -> Option<&Claims> {
        SharedSource::claims(self)
    }

    fn workers(&self) -> usize {
        self.p
    }

    fn local_slots(&self) -> usize {
        self.p
    }

    fn rank(&self) -> usize {
        0
    }

    fn stop_flag(&self) -> Option<&Arc<AtomicBool>> {
        Some(&self.stop)
    }

    fn finish(
        &self,
        open: Vec<(usize, ChunkTiming)>,
        cpu: Vec<(usize, f64)>,
        report: Option<(&str, Instant)>,
    ) -> Option<LoopReport> {
        let now = Instant::now();
        if let Some(claims) = self.claims().filter(|c| !c.handed_over()) {
            for (s, t) in open {
                claims.hand_in_open(s, t, now);
            }
            let mut scheduler = lock(&self.scheduler);
            claims.fold_into(&mut scheduler);
            for (s, c) in cpu {
                scheduler.add_cpu(s % self.p, c);
            }
            return report.map(|(name, started)| scheduler.report(name, started));
        }
        let mut scheduler = lock(&self.scheduler);
        for (s, t) in open {
            scheduler.hand_in(s % self.p, t, now);
        }
        for (s, c) in cpu {
            scheduler.add_cpu(s % self.p, c);
        }
        report.map(|(name, started)| scheduler.report(name, started))
    }

    fn exchange(&self) -> Option<&dyn Exchange> {
        None
    }

    fn done_counter(&self) -> Option<Arc<AtomicU64>> {
        Some(lock(&self.scheduler).done_counter())
    }

    fn tolerance(&self) -> Option<&dyn Tolerance> {
        Some(self)
    }
}

impl SharedSource {
    /// A chunk was confirmed (called under the scheduler's lock): waiting workers see the change
    /// (watchers by `changes`, sleepers by a notification, only if any sleeps: both counts are
    /// changed under that lock, so a worker about to sleep either sees the change or is counted).
    fn changed_under_lock(&self) {
        self.changes.fetch_add(1, Ordering::Release);
        if self.sleeping.load(Ordering::Relaxed) > 0 {
            self.changed.notify_all();
        }
    }

    /// The atomic hand-out, while the loop uses it.
    #[inline]
    fn claims(&self) -> Option<&Claims> {
        self.claims
            .as_ref()
            .filter(|_| self.claiming.load(Ordering::Relaxed))
    }
}

impl Tolerance for SharedSource {
    fn reexecute(&self, split: bool) {
        if let Some(claims) = &self.claims {
            claims.tail_to_scheduler();
        }
        let mut scheduler = lock(&self.scheduler);
        scheduler.reexecute();
        scheduler.set_split(split);
        self.splitting.store(split, Ordering::Relaxed);
    }

    fn restore(&self, finished: &[[u64; 2]]) -> Result<(), DlsError> {
        self.claiming.store(false, Ordering::Relaxed);
        Ok(lock(&self.scheduler).restore(finished)?)
    }

    fn restored(&self) -> u64 {
        lock(&self.scheduler).restored()
    }

    fn cancelled(&self, slot: usize, ordinal: u64) -> bool {
        self.cancelled[slot % self.p].load(Ordering::Relaxed) == ordinal
    }

    fn cancel_flag(&self, slot: usize) -> Option<&AtomicU64> {
        Some(&*self.cancelled[slot % self.p])
    }

    fn holds_copy(&self, slot: usize) -> bool {
        self.copies[slot % self.p].load(Ordering::Relaxed)
    }

    fn split_cell(&self, slot: usize) -> Option<&SplitCell> {
        self.splitting
            .load(Ordering::Relaxed)
            .then(|| &*self.splits[slot % self.p])
    }
}
