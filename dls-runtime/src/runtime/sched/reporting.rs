//! The scheduler's state during one loop, shared by every backend: the technique's
//! [`ChunkScheduler`], the chunk map and the per-rank tallies that become the loop report.
//!
//! On the threads backend it sits behind a mutex that the worker threads lock once per chunk. On
//! MPI it lives on the scheduler rank (rank 0 of the loop's communicator), behind a mutex shared by
//! the rank's compute thread and its service thread that answers the workers' requests
//! (see the module docs of `runtime::mpi_backend`). It is what a chunk source adds to the
//! technique's scheduler: the chunk map and the tallies of the report. Later features that need
//! scheduler-side state (fault checks, checkpoints) extend this struct, the sources
//! (`runtime/loops/source.rs`) and the messages of `backend/mpi/messages.rs`.

use crate::runtime::annotate::sync::{AtomicU64, AtomicUsize};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::report::{LoopReport, RankReport, ReexecutionReport};
use crate::runtime::sched::holes::Holes;
use crate::runtime::tolerance::reexecution::{Ledger, Tail, Verdict};
use crate::runtime::tolerance::split::{SplitCell, ASK_PATIENCE, MAX_SPLIT, SPLIT_MIN};

/// The most chunks a loop report lists (`DLS_CHUNK_MAP`, default
/// [`DEFAULT_CHUNK_MAP`](DEFAULT_CHUNK_MAP)): set by the runtime from its settings.
static CHUNK_MAP_MAX: AtomicUsize = AtomicUsize::new(DEFAULT_CHUNK_MAP);

/// Sets the most chunks a loop report lists (the runtime does, from `DLS_CHUNK_MAP`).
pub(crate) fn set_chunk_map_max(max: usize) {
    CHUNK_MAP_MAX.store(max, Ordering::Relaxed);
}
use crate::{Chunk, ChunkScheduler, ChunkTiming, Technique, TechniqueError};

/// The most chunks a loop report lists unless `DLS_CHUNK_MAP` says otherwise (40 MB on the
/// scheduler with their times).
pub const DEFAULT_CHUNK_MAP: usize = 1_000_000;

/// The scheduler-side state of one loop.
#[derive(Debug)]
pub(crate) struct ReportingScheduler {
    sched: ChunkScheduler,
    technique: Technique,
    n: u64,
    /// Every chunk as `[start, size, rank]`, in the order handed out, up to `chunk_map_max`.
    chunk_map: Vec<[u64; 3]>,
    chunk_map_max: usize,
    /// Chunks handed out beyond `chunk_map_max` (counted, not listed).
    chunk_map_dropped: u64,
    /// When this state was made: the clock of `chunk_ends`.
    origin: Instant,
    /// Per listed chunk (same order as `chunk_map`): `[arrival, work]`, the seconds since
    /// `origin` when its timing arrived here and its work time; NaN until it arrives (16 bytes
    /// a chunk: with the map, 40 bytes under `DLS_CHUNK_MAP`).
    chunk_ends: Vec<[f64; 2]>,
    /// Per rank: the listed chunks handed out whose timing has not arrived yet (indices into
    /// `chunk_map`, oldest first).
    open: Vec<Vec<usize>>,
    /// Per rank: CPU seconds its worker spent in its chunks (handed in at the loop's end).
    cpu: Vec<f64>,
    /// Per rank: chunks handed out, iterates and work time reported.
    ranks: Vec<RankReport>,
    /// Iterates of finished chunks, as recorded: what the progress display reads
    /// (`runtime/observe/progress.rs`).
    done: Arc<AtomicU64>,
    /// Per rank: what it holds (when it was handed out, its iterates). The MPI service thread
    /// predicts the rank's next request from it.
    holding: Vec<Option<(Instant, u64)>>,
    /// The chunks handed out and not confirmed (re-execution, `runtime/tolerance/reexecution.rs`). Only a
    /// re-executing loop consults it: a loop without re-execution runs none of its code per
    /// chunk (`tolerance_code_runs_only_in_loops_that_ask_for_it` below).
    ledger: Ledger,
    /// Whether idle workers get copies of unfinished chunks (set for loops whose workers keep
    /// each chunk's contribution apart until it is confirmed).
    reexecute: bool,
    created: Instant,
    /// A restarted loop: the live iterates around the ranges its checkpoints hold; the technique
    /// schedules the compressed space of those left.
    holes: Option<Holes>,
    /// Pieces of a compressed chunk that spans a hole, handed out before the technique's next.
    pieces: std::collections::VecDeque<Chunk>,
    /// Iterates restored from checkpoints.
    restored: u64,
    /// The relative speeds given to [`set_weights`](Self::set_weights), applied again on restore.
    weights: Option<Vec<f64>>,
    /// Per slot, for the workers of this process: the cell through which their chunk in
    /// progress may be split (`runtime/tolerance/split.rs`); armed at every hand-out.
    split_cells: Vec<Option<Arc<SplitCell>>>,
    /// Whether chunks in progress are split for idle workers (with re-execution, unless turned
    /// off).
    split: bool,
    /// Chunks split.
    splits: u64,
    /// Requests of other MPI ranks answered, and the nanoseconds spent answering them
    /// (`backend/mpi/service.rs`; `None` on threads).
    served: Option<(u64, u64)>,
    /// Whether workers without a cell (other MPI ranks) are asked to split their chunks.
    remote_split: bool,
    /// Asks to send: (slot, ordinal of its hand-out, quarters it keeps).
    split_asks: Vec<(usize, u64, u64)>,
    /// Parts split off by other ranks, to hand out.
    split_off: std::collections::VecDeque<Chunk>,
    /// Per slot with a cell: its chunk's start, how far its holder had claimed, and when that
    /// was first seen, while its chunk is about to end (see [`ABOUT_TO_END`]).
    progress: Vec<Option<(u64, u64, Instant)>>,
    /// Every fresh chunk was claimed without this scheduler (`runtime/sched/claim.rs`): the
    /// technique hands out no more.
    claimed_all: bool,
}

