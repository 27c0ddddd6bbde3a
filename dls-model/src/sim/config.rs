//! The settings of one simulated loop.

use super::error::SimError;
use super::hand_out::HandOut;
use super::iterate_time::IterateTimeModel;
use super::service::ServiceModel;
use super::speed::{RankSpeeds, Slowdown};
use crate::technique::ModelFacts;
use crate::Technique;

/// Most ranks a simulation accepts (2^20 = 1,048,576; memory grows linearly with P).
///
/// ```
/// use dls_model::sim::{simulate, SimConfig, MAX_RANKS};
/// let c = SimConfig::new("ss".parse().unwrap(), 10, MAX_RANKS + 1);
/// assert!(simulate(&c).unwrap_err().to_string().contains("--p"));
/// ```
pub const MAX_RANKS: usize = 1 << 20;

/// Everything that defines one simulated loop. Start from [`SimConfig::new`] and set fields.
///
/// ```
/// use dls_model::sim::{simulate, SimConfig};
/// let mut c = SimConfig::new("fac2".parse().unwrap(), 1000, 4);
/// c.iterate_time = "exp:1ms".parse().unwrap();
/// c.speeds = vec![1.0, 1.0, 1.0, 3.0];
/// c.overhead_s = 5e-6;
/// let out = simulate(&c).unwrap();
/// assert_eq!(out.report.ranks.iter().map(|r| r.iterates).sum::<u64>(), 1000);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SimConfig {
    /// The loop scheduling technique.
    pub technique: Technique,
    /// N, iterates of the loop.
    pub n: u64,
    /// P, ranks executing iterates (rank 0 also hosts the scheduler). Under
    /// [`HandOut::Hierarchical`] each rank runs k threads: the loop has P·k workers
    /// ([`workers`](Self::workers)).
    pub p: usize,
    /// Time of each iterate at time factor 1. Default `const:1ms`.
    pub iterate_time: IterateTimeModel,
    /// Per-rank time factors (3 = three times slower); empty means all 1. Under
    /// [`HandOut::Hierarchical`], one per worker (thread j of rank r is worker r·k + j).
    pub speeds: Vec<f64>,
    /// Changes of rank speed during the loop (of a worker's under [`HandOut::Hierarchical`]).
    pub slowdowns: Vec<Slowdown>,
    /// When each rank reaches the loop, seconds after rank 0 starts it (its first request is
    /// sent then); empty means all 0. Under [`HandOut::Hierarchical`], one per worker: a thread
    /// takes no chunk before its time, and a rank's first request leaves when its first thread
    /// arrives. Under mpirun a rank that leaves the code before the loop
    /// a little later than rank 0 starts late (about 1–5 ms measured on 2 cores), and adaptive
    /// techniques then first measure rank 0 alone.
    ///
    /// ```
    /// use dls_model::sim::{simulate, SimConfig};
    /// // STATIC, 2 iterates of 1 s on 2 ranks, rank 1 half a second late: it ends at 1.5 s.
    /// let mut c = SimConfig::new("static".parse().unwrap(), 2, 2);
    /// c.iterate_time = "const:1s".parse().unwrap();
    /// c.start_s = vec![0.0, 0.5];
    /// assert!((simulate(&c).unwrap().report.parallel_time_s - 1.5).abs() < 1e-12);
    /// c.start_s = vec![0.5];
    /// assert!(simulate(&c).unwrap_err().to_string().contains("--starts"));
    /// ```
    pub start_s: Vec<f64>,
    /// How an idle rank splits a chunk in progress once every iterate has been handed out, as
    /// the runtime does with re-execution (`DLS_SPLIT`): [`SplitModel::Mpi`](super::SplitModel::Mpi)
    /// or [`SplitModel::Threads`](super::SplitModel::Threads). Default
    /// [`SplitModel::Off`](super::SplitModel::Off) (the published techniques). Drawing
    /// each chunk's iterate times costs memory in proportion to the chunks in progress.
    pub split: super::SplitModel,
    /// h: seconds of scheduling overhead per request (see [`ServiceModel`]). Default 0.
    pub overhead_s: f64,
    /// One-way message latency between a rank other than 0 and the scheduler, seconds. Default 0.
    pub latency_s: f64,
    /// Seed of the iterate-time model. Default 1.
    pub seed: u64,
    /// Whether requests are served one at a time by the scheduler (default) or each on its own.
    pub service: ServiceModel,
    /// Who asks the scheduler for chunks: every worker for itself ([`HandOut::Central`], the
    /// default), each rank for a batch for its threads ([`HandOut::Hierarchical`]), or each
    /// rank its group's sub-scheduler, which asks rank 0 for batches ([`HandOut::Tree`]).
    ///
    /// ```
    /// use dls_model::sim::{simulate, HandOut, SimConfig};
    /// // SS on 4 ranks of 8 threads against 32 workers asking for themselves, h = 20 us: a
    /// // rank's request brings a block of many chunks, so the loop needs fewer requests and
    /// // ends sooner.
    /// let mut c = SimConfig::new("ss".parse().unwrap(), 4000, 32);
    /// c.iterate_time = "exp:10us".parse().unwrap();
    /// c.overhead_s = 20e-6;
    /// let central = simulate(&c).unwrap().report.parallel_time_s;
    /// c.p = 4;
    /// c.hand_out = HandOut::threads(8);
    /// let out = simulate(&c).unwrap();
    /// assert_eq!(out.report.p, 32);
    /// assert!(out.requests < 4000);
    /// assert!(out.report.parallel_time_s < central);
    /// ```
    pub hand_out: HandOut,
    /// Record every chunk in the report's `chunk_map` and its simulated start and end in
    /// `chunk_times` (memory grows with the chunk count).
    /// Default false.
    pub chunk_map: bool,
}

