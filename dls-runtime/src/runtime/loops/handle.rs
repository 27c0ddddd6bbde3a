//! [`Loop`]: one running loop (Cariño & Banicescu's (2007) `DLS_StartLoop` … `DLS_EndLoop`), and [`ChunkRange`],
//! the iterates of one chunk.

use crate::runtime::annotate::sync::Mutex;
use std::marker::PhantomData;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::{self, ThreadId};
use std::time::Instant;

use crate::report::{CheckReport, CheckpointReport, LoopReport, ReductionReport};
use crate::runtime::loops::panic_ctx::{self, ChunkCtx};
use crate::runtime::loops::range::{format_index, LoopIndex};
use crate::runtime::loops::source::{ChunkSource, Tally};
use crate::runtime::observe::cpu_clock;
use crate::runtime::observe::progress::{Progress, ProgressMode};
use crate::runtime::observe::stats::ReportMode;
use crate::runtime::observe::stats::{emit, LoopStats};
use crate::runtime::sync::{lock, Padded, SlotLock};
use crate::runtime::tolerance::reexecution::Verdict;
use crate::{Chunk, ChunkTiming, Technique};

/// A chunk handed to a caller and not yet finished.
#[derive(Debug, Clone, Copy)]
struct Open {
    size: u64,
    requested: Instant,
    handed: Instant,
}

impl Open {
    fn timing(&self, now: Instant) -> ChunkTiming {
        ChunkTiming {
            iterates: self.size,
            work_s: now.saturating_duration_since(self.handed).as_secs_f64(),
            elapsed_s: now.saturating_duration_since(self.requested).as_secs_f64(),
        }
    }
}

/// One thread that pulls chunks (a worker slot).
#[derive(Debug, Default)]
struct Caller {
    open: Option<Open>,
    tally: Tally,
    /// The slot's thread and its CPU clock (`runtime/observe/cpu_clock.rs`) when it received its first
    /// chunk, until its last request.
    cpu_from: Option<(ThreadId, f64)>,
    /// CPU seconds the slot's thread used from its first chunk to its last request.
    cpu_s: f64,
}

impl Caller {
    /// Ends the slot's CPU-time window, `cpu_now` being the calling thread's CPU clock: counted
    /// if the slot's own thread calls (the clock is per thread).
    fn stop_cpu(&mut self, cpu_now: Option<f64>) {
        if let (Some((thread, from)), Some(now)) = (self.cpu_from.take(), cpu_now) {
            if thread == thread::current().id() {
                self.cpu_s += (now - from).max(0.0);
            }
        }
    }
}

/// What happens at the end of a loop.
pub(crate) enum Ending {
    /// Build the loop report, emit it (`DLS_REPORT`) and, with [`History::Record`], record it
    /// as one more time step of the loop's history ([`LoopMemory`], which also keeps MPI
    /// initialised while the loop exists).
    Report {
        memory: Box<dyn LoopMemory>,
        mode: ReportMode,
        history: History,
    },
    /// No report: the caller keeps its own tally (the loops of a two-level loop).
    Quiet,
}

/// What outlives a loop: the runtime's memory of loop names (AWF's history, `auto`'s choices),
/// told of every finished loop that is one more time step of its name. The runtime implements it
/// (`history.rs`); holding it also keeps MPI initialised while the loop exists. A seam, so that
/// the loop knows nothing of the runtime above it.
pub(crate) trait LoopMemory: Send + Sync {
    /// Remembers a finished loop scheduled by `technique`.
    fn remember(&self, technique: &Technique, report: &LoopReport);
}

/// Whether a finished loop is one more time step of its name's history (AWF's weights).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum History {
    Record,
    Skip,
}

