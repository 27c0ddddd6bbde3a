//! A scheduler tree for one-level loops ([`HandOut::Tree`](super::HandOut::Tree)): the top
//! scheduler on rank 0 hands *batches* of iterates to sub-schedulers, each of which hands its
//! group of ranks chunks of its batches (Cariño & Banicescu's hierarchical DLS; Dtree, Pamnany
//! et al. 2015, where the parents also work).
//!
//! # Model
//!
//! The P ranks form G = ⌈P / F⌉ groups of consecutive ranks, as even as they can be (⌊P / G⌋
//! or ⌈P / G⌉ ≤ F ranks each, the larger groups first: the top sizes batches as if the groups
//! were alike), and a group's first rank hosts its sub-scheduler. Rank 0
//! hosts the top scheduler and group 0's sub-scheduler. Every scheduler is a progress thread of
//! its rank, as the central scheduler of the [engine](super::engine) is: the rank computes at
//! full speed, and the scheduler serves its requests each in `h` (`overhead_s`), one at a time
//! under [`ServiceModel::Serial`](super::ServiceModel::Serial), each on its own under
//! [`ServiceModel::Parallel`](super::ServiceModel::Parallel). A message between two ranks takes
//! `L` (`latency_s`), 0 within a rank (rank 0's batch requests, a sub-scheduler's own rank's
//! requests). Serving takes no time from the rank's own chunks (as on rank 0 under central
//! hand-out); where a sub-scheduler shares its rank's core, its rank loses up to the busy time
//! the outcome reports ([`SimOutcome::sub_busy_max_s`] for the busiest).
//!
//! **What a technique means across levels.**
//! - *Batches over groups.* The top runs the technique over N iterates and G workers, the
//!   groups: a group's batch is the chunk the technique gives worker g (GSS: ⌈R/G⌉, FAC2: half
//!   of what is left over G, …). An adaptive technique learns per group: a group's batch
//!   request carries the timing of the group's chunks finished since its previous one, summed
//!   over the iterates and divided by the group's ranks in its times (the group is one worker
//!   that runs its ranks' iterates side by side).
//! - *Chunks within a group.* The sub-scheduler runs the technique over its batch's iterates and
//!   the group's ranks (a fresh [`ChunkScheduler`] per batch, offset to the batch's first
//!   iterate). An adaptive technique learns per rank: each rank's request carries its previous
//!   chunk's timing, recorded by the batch's scheduler; a new batch's scheduler first records,
//!   per rank, the sum of the rank's earlier timings, so what was learned carries over.
//! - *Fixed-size chunks* (SS, FSC and mFSC: [`ChunkScheduler::fixed_chunk`] is some `c` over
//!   the P ranks; not STATIC): the top hands blocks of whole chunks, as hierarchical hand-out
//!   does ([`HandOut::Hierarchical`](super::HandOut::Hierarchical)): `min(whole(⌈left / 2G⌉),
//!   left)` iterates (`whole(x)`: x rounded up to a multiple of c), and the sub-scheduler hands
//!   chunks of c iterates (fewer at a block's end), the chunks central hand-out would.
//!
//! **One chunk on rank r of group g** (sub-scheduler s = g·F):
//! 1. r's request leaves when its previous chunk ends (at its start time for the first) and
//!    reaches s after `L` (0 if r = s), carrying the previous chunk's timing.
//! 2. If s's current batch has a chunk left, or a batch is waiting behind it (it becomes the
//!    current one), s serves the request in `h` from `max(arrival, s free)` (serial) and the
//!    reply reaches r `L` later. If s has none and its batch request is in flight, the request
//!    waits (no service yet) and is served when the batch arrives. If the top has answered that
//!    no iterate is left, the request is served in `h` and r stops.
//! 3. **Asking ahead.** A sub-scheduler sends its first batch request at its rank's start time.
//!    After serving a chunk, if that chunk was the current batch's last, no batch waits and
//!    none is asked for, it sends the next batch request (when its service ends), so that the
//!    batch arrives while the group's ranks still run their last chunks; a request that finds
//!    the group dry also sends one if none is in flight. (Asking at half the batch handed out
//!    pulled batches into busy groups under GSS: see the test
//!    `gss_under_a_tree_balances_as_central_does`.)
//! 4. The top serves batch requests (one each, `h`, in the order they arrive; reply after `L`,
//!    0 to group 0). A reply without iterates tells the group that the loop is handed out.
//!
//! **One group** (F ≥ P): there is no balance between groups to keep, so the top hands the
//! whole loop as one batch and the sub-scheduler on rank 0 runs the technique over all P ranks:
//! central hand-out's chunks, the same timing model, plus one batch request (rank 0's first
//! request waits for its reply, `h` on the top's own progress thread) and one final one. With F = 1 every rank is its own sub-scheduler: the top hands each rank
//! batches and a rank hands itself chunks of them locally (a request to itself costs `h`).
//!
//! The outcome's `requests` and `scheduler_busy_s` are the top scheduler's (batch requests);
//! [`SimOutcome::sub_requests`] and [`SimOutcome::sub_busy_max_s`] give the sub-schedulers'.
//! Event cost: one heap operation per rank request and two per batch, in a queue of at most
//! P + 2G events.
//!
//! ```
//! use dls_model::sim::{simulate, HandOut, SimConfig};
//! // FAC2 on 1000 ranks, 10^6 iterates of about 10 us, h = L = 2 us: the one scheduler is busy
//! // most of the loop; a tree of 32 groups of about 32 ranks ends much sooner.
//! let mut c = SimConfig::new("fac2".parse().unwrap(), 1_000_000, 1000);
//! c.iterate_time = "exp:10us".parse().unwrap();
//! c.overhead_s = 2e-6;
//! c.latency_s = 2e-6;
//! let central = simulate(&c).unwrap();
//! c.hand_out = HandOut::tree(32);
//! let tree = simulate(&c).unwrap();
//! assert!(central.scheduler_busy_s > 0.8 * central.report.parallel_time_s);
//! assert!(tree.report.parallel_time_s < 0.6 * central.report.parallel_time_s);
//! assert!(tree.requests < 1000); // batch requests at the top
//! ```