/// How long a holder of this process whose chunk is about to end (less than [`SPLIT_MIN`] left
/// at its pace) may go without claiming more of it while idle workers wait for its end rather
/// than take a copy (re-execution). Without the wait, a worker of another rank that asked just
/// before the end got a copy of the whole chunk and ran it until it learnt of the cancellation
/// (it asks every 5-20 ms): `triangular` with STATIC under `mpirun -np 2`, where rank 1 ran the
/// cheap half and rank 0's dear half was split for it eight times, ended every loop with 11-12 ms
/// of such a copy (134 ms against 123 ms). A holder claims every 20-80 µs; one that claims
/// nothing for this long may be stalled, and its chunk is copied once late as before.
pub(crate) const ABOUT_TO_END: Duration = Duration::from_millis(2);

/// What [`ReportingScheduler::split_for`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Split {
    /// The part split off for the asking worker.
    Chunk(Chunk),
    /// Nothing now, but a chunk whose holder has not started it yet may be split once it has.
    Soon,
    /// Nothing to split.
    No,
}

/// What a worker gets from [`ReportingScheduler::serve`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    /// A chunk to execute (a copy of an unfinished one when re-executing).
    Chunk(Chunk),
    /// Nothing now: ask again at this time, or when the loop completes.
    Wait(Instant),
    /// Nothing more: the loop is terminated for this worker.
    Done,
}

impl Next {
    /// The chunk, if any (`Wait` and `Done` give `None`).
    pub(crate) fn chunk(self) -> Option<Chunk> {
        match self {
            Next::Chunk(c) => Some(c),
            _ => None,
        }
    }
}

impl ReportingScheduler {
    /// State for `n` iterates over `p` ranks; validates the technique.
    pub(crate) fn new(technique: &Technique, n: u64, p: usize) -> Result<Self, TechniqueError> {
        let sched = ChunkScheduler::new(technique, n, p)?;
        Ok(ReportingScheduler {
            sched,
            technique: technique.clone(),
            n,
            chunk_map: Vec::new(),
            chunk_map_max: CHUNK_MAP_MAX.load(Ordering::Relaxed),
            chunk_map_dropped: 0,
            origin: Instant::now(),
            chunk_ends: Vec::new(),
            open: vec![Vec::new(); p],
            cpu: vec![0.0; p],
            ranks: (0..p)
                .map(|rank| RankReport {
                    rank,
                    ..RankReport::default()
                })
                .collect(),
            done: Arc::new(AtomicU64::new(0)),
            holding: vec![None; p],
            ledger: Ledger::new(p),
            reexecute: false,
            created: Instant::now(),
            holes: None,
            pieces: std::collections::VecDeque::new(),
            restored: 0,
            weights: None,
            split_cells: vec![None; p],
            split: true,
            splits: 0,
            served: None,
            remote_split: false,
            split_asks: Vec::new(),
            split_off: std::collections::VecDeque::new(),
            progress: vec![None; p],
            claimed_all: false,
        })
    }

    /// A restarted loop: `finished` (sorted, disjoint ranges) are done already; the technique
    /// schedules the iterates left. Before any chunk is handed out.
    pub(crate) fn restore(&mut self, finished: &[[u64; 2]]) -> Result<(), TechniqueError> {
        let holes = Holes::new(self.n, finished);
        let left = holes.len();
        let mut sched = ChunkScheduler::new(&self.technique, left, self.ranks.len())?;
        if let Some(w) = &self.weights {
            sched.set_weights(w.clone())?;
        }
        self.sched = sched;
        self.restored = self.n - left;
        self.holes = Some(holes);
        Ok(())
    }

    /// The size of every chunk but the last when they may be claimed with one atomic add
    /// (`runtime/sched/claim.rs`): a fixed-size technique
    /// ([`ChunkScheduler::fixed_chunk`](crate::ChunkScheduler::fixed_chunk)) in a loop that is not
    /// restarted, before any chunk is handed out.
    pub(crate) fn fixed_chunk(&self) -> Option<u64> {
        if self.holes.is_some() || !self.chunk_map.is_empty() || self.chunk_map_dropped > 0 {
            return None;
        }
        self.sched.fixed_chunk()
    }