/// The part of a loop that does not depend on the index type: a [`ChunkSource`], the callers'
/// open chunks and tallies, and the timing of every chunk.
pub(crate) struct UntypedLoop {
    /// Process-unique id: the panic context of this loop's chunks carries it.
    id: u64,
    pub(crate) name: Arc<str>,
    pub(crate) technique: Technique,
    pub(crate) n: u64,
    started: Instant,
    source: Box<dyn ChunkSource>,
    /// One caller per worker slot of this process, each locked only by its own worker (on lines
    /// of its own), so that a chunk's bookkeeping never waits for another worker's.
    callers: Box<[Padded<SlotLock<Caller>>]>,
    /// Callers beyond the source's slots (threads that pull chunks through the explicit API
    /// beyond the loop's slots), slot `callers.len() + k` at `k`.
    more_callers: Mutex<Vec<Caller>>,
    /// The threads that took slots through the explicit API (`slot: None`), by slot.
    threads: Mutex<Vec<Option<ThreadId>>>,
    ending: Ending,
    /// A loop started inside an iterate of another loop: that iterate's panic context, restored
    /// when this loop ends, so that the "inside an iterate" state follows the running loops (not
    /// the lifetime of this loop's chunks, whose drop clears it; issue 17 case 9b).
    enclosing: Mutex<Option<panic_ctx::Saved>>,
    /// Set for a loop over all workers: while it exists, loops started by threads that execute no
    /// iterate of it run serially on their thread (`panic_ctx::loop_running`).
    running: Option<Running>,
    /// How the loop's partial results were combined, for its report.
    reduction: Mutex<Option<ReductionReport>>,
    /// A checked loop's fault check, for its report.
    check: Mutex<Option<CheckReport>>,
    /// The gathered vectors' logged writes ([`UntypedLoop::note_logged_writes`]).
    logged_writes: std::sync::atomic::AtomicU64,
    auto: Mutex<Option<crate::report::AutoReport>>,
    /// A loop's checkpoints, for its report.
    checkpoint: Mutex<Option<CheckpointReport>>,
    /// Whether workers read their CPU clocks (a system call at their first chunk and after
    /// their last) for the report's `cpu_time_s`.
    cpu: bool,
    /// The progress display (`DLS_PROGRESS`), on the process that schedules the loop; stopped
    /// when the loop finishes (or is dropped).
    progress: Mutex<Option<Progress>>,
    /// Whether the loop's work is recorded for its next run's choice to run alone
    /// (`engine/alone.rs`).
    pub(crate) sized: bool,
    /// Whether it runs on the calling thread alone (`engine/alone.rs`).
    pub(crate) alone: bool,
}

/// Counts a loop over all workers as running while it exists (dropped with the loop, also when a
/// panic unwinds through it).
struct Running;

impl Running {
    fn new() -> Self {
        panic_ctx::loop_started();
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        panic_ctx::loop_ended();
    }
}

impl UntypedLoop {
    /// When the loop started (was made), for how long its run took (`engine/alone.rs`).
    pub(crate) fn started(&self) -> Instant {
        self.started
    }

    pub(crate) fn new(
        name: Arc<str>,
        technique: Technique,
        n: u64,
        source: Box<dyn ChunkSource>,
        ending: Ending,
    ) -> Self {
        let slots = source.local_slots();
        UntypedLoop {
            id: panic_ctx::next_loop_id(),
            name,
            technique,
            n,
            started: Instant::now(),
            source,
            callers: (0..slots.max(1))
                .map(|_| Padded(SlotLock::new(Caller::default())))
                .collect(),
            more_callers: Mutex::new(Vec::new()),
            threads: Mutex::new(Vec::new()),
            ending,
            enclosing: Mutex::new(None),
            running: None,
            reduction: Mutex::new(None),
            check: Mutex::new(None),
            logged_writes: std::sync::atomic::AtomicU64::new(0),
            auto: Mutex::new(None),
            checkpoint: Mutex::new(None),
            progress: Mutex::new(None),
            sized: false,
            alone: false,
            cpu: true,
        }
    }

    /// Whether the workers read their CPU clocks (default: they do).
    pub(crate) fn with_cpu_clock(mut self, on: bool) -> Self {
        self.cpu = on;
        self
    }

    /// Whether the workers read their CPU clocks.
    pub(crate) fn reads_cpu_clock(&self) -> bool {
        self.cpu
    }

    /// Shows the loop's progress as `mode` says, if this process schedules the loop (see
    /// `runtime/observe/progress.rs`).
    pub(crate) fn with_progress(self, mode: ProgressMode) -> Self {
        if let Some(done) = self.source.done_counter() {
            *lock(&self.progress) = Progress::start(mode, self.name.clone(), self.n, done);
        }
        self
    }

    /// Marks the loop as one over all workers (see [`Running`]).
    pub(crate) fn over_all_workers(mut self) -> Self {
        self.running = Some(Running::new());
        self
    }

    /// Marks the loop as started inside an iterate of another loop, on this thread: the
    /// iterate's panic context comes back when this loop ends.
    pub(crate) fn nested_in(self, enclosing: panic_ctx::Saved) -> Self {
        *lock(&self.enclosing) = Some(enclosing);
        self
    }