impl SimConfig {
    /// A loop of `n` iterates on `p` ranks with the default settings listed on each field.
    ///
    /// ```
    /// let c = dls_model::sim::SimConfig::new(dls_model::technique::Technique::new(
    ///     dls_model::technique::Kind::Ss), 10, 2);
    /// assert_eq!(c.iterate_time.to_string(), "const:1ms");
    /// ```
    pub fn new(technique: Technique, n: u64, p: usize) -> Self {
        SimConfig {
            technique,
            n,
            p,
            iterate_time: IterateTimeModel::Constant(1e-3),
            speeds: Vec::new(),
            slowdowns: Vec::new(),
            start_s: Vec::new(),
            split: super::SplitModel::Off,
            overhead_s: 0.0,
            latency_s: 0.0,
            seed: 1,
            service: ServiceModel::Serial,
            hand_out: HandOut::Central,
            chunk_map: false,
        }
    }

    /// Gives the technique what its formula needs and its specification left unset, by the
    /// technique's own model hook ([`Technique::fill_from_model`]): today FSC, FAC and TAP take
    /// mu and sigma of the iterate-time model, FSC h = `overhead_s`, and WF the relative speeds
    /// `1 / speeds[i]` as weights. Values that are zero are left unset (technique parameters
    /// must be positive). Returns a note naming what was filled, or `None`.
    ///
    /// ```
    /// let mut c = dls_model::sim::SimConfig::new("fac".parse().unwrap(), 100, 4);
    /// c.iterate_time = "exp:2ms".parse().unwrap();
    /// assert!(c.fill_technique_params().unwrap().contains("mu = 2ms"));
    /// assert_eq!(c.technique.params.sigma, Some(2e-3));
    ///
    /// // FSC without an overhead: nothing to take h from, so nothing is filled.
    /// let mut c = dls_model::sim::SimConfig::new("fsc".parse().unwrap(), 100, 4);
    /// assert!(c.fill_technique_params().unwrap().contains("mFSC"));
    /// assert_eq!(c.technique.params.sigma, None);
    /// ```
    pub fn fill_technique_params(&mut self) -> Option<String> {
        let model = &self.iterate_time;
        let n = self.n;
        let moments = || model.moments(n);
        let facts = ModelFacts::new(&moments, self.overhead_s, &self.speeds);
        self.technique.fill_from_model(&facts)
    }

