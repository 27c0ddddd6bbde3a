//! Threads inside every rank (hybrid MPI + threads, `DLS_THREADS=k` under a launcher): rank 0's
//! scheduler hands a rank a **batch** of chunks, one for each of its threads, and the rank's
//! threads share the batch through a local queue; the rank asks for its next batch before its
//! threads run dry.
//!
//! This is the two-level strategy of Cariño & Banicescu (2007) at the node level, as in
//! hierarchical DLS with MPI+OpenMP (Eleliemy & Ciorba): one scheduler over all `P·k` threads,
//! one message per batch instead of one per chunk.
//!
//! - **The scheduler.** One [`ReportingScheduler`] on rank 0 over `P·k` slots (slot `r·k + j`
//!   is thread share `j` of rank `r`): the technique computes every chunk as for `P·k` workers,
//!   so SS hands a rank `k` iterates in one batch, FAC2 a rank `k` chunks of its current batch,
//!   and the chunks shrink toward the end as they would for `P·k` threads. A rank's chunks go to
//!   its shares in turn; each chunk carries its share, and the rank reports each chunk's timing
//!   to the share it was handed to, so adaptive techniques see each chunk's own time (a rank
//!   whose threads are slower gets smaller chunks).
//! - **Blocks.** A dynamic technique of fixed-size chunks (SS, FSC, mFSC) hands a rank blocks of
//!   whole chunks instead ([`Blocks`]); the rank's threads claim their chunks from its blocks
//!   with one atomic add each, through the claims of the threads backend
//!   (`runtime/sched/feed.rs`), and ask for the next block before the rank runs dry.
//! - **The rank** (batches). Its threads pop chunks from a local queue under a mutex (no message). How
//!   many chunks the rank asks for, and when, follows what it measured: the time of a chunk
//!   and of a request's round trip. While chunks are short beside a round trip (SS on cheap
//!   iterates), the thread whose pop leaves fewer than half the chunks that hide a round trip
//!   (the depth, `⌊k × round trip / chunk time⌋`, at most `k`; a chunk's time is its
//!   iterates' work time, not the waits of the thread that asked) asks for enough to fill the
//!   queue to that depth, and starts its own chunk once the reply is in (the rank's other threads go on
//!   with theirs meanwhile). While they are long, a rank asks
//!   only when a thread finds the queue empty, for that thread and the ones waiting: chunks
//!   taken early are chunks other ranks cannot get (GSS hands out most of a loop in its first
//!   chunks). The first request asks for `k` (every thread starts). An empty batch ends the
//!   loop on the rank. Rank 0 takes its batches from the scheduler directly, under its mutex;
//!   a service thread answers the other ranks ([`serve`]).
//! - **The end.** `finish` gathers every rank's chunks not yet reported and its CPU time to
//!   rank 0, which builds the report (`p` = all threads; `threads_per_rank` = k) and sends it to
//!   every rank, as the one-thread MPI loop does.
//!
//! Re-execution, splits and checkpoints need the scheduler to follow each chunk to the thread
//! that runs it, and each verdict back to that thread: a loop that re-executes or writes
//! checkpoints runs instead on `MpiLoop::start_threads` (`chunk_loop.rs`), a request per chunk
//! per thread (`MpiEnv::start` chooses, from `LoopStart::tolerant`). Re-execution is off by
//! default on threads inside ranks (`Runtime::effective_reexecution`), so loops take batches
//! unless it is asked for. Fault checks run on either (the engine's checked adaptor).

use crate::runtime::annotate::sync::AtomicBool;
use crate::runtime::annotate::sync::Mutex;
use std::collections::VecDeque;
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use mpi::collective::Root;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::Communicator;

use super::backoff::{self, Backoff};
use super::chunk_loop::share_report;
use super::comm::LoopComm;
use super::messages::{Batch, BatchRequest, TAG_REPLY, TAG_REQUEST};
use crate::report::LoopReport;
use crate::runtime::combine::Exchange;
use crate::runtime::error::DlsError;
use crate::runtime::loops::source::ChunkSource;
use crate::runtime::sched::claim::{Claimed, Claims};
use crate::runtime::sched::feed::{self, Fed, Feed};
use crate::runtime::sched::reporting::ReportingScheduler;
use crate::runtime::sync::{lock, Arrivals};
use crate::runtime::tolerance::reexecution::Verdict;
use crate::{Chunk, ChunkTiming, Technique};