use super::config::SimConfig;
use super::error::SimError;
use super::event_queue::{Arrival, EventQueue};
use super::hand_out::Tree;
use super::hierarchy::block_size;
use super::iterate_time::IterateSampler;
use super::outcome::SimOutcome;
use super::speed::RankSpeeds;
use super::state::{start_time, Server, Tally};
use crate::{Chunk, ChunkScheduler, ChunkTiming, Technique};

/// What a sub-scheduler hands out of one batch.
enum Batch {
    /// The technique over the batch's iterates and the group's ranks, from iterate `start` on.
    Sched {
        start: u64,
        sched: Box<ChunkScheduler>,
    },
    /// Chunks of `c` iterates from `next` up to `end`.
    Fixed { next: u64, end: u64, c: u64 },
}

impl Batch {
    /// Its iterates not yet handed out.
    fn left(&self) -> u64 {
        match self {
            Batch::Sched { sched, .. } => sched.remaining(),
            Batch::Fixed { next, end, .. } => end - next,
        }
    }

    /// The next chunk for the group's rank `local`, in the loop's iterates.
    fn next(&mut self, local: usize) -> Option<Chunk> {
        match self {
            Batch::Sched { start, sched, .. } => sched.next_chunk(local).map(|c| Chunk {
                start: c.start + *start,
                size: c.size,
            }),
            Batch::Fixed { next, end, c, .. } => {
                if next == end {
                    return None;
                }
                let size = (*c).min(*end - *next);
                let chunk = Chunk { start: *next, size };
                *next += size;
                Some(chunk)
            }
        }
    }
}

/// The top scheduler: the technique over the groups, blocks of whole chunks, or (one group)
/// the whole loop as one batch, `n` iterates until handed out.
enum Top {
    Sched(Box<ChunkScheduler>),
    Blocks { next: u64, n: u64, c: u64 },
    Whole(u64),
}