    /// Workers of the loop: P under central hand-out, P·k with k threads per rank (saturating).
    ///
    /// ```
    /// let mut c = dls_model::sim::SimConfig::new("ss".parse().unwrap(), 10, 4);
    /// assert_eq!(c.workers(), 4);
    /// c.hand_out = dls_model::sim::HandOut::threads(16);
    /// assert_eq!(c.workers(), 64);
    /// ```
    pub fn workers(&self) -> usize {
        self.p.saturating_mul(self.hand_out.threads_per_rank())
    }

    /// Checks every setting and resolves the rank speeds for this loop.
    ///
    /// ```
    /// let mut c = dls_model::sim::SimConfig::new("ss".parse().unwrap(), 10, 0);
    /// assert!(c.validate().unwrap_err().to_string().contains("--p"));
    /// c.p = 2;
    /// c.latency_s = f64::NAN;
    /// assert!(c.validate().unwrap_err().to_string().contains("--latency"));
    /// ```
    pub fn validate(&self) -> Result<RankSpeeds, SimError> {
        if self.p == 0 || self.p > MAX_RANKS {
            return Err(SimError::new(format!(
                "--p: {} ranks requested; the simulator takes 1 to {MAX_RANKS}",
                self.p
            )));
        }
        for (what, v) in [
            ("--overhead", self.overhead_s),
            ("--latency", self.latency_s),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(SimError::new(format!(
                    "{what}: {v} is not allowed; give a finite duration >= 0 (e.g. 5us)"
                )));
            }
        }
        if let HandOut::Hierarchical(h) = self.hand_out {
            // Thread events and rank events share the event queue's 20 bits of identity.
            let ids = self.p.saturating_mul(h.threads.saturating_add(1));
            if h.threads == 0 || ids > MAX_RANKS {
                return Err(SimError::new(format!(
                    "--hand-out: {} ranks of {} threads; the simulator takes 1 to {MAX_RANKS} \
                     for p x (threads + 1)",
                    self.p, h.threads
                )));
            }
            for v in [h.chunk_cost_s, h.pop_cost_s] {
                if !(v.is_finite() && v >= 0.0) {
                    return Err(SimError::new(format!(
                        "--hand-out: {v} is not allowed; give finite durations >= 0 (e.g. \
                         threads:64:100ns:100ns)"
                    )));
                }
            }
            if self.split != super::SplitModel::Off {
                return Err(SimError::new(
                    "--split: splitting chunks in progress is not modelled with threads inside \
                     ranks (--hand-out threads:K); use --hand-out central",
                ));
            }
        }
        if let HandOut::Tree(tree) = self.hand_out {
            // Rank requests, batch requests and batch replies share the event queue's 20 bits.
            let ids = self.p.saturating_add(2 * tree.groups(self.p));
            if tree.fan_out == 0 || ids > MAX_RANKS {
                return Err(SimError::new(format!(
                    "--hand-out: a tree of fan-out {} on {} ranks; the simulator takes a fan-out \
                     of at least 1 and 1 to {MAX_RANKS} for p + 2 x groups",
                    tree.fan_out, self.p
                )));
            }
            if self.split != super::SplitModel::Off {
                return Err(SimError::new(
                    "--split: splitting chunks in progress is not modelled under a scheduler \
                     tree (--hand-out tree:F); use --hand-out central",
                ));
            }
        }
        let workers = self.workers();
        if !self.start_s.is_empty() && self.start_s.len() != workers {
            return Err(SimError::new(format!(
                "--starts: {} start times for {} {}; give one per {} (e.g. 0,5ms)",
                self.start_s.len(),
                workers,
                if matches!(self.hand_out, HandOut::Hierarchical(_)) {
                    "workers (ranks x threads)"
                } else {
                    "ranks"
                },
                if matches!(self.hand_out, HandOut::Hierarchical(_)) {
                    "worker"
                } else {
                    "rank"
                }
            )));
        }
        if let Some(bad) = self.start_s.iter().find(|t| !(t.is_finite() && **t >= 0.0)) {
            return Err(SimError::new(format!(
                "--starts: {bad} is not allowed; give finite durations >= 0 (e.g. 0,5ms)"
            )));
        }
        self.iterate_time.check_len(self.n)?;
        RankSpeeds::new(&self.speeds, &self.slowdowns, workers, self.n)
    }
}