/// The weight of a new measurement in the rank's running means (chunk time, round trip).
const NEW: f64 = 0.25;
/// How long a thread waiting for its rank's batch watches for it before it sleeps (not at all
/// on a node with more workers than cores: the watch would hold a core another thread needs).
const WATCH: Duration = Duration::from_micros(50);

/// [`WATCH`], or nothing on an oversubscribed node (`size` ranks of `k` threads; asked once per
/// process: the world and the threads are the same for every loop).
fn watch(size: usize, k: usize) -> Duration {
    static OVER: crate::runtime::annotate::sync::OnceLock<bool> =
        crate::runtime::annotate::sync::OnceLock::new();
    let over = *OVER
        .get_or_init(|| crate::report::Oversubscribed::on_this_node_with(size, true, k).is_some());
    if over {
        Duration::ZERO
    } else {
        WATCH
    }
}
/// The shortest round trip the rank plans with (rank 0's batches cost a lock, not a message).
const MIN_ROUND_TRIP: Duration = Duration::from_micros(1);

/// What a rank's threads share: the chunks of its batches not yet taken, and what they finished
/// since the rank's last request.
struct Local {
    /// Chunks not yet taken, each with the thread share it was handed to.
    queue: VecDeque<(Chunk, usize)>,
    /// Per worker slot of this rank: the share of the chunk it runs.
    running: Vec<Option<usize>>,
    /// Per share: its chunks finished since the rank's last request.
    unreported: Vec<Option<ChunkTiming>>,
    /// A thread of this rank is getting the next batch.
    fetching: bool,
    /// Threads waiting for a batch.
    waiting: usize,
    /// The scheduler sent an empty batch (or the rank left): no more chunks.
    done: bool,
    /// No batch asked for yet.
    first: bool,
    /// Running means: seconds a chunk's iterates take (its work time), seconds a request's
    /// round trip takes.
    chunk_s: Option<f64>,
    round_trip_s: f64,
}

impl Local {
    fn new(k: usize) -> Local {
        Local {
            queue: VecDeque::new(),
            running: vec![None; k],
            unreported: vec![None; k],
            fetching: false,
            waiting: 0,
            done: false,
            first: true,
            chunk_s: None,
            round_trip_s: MIN_ROUND_TRIP.as_secs_f64(),
        }
    }

    /// The chunks whose run hides one round trip of a request, for `k` threads, rounded down:
    /// 0 while chunks are longer than `k` round trips (a thread waits a round trip at most
    /// once per `k` chunks), and while no chunk has been timed (chunks are then taken as long
    /// ones: none is asked for early).
    fn depth(&self, k: usize) -> usize {
        match self.chunk_s {
            Some(c) if c > 0.0 => ((k as f64 * self.round_trip_s / c).floor() as usize).min(k),
            Some(_) => k,
            None => 0,
        }
    }

    /// Whether a thread whose pop left the queue as it is should ask for the next batch now, and
    /// for how many chunks: once the queue holds less than half the depth, enough to fill it to
    /// the depth (asking at every pop below the depth would bring one chunk a request, and the
    /// queue would drain while it travels).
    fn ask_early(&self, k: usize) -> Option<usize> {
        let depth = self.depth(k);
        (!self.fetching && !self.done && self.queue.len() < depth.div_ceil(2))
            .then(|| depth - self.queue.len())
    }

    /// Takes the rank's finished work per share, to send with a request.
    fn take_unreported(&mut self) -> Vec<Option<ChunkTiming>> {
        let k = self.unreported.len();
        std::mem::replace(&mut self.unreported, vec![None; k])
    }
}

/// Adds timing `t` to `acc`.
fn add(acc: &mut Option<ChunkTiming>, t: ChunkTiming) {
    *acc.get_or_insert_with(ChunkTiming::default) += t;
}

