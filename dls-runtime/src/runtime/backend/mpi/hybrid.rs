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
//!   so SS hands a rank `k` iterates, FAC2 a rank `k` chunks of its current batch, and the
//!   chunks shrink toward the end as they would for `P·k` threads. A batch request records the
//!   rank's threads' chunks finished since its previous request, in equal shares over its
//!   slots (the rank's speed, per iterate, is what the adaptive techniques learn: a rank whose
//!   threads are slower gets smaller chunks), then serves the rank's `k` slots in order.
//! - **The rank.** Its threads pop chunks from a local queue under a mutex (no message); the
//!   thread whose pop leaves fewer than `⌈k/2⌉` chunks fetches the next batch (one request in
//!   flight per rank) before it starts its own chunk; a thread that finds the queue empty while
//!   a batch is on its way waits for it. An empty batch ends the loop on the rank. Rank 0 fetches
//!   its batches from the scheduler directly, under its mutex; a service thread answers the
//!   other ranks ([`serve`]).
//! - **The end.** `finish` gathers every rank's chunks not yet reported and its CPU time to
//!   rank 0, which builds the report (`p` = all threads; `threads_per_rank` = k) and sends it to
//!   every rank, as the one-thread MPI loop does.
//!
//! Re-execution, splits, checkpoints and fault checks need the scheduler to follow each chunk
//! to the thread that runs it: a loop that asks for them under threads inside ranks is refused
//! with an error (`Runtime::reduce_impl`), not run without them.

use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Instant;

use mpi::collective::Root;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::Communicator;

use super::backoff::{self, Backoff};
use super::chunk_loop::share_report;
use super::comm::LoopComm;
use super::messages::{Batch, Request, REQUEST_WORDS, TAG_REPLY, TAG_REQUEST};
use crate::report::LoopReport;
use crate::runtime::combine::Exchange;
use crate::runtime::error::DlsError;
use crate::runtime::loops::source::ChunkSource;
use crate::runtime::sched::reporting::ReportingScheduler;
use crate::runtime::sync::lock;
use crate::runtime::tolerance::reexecution::Verdict;
use crate::{Chunk, ChunkTiming, Technique};

/// What a rank's threads share: the chunks of its batches not yet taken, and what they finished
/// since the rank's last request.
#[derive(Default)]
struct Local {
    queue: VecDeque<Chunk>,
    /// A thread of this rank is getting the next batch.
    fetching: bool,
    /// The scheduler sent an empty batch (or the rank left): no more chunks.
    done: bool,
    /// The rank's chunks finished since its last request.
    unreported: Option<ChunkTiming>,
}

/// Adds timing `t` to `acc`.
fn add(acc: &mut Option<ChunkTiming>, t: ChunkTiming) {
    let a = acc.get_or_insert(ChunkTiming {
        iterates: 0,
        work_s: 0.0,
        elapsed_s: 0.0,
    });
    a.iterates += t.iterates;
    a.work_s += t.work_s;
    a.elapsed_s += t.elapsed_s;
}

/// Share `j` of `k` of a rank's timing `t`: the iterates split as evenly as whole numbers allow,
/// the seconds in equal parts; `None` for a share without iterates.
fn share(t: ChunkTiming, j: usize, k: usize) -> Option<ChunkTiming> {
    let k64 = k as u64;
    let iterates = t.iterates / k64 + u64::from((j as u64) < t.iterates % k64);
    (iterates > 0).then(|| ChunkTiming {
        iterates,
        work_s: t.work_s / k as f64,
        elapsed_s: t.elapsed_s / k as f64,
    })
}

/// Rank `rank`'s next batch from the scheduler: its finished work recorded in shares over its
/// `k` slots, then one chunk for each slot while any is left.
fn batch_of(
    core: &mut ReportingScheduler,
    rank: usize,
    k: usize,
    finished: Option<ChunkTiming>,
    now: Instant,
) -> Vec<Chunk> {
    let mut chunks = Vec::with_capacity(k);
    for j in 0..k {
        let t = finished.and_then(|t| share(t, j, k));
        if let Some(c) = core.serve_at(rank * k + j, t, now).0.chunk() {
            chunks.push(c);
        }
    }
    chunks
}