/// One group and its sub-scheduler.
struct Group {
    /// Its first rank (the sub-scheduler's) and its ranks.
    first: usize,
    size: usize,
    /// The sub-scheduler's progress thread.
    server: Server,
    /// The batch being handed out, and the one that arrived behind it.
    current: Option<Batch>,
    queued: Option<Chunk>,
    /// A batch request is in flight; the top has said no iterate is left.
    asking: bool,
    done: bool,
    /// Ranks whose requests wait for the batch in flight.
    waiting: Vec<usize>,
    /// The group's chunk timings since its previous batch request (summed), and what the batch
    /// request in flight carries.
    report: Option<ChunkTiming>,
    carried: Option<ChunkTiming>,
    /// The top's reply in flight: a batch, or none left.
    reply: Option<Chunk>,
}

/// The whole state of one simulation under a scheduler tree.
struct Sim<'a> {
    config: &'a SimConfig,
    speeds: RankSpeeds,
    technique: Technique,
    /// Per rank: its group.
    group_of: Vec<u32>,
    /// Fixed-size chunks: c.
    fixed: Option<u64>,
    /// The technique learns from timings (else none is recorded: recording costs time).
    learns: bool,
    /// The event being handled has left the queue (replaced by its rank's next request).
    replaced: bool,
    top: Top,
    top_server: Server,
    groups: Vec<Group>,
    sampler: IterateSampler,
    /// Events: id < P a rank's request reaching its sub-scheduler, P + g group g's batch
    /// request reaching the top, P + G + g the top's reply reaching group g.
    queue: EventQueue,
    seq: u64,
    /// Per rank: when it sent the request for its chunk in progress; the timing its next
    /// request carries; the sum of its timings (carried into each new batch's scheduler).
    sent_at: Vec<f64>,
    pending: Vec<Option<ChunkTiming>>,
    history: Vec<Option<ChunkTiming>>,
    tally: Tally,
}

/// Adds timing `t` to `acc`.
fn add(acc: &mut Option<ChunkTiming>, t: ChunkTiming) {
    *acc.get_or_insert_with(ChunkTiming::default) += t;
}

impl<'a> Sim<'a> {
    /// The groups, their schedulers checked for the group sizes, and every first request on
    /// its way: the sub-schedulers' batch requests, then the ranks' requests.
    fn new(config: &'a SimConfig, tree: Tree, speeds: RankSpeeds) -> Result<Self, SimError> {
        let (n, p) = (config.n, config.p);
        let g = tree.groups(p);
        let (small, big) = (p / g, p % g);
        // Groups 0..big have small + 1 ranks, the others small.
        let first = |i: usize| i * small + i.min(big);
        let technique = config.technique.clone();
        let over_ranks = ChunkScheduler::new(&technique, n, p)?;
        let learns = over_ranks.learns();
        let fixed = over_ranks
            .fixed_chunk()
            .filter(|_| technique.kind != crate::technique::Kind::Static);
        let top = match fixed {
            _ if g == 1 => Top::Whole(n),
            Some(c) => Top::Blocks { next: 0, n, c },
            None => {
                // Every group size must take the technique (weights given per rank do not).
                for size in [small.max(1), small + 1] {
                    ChunkScheduler::new(&technique, 1, size).map_err(|e| tree_error(&e))?;
                }
                Top::Sched(Box::new(
                    ChunkScheduler::new(&technique, n, g).map_err(|e| tree_error(&e))?,
                ))
            }
        };
        let groups = (0..g)
            .map(|i| Group {
                first: first(i),
                size: first(i + 1) - first(i),
                server: Server::default(),
                current: None,
                queued: None,
                asking: false,
                done: false,
                waiting: Vec::new(),
                report: None,
                carried: None,
                reply: None,
            })
            .collect();
        let mut sim = Sim {
            config,
            speeds,
            technique,
            group_of: (0..g)
                .flat_map(|i| std::iter::repeat_n(i as u32, first(i + 1) - first(i)))
                .collect(),
            fixed,
            learns,
            replaced: false,
            top,
            top_server: Server::default(),
            groups,
            sampler: config.iterate_time.sampler(n, config.seed),
            queue: EventQueue::with_capacity(p + 2 * g),
            seq: 0,
            sent_at: (0..p).map(|r| start_time(config, r)).collect(),
            pending: vec![None; p],
            history: vec![None; p],
            tally: Tally::new(p),
        };
        for i in 0..g {
            let first = sim.groups[i].first;
            sim.ask_top(i, start_time(config, first));
        }
        for r in 0..p {
            let t = start_time(config, r) + sim.to_sub(r);
            sim.push(t, r);
        }
        Ok(sim)
    }

