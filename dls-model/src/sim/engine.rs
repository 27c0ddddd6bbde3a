//! The discrete-event loop.
//!
//! # Model
//!
//! P ranks execute iterates; rank 0 also hosts the scheduler, as in the DLS tool of Cariño &
//! Banicescu (2007), their scheduler-worker strategy, where the scheduler participates in executing loads.
//! Requests are served by a dedicated progress thread on rank 0, so rank 0 computes at full speed
//! and requests never wait for rank 0 to finish an iterate (a scheduler that answered only between its own iterates
//! would starve the workers). The progress thread is one server: it serves requests one at a time, in order of
//! arrival, each in `h` seconds (`overhead_s`). A request that arrives while it is busy waits.
//! With [`ServiceModel::Parallel`] requests never wait: each is served in `h` on its own (a
//! decentralised chunk calculation; Hummel, Schonberg & Flynn's overhead model).
//!
//! One chunk on rank r:
//! 1. r sends a request at time `t` (its start time at the loop start, 0 unless
//!    [`SimConfig::start_s`] says otherwise; then when its previous chunk ended). The request carries the timing of r's previous chunk.
//! 2. It arrives at `t + L` (`L` = `latency_s`; 0 for rank 0, which is local).
//! 3. The scheduler serves it from `s = max(arrival, end of the previous service)` (serial; `s =
//!    arrival` for parallel service) to `s + h`: it
//!    records the piggy-backed timing ([`ChunkScheduler::record`], so adaptive techniques learn)
//!    and takes the next chunk ([`ChunkScheduler::next_chunk`]).
//! 4. The reply arrives at `s + h + L`; r executes the chunk: base work (the sum of the chunk's
//!    iterate times) times r's time factor, with timed slowdowns applied exactly
//!    ([`RankSpeeds::duration`](super::RankSpeeds::duration)).
//! 5. When the scheduler has no iterate left, the reply says so and r stops (that request still
//!    costs `h` of server time).
//!
//! # Threads inside ranks
//!
//! Under [`HandOut::Hierarchical`] (`DLS_THREADS=k` under mpirun) P ranks run k threads each:
//! P·k workers, thread j of rank r being worker `r·k + j`, and the technique is computed over
//! P·k workers (slot `r·k + j` is share j of rank r). The rule is the runtime's
//! (`runtime/backend/mpi/hybrid.rs`):
//! 1. **The scheduler.** A rank's request asks for `count` chunks and carries, per share j, the
//!    timing of the share's chunks finished since the rank's previous request (summed if there
//!    are several). It reaches the scheduler after `L` (0 from rank 0, whose threads take part
//!    like any rank's) and is served like a single request (serial or parallel, from `s`), in
//!    `h + (m − 1)·c` for m chunks (`c` = [`Hierarchy::chunk_cost_s`]; `h` for none): an
//!    adaptive technique records each share's timing for slot `r·k + j`, then the scheduler
//!    takes up to `count` chunks (never more than k), handing them to the rank's shares in turn
//!    (a cursor per rank, moved on per chunk), each chunk tagged with its share. The reply
//!    reaches the rank at `s + h + (m − 1)·c + L` and its chunks join the rank's queue; an empty
//!    reply ends the rank.
//! 2. **What a rank measures.** The time a chunk takes (a running mean, weight 1/4 for each new
//!    chunk, starting at the first chunk's; a chunk's time is its work time, from its start to
//!    its end, not the pop or the wait for a reply of the thread that asked for it) and the
//!    round trip of a request, from its sending to its reply's arrival (a running mean, weight
//!    1/4, from 1 µs, each measurement at least 1 µs). The depth, the chunks whose run hides a
//!    round trip, is 0 before the first chunk ends, then `min(k, ⌊k × round trip / chunk
//!    time⌋)` (`k` for chunks of no time), rounded down: 0 while chunks are longer than k round
//!    trips, so that a rank then asks only when a thread finds the queue empty.
//! 3. **A thread free at `t`** (at its start time, or when its chunk ends; the chunk's timing
//!    goes to its share) takes the next chunk from the queue, which costs `l`
//!    ([`Hierarchy::pop_cost_s`]). If that pop leaves fewer chunks than half the depth
//!    (`⌈depth / 2⌉`), no request of the rank is in flight and the rank is not done, the thread
//!    asks at `t + l` for the depth's missing chunks (enough to fill the queue to the depth) and
//!    starts its own chunk only when the reply arrives; otherwise it starts it at `t + l`.
//! 4. **A thread that finds the queue empty** waits for the request in flight, or, if none is,
//!    sends one at `t` (for k chunks if it is the rank's first, else for itself, the threads
//!    waiting and the depth, at most k) and waits. When a reply arrives the thread that asked
//!    after its pop starts its chunk, the thread that asked with nothing to run looks at the
//!    queue first, then the waiting threads in the order they began to wait; a thread that
//!    finds it empty again waits for, or sends, the next request.
//! 5. At the loop's end every rank's timings not yet reported reach the scheduler (they change
//!    no chunk).
//!
//! **Blocks.** A dynamic technique of fixed-size chunks (SS, FSC and mFSC: those whose
//! [`ChunkScheduler::fixed_chunk`] is some `c` for P·k workers; not STATIC) is handed out in
//! blocks of whole chunks instead of batches, as the runtime does:
//! 1. A rank's request asks for `want` iterates. The scheduler serves it in `h` (no cost per
//!    chunk) with the next block: with `left` = N − next (next: the first iterate not handed
//!    out), `min(whole(want), whole(⌈left / 2P⌉), left)` iterates from next (`whole(x)`: x
//!    rounded up to a multiple of c), each chunk's work drawn in index order; a reply with none
//!    (left = 0) ends the rank. Requests carry no timings, as the runtime's.
//! 2. The rank keeps the blocks in a queue; a thread free at `t` pops the next chunk of `c`
//!    iterates (fewer at a block's end) from the front block, at cost `l`. The rank's target
//!    is `c × clamp(⌈2k × round trip / chunk time⌉, k × the chunks of 50 µs (8 to 32; 1 for k = 1), 256·k)` iterates
//!    (the running means above; `256·k·c` for chunks of no time; `k·c` before the first chunk
//!    ends). If the pop
//!    leaves fewer iterates in the queue than half the target (`⌊target / 2⌋`), no request of
//!    the rank is in flight and the rank is not done, the thread asks at `t + l` for the
//!    target's missing iterates and starts its chunk when the reply arrives; otherwise it
//!    starts it at `t + l`.
//! 3. A thread that finds the queue empty waits for the request in flight, or sends one at `t`
//!    for the target (`k·c` if it is the rank's first), or stops if the rank is done; the
//!    threads look at the queue after a reply in the order of item 4 above.
//!
//! A chunk's time is its base work times its worker's time factor, as above. With k = 1 the
//! depth is 1 only while a chunk takes no longer than a round trip; while chunks are longer it
//! is 0, and a rank asks for one chunk when its thread is free, as under central hand-out (the
//! pop cost `l` aside). While chunks are shorter, the thread that pops the rank's only chunk
//! asks for the next one before it starts it: one round trip per chunk, as central.
//!
//! The makespan is the end of the last chunk. Events are kept in a 4-ary heap keyed by
//! (time, sequence number): equal times are served first come, first served, so a run is
//! deterministic. Iterate times are drawn lazily in index order, so memory is O(P) plus the chunk
//! map when requested.

