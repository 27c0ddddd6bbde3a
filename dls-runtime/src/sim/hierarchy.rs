//! The discrete-event loop of hierarchical hand-out: ranks of k threads, each rank asking rank 0
//! for a batch of chunks and its threads taking them from a local queue. The timing model is in
//! the [engine](super::engine) documentation ("Threads inside ranks").
//!
//! Two kinds of events share the event queue: a thread free at a time (id = its worker index
//! `r·k + j`, below P·k), and a rank's message (id = P·k + r): its request arriving at the
//! scheduler, then its reply arriving at the rank. A rank has at most one request in flight, so
//! it has at most one message event; a thread has at most one event (none while it waits).

use std::collections::VecDeque;

use super::config::SimConfig;
use super::error::SimError;
use super::event_queue::{Arrival, EventQueue};
use super::hand_out::{HandOut, Hierarchy};
use super::outcome::SimOutcome;
use super::service::ServiceModel;
use super::speed::RankSpeeds;
use crate::{Chunk, ChunkScheduler, ChunkTiming, LoopReport, RankReport};

/// A chunk handed to a rank, with its base work (drawn when the scheduler hands it out).
#[derive(Debug, Clone, Copy)]
struct Handed {
    chunk: Chunk,
    work: f64,
}

/// Chunks a rank's threads finished: what a request reports.
#[derive(Debug, Clone, Copy, Default)]
struct Finished {
    iterates: u64,
    work_s: f64,
    elapsed_s: f64,
}

/// A rank's side of the hand-out.
#[derive(Debug, Default)]
struct Rank {
    /// Chunks received and not yet taken, in order.
    queue: VecDeque<Handed>,
    /// Threads (worker indices) waiting for the reply, in the order they began to wait.
    waiting: VecDeque<usize>,
    /// A request of this rank is in flight (sent, its reply not yet received).
    in_flight: bool,
    /// The request in flight has been served: its message event is now the reply.
    served: bool,
    /// A batch came back empty: no chunk is left for this rank.
    done: bool,
    /// Chunks finished since the previous request.
    finished: Finished,
    /// What the request in flight reports.
    reported: Finished,
    /// The batch on its way back.
    reply: Vec<Handed>,
}

/// A thread's chunk in progress.
#[derive(Debug, Clone, Copy)]
struct Running {
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
    prefetch_below: usize,
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

    /// Rank `r` sends its request at `at`, reporting its chunks finished since the last one.
    fn send(&mut self, r: usize, at: f64) {
        let arrives = at + self.latency(r);
        let rank = &mut self.ranks[r];
        rank.in_flight = true;
        rank.served = false;
        rank.reported = std::mem::take(&mut rank.finished);
        self.push(arrives, self.workers + r);
    }

    /// Thread `w` (free since `asked_at[w]`) takes the next chunk of its rank's queue at `t`,
    /// sends the rank's next request if the queue runs low, and starts the chunk.
    fn start_chunk(&mut self, w: usize, t: f64) {
        let r = w / self.k;
        let Some(handed) = self.ranks[r].queue.pop_front() else {
            return;
        };
        let begin = t + self.pop_s;
        let rank = &self.ranks[r];
        if rank.queue.len() < self.prefetch_below && !rank.in_flight && !rank.done {
            self.send(r, begin);
        }
        let Handed { chunk, work } = handed;
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
            iterates: chunk.size,
            work_s: duration,
            asked_at: self.asked_at[w],
        });
        self.push(end, w);
    }

    /// Thread `w` is free at `t`: its chunk (if any) ended.
    fn thread_free(&mut self, w: usize, t: f64) {
        let r = w / self.k;
        if let Some(run) = self.running[w].take() {
            let f = &mut self.ranks[r].finished;
            f.iterates += run.iterates;
            f.work_s += run.work_s;
            f.elapsed_s += t - run.asked_at;
            self.last_end[w] = t;
        }
        self.asked_at[w] = t;
        let rank = &self.ranks[r];
        if !rank.queue.is_empty() {
            self.start_chunk(w, t);
        } else if !rank.done {
            if !rank.in_flight {
                self.send(r, t);
            }
            self.ranks[r].waiting.push_back(w);
        }
    }

    /// Rank `r`'s reply arrives at `t`: its chunks join the queue and the waiting threads take
    /// them; an empty batch ends the rank.
    fn deliver(&mut self, r: usize, t: f64) {
        let rank = &mut self.ranks[r];
        rank.in_flight = false;
        rank.served = false;
        if rank.reply.is_empty() {
            rank.done = true;
        } else {
            let Rank { queue, reply, .. } = rank;
            queue.extend(reply.drain(..));
        }
        while !self.ranks[r].queue.is_empty() {
            let Some(w) = self.ranks[r].waiting.pop_front() else {
                break;
            };
            self.start_chunk(w, t);
        }
        let rank = &mut self.ranks[r];
        if rank.done && rank.queue.is_empty() {
            rank.waiting.clear();
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
        prefetch_below: hierarchy.prefetch_below(),
        pop_s: hierarchy.pop_cost_s,
        queue: EventQueue::with_capacity(workers + p),
        seq: 0,
        ranks: (0..p).map(|_| Rank::default()).collect(),
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
        // The scheduler serves rank r's request: the timing first, then the batch.
        let s = match config.service {
            ServiceModel::Serial => t.max(server_free),
            ServiceModel::Parallel => t,
        };
        let rank = &mut sim.ranks[r];
        let reported = std::mem::take(&mut rank.reported);
        // Only an adaptive technique's chunks depend on timings (`ChunkScheduler::learns`).
        if reported.iterates > 0 && learns {
            let total = reported.iterates;
            let (each, extra) = (total / k as u64, total % k as u64);
            for j in 0..k {
                let iterates = each + u64::from((j as u64) < extra);
                if iterates == 0 {
                    break;
                }
                let share = iterates as f64 / total as f64;
                scheduler.record(
                    r * k + j,
                    ChunkTiming {
                        iterates,
                        work_s: reported.work_s * share,
                        elapsed_s: reported.elapsed_s * share,
                    },
                );
            }
        }
        for j in 0..k {
            let Some(chunk) = scheduler.next_chunk(r * k + j) else {
                break;
            };
            let (work, longest_here) = sampler.take_at(chunk.start, chunk.size);
            base_work += work;
            longest = longest.max(longest_here);
            rank.reply.push(Handed { chunk, work });
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
