//! The discrete-event loop of hierarchical hand-out: ranks of k threads, each rank asking rank 0
//! for chunks for its threads and its threads taking them from a local queue, as the runtime's
//! threads inside MPI ranks do (`runtime/backend/mpi/hybrid.rs`). The timing model is in the
//! [engine](super::engine) documentation ("Threads inside ranks").
//!
//! Two kinds of events share the event queue: a thread free at a time (id = its worker index
//! `r·k + j`, below P·k), and a rank's message (id = P·k + r): its request arriving at the
//! scheduler, then its reply arriving at the rank. A rank has at most one request in flight, so
//! it has at most one message event; a thread has at most one event (none while it waits for a
//! reply, with its popped chunk or without).

use std::collections::VecDeque;

use super::config::SimConfig;
use super::error::SimError;
use super::event_queue::{Arrival, EventQueue};
use super::hand_out::{HandOut, Hierarchy};
use super::outcome::SimOutcome;
use super::service::ServiceModel;
use super::speed::RankSpeeds;
use crate::{Chunk, ChunkScheduler, ChunkTiming, LoopReport, RankReport};

/// The weight of a new measurement in a rank's running means (chunk time, round trip), as in the
/// runtime.
const NEW: f64 = 0.25;
/// The shortest round trip a rank plans with, seconds, as in the runtime.
const MIN_ROUND_TRIP_S: f64 = 1e-6;

/// A chunk handed to a rank: its base work (drawn when the scheduler hands it out) and the
/// thread share it was handed to.
#[derive(Debug, Clone, Copy)]
struct Handed {
    chunk: Chunk,
    work: f64,
    share: usize,
}

/// Adds timing `t` to `acc`.
fn add(acc: &mut Option<ChunkTiming>, t: ChunkTiming) {
    *acc.get_or_insert_with(ChunkTiming::default) += t;
}

/// A rank's side of the hand-out (the runtime's `Local`).
#[derive(Debug)]
struct Rank {
    /// Chunks received and not yet taken, in order.
    queue: VecDeque<Handed>,
    /// Threads (worker indices) waiting for the reply with nothing to run, in the order they
    /// will look at the queue when it arrives (the thread that sent the request first).
    waiting: VecDeque<usize>,
    /// The thread that sent the request in flight after its pop, with the chunk it popped: it
    /// starts the chunk when the reply arrives.
    holder: Option<(usize, Handed)>,
    /// A request of this rank is in flight (sent, its reply not yet received).
    fetching: bool,
    /// The request in flight has been served: its message event is now the reply.
    served: bool,
    /// A reply came back empty: no chunk is left for this rank.
    done: bool,
    /// No request sent yet.
    first: bool,
    /// When the request in flight was sent, and how many chunks it asks for.
    sent_at: f64,
    count: usize,
    /// Running means: seconds a chunk's iterates take (its work time, from its start to its
    /// end; unknown before the first ends), seconds from a request's sending to its reply's
    /// arrival.
    chunk_s: Option<f64>,
    round_trip_s: f64,
    /// Per share: its chunks finished since the rank's last request.
    unreported: Vec<Option<ChunkTiming>>,
    /// What the request in flight reports, per share.
    reported: Vec<Option<ChunkTiming>>,
    /// The chunks on their way back.
    reply: Vec<Handed>,
}

impl Rank {
    fn new(k: usize) -> Rank {
        Rank {
            queue: VecDeque::new(),
            waiting: VecDeque::new(),
            holder: None,
            fetching: false,
            served: false,
            done: false,
            first: true,
            sent_at: 0.0,
            count: 0,
            chunk_s: None,
            round_trip_s: MIN_ROUND_TRIP_S,
            unreported: vec![None; k],
            reported: vec![None; k],
            reply: Vec::new(),
        }
    }

    /// The chunks whose run hides one round trip, for `k` threads, rounded down: 0 while no
    /// chunk has been timed, else `min(k, ⌊k × round trip / chunk time⌋)` (`k` for chunks of no
    /// time; 0 while chunks are longer than `k` round trips).
    fn depth(&self, k: usize) -> usize {
        match self.chunk_s {
            Some(c) if c > 0.0 => ((k as f64 * self.round_trip_s / c).floor() as usize).min(k),
            Some(_) => k,
            None => 0,
        }
    }
}

/// A thread's chunk in progress.
#[derive(Debug, Clone, Copy)]
struct Running {
    share: usize,
    iterates: u64,
    work_s: f64,
    /// When the thread began to look for this chunk.
    asked_at: f64,
}

/// The whole state of one hierarchical simulation.
struct Sim<'a> {
    config: &'a SimConfig,
    speeds: RankSpeeds,
    k: usize,
    workers: usize,
    pop_s: f64,
    queue: EventQueue,
    seq: u64,
    ranks: Vec<Rank>,
    running: Vec<Option<Running>>,
    /// When each thread began to look for its next chunk.
    asked_at: Vec<f64>,
    reports: Vec<RankReport>,
    last_end: Vec<f64>,
    chunk_map: Vec<[u64; 3]>,
    chunk_times: Vec<Option<[f64; 2]>>,
}