use super::config::SimConfig;
use super::error::SimError;
use super::event_queue::{Arrival, EventQueue};
use super::hand_out::HandOut;
use super::iterate_time::IterateSampler;
use super::outcome::SimOutcome;
use super::speed::RankSpeeds;
use super::split::{Running, SplitModel};
use super::state::{latency, start_time, Server, Tally};
use crate::{Chunk, ChunkScheduler, ChunkTiming};

#[cfg(doc)]
use super::hand_out::Hierarchy;
#[cfg(doc)]
use super::service::ServiceModel;

/// Simulates one loop (see the [module documentation](self) for the model).
///
/// ```
/// use dls_model::sim::{simulate, SimConfig};
/// // 4 iterates of 1 s on 2 ranks under STATIC, h = 0.1 s, L = 0.01 s: rank 0 is served at
/// // [0, 0.1] and ends at 2.1; rank 1's request arrives at 0.01, is served at [0.1, 0.2], the
/// // reply arrives at 0.21 and rank 1 ends at 2.21.
/// let mut c = SimConfig::new("static".parse().unwrap(), 4, 2);
/// c.iterate_time = "const:1s".parse().unwrap();
/// c.overhead_s = 0.1;
/// c.latency_s = 0.01;
/// let out = simulate(&c).unwrap();
/// assert!((out.report.parallel_time_s - 2.21).abs() < 1e-12);
/// assert_eq!(out.report.lower_bound_s, 2.0);
/// ```
pub fn simulate(config: &SimConfig) -> Result<SimOutcome, SimError> {
    let speeds = config.validate()?;
    if let HandOut::Hierarchical(hierarchy) = config.hand_out {
        return super::hierarchy::simulate(config, hierarchy, speeds);
    }
    if let HandOut::Tree(tree) = config.hand_out {
        return super::tree::simulate(config, tree, speeds);
    }
    Ok(Central::new(config, speeds)?.run())
}