/// Rank 0's scheduler: the technique over every thread, and where each rank's next chunk goes.
struct Hand {
    core: ReportingScheduler,
    /// Per rank: the share its next chunk is handed to (its shares in turn).
    turn: Vec<usize>,
    k: usize,
    /// Blocks (fixed-size chunks, see [`Blocks`]).
    blocks: Option<Blocks>,
}

/// A dynamic technique of fixed-size chunks (SS, FSC, mFSC): rank 0 hands a rank a **block**
/// of whole chunks at a time, and the rank's threads claim the chunks of its blocks one by one,
/// one atomic add each, as threads on one machine do (`runtime/sched/feed.rs`: the rank's
/// [`Claims`] and the engine's claiming worker loop).
/// How many a rank asks for follows its measured round trip and chunk time (the chunks that run
/// while two round trips travel, at least 8 chunks and 50 µs of work per thread once timed, at most 32 chunks: `feed::min_block_chunks`); a block holds at most the iterates
/// left over twice the ranks (rounded up to whole chunks), so blocks shrink toward the end as
/// guided self-scheduling's chunks do, and at the end a rank holds at most a chunk per thread
/// more than another. The chunks are the technique's own: `c` iterates from a multiple of `c`.
struct Blocks {
    /// The technique's chunk size.
    c: u64,
    /// The first iterate not handed out.
    next: u64,
    n: u64,
    ranks: usize,
}

impl Blocks {
    /// The next block of about `want` iterates (whole chunks), if any is left.
    fn block(&mut self, want: u64) -> Option<Chunk> {
        let left = self.n - self.next;
        if left == 0 || want == 0 {
            return None;
        }
        let whole = |x: u64| x.div_ceil(self.c) * self.c;
        let cap = whole(left.div_ceil(2 * self.ranks as u64));
        let size = whole(want).min(cap).min(left);
        let block = Chunk {
            start: self.next,
            size,
        };
        self.next += size;
        Some(block)
    }
}

impl Hand {
    /// Records rank `rank`'s finished work per share, then hands it up to `count` chunks (with
    /// blocks: one block of about `count` iterates).
    fn batch(
        &mut self,
        rank: usize,
        count: usize,
        finished: &[Option<ChunkTiming>],
        now: Instant,
    ) -> Vec<(Chunk, usize)> {
        if let Some(b) = &mut self.blocks {
            return b
                .block(count as u64)
                .map(|c| vec![(c, 0)])
                .unwrap_or_default();
        }
        let k = self.k;
        for (j, t) in finished.iter().enumerate() {
            if let Some(t) = t {
                self.core.hand_in(rank * k + j, *t, now);
            }
        }
        let mut chunks = Vec::with_capacity(count);
        for _ in 0..count.min(k) {
            let j = self.turn[rank];
            match self.core.serve_at(rank * k + j, None, now).0.chunk() {
                Some(c) => {
                    chunks.push((c, j));
                    self.turn[rank] = (j + 1) % k;
                }
                None => break,
            }
        }
        chunks
    }
}

enum Side {
    /// Rank 0: the scheduler (shared with the service thread).
    Scheduler {
        hand: Arc<Mutex<Hand>>,
        service: Mutex<Option<JoinHandle<()>>>,
    },
    /// Other ranks.
    Worker,
}

/// A loop over `P` ranks of `k` threads each, on this rank.
pub(crate) struct HybridLoop {
    comm: Arc<LoopComm>,
    rank: usize,
    size: usize,
    k: usize,
    local: Mutex<Local>,
    /// Batches received: what threads waiting with an empty queue watch, then sleep on (for
    /// [`watch`] before they sleep).
    batches: Arrivals,
    /// Blocks: the rank's threads claim the chunks of its blocks (`None`: batches of chunks).
    claims: Option<Claims>,
    /// When the loop started on this rank (the chunks' end times of blocks).
    started: Instant,
    side: Side,
}