impl Sim<'_> {
    fn latency(&self, rank: usize) -> f64 {
        if rank == 0 {
            0.0
        } else {
            self.config.latency_s
        }
    }

    fn push(&mut self, time: f64, id: usize) {
        self.queue.push(Arrival::new(time, self.seq, id));
        self.seq += 1;
    }

    /// Rank `r` sends a request for `count` chunks at `at`, reporting its chunks finished since
    /// its previous request.
    fn send(&mut self, r: usize, at: f64, count: usize) {
        let arrives = at + self.latency(r);
        let rank = &mut self.ranks[r];
        rank.fetching = true;
        rank.served = false;
        rank.first = false;
        rank.sent_at = at;
        rank.count = count;
        let k = rank.unreported.len();
        rank.reported = std::mem::replace(&mut rank.unreported, vec![None; k]);
        self.push(arrives, self.workers + r);
    }

    /// Thread `w` starts chunk `handed` at `begin`.
    fn begin(&mut self, w: usize, handed: Handed, begin: f64) {
        let Handed { chunk, work, share } = handed;
        let duration = self.speeds.duration(w, begin, work, chunk.start);
        let end = begin + duration;
        let report = &mut self.reports[w];
        report.iterates += chunk.size;
        report.work_time_s += duration;
        report.chunks += 1;
        if self.config.chunk_map {
            self.chunk_map.push([chunk.start, chunk.size, w as u64]);
            self.chunk_times.push(Some([begin, end]));
        }
        self.running[w] = Some(Running {
            share,
            iterates: chunk.size,
            work_s: duration,
            asked_at: self.asked_at[w],
        });
        self.push(end, w);
    }

    /// Thread `w` looks at its rank's queue at `t`, `others` threads of the rank being about to
    /// look too (woken by the same reply) besides those waiting. It pops a chunk if there is one
    /// (cost l); if that leaves fewer than half the depth (`⌈depth / 2⌉`), no request is in
    /// flight and the rank is not done, it asks for enough to fill the queue to the depth and
    /// starts its chunk when the reply arrives.
    /// With the queue empty it waits for the request in flight, or sends one (k chunks the first
    /// time, else itself, the threads waiting and the depth, at most k), or stops if the rank is
    /// done.
    fn look(&mut self, w: usize, t: f64, others: usize) {
        let (r, k) = (w / self.k, self.k);
        let rank = &mut self.ranks[r];
        if let Some(handed) = rank.queue.pop_front() {
            let at = t + self.pop_s;
            let depth = rank.depth(k);
            if !rank.fetching && !rank.done && rank.queue.len() < depth.div_ceil(2) {
                let count = depth - rank.queue.len();
                rank.holder = Some((w, handed));
                self.send(r, at, count);
            } else {
                self.begin(w, handed, at);
            }
            return;
        }
        if rank.done {
            return;
        }
        if rank.fetching {
            rank.waiting.push_back(w);
            return;
        }
        let count = if rank.first {
            k
        } else {
            (1 + rank.waiting.len() + others + rank.depth(k)).min(k)
        };
        rank.waiting.push_front(w);
        self.send(r, t, count);
    }

    /// Thread `w` is free at `t`: its chunk (if any) ended; its timing goes to the chunk's share.
    fn thread_free(&mut self, w: usize, t: f64) {
        let r = w / self.k;
        if let Some(run) = self.running[w].take() {
            let elapsed = t - run.asked_at;
            let rank = &mut self.ranks[r];
            add(
                &mut rank.unreported[run.share],
                ChunkTiming {
                    iterates: run.iterates,
                    work_s: run.work_s,
                    elapsed_s: elapsed,
                },
            );
            // The chunk's own run, not the waits of the thread that asked for it.
            let c = rank.chunk_s.get_or_insert(run.work_s);
            *c += NEW * (run.work_s - *c);
            self.last_end[w] = t;
        }
        self.asked_at[w] = t;
        self.look(w, t, 0);
    }

    /// Rank `r`'s reply arrives at `t`: its chunks join the queue (an empty one ends the rank),
    /// the thread that asked after its pop starts its chunk, and the waiting threads look at
    /// the queue in turn.
    fn deliver(&mut self, r: usize, t: f64) {
        let rank = &mut self.ranks[r];
        let trip = (t - rank.sent_at).max(MIN_ROUND_TRIP_S);
        rank.round_trip_s += NEW * (trip - rank.round_trip_s);
        rank.fetching = false;
        rank.served = false;
        rank.done = rank.reply.is_empty();
        rank.queue.extend(rank.reply.drain(..));
        if let Some((w, handed)) = rank.holder.take() {
            self.begin(w, handed, t);
        }
        let woken = std::mem::take(&mut self.ranks[r].waiting);
        let mut left = woken.len();
        for w in woken {
            left -= 1;
            self.look(w, t, left);
        }
    }
}