    /// Ends the caller's previous chunk (its timing goes to the source with the request) and
    /// returns the next chunk and the caller's slot, with the verdict on the previous chunk
    /// (re-execution). `slot: None` means "the slot of the current thread" (registered on first
    /// use).
    /// With the chunk, when it was handed (the start of its timing).
    fn next(&self, slot: Option<usize>) -> (Option<(Chunk, usize, Instant)>, Verdict) {
        let now = Instant::now();
        let slot = slot.unwrap_or_else(|| self.thread_slot());
        let finished = self.with_caller(slot, |caller| {
            caller
                .open
                .take()
                .map(|o| self.executed(slot, o.timing(now)))
        });
        let (chunk, verdict) = self.source.next(slot, finished, now);
        // The thread's CPU clock is read twice per slot and loop, at its first chunk and after
        // its last request, not around every chunk: each read makes the kernel settle the
        // thread's time slice, which on a busy machine moves preemptions to chunk boundaries
        // and so out of the work times (measured: twice the idle time under oversubscription).
        let cpu_now = if chunk.is_none() && self.cpu {
            cpu_clock::thread_cpu_s()
        } else {
            None
        };
        // A source that answers at once (no lock waited for, no message) hands the chunk out
        // at the request's time: one clock read per chunk. The chunk starts a nanosecond after
        // the request that ended the previous one, so that the report's chunk times, in seconds,
        // keep a worker's chunks apart whatever the rounding.
        let handed = if self.source.claims().is_some() {
            now + std::time::Duration::from_nanos(1)
        } else {
            Instant::now()
        };
        self.with_caller(slot, |caller| {
            if let (Some(t), Verdict::Keep) = (&finished, verdict) {
                caller.tally.finished(t);
            }
            let Some(chunk) = chunk else {
                caller.stop_cpu(cpu_now);
                return (None, verdict);
            };
            caller.tally.chunks += 1;
            if self.cpu && caller.cpu_from.is_none() && caller.tally.chunks == 1 {
                caller.cpu_from = cpu_clock::thread_cpu_s().map(|c| (thread::current().id(), c));
            }
            caller.open = Some(Open {
                size: chunk.size,
                requested: now,
                handed,
            });
            (Some((chunk, slot, handed)), verdict)
        })
    }

    /// Runs `f` on slot `slot`'s caller.
    #[inline]
    fn with_caller<R>(&self, slot: usize, f: impl FnOnce(&mut Caller) -> R) -> R {
        match self.callers.get(slot) {
            Some(c) => f(&mut c.lock()),
            None => {
                let k = slot - self.callers.len();
                let mut more = lock(&self.more_callers);
                if more.len() <= k {
                    more.resize_with(k + 1, Caller::default);
                }
                f(&mut more[k])
            }
        }
    }

    /// The slot of the calling thread (the explicit API): the one it took before, else the first
    /// free one, else a new one.
    fn thread_slot(&self) -> usize {
        thread_local! {
            /// The last loop this thread pulled a chunk of through the explicit API, and its
            /// slot there: the next request of the same loop needs no look-up.
            static LAST: std::cell::Cell<(u64, usize)> = const { std::cell::Cell::new((0, 0)) };
        }
        let (id, slot) = LAST.with(|l| l.get());
        if id == self.id {
            return slot;
        }
        let slot = self.look_up_thread_slot();
        LAST.with(|l| l.set((self.id, slot)));
        slot
    }

    fn look_up_thread_slot(&self) -> usize {
        let me = thread::current().id();
        let mut threads = lock(&self.threads);
        if let Some(s) = threads.iter().position(|t| *t == Some(me)) {
            return s;
        }
        let s = match threads.iter().position(|t| t.is_none()) {
            Some(s) => s,
            None => {
                threads.push(None);
                threads.len() - 1
            }
        };
        threads[s] = Some(me);
        s
    }

    /// What a worker that claimed its chunks itself (`runtime/engine/drive/claimed.rs`) did, told to
    /// its caller at once: its tally, the CPU seconds it used, and, when it hands over to the
    /// scheduler in the loop's tail, its chunk whose timing goes with its next request
    /// (`open`: size, when handed) and the CPU window still open (its first chunk's CPU clock).
    pub(crate) fn absorb_claimed(
        &self,
        slot: usize,
        tally: Tally,
        cpu_s: f64,
        open: Option<(u64, Instant)>,
        cpu_from: Option<f64>,
    ) {
        self.with_caller(slot, |caller| {
            caller.tally.add(&tally);
            caller.cpu_s += cpu_s;
            caller.open = open.map(|(size, handed)| Open {
                size,
                requested: handed,
                handed,
            });
            if let Some(from) = cpu_from {
                caller.cpu_from = Some((thread::current().id(), from));
            }
        });
    }

    fn terminated(&self) -> bool {
        self.source.terminated()
    }

    /// The timing of `slot`'s chunk with the iterates it ended with: fewer than handed out if
    /// the scheduler split it for an idle worker (`runtime/tolerance/split.rs`).
    fn executed(&self, slot: usize, mut t: ChunkTiming) -> ChunkTiming {
        if let Some(cell) = self.source.tolerance().and_then(|t| t.split_cell(slot)) {
            t.iterates = cell.executed(t.iterates);
        }
        t
    }