impl HybridLoop {
    /// `DLS_StartLoop` on `comm` with `k` threads on every rank (collective): validates the
    /// technique on every rank, duplicates the communicator and, on rank 0, starts the service
    /// thread.
    pub(crate) fn start<C: Communicator>(
        comm: &C,
        technique: &Technique,
        n: u64,
        k: usize,
        weights: Option<Vec<f64>>,
    ) -> Result<HybridLoop, DlsError> {
        let size = comm.size() as usize;
        let rank = comm.rank() as usize;
        let mut core = ReportingScheduler::new(technique, n, size * k)?;
        // Blocks for a dynamic technique of fixed-size chunks (the same on every rank: the same
        // technique, range and workers); STATIC keeps a chunk per thread, weights their sizes.
        let pieces = core
            .fixed_chunk()
            .filter(|_| weights.is_none() && technique.kind != crate::technique::Kind::Static);
        if let Some(w) = weights {
            core.set_weights(w)?;
        }
        // (Every rank decides the same: the same technique, range, threads and settings.)
        let pieces = pieces
            .filter(|&c| !crate::runtime::observe::delay::chunk_delayed() && feed::fits(n, c, k));
        let (map_max, done) = (core.chunk_map_max(), core.done_counter());
        let comm = Arc::new(LoopComm(comm.duplicate()));
        let side = if rank == 0 {
            let hand = Arc::new(Mutex::new(Hand {
                core,
                turn: vec![0; size],
                k,
                blocks: pieces.map(|c| Blocks {
                    c,
                    next: 0,
                    n,
                    ranks: size,
                }),
            }));
            let service = (size > 1).then(|| {
                let (comm, hand) = (comm.clone(), hand.clone());
                thread::Builder::new()
                    .name("dls-scheduler".into())
                    .spawn(move || serve(&comm, &hand, k))
                    .expect("dls: cannot start the scheduler's service thread")
            });
            Side::Scheduler {
                hand,
                service: Mutex::new(service),
            }
        } else {
            Side::Worker
        };
        let started = Instant::now();
        let watch = watch(size, k);
        // Blocks: the rank's threads claim their chunks (`runtime/sched/feed.rs`); the chunk map
        // lists the chunks below the scheduler's most, whichever rank ran them.
        let claims = pieces.and_then(|c| {
            let feed = RankFeed {
                comm: comm.clone(),
                k,
                hand: match &side {
                    Side::Scheduler { hand, .. } => Some(hand.clone()),
                    Side::Worker => None,
                },
            };
            let fed = Fed::new(Box::new(feed), k, c, watch);
            let done = if rank == 0 { done } else { Arc::default() };
            Claims::fed(c, n, k, map_max, started, done, fed)
        });
        Ok(HybridLoop {
            comm,
            rank,
            size,
            k,
            local: Mutex::new(Local::new(k)),
            batches: Arrivals::new(watch),
            claims,
            started,
            side,
        })
    }

    /// Asks for `count` chunks (the rank's work since its previous request handed in) and puts
    /// them in the queue: called with `local` locked and `fetching` set by the caller, which
    /// the lock is released for while the request travels.
    fn fetch<'a>(
        &'a self,
        mut local: crate::runtime::annotate::sync::MutexGuard<'a, Local>,
        count: usize,
    ) -> crate::runtime::annotate::sync::MutexGuard<'a, Local> {
        local.first = false;
        let finished = local.take_unreported();
        drop(local);
        let asked = Instant::now();
        let batch = match &self.side {
            Side::Scheduler { hand, .. } => lock(hand).batch(0, count, &finished, asked),
            Side::Worker => ask_scheduler(&self.comm, self.k, count, finished),
        };
        let trip = asked.elapsed().max(MIN_ROUND_TRIP).as_secs_f64();
        let mut local = lock(&self.local);
        local.round_trip_s += NEW * (trip - local.round_trip_s);
        local.done = batch.is_empty();
        local.queue.extend(batch);
        local.fetching = false;
        self.batches.arrived(local.waiting > 0);
        local
    }
}