/// Simulates one loop under hierarchical hand-out (called by [`simulate`](super::simulate)
/// with the validated speeds of the P·k workers).
pub(crate) fn simulate(
    config: &SimConfig,
    hierarchy: Hierarchy,
    speeds: RankSpeeds,
) -> Result<SimOutcome, SimError> {
    let (n, p, k) = (config.n, config.p, hierarchy.threads);
    let workers = p * k;
    let mut scheduler = ChunkScheduler::new(&config.technique, n, workers)?;
    let learns = scheduler.learns();
    let mut sampler = config.iterate_time.sampler(n, config.seed);
    let (h, c) = (config.overhead_s, hierarchy.chunk_cost_s);
    let start = |w: usize| config.start_s.get(w).copied().unwrap_or(0.0);

    let mut sim = Sim {
        config,
        speeds,
        k,
        workers,
        pop_s: hierarchy.pop_cost_s,
        queue: EventQueue::with_capacity(workers + p),
        seq: 0,
        ranks: (0..p).map(|_| Rank::new(k)).collect(),
        running: vec![None; workers],
        asked_at: vec![0.0; workers],
        reports: (0..workers)
            .map(|rank| RankReport {
                rank,
                ..RankReport::default()
            })
            .collect(),
        last_end: vec![0.0; workers],
        chunk_map: Vec::new(),
        chunk_times: Vec::new(),
    };
    for w in 0..workers {
        sim.push(start(w), w);
    }
    // Per rank: the share its next chunk is handed to (its shares in turn).
    let mut turn = vec![0usize; p];
    let mut server_free = 0.0f64;
    let mut requests = 0u64;
    let mut busy = 0.0f64;
    let mut base_work = 0.0f64;
    let mut longest = 0.0f64;

    while let Some(top) = sim.queue.pop() {
        let (t, id) = (top.time(), top.rank());
        if id < workers {
            sim.thread_free(id, t);
            continue;
        }
        let r = id - workers;
        if sim.ranks[r].served {
            sim.deliver(r, t);
            continue;
        }
        // The scheduler serves rank r's request: each share's timing first, then up to `count`
        // chunks (at most k) to the rank's shares in turn.
        let s = match config.service {
            ServiceModel::Serial => t.max(server_free),
            ServiceModel::Parallel => t,
        };
        let rank = &mut sim.ranks[r];
        // Only an adaptive technique's chunks depend on timings (`ChunkScheduler::learns`).
        if learns {
            for (j, timing) in rank.reported.iter_mut().enumerate() {
                if let Some(timing) = timing.take() {
                    scheduler.record(r * k + j, timing);
                }
            }
        }
        for _ in 0..rank.count.min(k) {
            let j = turn[r];
            let Some(chunk) = scheduler.next_chunk(r * k + j) else {
                break;
            };
            let (work, longest_here) = sampler.take_at(chunk.start, chunk.size);
            base_work += work;
            longest = longest.max(longest_here);
            rank.reply.push(Handed {
                chunk,
                work,
                share: j,
            });
            turn[r] = (j + 1) % k;
        }
        let cost = h + rank.reply.len().saturating_sub(1) as f64 * c;
        rank.served = true;
        let served = s + cost;
        server_free = served;
        requests += 1;
        busy += cost;
        let arrives = served + sim.latency(r);
        sim.push(arrives, id);
    }
    // At the loop's end every rank's timings not yet reported reach the scheduler (they change
    // no chunk: every iterate has been handed out).
    if learns {
        for (r, rank) in sim.ranks.iter_mut().enumerate() {
            for (j, timing) in rank.unreported.iter_mut().enumerate() {
                if let Some(timing) = timing.take() {
                    scheduler.record(r * k + j, timing);
                }
            }
        }
    }

    let makespan = sim.last_end.iter().copied().fold(0.0f64, f64::max);
    let mut ranks = sim.reports;
    for x in &mut ranks {
        x.idle_time_s = (makespan - x.work_time_s).max(0.0);
    }
    let mut report = LoopReport {
        name: "simulation".to_string(),
        technique: config.technique.to_string(),
        n,
        p: workers,
        parallel_time_s: makespan,
        lower_bound_s: sim.speeds.lower_bound(base_work, longest),
        ranks,
        chunk_map: sim.chunk_map,
        chunk_times: sim.chunk_times,
        backend: "simulation".to_string(),
        ..LoopReport::default()
    };
    report.summarise();
    Ok(SimOutcome {
        report,
        iterate_time: config.iterate_time.to_string(),
        overhead_s: h,
        latency_s: config.latency_s,
        seed: config.seed,
        service: config.service,
        base_work_s: base_work,
        longest_iterate_s: longest,
        requests,
        scheduler_busy_s: busy,
        splits: 0,
        hand_out: HandOut::Hierarchical(hierarchy),
    })
}
