//! What the two event loops share ([central](super::engine) and
//! [hierarchical](super::hierarchy) hand-out): the scheduler's server, the drawing of a chunk's
//! work, the tallies of the workers' chunks and the outcome built from them.

use super::config::SimConfig;
use super::iterate_time::IterateSampler;
use super::outcome::SimOutcome;
use super::service::ServiceModel;
use super::speed::RankSpeeds;
use crate::{Chunk, LoopReport, RankReport};

/// One-way latency of a message between rank `rank` and the scheduler: 0 for rank 0 (local),
/// else [`SimConfig::latency_s`].
pub(super) fn latency(config: &SimConfig, rank: usize) -> f64 {
    if rank == 0 {
        0.0
    } else {
        config.latency_s
    }
}

/// When worker `w` reaches the loop ([`SimConfig::start_s`], 0 where not given).
pub(super) fn start_time(config: &SimConfig, w: usize) -> f64 {
    config.start_s.get(w).copied().unwrap_or(0.0)
}

/// The scheduler's progress thread: when it is free, and the requests it has served.
#[derive(Debug, Default)]
pub(super) struct Server {
    /// When the request served last is done.
    free: f64,
    /// Requests served.
    pub(super) requests: u64,
}

impl Server {
    /// Serves a request arriving at `arrival` in `cost` seconds: from the arrival, or under
    /// [`ServiceModel::Serial`] from the end of the previous service if later. Returns when the
    /// service ends.
    pub(super) fn serve(&mut self, service: ServiceModel, arrival: f64, cost: f64) -> f64 {
        let from = match service {
            ServiceModel::Serial => arrival.max(self.free),
            ServiceModel::Parallel => arrival,
        };
        self.free = from + cost;
        self.requests += 1;
        self.free
    }
}

/// What the workers did, as the outcome reports it: per worker its report and the end of its
/// last chunk, the chunk map, the base work and longest iterate drawn, and the splits.
#[derive(Debug)]
pub(super) struct Tally {
    /// Per worker: iterates, work time and chunks (idle time at the end).
    pub(super) reports: Vec<RankReport>,
    /// Per worker: the end of its last chunk.
    pub(super) last_end: Vec<f64>,
    /// Every chunk as `[start, size, worker]`, when the configuration asks for the map.
    pub(super) chunk_map: Vec<[u64; 3]>,
    /// Every chunk's `[begin, end]`, in the order of `chunk_map`.
    pub(super) chunk_times: Vec<Option<[f64; 2]>>,
    /// Sum of the iterate times drawn, at time factor 1.
    base_work: f64,
    /// Longest iterate drawn, at time factor 1.
    longest: f64,
    /// Chunks in progress split for an idle rank.
    pub(super) splits: u64,
}

impl Tally {
    /// Nothing done yet by `workers` workers.
    pub(super) fn new(workers: usize) -> Tally {
        Tally {
            reports: (0..workers)
                .map(|rank| RankReport {
                    rank,
                    ..RankReport::default()
                })
                .collect(),
            last_end: vec![0.0; workers],
            chunk_map: Vec::new(),
            chunk_times: Vec::new(),
            base_work: 0.0,
            longest: 0.0,
            splits: 0,
        }
    }

    /// Draws the base work of `chunk`'s iterates (their time at factor 1) and counts it.
    pub(super) fn draw(&mut self, sampler: &mut IterateSampler, chunk: Chunk) -> f64 {
        let (work, longest) = sampler.take_at(chunk.start, chunk.size);
        self.base_work += work;
        self.longest = self.longest.max(longest);
        work
    }

    /// [`draw`](Self::draw) keeping the iterates' times: the base work and its prefix sums
    /// (`prefix[k]`: the first k iterates' base time), for a chunk that may be split.
    pub(super) fn draw_prefix(
        &mut self,
        sampler: &mut IterateSampler,
        chunk: Chunk,
    ) -> (f64, Vec<f64>) {
        let times = sampler.times_at(chunk.start, chunk.size);
        let mut prefix = Vec::with_capacity(times.len() + 1);
        let mut sum = 0.0;
        prefix.push(0.0);
        for t in times {
            sum += t;
            self.longest = self.longest.max(t);
            prefix.push(sum);
        }
        self.base_work += sum;
        (sum, prefix)
    }

    /// Worker `w` starts `chunk` at `begin` for `duration` seconds: its report counts the chunk
    /// and, if `map`, the chunk map lists it. Returns when it ends and its index in the map.
    pub(super) fn started(
        &mut self,
        w: usize,
        chunk: Chunk,
        begin: f64,
        duration: f64,
        map: bool,
    ) -> (f64, Option<usize>) {
        let end = begin + duration;
        let report = &mut self.reports[w];
        report.iterates += chunk.size;
        report.work_time_s += duration;
        report.chunks += 1;
        let index = map.then(|| {
            self.chunk_map.push([chunk.start, chunk.size, w as u64]);
            self.chunk_times.push(Some([begin, end]));
            self.chunk_map.len() - 1
        });
        (end, index)
    }

    /// The outcome of the loop of `config` on workers of `speeds`: the makespan is the end of
    /// the last chunk, a worker's idle time the rest of it; the scheduler served the `server`'s
    /// requests in `scheduler_busy_s`.
    pub(super) fn finish(
        self,
        config: &SimConfig,
        speeds: &RankSpeeds,
        server: &Server,
        scheduler_busy_s: f64,
    ) -> SimOutcome {
        let makespan = self.last_end.iter().copied().fold(0.0f64, f64::max);
        let mut ranks = self.reports;
        for r in &mut ranks {
            r.idle_time_s = (makespan - r.work_time_s).max(0.0);
        }
        let mut report = LoopReport {
            name: "simulation".to_string(),
            technique: config.technique.to_string(),
            n: config.n,
            p: ranks.len(),
            parallel_time_s: makespan,
            lower_bound_s: speeds.lower_bound(self.base_work, self.longest),
            ranks,
            chunk_map: self.chunk_map,
            chunk_times: self.chunk_times,
            backend: "simulation".to_string(),
            scheduler: Some(crate::report::SchedulerReport::new(
                server.requests,
                scheduler_busy_s,
                makespan,
            )),
            ..LoopReport::default()
        };
        report.summarise();
        SimOutcome {
            report,
            iterate_time: config.iterate_time.to_string(),
            overhead_s: config.overhead_s,
            latency_s: config.latency_s,
            seed: config.seed,
            service: config.service,
            base_work_s: self.base_work,
            longest_iterate_s: self.longest,
            requests: server.requests,
            scheduler_busy_s,
            sub_requests: 0,
            sub_busy_max_s: 0.0,
            splits: self.splits,
            hand_out: config.hand_out,
        }
    }
}