/// A request to rank 0's scheduler for `count` chunks (with blocks: a block of about `count`
/// iterates), handing in `finished`, and its reply.
fn ask_scheduler(
    comm: &LoopComm,
    k: usize,
    count: usize,
    finished: Vec<Option<ChunkTiming>>,
) -> Vec<(Chunk, usize)> {
    let root = comm.0.process_at_rank(0);
    let request = BatchRequest { count, finished };
    root.send_with_tag(&request.encode()[..], TAG_REQUEST);
    let mut buf = vec![0u64; Batch::words(k)];
    mpi::request::scope(|scope| {
        backoff::complete(root.immediate_receive_into_with_tag(scope, &mut buf[..], TAG_REPLY))
    });
    Batch::decode(&buf).unwrap_or_else(|| {
        panic!("dls: malformed batch from the scheduler: {buf:?} (internal error)")
    })
}

/// Where a rank's blocks come from: rank 0's scheduler, under its lock on rank 0, by a request
/// elsewhere.
struct RankFeed {
    comm: Arc<LoopComm>,
    k: usize,
    /// Rank 0: the scheduler.
    hand: Option<Arc<Mutex<Hand>>>,
}

impl Feed for RankFeed {
    fn block(&self, want: u64) -> Option<Chunk> {
        let want = want.min(usize::MAX as u64) as usize;
        let batch = match &self.hand {
            Some(hand) => lock(hand).batch(0, want, &[], Instant::now()),
            None => ask_scheduler(&self.comm, self.k, want, vec![None; self.k]),
        };
        batch.first().map(|&(c, _)| c)
    }
}

/// Rank 0's service thread: answers every other rank's batch requests until each was sent an
/// empty batch (or left).
fn serve(comm: &LoopComm, hand: &Mutex<Hand>, k: usize) {
    let mut open = comm.0.size() as usize - 1;
    let mut wait = Backoff::default();
    let mut words = vec![0u64; BatchRequest::words(k)];
    while open > 0 {
        let Some((msg, status)) = comm
            .0
            .any_process()
            .immediate_matched_probe_with_tag(TAG_REQUEST)
        else {
            wait.wait();
            continue;
        };
        wait.reset();
        msg.matched_receive_into(&mut words[..]);
        let rank = status.source_rank() as usize;
        let request = BatchRequest::decode(&words, k).unwrap_or_else(|| {
            panic!("dls: malformed request from rank {rank}: {words:?} (internal error)")
        });
        let chunks = lock(hand).batch(rank, request.count, &request.finished, Instant::now());
        if request.count == 0 {
            // The rank left the loop: no reply.
            open -= 1;
            continue;
        }
        if chunks.is_empty() {
            open -= 1;
        }
        comm.0
            .process_at_rank(rank as i32)
            .send_with_tag(&Batch::encode(&chunks)[..], TAG_REPLY);
    }
}

impl HybridLoop {
    /// Waits, with `local` locked and a batch being fetched by another thread of this rank,
    /// until it arrived.
    fn wait_for_batch<'a>(
        &'a self,
        local: crate::runtime::annotate::sync::MutexGuard<'a, Local>,
    ) -> crate::runtime::annotate::sync::MutexGuard<'a, Local> {
        self.batches
            .wait(&self.local, local, |l| &mut l.waiting, |l| l.fetching)
    }
}