    /// `DLS_EndLoop`: closes open chunks, waits for the end of the loop (collective on MPI) and,
    /// unless the loop is [`Ending::Quiet`], builds the report and emits it. Returns the stats
    /// (none for a quiet loop) and this process's tally.
    fn finish(&self) -> (Option<LoopStats>, Tally) {
        panic_ctx::leave_loop(self.id);
        if let Some(enclosing) = lock(&self.enclosing).take() {
            panic_ctx::restore(enclosing);
        }
        let now = Instant::now();
        let mut guards: Vec<_> = self.callers.iter().map(|c| c.lock()).collect();
        let mut more = lock(&self.more_callers);
        let mut callers: Vec<&mut Caller> = guards
            .iter_mut()
            .map(|g| &mut **g)
            .chain(more.iter_mut())
            .collect();
        // The CPU clock only if a slot of this thread has its window open (a worker that left
        // early): the workers of a loop that ran to its end closed theirs at their last request.
        let me = thread::current().id();
        let cpu_now = callers
            .iter()
            .any(|c| c.cpu_from.is_some_and(|(t, _)| t == me))
            .then(cpu_clock::thread_cpu_s)
            .flatten();
        let mut tally = Tally::default();
        let mut cpu: Vec<(usize, f64)> = Vec::new();
        let open: Vec<(usize, ChunkTiming)> = callers
            .iter_mut()
            .enumerate()
            .filter_map(|(s, c)| {
                c.stop_cpu(cpu_now);
                let t = c.open.take().map(|o| (s, self.executed(s, o.timing(now))));
                if let Some((_, t)) = &t {
                    c.tally.finished(t);
                }
                tally.add(&c.tally);
                if c.cpu_s > 0.0 {
                    cpu.push((s, c.cpu_s));
                }
                t
            })
            .collect();
        drop(callers);
        drop(more);
        drop(guards);
        let Ending::Report {
            memory,
            mode,
            history,
        } = &self.ending
        else {
            self.source.finish(open, cpu, None);
            self.stop_progress();
            return (None, tally);
        };
        let mut report: LoopReport = self
            .source
            .finish(open, cpu, Some((&self.name, self.started)))
            .expect("a source asked for a report returns one");
        // After the source's finish: every process has ended the loop, so the last line (100%,
        // the loop's time) comes at its end and before its report.
        self.stop_progress();
        report.reduction = lock(&self.reduction).take();
        report.split_off_the_combine();
        report.check = lock(&self.check).take();
        report.logged_writes = self
            .logged_writes
            .load(std::sync::atomic::Ordering::Relaxed);
        report.auto = lock(&self.auto).take();
        report.checkpoint = lock(&self.checkpoint).take();
        report.backend = if self.source.exchange().is_some() {
            "mpi"
        } else {
            "threads"
        }
        .to_string();
        report.oversubscribed = crate::report::Oversubscribed::on_this_node_with(
            report.p,
            self.source.exchange().is_some(),
            report.threads_per_rank,
        );
        let rank = self.source.rank();
        if rank == 0 {
            emit(&report, mode);
        }
        if *history == History::Record {
            memory.remember(&self.technique, &report);
        }
        let whole_process = self.source.exchange().is_none();
        (
            Some(LoopStats::from_report(report, rank, whole_process)),
            tally,
        )
    }

    /// Stops the progress display, if any (its last line or bar is drawn).
    fn stop_progress(&self) {
        if let Some(mut p) = lock(&self.progress).take() {
            p.stop();
        }
    }

    /// Records what `auto` chose for this run (before `finish`, which reports it).
    pub(crate) fn note_auto(&self, auto: crate::report::AutoReport) {
        *lock(&self.auto) = Some(auto);
    }

    /// Records how the loop's partial results were combined (before `finish`, which reports it).
    pub(crate) fn note_reduction(&self, reduction: ReductionReport) {
        *lock(&self.reduction) = Some(reduction);
    }

    /// Records a loop's checkpoints (before `finish`, which reports them).
    pub(crate) fn note_checkpoint(&self, checkpoint: CheckpointReport) {
        *lock(&self.checkpoint) = Some(checkpoint);
    }

    /// Records how many writes of gathered vectors the loop's total holds in logs (before
    /// `finish`, which reports them).
    pub(crate) fn note_logged_writes(&self, writes: u64) {
        self.logged_writes
            .store(writes, std::sync::atomic::Ordering::Relaxed);
    }

    /// Records a checked loop's fault check (before `finish`, which reports it).
    pub(crate) fn note_check(&self, check: CheckReport) {
        *lock(&self.check) = Some(check);
    }

    /// Lets idle workers take copies of unfinished chunks (re-execution): every worker of this
    /// loop must pull its chunks with `engine::drive::apart::drive_apart`, which keeps each chunk's
    /// contribution apart until its verdict. With `split`, a long chunk in progress on the
    /// scheduler's process is first split for an idle worker (`runtime/tolerance/split.rs`).
    pub(crate) fn reexecute(&self, split: bool) {
        if let Some(t) = self.source.tolerance() {
            t.reexecute(split);
        }
    }