/// Rank `rank`'s work not yet reported, recorded in shares over its slots (at the loop's end).
fn hand_in_shares(core: &mut ReportingScheduler, rank: usize, k: usize, t: ChunkTiming) {
    let now = Instant::now();
    for j in 0..k {
        if let Some(s) = share(t, j, k) {
            core.hand_in(rank * k + j, s, now);
        }
    }
}

enum Side {
    /// Rank 0: the scheduler (shared with the service thread).
    Scheduler {
        core: Arc<Mutex<ReportingScheduler>>,
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
    /// Notified when a batch arrives (threads waiting with an empty queue).
    arrived: Condvar,
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
        if let Some(w) = weights {
            core.set_weights(w)?;
        }
        let comm = Arc::new(LoopComm(comm.duplicate()));
        let side = if rank == 0 {
            let core = Arc::new(Mutex::new(core));
            let service = (size > 1).then(|| {
                let (comm, core) = (comm.clone(), core.clone());
                thread::Builder::new()
                    .name("dls-scheduler".into())
                    .spawn(move || serve(&comm, &core, k))
                    .expect("dls: cannot start the scheduler's service thread")
            });
            Side::Scheduler {
                core,
                service: Mutex::new(service),
            }
        } else {
            Side::Worker
        };
        Ok(HybridLoop {
            comm,
            rank,
            size,
            k,
            local: Mutex::new(Local::default()),
            arrived: Condvar::new(),
            side,
        })
    }

    /// The rank's next batch, handing in `finished` (its work since its previous request): from
    /// the scheduler on rank 0, in a round trip elsewhere.
    fn fetch(&self, finished: Option<ChunkTiming>, now: Instant) -> Vec<Chunk> {
        match &self.side {
            Side::Scheduler { core, .. } => batch_of(&mut lock(core), 0, self.k, finished, now),
            Side::Worker => {
                let root = self.comm.0.process_at_rank(0);
                root.send_with_tag(&Request::Next(finished).encode()[..], TAG_REQUEST);
                let mut buf = vec![0u64; Batch::words(self.k)];
                mpi::request::scope(|scope| {
                    backoff::complete(root.immediate_receive_into_with_tag(
                        scope,
                        &mut buf[..],
                        TAG_REPLY,
                    ))
                });
                Batch::decode(&buf).unwrap_or_else(|| {
                    panic!("dls: malformed batch from the scheduler: {buf:?} (internal error)")
                })
            }
        }
    }

    /// Whether a thread whose pop left `left` chunks should fetch the next batch now.
    fn low(&self, left: usize) -> bool {
        left < self.k.div_ceil(2)
    }
}

/// Rank 0's service thread: answers every other rank's batch requests until each was sent an
/// empty batch (or left).
fn serve(comm: &LoopComm, core: &Mutex<ReportingScheduler>, k: usize) {
    let mut open = comm.0.size() as usize - 1;
    let mut wait = Backoff::default();
    while open > 0 {
        let Some((msg, status)) = comm.0.any_process().immediate_matched_probe_with_tag(TAG_REQUEST)
        else {
            wait.wait();
            continue;
        };
        wait.reset();
        let mut words = [0u64; REQUEST_WORDS];
        msg.matched_receive_into(&mut words[..]);
        let rank = status.source_rank() as usize;
        match Request::decode(&words) {
            Some(Request::Next(t)) => {
                let chunks = batch_of(&mut lock(core), rank, k, t, Instant::now());
                if chunks.is_empty() {
                    open -= 1;
                }
                comm.0
                    .process_at_rank(rank as i32)
                    .send_with_tag(&Batch::encode(&chunks)[..], TAG_REPLY);
            }
            Some(Request::Leave(t)) => {
                if let Some(t) = t {
                    hand_in_shares(&mut lock(core), rank, k, t);
                }
                open -= 1;
            }
            _ => panic!("dls: malformed request from rank {rank}: {words:?} (internal error)"),
        }
    }
}