    /// P: the ranks (threads) the loop is scheduled over.
    pub(crate) fn workers(&self) -> usize {
        self.ranks.len()
    }

    /// The clock of the chunk times (`chunk_ends`).
    pub(crate) fn origin(&self) -> Instant {
        self.origin
    }

    /// The most chunks the map lists.
    pub(crate) fn chunk_map_max(&self) -> usize {
        self.chunk_map_max
    }

    /// `rank`'s chunks claimed without this scheduler (`runtime/sched/claim.rs`): their count,
    /// iterates and work time.
    pub(crate) fn add_claimed(&mut self, rank: usize, chunks: u64, iterates: u64, work_s: f64) {
        let r = &mut self.ranks[rank];
        r.chunks += chunks;
        r.iterates += iterates;
        r.work_time_s += work_s;
    }

    /// The listed chunks claimed without this scheduler, in hand-out order, each with its rank
    /// and `[arrival, work]` (NaN: not finished, its timing to come), and how many more were not
    /// listed.
    pub(crate) fn add_claimed_map(
        &mut self,
        listed: impl Iterator<Item = (Chunk, usize, [f64; 2])>,
        dropped: u64,
    ) {
        for (chunk, rank, ends) in listed {
            if ends[0].is_nan() {
                self.open[rank].push(self.chunk_map.len());
            }
            self.chunk_map.push([chunk.start, chunk.size, rank as u64]);
            self.chunk_ends.push(ends);
        }
        self.chunk_map_dropped += dropped;
    }

    /// The loop's tail begins after chunks were claimed without this scheduler: every chunk is
    /// out; `rank` holds `open` (handed at the time given), unfinished, having been handed
    /// `chunks` in all. From here on the scheduler serves the rank's requests as if it had
    /// handed those chunks out itself (re-execution copies them, a split may split them).
    pub(crate) fn claimed_all(&mut self, rank: usize, chunks: u64, open: &[(Chunk, Instant)]) {
        self.claimed_all = true;
        if self.reexecute {
            self.ledger
                .handed_elsewhere(rank, chunks - open.len() as u64);
            for &(chunk, handed) in open {
                self.ledger.handed(rank, chunk, handed);
            }
        }
        if let Some(&(chunk, handed)) = open.last() {
            self.holding[rank] = Some((handed, chunk.size));
        }
    }

    /// Iterates restored from checkpoints.
    pub(crate) fn restored(&self) -> u64 {
        self.restored
    }

    /// The technique's next chunk, as iterates of the loop (a chunk of a restarted loop that spans
    /// a hole comes as its pieces, one per request).
    fn next_fresh(&mut self, rank: usize) -> Option<Chunk> {
        if let Some(c) = self.pieces.pop_front() {
            return Some(c);
        }
        if self.claimed_all {
            return None;
        }
        let c = self.sched.next_chunk(rank)?;
        let Some(holes) = &self.holes else {
            return Some(c);
        };
        let mut pieces = holes.pieces(c).into_iter();
        let first = pieces.next();
        self.pieces.extend(pieces);
        first
    }

    /// Lets idle workers take copies of unfinished chunks once every iterate has been handed out
    /// (rDLB). Only for loops whose workers keep each chunk's contribution apart until its
    /// verdict (`engine::drive::apart::drive_apart`).
    pub(crate) fn reexecute(&mut self) {
        self.reexecute = true;
    }

    /// Whether chunks in progress are split for idle workers when re-executing (default on;
    /// `DLS_SPLIT=off`).
    pub(crate) fn set_split(&mut self, on: bool) {
        self.split = on;
    }