/// The whole state of one simulation under central hand-out. The queue holds one arrival per
/// rank, its next request; the earliest is served, and the rank's next request replaces it at
/// the top of the queue (one sift-down instead of a pop and a push), or it leaves the queue when
/// the rank is done.
struct Central<'a> {
    config: &'a SimConfig,
    /// The ranks' time factors and slowdowns.
    speeds: RankSpeeds,
    /// The technique over the P ranks.
    scheduler: ChunkScheduler,
    /// Iterate times, drawn when the scheduler hands a chunk out.
    sampler: IterateSampler,
    /// The ranks' requests on their way, keyed by (time, sequence number).
    queue: EventQueue,
    /// The sequence number of the next arrival.
    seq: u64,
    /// The arrival each rank's next request is: an arrival left behind when its chunk was split
    /// (and so ends earlier) is dropped.
    valid: Vec<u64>,
    /// Per rank: when it sent its request for the chunk in progress (then: when it ends).
    sent_at: Vec<f64>,
    /// Per rank: the timing its next request carries.
    pending: Vec<Option<ChunkTiming>>,
    /// Per rank: its chunk in progress, where chunks may be split.
    running: Vec<Option<Running>>,
    /// The scheduler's progress thread on rank 0.
    server: Server,
    /// The ranks' chunks, for the outcome.
    tally: Tally,
}

impl<'a> Central<'a> {
    /// Every rank's first request on its way: sent at its start time.
    fn new(config: &'a SimConfig, speeds: RankSpeeds) -> Result<Self, SimError> {
        let (n, p) = (config.n, config.p);
        let mut sim = Central {
            config,
            speeds,
            scheduler: ChunkScheduler::new(&config.technique, n, p)?,
            sampler: config.iterate_time.sampler(n, config.seed),
            queue: EventQueue::with_capacity(p),
            seq: 0,
            valid: vec![0; p],
            sent_at: (0..p).map(|rank| start_time(config, rank)).collect(),
            pending: vec![None; p],
            running: vec![None; p],
            server: Server::default(),
            tally: Tally::new(p),
        };
        for rank in 0..p {
            sim.push(rank, start_time(config, rank) + latency(config, rank));
        }
        Ok(sim)
    }

    /// Rank `rank`'s next request arrives at `time`: a new arrival in the queue.
    fn push(&mut self, rank: usize, time: f64) {
        self.queue.push(Arrival::new(time, self.seq, rank));
        self.valid[rank] = self.seq;
        self.seq += 1;
    }

    /// Rank `rank`'s next request arrives at `time`, in place of the arrival being served.
    fn replace_top(&mut self, rank: usize, time: f64) {
        self.queue.replace_top(Arrival::new(time, self.seq, rank));
        self.valid[rank] = self.seq;
        self.seq += 1;
    }