    /// Number of ranks or threads that execute iterates.
    pub(crate) fn workers(&self) -> usize {
        self.source.workers()
    }

    /// The loop's source (for combining partial results across its processes).
    pub(crate) fn source(&self) -> &dyn ChunkSource {
        &*self.source
    }
}

/// Who reports a panicking iterate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Panics {
    /// The worker loop catches it, stops the loop and reports it (threads backend).
    Catch,
    /// It unwinds on the worker's thread (under MPI the panic hook aborts the job).
    Unwind,
}

/// A running loop: Cariño & Banicescu's (2007) `info` between `DLS_StartLoop` and `DLS_EndLoop`.
///
/// | Cariño & Banicescu (2007) | dls |
/// |----------|-----|
/// | `DLS_StartLoop(info, 1, N, method)` | [`Runtime::start_loop`](crate::Runtime::start_loop)`(0..n, technique)` |
/// | `DLS_Terminated(info)` | [`Loop::terminated`] (or: `next_chunk` returned `None`) |
/// | `DLS_StartChunk(info, iStart, iSize)` | [`Loop::next_chunk`] → a [`ChunkRange`] (`start_offset()`, `len()`) |
/// | `DLS_EndChunk(info)` | implicit: the next `next_chunk` call (or `finish`) ends the previous chunk and sends its timing with the request |
/// | `DLS_EndLoop(info, iIters, iTime)` | [`Loop::finish`] → [`LoopStats`] (`iterates`, `work_time_s`, `report`) |
///
/// On the threads backend a `Loop` is `Sync`: several threads may pull chunks from it (that is
/// what [`Runtime::doall`](crate::Runtime::doall) does over its pool); each thread is a worker slot of its own. On MPI
/// every rank pulls its own chunks, from one thread per rank.
///
/// Dropping a loop without calling [`finish`](Loop::finish) finishes it (so MPI never hangs),
/// discarding the statistics. Finishing before `next_chunk` returned `None` leaves the remaining
/// iterates to the other workers (on MPI: the rank tells the scheduler it leaves).
///
/// ```
/// let rt = dls_runtime::init().unwrap();
/// let lp = rt.start_loop(0..10u64, "gss".parse().unwrap()).unwrap();
/// let mut sum = 0;
/// while let Some(chunk) = lp.next_chunk() {
///     for i in chunk {
///         sum += i;
///     }
/// }
/// assert!(lp.terminated());
/// let stats = lp.finish();
/// assert_eq!(sum, 45);
/// assert_eq!(stats.iterates, 10);
/// ```
pub struct Loop<I: LoopIndex> {
    first: I,
    core: UntypedLoop,
    finished: bool,
}

impl<I: LoopIndex> std::fmt::Debug for Loop<I> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loop")
            .field("name", &self.core.name)
            .field("technique", &self.core.technique)
            .field("n", &self.core.n)
            .finish_non_exhaustive()
    }
}

impl<I: LoopIndex> Loop<I> {
    pub(crate) fn new(first: I, core: UntypedLoop) -> Self {
        Loop {
            first,
            core,
            finished: false,
        }
    }