    /// Latency from rank `r` to its sub-scheduler (and back): 0 on the sub-scheduler's rank.
    fn to_sub(&self, r: usize) -> f64 {
        if self.groups[self.group_of[r] as usize].first == r {
            0.0
        } else {
            self.config.latency_s
        }
    }

    /// Latency between group `g`'s sub-scheduler and the top: 0 for group 0.
    fn to_top(&self, g: usize) -> f64 {
        if g == 0 {
            0.0
        } else {
            self.config.latency_s
        }
    }

    fn push(&mut self, time: f64, id: usize) {
        self.queue.push(Arrival::new(time, self.seq, id));
        self.seq += 1;
    }

    /// Runs the events in order until none is left, and gives the outcome.
    fn run(mut self) -> SimOutcome {
        let (p, g) = (self.config.p, self.groups.len());
        // An event stays at the top of the queue while it is handled (every event pushed then
        // comes later), and a rank's next request takes its place: one sift instead of two.
        while let Some(event) = self.queue.peek() {
            let (t, id) = (event.time(), event.rank());
            self.replaced = false;
            if id < p {
                self.serve_rank(id, t);
            } else if id < p + g {
                self.serve_batch(id - p, t);
            } else {
                self.deliver(id - p - g, t);
            }
            if !self.replaced {
                self.queue.pop();
            }
        }
        let h = self.config.overhead_s;
        let busy = self.top_server.requests as f64 * h;
        let sub_requests: u64 = self.groups.iter().map(|x| x.server.requests).sum();
        let sub_busiest = self
            .groups
            .iter()
            .map(|x| x.server.requests)
            .max()
            .unwrap_or(0);
        let mut out = self
            .tally
            .finish(self.config, &self.speeds, &self.top_server, busy);
        out.sub_requests = sub_requests;
        out.sub_busy_max_s = sub_busiest as f64 * h;
        out
    }

    /// Group `g` sends a batch request at `at`, carrying its chunk timings since the last one.
    fn ask_top(&mut self, g: usize, at: f64) {
        let group = &mut self.groups[g];
        group.asking = true;
        group.carried = group.report.take();
        let t = at + self.to_top(g);
        let id = self.config.p + g;
        self.push(t, id);
    }

    /// Group `g`'s batch request reaches the top at `t`: recorded, served, answered.
    fn serve_batch(&mut self, g: usize, t: f64) {
        let config = self.config;
        let served = self.top_server.serve(config.service, t, config.overhead_s);
        let groups = self.groups.len();
        let group = &mut self.groups[g];
        let batch = match &mut self.top {
            Top::Sched(sched) => {
                if let Some(timing) = group.carried.take().filter(|_| self.learns) {
                    let k = group.size as f64;
                    sched.record(
                        g,
                        ChunkTiming {
                            iterates: timing.iterates,
                            work_s: timing.work_s / k,
                            elapsed_s: timing.elapsed_s / k,
                        },
                    );
                }
                sched.next_chunk(g)
            }
            Top::Blocks { next, n, c } => {
                let size = block_size(u64::MAX / 2, *n - *next, *c, groups);
                let chunk = (size > 0).then_some(Chunk { start: *next, size });
                *next += size;
                chunk
            }
            Top::Whole(n) => {
                let chunk = (*n > 0).then_some(Chunk { start: 0, size: *n });
                *n = 0;
                chunk
            }
        };
        group.reply = batch;
        let at = served + self.to_top(g);
        self.push(at, self.config.p + groups + g);
    }

    /// The top's reply reaches group `g` at `t`: its batch waits behind the current one (or
    /// the loop is handed out), and the waiting ranks' requests are served from `t`.
    fn deliver(&mut self, g: usize, t: f64) {
        let group = &mut self.groups[g];
        group.asking = false;
        match group.reply.take() {
            Some(batch) => group.queued = Some(batch),
            None => group.done = true,
        }
        let waiting = std::mem::take(&mut group.waiting);
        for r in waiting {
            self.push(t, r);
        }
    }