impl HybridLoop {
    /// The end of a loop of blocks on every rank (collective, after the service thread ended):
    /// every rank's chunks, iterates and work time per thread, its CPU time and (with `report`)
    /// its listed chunks go to rank 0, which builds the report. Words: `[cpu bits, unlisted,
    /// k × (chunks, iterates, work bits), then per listed chunk (start, size, thread, end bits,
    /// work bits)]`, the ends in seconds after the loop's start on the rank (the ranks start a
    /// loop together, at its collective start).
    fn gather_blocks(
        &self,
        claims: &Claims,
        cpu_s: f64,
        report: Option<(&str, Instant)>,
    ) -> Option<LoopReport> {
        let k = self.k;
        let slots = claims.take_slots();
        let chunks: u64 = slots.iter().map(|s| s.chunks).sum();
        let hand = match &self.side {
            Side::Worker => {
                let listed: u64 = slots.iter().map(|s| s.listed.len() as u64).sum();
                let mut w = vec![
                    cpu_s.to_bits(),
                    chunks - if report.is_some() { listed } else { 0 },
                ];
                for s in &slots {
                    w.extend([s.chunks, s.iterates, s.work_s.to_bits()]);
                }
                if report.is_some() {
                    for (slot, s) in slots.iter().enumerate() {
                        for &(c, [end, work]) in &s.listed {
                            w.extend([c.start, c.size, slot as u64, end.to_bits(), work.to_bits()]);
                        }
                    }
                }
                let bytes: Vec<u8> = w.iter().flat_map(|w| w.to_le_bytes()).collect();
                self.comm.send(0, &bytes);
                return None;
            }
            Side::Scheduler { hand, .. } => hand,
        };
        let mut hand = lock(hand);
        let offset = self
            .started
            .saturating_duration_since(hand.core.origin())
            .as_secs_f64();
        let mut listed = Vec::new();
        // Rank 0's own, as they are.
        for (t, s) in slots.into_iter().enumerate() {
            hand.core.add_claimed(t, s.chunks, s.iterates, s.work_s);
            hand.core.add_cpu(t, cpu_s / k as f64);
            if report.is_some() {
                listed.extend(
                    s.listed
                        .into_iter()
                        .map(|(c, [end, work])| (c, t, [offset + end, work])),
                );
            }
        }
        let mut unlisted = chunks - listed.len() as u64;
        for r in 1..self.size {
            let bytes = self.comm.receive(r);
            let w: Vec<u64> = bytes
                .chunks_exact(8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
                .collect();
            if w.len() < 2 + 3 * k || (w.len() - 2 - 3 * k) % 5 != 0 {
                panic!(
                    "dls: malformed end of loop from rank {r}: {} words (internal error)",
                    w.len()
                );
            }
            let cpu = f64::from_bits(w[0]);
            unlisted += w[1];
            for (t, q) in w[2..2 + 3 * k].chunks_exact(3).enumerate() {
                hand.core
                    .add_claimed(r * k + t, q[0], q[1], f64::from_bits(q[2]));
                hand.core.add_cpu(r * k + t, cpu / k as f64);
            }
            for e in w[2 + 3 * k..].chunks_exact(5) {
                listed.push((
                    Chunk {
                        start: e[0],
                        size: e[1],
                    },
                    r * k + e[2] as usize,
                    [offset + f64::from_bits(e[3]), f64::from_bits(e[4])],
                ));
            }
        }
        // In the order of their iterates: the listed chunks are the first ones (`k` below the
        // most listed), each at its index `start / c`, placed, not sorted.
        let c = claims.size();
        let all = listed.len();
        if listed.iter().all(|e| ((e.0.start / c) as usize) < all) {
            let none = Chunk { start: 0, size: 0 };
            let mut placed = vec![(none, 0usize, [f64::NAN; 2]); all];
            for e in listed.drain(..) {
                placed[(e.0.start / c) as usize] = e;
            }
            listed = placed;
        } else {
            listed.sort_unstable_by_key(|e| e.0.start);
        }
        hand.core.add_claimed_map(listed.into_iter(), unlisted);
        report.map(|(name, started)| {
            let mut r = hand.core.report(name, started);
            r.threads_per_rank = k;
            r
        })
    }
}

impl ChunkSource for HybridLoop {
    fn next(
        &self,
        slot: usize,
        finished: Option<ChunkTiming>,
        now: Instant,
    ) -> (Option<Chunk>, Verdict) {
        if let Some(claims) = &self.claims {
            return match claims.next(slot, finished, now, false, None) {
                Claimed::Chunk(c) => (Some(c), Verdict::Keep),
                Claimed::Done | Claimed::Tail { .. } => (None, Verdict::Keep),
            };
        }
        let mut local = lock(&self.local);
        if let Some(t) = finished {
            if let Some(j) = local.running.get_mut(slot).and_then(Option::take) {
                add(&mut local.unreported[j], t);
                // The chunk's own run, not the waits of the thread that asked for it.
                let c = local.chunk_s.get_or_insert(t.work_s);
                *c += NEW * (t.work_s - *c);
            }
        }
        loop {
            if let Some((c, j)) = local.queue.pop_front() {
                if let Some(r) = local.running.get_mut(slot) {
                    *r = Some(j);
                }
                if let Some(count) = local.ask_early(self.k) {
                    // Ask for the next chunks before the rank's threads run dry.
                    local.fetching = true;
                    drop(self.fetch(local, count));
                }
                return (Some(c), Verdict::Keep);
            }
            if local.done {
                return (None, Verdict::Keep);
            }
            if local.fetching {
                // The batch is due within a round trip.
                local = self.wait_for_batch(local);
                continue;
            }
            // For this thread, the ones waiting, and the chunks that hide a round trip.
            let count = if local.first {
                self.k
            } else {
                (1 + local.waiting + local.depth(self.k)).min(self.k)
            };
            local.fetching = true;
            local = self.fetch(local, count);
        }
    }