    /// Serves the arrivals in order until every rank is done, and gives the outcome.
    fn run(mut self) -> SimOutcome {
        while let Some(top) = self.queue.peek() {
            let (time, rank) = (top.time(), top.rank());
            if top.seq() == self.valid[rank] {
                self.serve(rank, time);
            } else {
                self.queue.pop();
            }
        }
        let busy = self.server.requests as f64 * self.config.overhead_s;
        self.tally
            .finish(self.config, &self.speeds, &self.server, busy)
    }

    /// Serves rank `rank`'s request arriving at `time`: the scheduler records its timing and
    /// takes the next chunk; with none left, the rank gets a part split off a chunk in
    /// progress, asks again later (an ask to another rank is pending) or stops.
    fn serve(&mut self, rank: usize, time: f64) {
        let config = self.config;
        let served = self.server.serve(config.service, time, config.overhead_s);
        if let Some(timing) = self.pending[rank].take() {
            self.scheduler.record(rank, timing);
        }
        self.running[rank] = None;
        if let Some(chunk) = self.scheduler.next_chunk(rank) {
            let (work, prefix) = self.draw(chunk);
            self.start(rank, chunk, work, prefix, served + latency(config, rank));
            return;
        }
        let found = match config.split.keep(rank) {
            Some(keep) => split_for(&mut self.running, rank, served, keep, config.split, &|r| {
                latency(config, r)
            }),
            None => Found::Nothing,
        };
        match found {
            Found::Cut(cut) => {
                self.cut(&cut);
                let work = cut.prefix[cut.prefix.len() - 1];
                self.start(rank, cut.part, work, Some(cut.prefix), cut.received);
            }
            // An ask to another rank is pending: ask again when its answer is in.
            Found::Wait(until) => self.replace_top(rank, until),
            Found::Nothing => {
                self.queue.pop();
            }
        }
    }

    /// The base work of `chunk` and, where it may be split, its iterates' prefix sums.
    fn draw(&mut self, chunk: Chunk) -> (f64, Option<Vec<f64>>) {
        if self.config.split != SplitModel::Off {
            let (work, prefix) = self.tally.draw_prefix(&mut self.sampler, chunk);
            (work, Some(prefix))
        } else {
            (self.tally.draw(&mut self.sampler, chunk), None)
        }
    }

    /// The holder of the chunk `cut` split ends earlier: its timing, tallies, map entry and
    /// next request follow.
    fn cut(&mut self, cut: &Cut) {
        let holder = cut.holder;
        let hr = &mut self.tally.reports[holder];
        hr.iterates -= cut.part.size;
        hr.work_time_s -= cut.holder_saved_s;
        if let Some(t) = self.pending[holder].as_mut() {
            t.iterates -= cut.part.size;
            t.work_s -= cut.holder_saved_s;
            t.elapsed_s -= cut.holder_saved_s;
        }
        self.sent_at[holder] = cut.holder_end;
        self.tally.last_end[holder] = cut.holder_end;
        if let Some(i) = cut.map_index {
            self.tally.chunk_map[i][1] -= cut.part.size;
            if let Some(Some([_, end])) = self.tally.chunk_times.get_mut(i) {
                *end = cut.holder_end;
            }
        }
        self.push(holder, cut.holder_end + latency(self.config, holder));
        self.tally.splits += 1;
    }

    /// Rank `rank` receives `chunk` (base work `work`; its prefix sums where it may be split)
    /// at `received` and runs it; its next request leaves when the chunk ends.
    fn start(
        &mut self,
        rank: usize,
        chunk: Chunk,
        work: f64,
        prefix: Option<Vec<f64>>,
        received: f64,
    ) {
        let duration = self.speeds.duration(rank, received, work, chunk.start);
        let (done, map_index) =
            self.tally
                .started(rank, chunk, received, duration, self.config.chunk_map);
        self.pending[rank] = Some(ChunkTiming {
            iterates: chunk.size,
            work_s: duration,
            elapsed_s: done - self.sent_at[rank],
        });
        if let Some(prefix) = prefix {
            self.running[rank] = Some(Running {
                start: chunk.start,
                prefix,
                received,
                factor: if work > 0.0 { duration / work } else { 1.0 },
                map_index,
                asked_until: f64::NEG_INFINITY,
            });
        }
        self.sent_at[rank] = done;
        self.tally.last_end[rank] = done;
        self.replace_top(rank, done + latency(self.config, rank));
    }
}