    /// A new batch's hand-out within group `g`; its scheduler first learns each rank's summed
    /// timings.
    fn open(&self, g: usize, batch: Chunk) -> Batch {
        let group = &self.groups[g];
        if let Some(c) = self.fixed {
            return Batch::Fixed {
                next: batch.start,
                end: batch.start + batch.size,
                c,
            };
        }
        let mut sched = Box::new(
            ChunkScheduler::new(&self.technique, batch.size, group.size)
                .expect("the technique was checked for every group size"),
        );
        if self.learns {
            for local in 0..group.size {
                if let Some(timing) = self.history[group.first + local] {
                    sched.record(local, timing);
                }
            }
        }
        Batch::Sched {
            start: batch.start,
            sched,
        }
    }

    /// The next chunk of group `g` for its rank `local`: from the current batch, else from
    /// the batch behind it.
    fn take(&mut self, g: usize, local: usize) -> Option<Chunk> {
        loop {
            if let Some(chunk) = self.groups[g].current.as_mut().and_then(|b| b.next(local)) {
                return Some(chunk);
            }
            let batch = self.groups[g].queued.take()?;
            let opened = self.open(g, batch);
            self.groups[g].current = Some(opened);
        }
    }

    /// Rank `r`'s request reaches its sub-scheduler at `t`.
    fn serve_rank(&mut self, r: usize, t: f64) {
        let config = self.config;
        let g = self.group_of[r] as usize;
        let local = r - self.groups[g].first;
        if let Some(timing) = self.pending[r].take().filter(|_| self.learns) {
            add(&mut self.history[r], timing);
            add(&mut self.groups[g].report, timing);
            if let Some(Batch::Sched { sched, .. }) = self.groups[g].current.as_mut() {
                sched.record(local, timing);
            }
        }
        let chunk = self.take(g, local);
        let group = &mut self.groups[g];
        if chunk.is_none() && !group.done {
            // Dry: wait for the batch in flight (asked for now if none is).
            group.waiting.push(r);
            if !group.asking {
                self.ask_top(g, t);
            }
            return;
        }
        let served = group.server.serve(config.service, t, config.overhead_s);
        let Some(chunk) = chunk else { return };
        // Ask ahead once the batch is handed out: its last chunks are still running while the
        // request travels. Asking at half the batch handed out let GSS, whose first round hands
        // out most of a batch, pull batches into groups whose ranks were all still busy while
        // other groups ran dry (efficiency 0.75 against central's 0.997 at P = 1000, N = 10^8).
        let ask = !group.asking
            && !group.done
            && group.queued.is_none()
            && group.current.as_ref().is_some_and(|b| b.left() == 0);
        if ask {
            self.ask_top(g, served);
        }
        let work = self.tally.draw(&mut self.sampler, chunk);
        let received = served + self.to_sub(r);
        let duration = self.speeds.duration(r, received, work, chunk.start);
        let (done, _) = self
            .tally
            .started(r, chunk, received, duration, config.chunk_map);
        self.pending[r] = Some(ChunkTiming {
            iterates: chunk.size,
            work_s: duration,
            elapsed_s: done - self.sent_at[r],
        });
        self.sent_at[r] = done;
        self.tally.last_end[r] = done;
        let next = done + self.to_sub(r);
        self.queue.replace_top(Arrival::new(next, self.seq, r));
        self.seq += 1;
        self.replaced = true;
    }
}

/// A technique the tree cannot run over its groups.
fn tree_error(e: &crate::TechniqueError) -> SimError {
    SimError::new(format!(
        "--hand-out tree: {e} (under a scheduler tree the technique runs over the groups at the \
         top and over each group's ranks below it)"
    ))
}

/// Simulates one loop under a scheduler tree (called by [`simulate`](super::simulate) with the
/// validated rank speeds).
pub(crate) fn simulate(
    config: &SimConfig,
    tree: Tree,
    speeds: RankSpeeds,
) -> Result<SimOutcome, SimError> {
    Ok(Sim::new(config, tree, speeds)?.run())
}