    /// Workers of other processes (MPI ranks) may be asked to split their chunks
    /// ([`take_split_asks`](Self::take_split_asks), [`split_answered`](Self::split_answered)).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn set_remote_split(&mut self) {
        self.remote_split = true;
    }

    /// The asks to split to send: `(slot, ordinal, keep)`.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn take_split_asks(&mut self) -> Vec<(usize, u64, u64)> {
        std::mem::take(&mut self.split_asks)
    }

    /// Slot `slot` (another MPI rank) answered the ask about its `ordinal`-th hand-out: its
    /// chunk ends after `s` iterates, `[s, limit)` going to the next idle worker (`s = 0`:
    /// refused).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn split_answered(&mut self, slot: usize, ordinal: u64, s: u64, limit: u64) {
        let Some(part) = self.ledger.split_answer(slot, ordinal, s, limit) else {
            return;
        };
        self.shrink_in_map(slot, part.start - s, s);
        self.splits += 1;
        self.split_off.push_back(part);
    }

    /// The cell through which slot `slot`'s chunks (a worker of this process) may be split.
    pub(crate) fn set_split_cell(&mut self, slot: usize, cell: Arc<SplitCell>) {
        if let Some(c) = self.split_cells.get_mut(slot) {
            *c = Some(cell);
        }
    }

    /// Hands in `rank`'s finished chunk (if any) and returns its verdict, then serves the rank
    /// its next chunk (see [`serve`](Self::serve)).
    pub(crate) fn serve_at(
        &mut self,
        rank: usize,
        finished: Option<ChunkTiming>,
        now: Instant,
    ) -> (Next, Verdict) {
        let (next, verdict) = self.serve_unarmed(rank, finished, now);
        // Only a re-executing loop splits chunks (its workers claim their iterates through the
        // cell); the others do not arm it.
        if !(self.reexecute && self.split) {
            return (next, verdict);
        }
        if let (Next::Chunk(c), Some(Some(cell))) = (next, self.split_cells.get(rank)) {
            cell.arm(c.size);
        }
        (next, verdict)
    }

    /// Splits the chunk in progress of a worker of this process for idle `rank` (see
    /// `runtime/tolerance/split.rs`): the one whose iterates not yet started would take longest at its
    /// pace so far, if at least [`SPLIT_MIN`]. Returns the part split off, or whether a chunk
    /// not yet started may be split later.
    fn split_for(&mut self, rank: usize, now: Instant) -> Split {
        let mut best: Option<(f64, usize)> = None;
        let mut unstarted = false;
        let mut ending = false;
        for (w, cell) in self.split_cells.iter().enumerate() {
            let Some(cell) = cell else { continue };
            if w == rank {
                continue;
            }
            let Some((handed, chunk)) = self.ledger.whole_held(w) else {
                continue;
            };
            let (claimed, limit) = cell.state();
            if claimed == 0 && limit >= 2 {
                // Its holder has not started it: its pace is not known yet.
                unstarted = true;
            }
            if chunk.size > MAX_SPLIT || claimed == 0 {
                continue;
            }
            let pace = now.saturating_duration_since(handed).as_secs_f64() / claimed as f64;
            let left = pace * limit.saturating_sub(claimed) as f64;
            if limit < claimed.saturating_add(2) || left < SPLIT_MIN.as_secs_f64() {
                // About to end: wait for it while its holder keeps claiming.
                let seen = &mut self.progress[w];
                match *seen {
                    Some((start, c, at)) if start == chunk.start && c == claimed => {
                        ending |= now.saturating_duration_since(at) < ABOUT_TO_END;
                    }
                    _ => {
                        *seen = Some((chunk.start, claimed, now));
                        ending = true;
                    }
                }
                continue;
            }
            if best.is_none_or(|(b, _)| left > b) {
                best = Some((left, w));
            }
        }
        // An ask not answered within ASK_PATIENCE (a stopped holder) no longer holds the asker
        // back from copies.
        let waiting_answer = self
            .ledger
            .split_pending_since()
            .is_some_and(|at| now.saturating_duration_since(at) < ASK_PATIENCE);
        let soon = if unstarted || waiting_answer || ending {
            Split::Soon
        } else {
            Split::No
        };
        let Some((_, holder)) = best else {
            return self.ask_remote(rank, now).unwrap_or(soon);
        };
        // An asker whose own chunks cannot be split (another MPI rank) gets the last quarter.
        let keep = if self.split_cells[rank].is_some() {
            2
        } else {
            3
        };
        let Some((s, limit)) = self.split_cells[holder]
            .as_ref()
            .and_then(|c| c.split(keep))
        else {
            return soon;
        };
        let Some((_, chunk)) = self.ledger.whole_held(holder) else {
            return soon;
        };
        debug_assert_eq!(chunk.size, limit, "the ledger follows the cell's limit");
        self.ledger.shrink(holder, s);
        self.shrink_in_map(holder, chunk.start, s);
        self.splits += 1;
        Split::Chunk(Chunk {
            start: chunk.start + s,
            size: limit - s,
        })
    }

    /// Asks the other MPI rank whose whole chunk should take longest to end, at its measured
    /// pace, to split it for idle `rank` (the holder refuses if less than [`SPLIT_MIN`] is left):
    /// the answer comes as a request ([`split_answered`](Self::split_answered)), and `rank` waits
    /// for it.
    fn ask_remote(&mut self, rank: usize, now: Instant) -> Option<Split> {
        if !self.remote_split {
            return None;
        }
        let mean = {
            let (w, i) = self
                .ranks
                .iter()
                .fold((0.0, 0u64), |(w, i), r| (w + r.work_time_s, i + r.iterates));
            (i > 0).then(|| w / i as f64)
        };
        let mut best: Option<(f64, usize)> = None;
        for w in 0..self.split_cells.len() {
            if w == rank || self.split_cells[w].is_some() || self.ledger.split_asked(w) {
                continue;
            }
            let Some((handed, chunk)) = self.ledger.whole_held(w) else {
                continue;
            };
            let r = &self.ranks[w];
            let Some(pace) = (r.iterates > 0)
                .then(|| r.work_time_s / r.iterates as f64)
                .or(mean)
            else {
                continue;
            };
            // A rough guess (the pace of other iterates): the holder, which knows how far it
            // is, refuses if less than SPLIT_MIN is left.
            let left =
                pace * chunk.size as f64 - now.saturating_duration_since(handed).as_secs_f64();
            if chunk.size >= 2 && chunk.size <= MAX_SPLIT && best.is_none_or(|(b, _)| left > b) {
                best = Some((left, w));
            }
        }
        let (_, holder) = best?;
        let ordinal = self.ledger.ask_split(holder, now)?;
        let keep = if self.split_cells[rank].is_some() {
            2
        } else {
            3
        };
        self.split_asks.push((holder, ordinal, keep));
        Some(Split::Soon)
    }

    /// The first half of serving `rank` in a loop that does not re-execute: the answer to its
    /// request, to send before the bookkeeping ([`settle`](Self::settle), which must follow
    /// with the same `finished` and answer). Only a technique whose chunks follow measured times
    /// learns `finished` here, before its next chunk is sized; no other technique's chunk
    /// depends on it (`ChunkScheduler::learns`), so the request's answer waits for nothing but
    /// the technique's next chunk. `None` in a re-executing loop, whose verdict and copies need
    /// the whole hand-in first ([`serve_at`](Self::serve_at)).
    pub(crate) fn answer_first(
        &mut self,
        rank: usize,
        finished: Option<ChunkTiming>,
    ) -> Option<Next> {
        if self.reexecute {
            return None;
        }
        if let Some(t) = finished {
            if self.sched.learns() {
                self.sched.record(rank, t);
            }
        }
        Some(match self.next_fresh(rank) {
            Some(chunk) => {
                crate::runtime::observe::delay::chunk_served();
                Next::Chunk(chunk)
            }
            None => Next::Done,
        })
    }

    /// The second half of [`answer_first`](Self::answer_first), once the answer `next` is on
    /// its way: `rank`'s finished chunk goes into the report (its timing arrived at `now`) and
    /// the chunk handed out into the chunk map and the rank's holding.
    pub(crate) fn settle(
        &mut self,
        rank: usize,
        finished: Option<ChunkTiming>,
        next: Next,
        now: Instant,
    ) {
        debug_assert!(!self.reexecute);
        if let Some(t) = finished {
            if let Some(h) = self.holding.get_mut(rank) {
                *h = None;
            }
            if !self.sched.learns() {
                self.sched.record(rank, t);
            }
            self.note_finished(rank, t, false, now);
        }
        if let Next::Chunk(chunk) = next {
            self.handed(rank, chunk, now);
        }
    }

    fn serve_unarmed(
        &mut self,
        rank: usize,
        finished: Option<ChunkTiming>,
        now: Instant,
    ) -> (Next, Verdict) {
        if let Some(next) = self.answer_first(rank, finished) {
            self.settle(rank, finished, next, now);
            return (next, Verdict::Keep);
        }
        let verdict = match finished {
            Some(t) => self.hand_in(rank, t, now),
            None => Verdict::Keep,
        };
        if let Some(chunk) = self.next_fresh(rank) {
            crate::runtime::observe::delay::chunk_served();
            self.handed(rank, chunk, now);
            return (Next::Chunk(chunk), verdict);
        }
        if let Some(chunk) = self.split_off.pop_front() {
            self.handed(rank, chunk, now);
            return (Next::Chunk(chunk), verdict);
        }
        let split = if self.split {
            self.split_for(rank, now)
        } else {
            Split::No
        };
        match split {
            Split::Chunk(chunk) => {
                self.handed(rank, chunk, now);
                return (Next::Chunk(chunk), verdict);
            }
            // A split is coming (a holder about to start, an answer on its way): wait for it
            // rather than copy the chunk it will split.
            Split::Soon => return (Next::Wait(now + SPLIT_MIN), verdict),
            Split::No => {}
        }
        let ranks = &self.ranks;
        let mean = {
            let (w, i) = ranks
                .iter()
                .fold((0.0, 0u64), |(w, i), r| (w + r.work_time_s, i + r.iterates));
            (i > 0).then(|| w / i as f64)
        };
        let pace = |r: usize| {
            let rr = &ranks[r];
            if rr.iterates > 0 {
                Some(rr.work_time_s / rr.iterates as f64)
            } else {
                mean
            }
        };
        let next = match self.ledger.tail(rank, now, pace) {
            // A copy is not a chunk of the map (which stays a partition of the iterates, each
            // chunk with the worker it was first handed to) nor of the worker's `chunks`: the
            // report's `reexecution` counts copies.
            Tail::Copy(c) => Next::Chunk(c),
            Tail::Wait(at) => Next::Wait(at),
            Tail::Complete => Next::Done,
        };
        (next, verdict)
    }

    /// `rank`'s open chunk at `start` (if the map lists it) now ends after `size` iterates: the
    /// rest was split off and is a chunk of its own.
    fn shrink_in_map(&mut self, rank: usize, start: u64, size: u64) {
        let map = &mut self.chunk_map;
        if let Some(&i) = self.open[rank].iter().find(|&&i| map[i][0] == start) {
            map[i][1] = size;
        }
    }

    fn handed(&mut self, rank: usize, chunk: Chunk, now: Instant) {
        if let Some(h) = self.holding.get_mut(rank) {
            *h = Some((now, chunk.size));
        }
        if self.reexecute {
            self.ledger.handed(rank, chunk, now);
        }
        self.map_chunk(chunk, rank);
    }

    fn map_chunk(&mut self, chunk: Chunk, rank: usize) {
        if self.chunk_map.len() < self.chunk_map_max {
            self.open[rank].push(self.chunk_map.len());
            self.chunk_map.push([chunk.start, chunk.size, rank as u64]);
            self.chunk_ends.push([f64::NAN; 2]);
        } else {
            self.chunk_map_dropped += 1;
        }
        self.ranks[rank].chunks += 1;
    }

    /// Whether `rank` holds a copy of another worker's chunk (re-execution) rather than a chunk
    /// of its own.
    pub(crate) fn holds_copy(&self, rank: usize) -> bool {
        self.reexecute && self.ledger.holds_copy(rank)
    }

    /// Hands in the timing of the chunk `rank` held: recorded if it is the first copy of its chunk
    /// to finish ([`Verdict::Keep`]), else counted as discarded work.
    pub(crate) fn hand_in(&mut self, rank: usize, t: ChunkTiming, now: Instant) -> Verdict {
        if let Some(h) = self.holding.get_mut(rank) {
            *h = None;
        }
        if !self.reexecute {
            // Every chunk counts once: there are no copies.
            self.record(rank, t, false, now);
            return Verdict::Keep;
        }
        let copy = self.ledger.holds_copy(rank);
        if !copy {
            if let Some(rest) = self.ledger.ended_short(rank, t.iterates) {
                // A split not recorded (see `Ledger::ended_short`): the rest goes out again.
                self.shrink_in_map(rank, rest.start - t.iterates, t.iterates);
                self.split_off.push_back(rest);
            }
        }
        match self.ledger.finished(rank, now) {
            Some(Verdict::Discard) => {
                if !copy {
                    // The rank's own chunk, done by others first: no time of its own in the map.
                    let open = &mut self.open[rank];
                    if let Some(k) = open
                        .iter()
                        .position(|&i| self.chunk_map[i][1] == t.iterates)
                    {
                        open.remove(k);
                    }
                }
                Verdict::Discard
            }
            _ => {
                self.record(rank, t, copy, now);
                Verdict::Keep
            }
        }
    }

    /// Records the timing of `rank`'s finished chunk (if any) — adaptive techniques learn from
    /// it — then hands `rank` its next chunk, or `None` when every iterate has been handed out
    /// (without re-execution; see [`serve_at`](Self::serve_at)).
    #[cfg(test)]
    pub(crate) fn serve(&mut self, rank: usize, finished: Option<ChunkTiming>) -> Option<Chunk> {
        self.serve_at(rank, finished, Instant::now()).0.chunk()
    }

    /// Sets the ranks' relative speeds (AWF's weights from earlier time steps); see
    /// [`ChunkScheduler::set_weights`].
    pub(crate) fn set_weights(&mut self, weights: Vec<f64>) -> Result<(), TechniqueError> {
        self.weights = Some(weights.clone());
        self.sched.set_weights(weights)
    }

    /// Records the timing of a chunk `rank` executed and that counted. Its arrival time here, on
    /// this process's clock, is the chunk's end in the report's `chunk_times` (see
    /// [`LoopReport::chunk_times`]); a copy of part of a chunk (re-execution) has no entry there.
    fn record(&mut self, rank: usize, t: ChunkTiming, copy: bool, now: Instant) {
        self.sched.record(rank, t);
        self.note_finished(rank, t, copy, now);
    }

    /// What [`record`](Self::record) adds to the technique's own record: the chunk's end in the
    /// chunk times and the rank's tally.
    fn note_finished(&mut self, rank: usize, t: ChunkTiming, copy: bool, now: Instant) {
        let open = &mut self.open[rank];
        if !copy && !open.is_empty() {
            // The rank's oldest open chunk of this size: one slot per rank, so normally its only
            // one (several slots of one rank hand in their chunks in any order).
            let k = open
                .iter()
                .position(|&i| self.chunk_map[i][1] == t.iterates)
                .unwrap_or(0);
            let i = open.remove(k);
            self.chunk_ends[i] = [
                now.saturating_duration_since(self.origin).as_secs_f64(),
                t.work_s,
            ];
        }
        let r = &mut self.ranks[rank];
        r.iterates += t.iterates;
        r.work_time_s += t.work_s;
        self.done.fetch_add(t.iterates, Ordering::Relaxed);
    }

    /// The counter of iterates of finished chunks (for the progress display).
    pub(crate) fn done_counter(&self) -> Arc<AtomicU64> {
        self.done.clone()
    }

    /// Workers whose chunk became redundant since the last call: every iterate of it was
    /// confirmed by another copy (re-execution), so they may stop executing it.
    pub(crate) fn take_cancels(&mut self) -> Vec<crate::runtime::tolerance::reexecution::Cancel> {
        if !self.reexecute {
            return Vec::new();
        }
        self.ledger.take_cancels()
    }

    /// When the next request of a worker in `slots` is expected: the earliest time one of them
    /// should finish the chunk it holds, at its measured pace (seconds per iterate of its
    /// finished chunks). `None` when one of them holding a chunk has no pace yet (nothing to
    /// predict from) or none holds a chunk. Used by the MPI service thread to sleep instead of
    /// polling while every remote worker is busy.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn next_request_due(&self, slots: std::ops::Range<usize>) -> Option<Instant> {
        let mut earliest: Option<Instant> = None;
        for slot in slots {
            let r = self.ranks.get(slot)?;
            let Some((handed, size)) = self.holding.get(slot).copied().flatten() else {
                continue;
            };
            if r.iterates == 0 {
                return None;
            }
            let pace = r.work_time_s / r.iterates as f64;
            let due = handed.checked_add(Duration::try_from_secs_f64(pace * size as f64).ok()?)?;
            earliest = Some(earliest.map_or(due, |e| e.min(due)));
        }
        earliest
    }

    /// Chunks handed out and not yet confirmed.
    pub(crate) fn unconfirmed(&self) -> usize {
        if !self.reexecute {
            return 0;
        }
        self.ledger.unconfirmed()
    }

    /// Adds CPU seconds `rank`'s worker spent executing its chunks (handed in at the loop's end).
    pub(crate) fn add_cpu(&mut self, rank: usize, cpu_s: f64) {
        if let Some(c) = self.cpu.get_mut(rank) {
            *c += cpu_s;
        }
    }

    /// Iterates not yet handed out.
    pub(crate) fn remaining(&self) -> u64 {
        let fresh = if self.claimed_all {
            0
        } else {
            self.sched.remaining()
        };
        fresh
            + self.pieces.iter().map(|c| c.size).sum::<u64>()
            + self.split_off.iter().map(|c| c.size).sum::<u64>()
    }

    /// The loop report, given the loop's name and its start on this process's clock: the
    /// parallel (wall-clock) time is the time since then, and chunk times count from then.
    /// Notes a request answered by the MPI scheduler's service in `cost` (from its arrival to
    /// its answer sent and booked): the report's `scheduler` entry.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn note_served(&mut self, cost: std::time::Duration) {
        let (requests, ns) = self.served.get_or_insert((0, 0));
        *requests += 1;
        *ns += cost.as_nanos() as u64;
    }

    pub(crate) fn report(&self, name: &str, started: Instant) -> LoopReport {
        let parallel_time_s = started.elapsed().as_secs_f64();
        let mut ranks = self.ranks.clone();
        for (r, cpu) in ranks.iter_mut().zip(&self.cpu) {
            r.idle_time_s = (parallel_time_s - r.work_time_s).max(0.0);
            r.cpu_time_s = *cpu;
        }
        // From this state's clock to the loop's: `origin` may be a little before or after
        // `started`.
        let shift = if started >= self.origin {
            -(started - self.origin).as_secs_f64()
        } else {
            (self.origin - started).as_secs_f64()
        };
        let chunk_times = self
            .chunk_ends
            .iter()
            .map(|&[at, work_s]| {
                let end = (at + shift).max(0.0);
                (!at.is_nan()).then(|| [(end - work_s).max(0.0), end])
            })
            .collect();
        let mut report = LoopReport {
            name: name.to_string(),
            technique: self.technique.to_string(),
            n: self.n,
            p: ranks.len(),
            parallel_time_s,
            ranks,
            chunk_map: self.chunk_map.clone(),
            chunk_map_dropped: self.chunk_map_dropped,
            reexecution: self.reexecute.then(|| ReexecutionReport {
                copies: self.ledger.copies,
                discarded_chunks: self.ledger.discarded_chunks,
                discarded_iterates: self.ledger.discarded_iterates,
                splits: self.splits,
                complete_s: self
                    .ledger
                    .completed
                    .map(|t| t.saturating_duration_since(self.created).as_secs_f64()),
            }),
            chunk_times,
            scheduler: self.served.map(|(requests, ns)| {
                crate::report::SchedulerReport::new(requests, ns as f64 * 1e-9, parallel_time_s)
            }),
            ..LoopReport::default()
        };
        report.summarise();
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::technique::Kind;

    /// Issue 28: a loop that does not re-execute runs none of the re-execution ledger's code per
    /// chunk (its scheduler serves and records chunks without consulting it); one that does
    /// consults it at every hand-out and hand-in.
    #[test]
    fn tolerance_code_runs_only_in_loops_that_ask_for_it() {
        for reexecute in [false, true] {
            let mut core = ReportingScheduler::new(&"ss".parse().unwrap(), 200, 2).unwrap();
            if reexecute {
                core.reexecute();
            }
            let mut last: Vec<Option<ChunkTiming>> = vec![None; 2];
            let mut rank = 0;
            let mut iterates = 0;
            while let Some(c) = core.serve(rank, last[rank].take()) {
                iterates += c.size;
                last[rank] = Some(ChunkTiming {
                    iterates: c.size,
                    work_s: 1e-6,
                    elapsed_s: 1e-6,
                });
                rank = 1 - rank;
                assert_eq!(core.take_cancels().len(), 0);
            }
            assert_eq!(iterates, 200);
            let calls = core.ledger.calls.get();
            if reexecute {
                assert!(
                    calls >= 400,
                    "a re-executing loop consults its ledger: {calls}"
                );
            } else {
                assert_eq!(
                    calls, 0,
                    "a loop without re-execution never consults the ledger"
                );
            }
        }
    }

    #[test]
    fn serves_every_iterate_once_and_tallies() {
        for kind in Kind::ALL {
            let mut core = ReportingScheduler::new(&Technique::new(kind), 1000, 3).unwrap();
            let mut seen = vec![0u8; 1000];
            let mut rank = 0;
            let mut last: Vec<Option<ChunkTiming>> = vec![None; 3];
            while let Some(c) = core.serve(rank, last[rank].take()) {
                for i in c.start..c.start + c.size {
                    seen[i as usize] += 1;
                }
                last[rank] = Some(ChunkTiming {
                    iterates: c.size,
                    work_s: c.size as f64 * 1e-6,
                    elapsed_s: c.size as f64 * 1e-6,
                });
                rank = (rank + 1) % 3;
            }
            for (r, t) in last.iter().enumerate() {
                if let Some(t) = t {
                    core.hand_in(r, *t, Instant::now());
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "{kind:?}");
            let rep = core.report("x", Instant::now());
            // Every chunk's timing arrived: each has its times, its length its work time.
            assert_eq!(rep.chunk_times.len(), rep.chunk_map.len());
            for (c, t) in rep.chunk_map.iter().zip(&rep.chunk_times) {
                let [start, end] = t.expect("every chunk's timing arrived");
                assert!(start <= end, "{kind:?}");
                assert!((end - start - c[1] as f64 * 1e-6).abs() < 1e-9 || start == 0.0);
            }
            assert_eq!(rep.ranks.iter().map(|r| r.iterates).sum::<u64>(), 1000);
            assert_eq!(
                rep.chunk_map.iter().map(|c| c[1]).sum::<u64>(),
                1000,
                "{kind:?}"
            );
            assert_eq!(rep.chunks, rep.chunk_map.len() as u64);
            assert_eq!(core.remaining(), 0);
        }
    }

    /// A worker that asks while a chunk of this process is about to end waits for that end
    /// instead of taking a copy of the chunk, unless its holder stops claiming for
    /// [`ABOUT_TO_END`] (then it may be stalled, and the late chunk is copied).
    #[test]
    fn a_local_chunk_about_to_end_is_waited_for_not_copied() {
        let mut core = ReportingScheduler::new(&"static".parse().unwrap(), 100, 2).unwrap();
        core.reexecute();
        let cell = Arc::new(SplitCell::default());
        core.set_split_cell(0, cell.clone());
        let t0 = Instant::now();
        let Next::Chunk(a) = core.serve_at(0, None, t0).0 else {
            panic!("slot 0 gets a chunk")
        };
        let Next::Chunk(b) = core.serve_at(1, None, t0).0 else {
            panic!("slot 1 gets a chunk")
        };
        // Slot 0 (this process) has claimed its whole chunk: its last batch runs.
        assert_eq!(cell.claim(a.size), (0, a.size));
        // Slot 1 ran its 50 iterates in 50 ms: slot 0's chunk is late after 75 ms.
        let done = ChunkTiming {
            iterates: b.size,
            work_s: 0.05,
            elapsed_s: 0.05,
        };
        let t1 = t0 + Duration::from_millis(200);
        let (next, _) = core.serve_at(1, Some(done), t1);
        assert!(matches!(next, Next::Wait(_)), "{next:?}");
        let (next, _) = core.serve_at(1, None, t1 + ABOUT_TO_END / 2);
        assert!(matches!(next, Next::Wait(_)), "{next:?}");
        // No claim for longer than ABOUT_TO_END: a copy, as for any late chunk.
        let later = t1 + ABOUT_TO_END + Duration::from_millis(1);
        assert_eq!(core.serve_at(1, None, later).0, Next::Chunk(a));
    }

    #[test]
    fn the_chunk_map_is_capped_and_the_rest_counted() {
        let mut core = ReportingScheduler::new(&"ss".parse().unwrap(), 10, 2).unwrap();
        core.chunk_map_max = 4;
        let mut rank = 0;
        while core.serve(rank, None).is_some() {
            rank = 1 - rank;
        }
        let rep = core.report("capped", Instant::now());
        assert_eq!(rep.chunk_map.len(), 4);
        assert_eq!(rep.chunk_times.len(), 4);
        assert_eq!(rep.chunk_map_dropped, 6);
        assert_eq!(rep.chunks, 10);
    }
}