impl ChunkSource for HybridLoop {
    fn next(
        &self,
        _slot: usize,
        finished: Option<ChunkTiming>,
        now: Instant,
    ) -> (Option<Chunk>, Verdict) {
        let mut local = lock(&self.local);
        if let Some(t) = finished {
            add(&mut local.unreported, t);
        }
        loop {
            if let Some(c) = local.queue.pop_front() {
                if !local.fetching && !local.done && self.low(local.queue.len()) {
                    // Ask for the next batch before the rank's threads run dry.
                    local.fetching = true;
                    let t = local.unreported.take();
                    drop(local);
                    let batch = self.fetch(t, now);
                    let mut l = lock(&self.local);
                    l.done = batch.is_empty();
                    l.queue.extend(batch);
                    l.fetching = false;
                    self.arrived.notify_all();
                }
                return (Some(c), Verdict::Keep);
            }
            if local.done {
                return (None, Verdict::Keep);
            }
            if local.fetching {
                local = self
                    .arrived
                    .wait(local)
                    .unwrap_or_else(|e| e.into_inner());
                continue;
            }
            local.fetching = true;
            let t = local.unreported.take();
            drop(local);
            let batch = self.fetch(t, now);
            local = lock(&self.local);
            local.done = batch.is_empty();
            local.queue.extend(batch);
            local.fetching = false;
            self.arrived.notify_all();
        }
    }

    fn terminated(&self) -> bool {
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
        let (unreported, left) = {
            let mut l = lock(&self.local);
            let mut t = l.unreported.take();
            for (_, o) in open {
                add(&mut t, o);
            }
            // Chunks of a batch no thread took (a loop finished early): handed back as not done.
            let left = !l.done;
            l.done = true;
            l.queue.clear();
            (t, left)
        };
        let cpu_s: f64 = cpu.iter().map(|c| c.1).sum();
        let root = self.comm.0.process_at_rank(0);
        match &self.side {
            Side::Scheduler { service, .. } => {
                if let Some(h) = lock(service).take() {
                    let _ = h.join();
                }
            }
            Side::Worker => {
                if left {
                    root.send_with_tag(&Request::Leave(None).encode()[..], TAG_REQUEST);
                }
            }
        }
        // Every rank's unreported work and CPU time, to rank 0.
        let mine = [
            unreported.map_or(0, |t| t.iterates),
            unreported.map_or(0.0, |t| t.work_s).to_bits(),
            unreported.map_or(0.0, |t| t.elapsed_s).to_bits(),
            cpu_s.to_bits(),
        ];
        let all = match &self.side {
            Side::Scheduler { .. } => {
                let mut all = vec![0u64; 4 * self.size];
                mpi::request::scope(|scope| {
                    backoff::complete(root.immediate_gather_into_root(
                        scope,
                        &mine[..],
                        &mut all[..],
                    ))
                });
                Some(all)
            }
            Side::Worker => {
                mpi::request::scope(|scope| {
                    backoff::complete(root.immediate_gather_into(scope, &mine[..]))
                });
                None
            }
        };
        let built = match (&self.side, all) {
            (Side::Scheduler { core, .. }, Some(all)) => {
                let mut core = lock(core);
                for (r, w) in all.chunks_exact(4).enumerate() {
                    if w[0] > 0 {
                        let t = ChunkTiming {
                            iterates: w[0],
                            work_s: f64::from_bits(w[1]),
                            elapsed_s: f64::from_bits(w[2]),
                        };
                        hand_in_shares(&mut core, r, self.k, t);
                    }
                    let c = f64::from_bits(w[3]) / self.k as f64;
                    for j in 0..self.k {
                        core.add_cpu(r * self.k + j, c);
                    }
                }
                report.map(|(name, started)| {
                    let mut r = core.report(name, started);
                    r.threads_per_rank = self.k;
                    r
                })
            }
            _ => None,
        };
        share_report(&root, self.rank == 0, report.is_some(), built)
    }

    fn exchange(&self) -> Option<&dyn Exchange> {
        Some(&*self.comm)
    }
}