    /// `DLS_StartChunk` (and `DLS_EndChunk` of the previous chunk): the next chunk of iterates for
    /// the calling thread (rank), or `None` when the loop has no more for it. The timing of the
    /// caller's previous chunk travels with the request, so adaptive techniques adapt.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let lp = rt.start_loop(-5i8..5, "static".parse().unwrap()).unwrap();
    /// let mut seen = Vec::new();
    /// while let Some(chunk) = lp.next_chunk() {
    ///     seen.extend(chunk);
    /// }
    /// seen.sort();
    /// assert_eq!(seen, (-5..5).collect::<Vec<i8>>());
    /// ```
    ///
    /// With a `body` delay in `DLS_DELAY` (see [`delay`](crate::runtime::observe::delay)), the chunk's iterates'
    /// delays are spent here, in one wait, and count as the chunk's work.
    pub fn next_chunk(&self) -> Option<ChunkRange<'_, I>> {
        let (chunk, _) = self.next_chunk_in(None, Panics::Unwind)?;
        if let Some(d) = crate::runtime::observe::delay::body() {
            d.wait(chunk.len() as u64);
        }
        Some(chunk)
    }

    /// `next_chunk` for an explicit worker slot (`None`: the current thread's); with
    /// [`Panics::Catch`] the caller reports panics itself.
    pub(crate) fn next_chunk_in(
        &self,
        slot: Option<usize>,
        panics: Panics,
    ) -> Option<(ChunkRange<'_, I>, usize)> {
        self.next_chunk_verdict(slot, panics)
            .0
            .map(|(chunk, slot, _)| (chunk, slot))
    }

    /// [`next_chunk_in`](Self::next_chunk_in) with the verdict on the caller's previous chunk:
    /// [`Verdict::Discard`] when another copy of it finished first (re-execution; only loops whose
    /// source was told to [`reexecute`](UntypedLoop::reexecute) hand out copies).
    pub(crate) fn next_chunk_verdict(
        &self,
        slot: Option<usize>,
        panics: Panics,
    ) -> (Option<(ChunkRange<'_, I>, usize, Instant)>, Verdict) {
        let (next, verdict) = self.core.next(slot);
        let Some((chunk, slot, handed)) = next else {
            // No more chunks for this thread: it executes no iterate of this loop any more.
            panic_ctx::leave_loop(self.core.id);
            return (None, verdict);
        };
        (
            Some((self.claimed_range(chunk, slot, panics), slot, handed)),
            verdict,
        )
    }

    /// The iterates of `chunk` for worker `slot`, with that worker's panic context set: a chunk
    /// from the source ([`next_chunk_in`](Self::next_chunk_in)) or one the worker claimed itself
    /// (`runtime/engine/drive/claimed.rs`).
    #[inline]
    pub(crate) fn claimed_range(
        &self,
        chunk: Chunk,
        slot: usize,
        panics: Panics,
    ) -> ChunkRange<'_, I> {
        panic_ctx::enter_chunk_of(self.core.id, slot, || ChunkCtx {
            loop_id: self.core.id,
            loop_name: self.core.name.clone(),
            first_bits: self.first.to_bits(),
            format: format_index::<I>,
            worker: slot,
            caught: panics == Panics::Catch,
        });
        ChunkRange {
            first: self.first,
            start: chunk.start,
            next: chunk.start,
            end: chunk.start + chunk.size,
            copy: false,
            _loop: PhantomData,
        }
    }

    /// The loop has no more chunks for this thread (a worker that claimed its own).
    pub(crate) fn left(&self) {
        panic_ctx::leave_loop(self.core.id);
    }

    /// `DLS_Terminated`: true once every iterate has been handed out (threads, and the scheduler
    /// rank), or once this rank has been told so (MPI workers: after `next_chunk` returned `None`).
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let lp = rt.start_loop(0..0u32, "fac2".parse().unwrap()).unwrap();
    /// assert!(lp.terminated());
    /// ```
    pub fn terminated(&self) -> bool {
        self.core.terminated()
    }

    /// `DLS_EndLoop`: the synchronisation point at the end of the loop. Returns the loop's
    /// statistics on every rank; with `DLS_REPORT` set, rank 0 also prints or appends the report.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let lp = rt.start_loop(0..4u8, "ss".parse().unwrap()).unwrap();
    /// while let Some(c) = lp.next_chunk() { for _ in c {} }
    /// assert_eq!(lp.finish().report.chunk_map.len(), 4);
    /// ```
    pub fn finish(mut self) -> LoopStats {
        self.finished = true;
        let (stats, tally) = self.core.finish();
        stats.unwrap_or_else(|| LoopStats {
            iterates: tally.iterates,
            work_time_s: tally.work_s,
            chunks: tally.chunks,
            ..LoopStats::default()
        })
    }

    /// `DLS_EndLoop` of a loop that keeps no report ([`Ending::Quiet`]): what this process did.
    pub(crate) fn finish_quietly(mut self) -> Tally {
        self.finished = true;
        self.core.finish().1
    }

    /// The loop's name (as in the report).
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let lp = rt.start_loop_named("init", 0..1, "ss".parse().unwrap()).unwrap();
    /// assert_eq!(lp.name(), "init");
    /// ```
    pub fn name(&self) -> &str {
        &self.core.name
    }

    /// Number of iterates.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// assert_eq!(rt.start_loop(3..=7, "ss".parse().unwrap()).unwrap().len(), 5);
    /// ```
    pub fn len(&self) -> u64 {
        self.core.n
    }

    /// The first index as text, empty for a loop of no iterates (checkpoint fingerprints).
    pub(crate) fn first_text(&self) -> String {
        if self.core.n == 0 {
            String::new()
        } else {
            self.first.to_string()
        }
    }

    /// True for a loop of no iterates.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// assert!(rt.start_loop(7..3, "ss".parse().unwrap()).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.core.n == 0
    }

    /// The technique in force (after `DLS_SCHEDULE`).
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let lp = rt.start_loop(0..3, "gss".parse().unwrap()).unwrap();
    /// assert!(!lp.technique().to_string().is_empty());
    /// ```
    pub fn technique(&self) -> &Technique {
        &self.core.technique
    }

    /// P: the number of workers (ranks or threads) the loop is scheduled over.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let lp = rt.start_loop(0..3, "gss".parse().unwrap()).unwrap();
    /// assert_eq!(lp.workers(), rt.workers());
    /// ```
    pub fn workers(&self) -> usize {
        self.core.workers()
    }

    /// Stops handing out chunks (threads backend: after a panicking iterate).
    pub(crate) fn abort(&self) {
        if let Some(stop) = self.core.source.stop_flag() {
            stop.store(true, Ordering::Relaxed);
        }
    }

    pub(crate) fn core(&self) -> &UntypedLoop {
        &self.core
    }
}