    fn terminated(&self) -> bool {
        if let Some(claims) = &self.claims {
            return claims.all_out();
        }
        let l = lock(&self.local);
        l.done && l.queue.is_empty()
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
        let (unreported, left) = match &self.claims {
            Some(claims) => {
                let now = Instant::now();
                for (slot, t) in open {
                    claims.hand_in_open(slot, t, now);
                }
                let fed = claims.feed().expect("fed claims");
                // A loop finished before its last chunk (the explicit API): the rank leaves.
                let left = !fed.done();
                fed.close();
                (vec![None; self.k], left)
            }
            None => {
                let mut l = lock(&self.local);
                for (slot, t) in open {
                    if let Some(j) = l.running.get_mut(slot).and_then(Option::take) {
                        add(&mut l.unreported[j], t);
                    }
                }
                let left = !l.done;
                l.done = true;
                l.queue.clear();
                (l.take_unreported(), left)
            }
        };
        let cpu_s: f64 = cpu.iter().map(|c| c.1).sum();
        let root = self.comm.0.process_at_rank(0);
        match &self.side {
            Side::Scheduler { service, .. } => {
                if let Some(h) = lock(service).take() {
                    let _ = h.join();
                }
            }
            Side::Worker if left => {
                // The rank did not get the empty batch: it tells the scheduler it leaves.
                let request = BatchRequest {
                    count: 0,
                    finished: vec![None; self.k],
                };
                root.send_with_tag(&request.encode()[..], TAG_REQUEST);
            }
            Side::Worker => {}
        }
        if let Some(claims) = &self.claims {
            let built = self.gather_blocks(claims, cpu_s, report);
            return share_report(&root, self.rank == 0, report.is_some(), built);
        }
        // Every rank's work not yet reported and its CPU time, to rank 0 (the service thread
        // has ended: a rank that got its empty batch sends no more requests).
        let mine = {
            let mut w = BatchRequest {
                count: 0,
                finished: unreported,
            }
            .encode();
            w[1] = cpu_s.to_bits();
            w
        };
        let built = match &self.side {
            Side::Scheduler { hand, .. } => {
                let mut all = vec![0u64; mine.len() * self.size];
                mpi::request::scope(|scope| {
                    backoff::complete(root.immediate_gather_into_root(
                        scope,
                        &mine[..],
                        &mut all[..],
                    ))
                });
                let mut hand = lock(hand);
                let now = Instant::now();
                for (r, words) in all.chunks_exact(mine.len()).enumerate() {
                    let cpu = f64::from_bits(words[1]);
                    let mut words = words.to_vec();
                    words[1] = 0;
                    if let Some(b) = BatchRequest::decode(&words, self.k) {
                        hand.batch(r, 0, &b.finished, now);
                    }
                    for j in 0..self.k {
                        hand.core.add_cpu(r * self.k + j, cpu / self.k as f64);
                    }
                }
                report.map(|(name, started)| {
                    let mut r = hand.core.report(name, started);
                    r.threads_per_rank = self.k;
                    r
                })
            }
            Side::Worker => {
                mpi::request::scope(|scope| {
                    backoff::complete(root.immediate_gather_into(scope, &mine[..]))
                });
                None
            }
        };
        share_report(&root, self.rank == 0, report.is_some(), built)
    }

    fn exchange(&self) -> Option<&dyn Exchange> {
        Some(&*self.comm)
    }

    fn claims(&self) -> Option<&Claims> {
        self.claims.as_ref()
    }
}