/// A chunk split off for an idle rank.
struct Cut {
    holder: usize,
    /// The part the idle rank gets.
    part: Chunk,
    /// Its iterates' base-time prefix sums.
    prefix: Vec<f64>,
    /// When the idle rank receives it.
    received: f64,
    /// When the holder now ends, and the time it no longer spends.
    holder_end: f64,
    holder_saved_s: f64,
    map_index: Option<usize>,
}

/// What an idle rank's request finds once every iterate has been handed out.
enum Found {
    /// A part of a chunk in progress.
    Cut(Cut),
    /// Nothing now, but an ask to another rank is pending: ask again at this time.
    Wait(f64),
    /// Nothing: the rank is done.
    Nothing,
}

/// The runtime's split (`runtime/tolerance/split.rs`) at time `now` for idle rank `asker`: the chunk in
/// progress whose iterates not yet started take longest, if at least
/// [`SPLIT_MIN`](crate::tuning::SPLIT_MIN), keeps `keep` quarters of them and loses
/// the rest. The iterate in progress is not cut. Under [`SplitModel::Mpi`] a chunk of a rank
/// other than 0 is split when its holder answers the ask (see [`SplitModel::Mpi`]).
fn split_for(
    running: &mut [Option<Running>],
    asker: usize,
    now: f64,
    keep: u64,
    model: SplitModel,
    latency: &dyn Fn(usize) -> f64,
) -> Found {
    let min = crate::tuning::SPLIT_MIN.as_secs_f64();
    let mut best: Option<(f64, usize)> = None;
    let mut pending = f64::INFINITY;
    for (h, run) in running.iter().enumerate() {
        let Some(run) = run else { continue };
        if h == asker {
            continue;
        }
        if run.asked_until > now {
            pending = pending.min(run.asked_until);
            continue;
        }
        let started = run.started_by(now);
        if run.len() < started + 2 {
            continue;
        }
        let left = run.left_after(started);
        if left >= min && best.is_none_or(|(b, _)| left > b) {
            best = Some((left, h));
        }
    }
    let Some((_, holder)) = best else {
        return if pending.is_finite() {
            Found::Wait(pending)
        } else {
            Found::Nothing
        };
    };
    let Some(run) = running[holder].as_mut() else {
        return Found::Nothing;
    };
    let remote = model == SplitModel::Mpi && holder != 0;
    let (started, answered) = if remote {
        // The holder looks for the ask at the end of the first iterate that ends half a poll
        // after the ask's arrival.
        let poll = crate::tuning::SPLIT_POLL.as_secs_f64();
        let k = run.started_by(now + latency(holder) + poll / 2.0);
        (k, run.received + run.prefix[k as usize] * run.factor)
    } else {
        (run.started_by(now), now)
    };
    let limit = run.len();
    if remote && (limit < started + 2 || run.left_after(started) < min) {
        // Too little left when the holder answers: it refuses, and is not asked again.
        run.asked_until = f64::INFINITY;
        return Found::Wait(answered + latency(holder));
    }
    let left = limit - started;
    let s = started + (left * keep / 4).clamp(1, left - 1);
    let base_s = run.prefix[s as usize];
    let part_prefix: Vec<f64> = run.prefix[s as usize..]
        .iter()
        .map(|p| p - base_s)
        .collect();
    let saved = run.left_after(s);
    run.prefix.truncate(s as usize + 1);
    let holder_end = run.received + base_s * run.factor;
    let received = if remote {
        run.asked_until = answered + latency(holder);
        answered + latency(holder) + latency(asker)
    } else {
        now + latency(asker)
    };
    Found::Cut(Cut {
        holder,
        part: Chunk {
            start: run.start + s,
            size: limit - s,
        },
        prefix: part_prefix,
        received,
        holder_end,
        holder_saved_s: saved,
        map_index: run.map_index,
    })
}