impl<I: LoopIndex> Drop for Loop<I> {
    fn drop(&mut self) {
        if !self.finished && !thread::panicking() {
            self.finished = true;
            let _ = self.core.finish();
        }
    }
}

/// The iterates of one chunk, in order (Cariño & Banicescu's (2007) `iStart` and `iSize`). Iterating it records the
/// current iterate, so that a panic names it.
///
/// A chunk borrows its loop: it cannot outlive [`Loop::finish`] (issue 17 case 8), so every
/// iterate a chunk yields runs while its loop is running.
///
/// ```compile_fail
/// let rt = dls_runtime::init().unwrap();
/// let lp = rt.start_loop(0..10u32, "ss".parse().unwrap()).unwrap();
/// let kept = lp.next_chunk().unwrap();
/// lp.finish(); // error: `lp` is borrowed by `kept`
/// for i in kept {}
/// ```
///
/// ```
/// let rt = dls_runtime::init().unwrap();
/// let lp = rt.start_loop(100..110u32, "static".parse().unwrap()).unwrap();
/// let chunk = lp.next_chunk().unwrap();
/// assert_eq!(chunk.start_offset(), 0);
/// assert_eq!(chunk.first(), 100);
/// assert!(chunk.len() >= 1);
/// ```
#[derive(Debug)]
pub struct ChunkRange<'a, I: LoopIndex> {
    first: I,
    start: u64,
    next: u64,
    end: u64,
    /// A copy of another worker's chunk (re-execution): its runs say so ([`Iterates::is_copy`]).
    copy: bool,
    _loop: PhantomData<&'a ()>,
}

impl<I: LoopIndex> ChunkRange<'_, I> {
    /// Offset of the chunk's first iterate from the loop's first index (`iStart - 1` in Cariño & Banicescu's (2007)
    /// 1-based Fortran).
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let lp = rt.start_loop(5..9u8, "ss".parse().unwrap()).unwrap();
    /// assert_eq!(lp.next_chunk().unwrap().start_offset(), 0);
    /// ```
    pub fn start_offset(&self) -> u64 {
        self.start
    }

    /// The chunk's first index.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let lp = rt.start_loop(5..9u8, "ss".parse().unwrap()).unwrap();
    /// assert_eq!(lp.next_chunk().unwrap().first(), 5);
    /// ```
    pub fn first(&self) -> I {
        I::offset_from(self.first, self.start)
    }
}

impl<I: LoopIndex> ChunkRange<'_, I> {
    /// The next `n` iterates of the chunk (fewer at its end; none once it is done), as a run the
    /// loop's body goes through itself: the engine hands a `#[par_doall]` body whole runs, so
    /// that the compiler sees the user's loop as a loop (one call per run, not per iterate).
    #[inline]
    pub(crate) fn take_run(&mut self, n: u64) -> Iterates<I> {
        let from = self.next;
        self.next = from.saturating_add(n).min(self.end);
        Iterates {
            first: self.first,
            next: from,
            end: self.next,
            copy: self.copy,
            naming: panic_ctx::naming(),
        }
    }

    /// Marks the chunk as a copy of another worker's (re-execution), or not.
    #[inline]
    pub(crate) fn set_copy(&mut self, copy: bool) {
        self.copy = copy;
    }

    /// Whether the chunk has iterates left.
    #[inline]
    pub(crate) fn is_done(&self) -> bool {
        self.next >= self.end
    }

    /// The iterate a panic raised while this chunk's runs went: the last one a run of it
    /// yielded on this thread (see [`Iterates`]).
    pub(crate) fn current(&self) -> I {
        I::offset_from(self.first, panic_ctx::offset())
    }
}

/// A run of consecutive iterates of one chunk, in order: what a loop body given as a run
/// ([`Runtime::run_iterates`](crate::runtime::Runtime::run_iterates), the form `#[par_doall]`
/// expands to) goes through. Like [`ChunkRange`], yielding an iterate records it, so that a
/// panic names it.
///
/// ```
/// use dls_runtime::runtime::{options::LoopOptions, Iterates};
/// let rt = dls_runtime::init().unwrap();
/// let options = LoopOptions::new("sum", "fac2".parse().unwrap());
/// let body = |run: Iterates<u64>, s: &mut u64| {
///     for i in run {
///         *s += i;
///     }
/// };
/// let (s, _) = rt.run_iterates(&options, 0..100u64, || 0, body, |a, b| a + b).unwrap();
/// assert_eq!(s, 4950);
/// ```
#[derive(Debug, Clone)]
pub struct Iterates<I: LoopIndex> {
    first: I,
    next: u64,
    end: u64,
    copy: bool,
    /// [`panic_ctx::naming`], asked when the run was taken.
    naming: bool,
}

impl<I: LoopIndex> Iterates<I> {
    /// The number of iterates left in the run.
    ///
    /// ```
    /// use dls_runtime::runtime::{options::LoopOptions, Iterates};
    /// let rt = dls_runtime::init().unwrap();
    /// let options = LoopOptions::new("count", "static".parse().unwrap());
    /// let (n, _) = rt
    ///     .run_iterates(&options, 0..10u32, || 0, |run: Iterates<u32>, n: &mut u64| *n += run.left(), |a, b| a + b)
    ///     .unwrap();
    /// assert_eq!(n, 10);
    /// ```
    #[inline]
    pub fn left(&self) -> u64 {
        self.end - self.next
    }

    /// Whether these iterates are a copy of iterates another worker was handed first
    /// (re-execution of an unfinished chunk), which may run beside them in this process's
    /// memory: a gathered vector that an original writes in place is logged by a copy
    /// (`gather::GatherWriter::of_run`). On an MPI rank of one worker thread no execution runs
    /// beside another in its memory: no run is a copy there.
    ///
    /// ```
    /// use dls_runtime::runtime::{options::LoopOptions, Iterates};
    /// let rt = dls_runtime::init().unwrap();
    /// let options = LoopOptions::new("originals", "fac2".parse().unwrap());
    /// // No worker is late here: every chunk is its first execution.
    /// let (copies, _) = rt.run_iterates(&options, 0..1000u32, || 0u32,
    ///     |run: Iterates<u32>, n: &mut u32| *n += u32::from(run.is_copy()), |a, b| a + b).unwrap();
    /// assert_eq!(copies, 0);
    /// ```
    #[inline]
    pub fn is_copy(&self) -> bool {
        self.copy
    }

    /// The offset of the run's next iterate from the loop's first index.
    #[inline]
    pub(crate) fn offset(&self) -> u64 {
        self.next
    }

    /// The run as runs of one iterate each (a body delay waits before each iterate).
    pub(crate) fn singles(self) -> impl Iterator<Item = Iterates<I>> {
        let first = self.first;
        let (copy, naming) = (self.copy, self.naming);
        (self.next..self.end).map(move |o| Iterates {
            first,
            next: o,
            end: o + 1,
            copy,
            naming,
        })
    }
}

/// The iterate at offset `*next` of a chunk or run ending at `end` (none past it), recorded for
/// a panic's message (`naming`: for other threads too, see [`panic_ctx::naming`]).
#[inline]
fn next_iterate<I: LoopIndex>(first: I, next: &mut u64, end: u64, naming: bool) -> Option<I> {
    if *next >= end {
        return None;
    }
    let offset = *next;
    *next += 1;
    panic_ctx::set_offset(offset, naming);
    Some(I::offset_from(first, offset))
}

impl<I: LoopIndex> Iterator for Iterates<I> {
    type Item = I;

    #[inline]
    fn next(&mut self) -> Option<I> {
        next_iterate(self.first, &mut self.next, self.end, self.naming)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = (self.end - self.next) as usize;
        (left, Some(left))
    }
}

impl<I: LoopIndex> ExactSizeIterator for Iterates<I> {}

impl<I: LoopIndex> Iterator for ChunkRange<'_, I> {
    type Item = I;

    #[inline]
    fn next(&mut self) -> Option<I> {
        next_iterate(self.first, &mut self.next, self.end, panic_ctx::naming())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = (self.end - self.next) as usize;
        (left, Some(left))
    }
}

impl<I: LoopIndex> ExactSizeIterator for ChunkRange<'_, I> {}

impl<I: LoopIndex> Drop for ChunkRange<'_, I> {
    fn drop(&mut self) {
        // A panic that unwinds out of an iterate ends the MPI job here, naming the rank and the
        // iterate (whether dls's panic hook or the program's own saw it). A chunk that ends
        // normally after a panic its iterate caught lets the loop go on. The "inside an
        // iterate" state is the loop's, not the chunk's: it ends with the loop (`leave_loop`).
        if std::thread::panicking() {
            panic_ctx::abort_if_unwinding();
        } else {
            panic_ctx::chunk_went_on();
        }
    }
}
