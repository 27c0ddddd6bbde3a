//! The loop report shared by the runtime and the simulator (same JSON field names).

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// What one rank did during one loop.
///
/// ```
/// let r = dls_model::report::RankReport { rank: 0, iterates: 10, work_time_s: 0.5, chunks: 2, ..Default::default() };
/// assert_eq!(r.iterates, 10);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct RankReport {
    /// Rank number (0 is the scheduler).
    pub rank: usize,
    /// Iterates executed by this rank.
    pub iterates: u64,
    /// Seconds spent executing iterates.
    pub work_time_s: f64,
    /// Chunks executed by this rank.
    pub chunks: u64,
    /// Seconds not spent executing iterates between loop start and loop end.
    pub idle_time_s: f64,
    /// CPU seconds the worker's thread used from receiving its first chunk to its last request
    /// (the thread's CPU clock, read twice per worker and loop): its chunks' work and its requests
    /// for chunks. Beside `work_time_s`, the wall time of its chunks: CPU time well below the
    /// work time means the worker waited, for a core (more workers than cores, or other
    /// programs) or for I/O or a lock. 0 where not measured
    /// (the simulator, the ranks of a two-level loop, reports written before dls measured it,
    /// systems without a thread CPU clock).
    #[serde(default)]
    pub cpu_time_s: f64,
}

/// Statistics of one executed (or simulated) loop, as in Cariño & Banicescu (2007), `DLS_EndLoop`, fig. 4.5.
///
/// ```
/// let r = dls_model::report::LoopReport::default();
/// assert!(serde_json::to_string(&r).unwrap().contains("\"chunk_map\""));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct LoopReport {
    /// Name of the loop (source location for macro loops).
    pub name: String,
    /// The technique specification, as text.
    pub technique: String,
    /// Number of iterates.
    pub n: u64,
    /// Number of ranks that executed iterates (all threads of all ranks under threads inside
    /// ranks: see `threads_per_rank`).
    pub p: usize,
    /// Under threads inside ranks (`DLS_THREADS=k` under mpirun): `k`, the threads of every rank;
    /// `p` then counts every thread, and rank `r`'s threads are workers `r·k` to `r·k + k − 1`,
    /// their figures the rank's in equal shares (its threads share its chunks). 0 otherwise.
    #[serde(default, skip_serializing_if = "is_zero_usize")]
    pub threads_per_rank: usize,
    /// Wall-clock time of the loop (the makespan), seconds.
    pub parallel_time_s: f64,
    /// Simulator only: lower bound of the makespan, max(total work / total speed, longest iterate
    /// at the fastest speed), seconds (0 when not computed).
    #[serde(default)]
    pub lower_bound_s: f64,
    /// Estimated sequential cost: the sum of the ranks' work times, seconds.
    pub sequential_cost_s: f64,
    /// Efficiency estimate: sequential cost / (p × parallel time).
    pub efficiency: f64,
    /// Average absolute deviation of the ranks' work times, relative to their mean (Cariño & Banicescu 2007, §4.2).
    pub aad: f64,
    /// Total number of chunks handed out.
    pub chunks: u64,
    /// Per-rank statistics.
    pub ranks: Vec<RankReport>,
    /// Every chunk as `[start, size, rank]`, in the order handed out (start counts from 0), up to
    /// `DLS_CHUNK_MAP` chunks (default 1,000,000: 24 MB, and as much for `chunk_times`): the first
    /// ones handed out.
    pub chunk_map: Vec<[u64; 3]>,
    /// Chunks handed out beyond `DLS_CHUNK_MAP`, counted in `chunks` but not listed in
    /// `chunk_map` (0 when the map is complete).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub chunk_map_dropped: u64,
    /// Combining the workers' partial results, seconds: from the end of the loop's last chunk to
    /// the loop's end (merges, and the messages that carry the values between ranks). The same
    /// phase for every worker, counted neither as work nor as idle time (0 when the chunk times
    /// are incomplete, or in reports written before dls measured it).
    #[serde(default)]
    pub combine_time_s: f64,
    /// Per chunk of `chunk_map` (same order, same bound): `[start, end]`, seconds since the
    /// loop's start on the scheduler's clock (rank 0 on MPI). The end is when the chunk's timing
    /// reached the scheduler (with the worker's next request, or at the loop's end), the start
    /// that end minus the worker's measured work time for the chunk: so every worker's chunks lie
    /// on one clock, even across nodes, and each chunk is as long as its measured work. On MPI a
    /// chunk's times are late by the one-way message time of the request (microseconds on one
    /// node). `null` for a chunk whose timing never arrived; empty in reports written before
    /// dls recorded chunk times and in simulations without the chunk map. The simulator gives
    /// each chunk's simulated execution: from the reply's arrival to the end of its work.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chunk_times: Vec<Option<[f64; 2]>>,
    /// Loops with a result (`reduce`, `gather`, `doall_reduce`): how the partial results were
    /// combined, as rank 0 saw it (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reduction: Option<ReductionReport>,
    /// More workers ran on rank 0's node than it has cores (threads, or ranks on one node under
    /// mpirun): the workers shared cores, so times and efficiency mislead (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oversubscribed: Option<Oversubscribed>,
    /// Loops that may re-execute unfinished chunks (`DLS_REEXECUTE=on`, the default, for the
    /// closure forms and the macro): the copies made and the work they discarded (absent
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reexecution: Option<ReexecutionReport>,
    /// Loops with checkpoints (`DLS_CHECKPOINT`): what was restored and written (absent
    /// otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<CheckpointReport>,
    /// Loops over MPI ranks: the requests rank 0's scheduler served and their cost, as it
    /// measured them (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<SchedulerReport>,
    /// Loops under `schedule = "auto"`: what was chosen for this run and why (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<AutoReport>,
    /// Checked loops only (`Runtime::doall_reduce_checked`): the fault check's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckReport>,
    /// Who the workers are: `threads`, `mpi` (ranks) or `simulation` (simulated ranks); empty in
    /// reports written before dls recorded it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub backend: String,
    /// Two-level loops only: the coordinator's world rank (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinator: Option<usize>,
    /// Two-level loops only: one entry per group, as in Cariño & Banicescu (2007) fig. 4.5 (absent otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupReport>,
}

/// Workers sharing a node's cores (the `oversubscribed` entry of a [`LoopReport`]).
///
/// ```
/// let o = dls_model::report::Oversubscribed { workers: 8, cores: 2 };
/// assert!(o.workers > o.cores);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Oversubscribed {
    /// Workers on the node (threads, or the ranks mpirun started on it).
    pub workers: usize,
    /// The node's cores (available parallelism).
    pub cores: usize,
}

impl Oversubscribed {
    /// `Some` when the workers on this node exceed its cores: with `mpi`, the launcher's count of
    /// ranks on this node (`OMPI_COMM_WORLD_LOCAL_SIZE`, `MPI_LOCALNRANKS`,
    /// `SLURM_NTASKS_PER_NODE`; `workers` if it gives none), else `workers` (threads).
    ///
    /// Every loop's report asks it, so the counts it reads (the cores, the launcher's variables
    /// and CPUs) are read once per process (issue 28: reading the cgroup files at every loop's
    /// end cost a third of a small loop's time).
    ///
    /// ```
    /// use dls_model::report::Oversubscribed;
    /// let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    /// assert!(Oversubscribed::on_this_node(cores, false).is_none());
    /// assert_eq!(Oversubscribed::on_this_node(cores + 1, false).map(|o| o.cores), Some(cores));
    /// ```
    pub fn on_this_node(workers: usize, mpi: bool) -> Option<Oversubscribed> {
        Oversubscribed::on_this_node_with(workers, mpi, 1)
    }

    /// [`on_this_node`](Self::on_this_node) where every rank runs `threads` workers (threads
    /// inside ranks, `DLS_THREADS` under a launcher): the node's workers are its ranks times
    /// `threads`.
    ///
    /// ```
    /// use dls_model::report::Oversubscribed;
    /// let cores = Oversubscribed::node_cores(false);
    /// assert!(Oversubscribed::on_this_node_with(1, false, cores + 1).is_some());
    /// ```
    pub fn on_this_node_with(workers: usize, mpi: bool, threads: usize) -> Option<Oversubscribed> {
        let cores = Oversubscribed::node_cores(mpi);
        static LOCAL: OnceLock<Option<usize>> = OnceLock::new();
        let local = mpi
            .then(|| {
                *LOCAL.get_or_init(|| {
                    [
                        "OMPI_COMM_WORLD_LOCAL_SIZE",
                        "MPI_LOCALNRANKS",
                        "SLURM_NTASKS_PER_NODE",
                    ]
                    .iter()
                    .find_map(|k| std::env::var(k).ok()?.trim().parse::<usize>().ok())
                })
            })
            .flatten()
            .map_or(workers, |ranks| ranks * threads.max(1));
        let local = if mpi { local } else { workers * threads.max(1) };
        (local > cores).then_some(Oversubscribed {
            workers: local,
            cores,
        })
    }

    /// The cores this process's job may use on this node. Threads: the process's available
    /// parallelism. Under a launcher (`mpi`) each rank is often bound to one core, so its own
    /// count says 1 on a node of many; the launcher's daemon (the parent process: mpirun's
    /// `orted`, `slurmstepd`, or mpirun itself) is not bound, and its allowed CPUs (Linux,
    /// `/proc/<parent>/status`) are the job's share of the node, cgroups included. The larger of
    /// the two counts, each read once per process (the first call).
    ///
    /// ```
    /// use dls_model::report::Oversubscribed;
    /// let own = std::thread::available_parallelism().map_or(1, |n| n.get());
    /// assert_eq!(Oversubscribed::node_cores(false), own);
    /// assert!(Oversubscribed::node_cores(true) >= own);
    /// ```
    pub fn node_cores(mpi: bool) -> usize {
        static OWN: OnceLock<usize> = OnceLock::new();
        static LAUNCHER: OnceLock<Option<usize>> = OnceLock::new();
        let own = *OWN.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        if !mpi {
            return own;
        }
        LAUNCHER
            .get_or_init(|| launcher_cpus().map(|cpus| cpus.len()))
            .map_or(own, |cpus| cpus.max(own))
    }
}

/// The CPUs the launcher's daemon (this process's parent) may run on: the job's share of the
/// node when the ranks themselves are bound to single cores (Linux; `None` elsewhere or when
/// unreadable). The runtime binds its threads under a launcher to these.
///
/// ```
/// let cpus = dls_model::report::launcher_cpus();
/// assert!(cpus.map_or(true, |c| !c.is_empty()));
/// ```
pub fn launcher_cpus() -> Option<Vec<usize>> {
    let parent = std::os::unix::process::parent_id();
    let status = std::fs::read_to_string(format!("/proc/{parent}/status")).ok()?;
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))?;
    cpu_list(list.trim())
}

/// The CPUs of a Linux CPU list such as `0-3,8,10-11` (`None` if malformed or empty).
pub(crate) fn cpu_list(list: &str) -> Option<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in list.split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().ok()?, b.parse().ok()?);
                if b < a {
                    return None;
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().ok()?),
        }
    }
    (!cpus.is_empty()).then_some(cpus)
}

/// The fault check of a checked loop (the `check` entry of a [`LoopReport`]): the one-way ANOVA
/// across workers of the values the iterates yielded (Wegman, c. 2000, §3).
///
/// ```
/// let c = dls_model::report::CheckReport { test: "anova".into(), ..Default::default() };
/// assert!(!c.rejected);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CheckReport {
    /// What the iterates yielded: `anova` (values) or `regression` (rows).
    pub test: String,
    /// Which test decided: `one-against-rest` (each worker against the others at alpha /
    /// workers, the default) or `anova` (the global F test); empty in reports written before it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rule: String,
    /// Seed of the permutation the iterates ran in (`None`: their own order, an exchangeable
    /// space).
    pub seed: Option<u64>,
    /// Significance level.
    pub alpha: f64,
    /// The F statistic (absent when the test could not be made, see `outcome`).
    pub f: Option<f64>,
    /// Its numerator degrees of freedom (workers − 1).
    pub df1: Option<u64>,
    /// Its denominator degrees of freedom (values − workers).
    pub df2: Option<u64>,
    /// The p-value.
    pub p: Option<f64>,
    /// `tested`, or why no test was made (too few workers or values, no variance) or a worker's
    /// summary was malformed (NaN: that worker is the suspect).
    pub outcome: String,
    /// The test rejects at `alpha`: the workers do not agree.
    pub rejected: bool,
    /// The worker (rank, or thread) a rejection points at, when its leave-one-out test is
    /// significant at alpha / workers.
    pub suspect: Option<usize>,
    /// The p-value of the most suspect worker's leave-one-out test.
    pub suspect_p: Option<f64>,
    /// Each worker's mean value.
    pub worker_means: Vec<f64>,
    /// Each worker's number of values.
    pub worker_values: Vec<u64>,
    /// `DLS_CHECK=repair`: the suspect's iterates ran again on the other workers and the check
    /// then passed.
    #[serde(default)]
    pub repaired: bool,
    /// The positions re-executed, as `[start, length]` in the permuted order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reexecuted: Vec<[u64; 2]>,
    /// F after the re-execution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub f_after: Option<f64>,
    /// p after the re-execution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_after: Option<f64>,
    /// The checked runs of this loop (by name) in this process so far, this one included (0 in
    /// reports written before it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub checked_runs: u64,
    /// Of [`checked_runs`](CheckReport::checked_runs), those whose check could not test
    /// (`outcome` other than `tested`: one worker ran every chunk, no variance, …).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub untested_runs: u64,
}

/// `schedule = "auto"` in one run of a loop (the `auto` entry of a [`LoopReport`]): the
/// technique that ran and why, with the simulator's predictions when it chose (SimAS, Mohammed
/// & Ciorba 2020). The same on every rank.
///
/// ```
/// let a = dls_model::report::AutoReport { phase: "measure".into(), chose: "fac2".into(),
///     ..Default::default() };
/// assert!(serde_json::to_string(&a).unwrap().contains("\"chose\":\"fac2\""));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct AutoReport {
    /// `measure` (this run measures the loop under FAC2), `chosen` (the first run of the
    /// technique the simulator chose from the last measuring run) or `kept` (a later run of it).
    pub phase: String,
    /// The technique that ran, as text (with the parameters filled from the measurements).
    pub chose: String,
    /// Why, in words: the measured workload and the predicted gain, or why it measures.
    pub why: String,
    /// The candidates' predicted makespans, fastest first, as `[technique, seconds]` (empty in a
    /// measuring run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub predicted: Vec<(String, f64)>,
    /// Which execution of the loop (1 = the first) this is, and which one was measured for the
    /// choice (0 in a measuring run).
    pub run: u64,
    /// The run whose measurements the choice came from (0 in a measuring run).
    pub from_run: u64,
}

/// How a loop's partial results were combined (the `reduction` entry of a [`LoopReport`]), as one
/// rank (rank 0 in the report) saw it.
///
/// ```
/// let r = dls_model::report::ReductionReport { strategy: "tree".into(), ..Default::default() };
/// assert!(serde_json::to_string(&r).unwrap().contains("\"merge_time_s\""));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ReductionReport {
    /// The strategy that ran: `allgather`, `master`, `tree`, `pipeline`, or `local` (one
    /// process: its workers' values combined in memory).
    pub strategy: String,
    /// The strategy asked for (`auto` resolves to one of the others).
    pub requested: String,
    /// Why this strategy ran.
    pub why: String,
    /// Merges (calls of the combining operation) on this rank, its workers' values included.
    pub merges: u64,
    /// Mean time of one merge on this rank, seconds (0 without merges).
    pub merge_time_s: f64,
    /// Mean serialised size of the values this rank received from other ranks, bytes (0 if it
    /// received none).
    pub value_bytes: u64,
    /// Time from the end of this rank's share of the loop to the total, seconds.
    pub time_s: f64,
}

/// Re-execution of unfinished chunks in one loop (the `reexecution` entry of a [`LoopReport`]):
/// once every iterate was handed out, idle workers took copies of chunks that others held for too
/// long; the first copy of a chunk to finish counted and the others were discarded (Mohammed,
/// Cavelan & Ciorba 2019). Before taking a copy, an idle worker takes part of a long chunk in
/// progress (`splits`).
///
/// ```
/// let r = dls_model::report::ReexecutionReport { copies: 1, discarded_chunks: 1,
///     discarded_iterates: 40, complete_s: Some(0.5), splits: 2 };
/// assert!(serde_json::to_string(&r).unwrap().contains("\"discarded_iterates\":40"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ReexecutionReport {
    /// Copies of unfinished chunks handed out. They are not in the chunk map nor in the workers'
    /// `chunks` (the map lists every chunk once, with the worker it was first handed to); the
    /// iterates of a copy that counted are in its worker's `iterates` and `work_time_s`.
    pub copies: u64,
    /// Executions of a chunk dropped because another copy of it finished first (reported by the
    /// time the loop ended: a worker stalled past the end of the loop hands its copy in later).
    pub discarded_chunks: u64,
    /// Their iterates: work done twice and not counted.
    pub discarded_iterates: u64,
    /// Seconds from the start of the loop until every iterate had been executed and confirmed:
    /// the loop's own time, before the end-of-loop step waits for every worker (a stalled worker
    /// included).
    pub complete_s: Option<f64>,
    /// Chunks in progress split for an idle worker (`DLS_SPLIT`): the part split off is a chunk
    /// of the map with the worker that got it, and the holder's entry ends where it stopped.
    #[serde(default)]
    pub splits: u64,
}

/// The requests the scheduler on rank 0 served in one loop over MPI ranks (the `scheduler` entry
/// of a [`LoopReport`]), as it measured them: each request's cost is the time from its receipt
/// (the receive completed) to its answer sent and its bookkeeping done, the h of the scheduling models
/// (`dls simulate --overhead`). One scheduler serves requests one at a time, so it limits a loop
/// whose time approaches `busy_s` (utilisation near 1).
///
/// ```
/// let s = dls_model::report::SchedulerReport::new(1000, 0.002, 0.5);
/// assert!((s.request_cost_s - 2e-6).abs() < 1e-15);
/// assert!((s.utilisation - 0.004).abs() < 1e-12);
/// assert!(serde_json::to_string(&s).unwrap().contains("\"requests\":1000"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SchedulerReport {
    /// Requests answered (chunks handed out, and each worker's last request, answered `done`).
    pub requests: u64,
    /// Seconds the scheduler spent answering them, in all.
    pub busy_s: f64,
    /// The mean cost of one request, seconds (`busy_s / requests`).
    pub request_cost_s: f64,
    /// `busy_s` over the loop's parallel time: the scheduler's utilisation.
    pub utilisation: f64,
}

impl SchedulerReport {
    /// The entry of `requests` served in `busy_s` seconds during a loop of `parallel_time_s`.
    ///
    /// ```
    /// let s = dls_model::report::SchedulerReport::new(0, 0.0, 1.0);
    /// assert_eq!(s.request_cost_s, 0.0);
    /// ```
    pub fn new(requests: u64, busy_s: f64, parallel_time_s: f64) -> SchedulerReport {
        SchedulerReport {
            requests,
            busy_s,
            request_cost_s: if requests > 0 {
                busy_s / requests as f64
            } else {
                0.0
            },
            utilisation: if parallel_time_s > 0.0 {
                busy_s / parallel_time_s
            } else {
                0.0
            },
        }
    }
}

/// Checkpoints of one loop (the `checkpoint` entry of a [`LoopReport`]), as rank 0 saw them.
///
/// ```
/// let c = dls_model::report::CheckpointReport { generation: 1, restored_from: Some(0),
///     restored_iterates: 500, ..Default::default() };
/// assert!(serde_json::to_string(&c).unwrap().contains("\"restored_iterates\":500"));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CheckpointReport {
    /// The folder (`DLS_CHECKPOINT`).
    pub dir: String,
    /// This run's generation of checkpoint files (0 for a first run).
    pub generation: u64,
    /// The generation restored from (absent: the loop started from the beginning).
    pub restored_from: Option<u64>,
    /// Iterates restored from checkpoints: not executed in this run (the workers' `iterates` add
    /// up to `n` minus these).
    pub restored_iterates: u64,
    /// Generations refused as truncated or corrupt, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
    /// Checkpoints written by rank 0's workers in this run.
    pub writes: u64,
    /// Their total time, seconds.
    pub write_time_s: f64,
    /// Writes that failed (a full disk, a folder that became unwritable): the loop went on and
    /// the previous checkpoints stayed valid; a restart resumes from those.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub failed_writes: u64,
}

impl LoopReport {
    /// Fills `sequential_cost_s`, `efficiency`, `aad` and `chunks` from `ranks`, `p` and
    /// `parallel_time_s`.
    ///
    /// ```
    /// use dls_model::report::{LoopReport, RankReport};
    /// let mut r = LoopReport { p: 2, parallel_time_s: 1.0, ..Default::default() };
    /// r.ranks = vec![
    ///     RankReport { rank: 0, iterates: 1, work_time_s: 1.0, chunks: 1, ..Default::default() },
    ///     RankReport { rank: 1, iterates: 1, work_time_s: 0.5, chunks: 1, idle_time_s: 0.5, cpu_time_s: 0.5 },
    /// ];
    /// r.summarise();
    /// assert_eq!(r.efficiency, 0.75);
    /// assert!((r.aad - 0.25 / 0.75).abs() < 1e-12);
    /// ```
    pub fn summarise(&mut self) {
        self.sequential_cost_s = self.ranks.iter().map(|r| r.work_time_s).sum();
        self.chunks = self.ranks.iter().map(|r| r.chunks).sum();
        self.efficiency = if self.parallel_time_s > 0.0 && self.p > 0 {
            self.sequential_cost_s / (self.p as f64 * self.parallel_time_s)
        } else {
            1.0
        };
        self.aad = aad(self.ranks.iter().map(|r| r.work_time_s));
    }
}

/// The most workers a report read from a file may name ([`LoopReport::validate`]): 2^24, more
/// than any machine runs (issue 43 N22: a report with `p` = 10^9 was plotted).
pub const MAX_REPORT_WORKERS: usize = 1 << 24;

/// The longest time a report read from a file may hold, in seconds (about 3 years): a larger one
/// is a corrupt or hand-edited value, not a loop's time.
pub const MAX_REPORT_TIME_S: f64 = 1e8;

impl LoopReport {
    /// Checks the numbers of a report read from a file (a report dls wrote always passes): at
    /// least one worker and at most [`MAX_REPORT_WORKERS`], finite and non-negative times of at
    /// most [`MAX_REPORT_TIME_S`], a finite efficiency and AAD, chunks inside
    /// the loop. The error names the field and the loop, so a hand-edited or corrupt report is
    /// refused instead of drawn or analysed as if it were true.
    ///
    /// ```
    /// use dls_model::report::LoopReport;
    /// let ok = LoopReport { name: "a".into(), p: 2, n: 10, parallel_time_s: 1.0, ..Default::default() };
    /// assert!(ok.validate().is_ok());
    /// let e = LoopReport { p: 0, ..ok.clone() }.validate().unwrap_err();
    /// assert!(e.contains("`p`"), "{e}");
    /// let e = LoopReport { parallel_time_s: -1.0, ..ok.clone() }.validate().unwrap_err();
    /// assert!(e.contains("parallel_time_s"), "{e}");
    /// // Implausible values: 10^9 workers, a time of 10^12 s.
    /// let e = LoopReport { p: 1_000_000_000, ..ok.clone() }.validate().unwrap_err();
    /// assert!(e.contains("more workers than any machine runs"), "{e}");
    /// assert!(LoopReport { parallel_time_s: 1e12, ..ok }.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), String> {
        let bad =
            |field: &str, why: String| Err(format!("loop report {:?}: `{field}` {why}", self.name));
        if self.p == 0 {
            return bad("p", "is 0: a loop has at least one worker".into());
        }
        if self.p > MAX_REPORT_WORKERS {
            return bad(
                "p",
                format!(
                    "is {}: more workers than any machine runs (at most {MAX_REPORT_WORKERS})",
                    self.p
                ),
            );
        }
        if self.threads_per_rank > self.p {
            return bad(
                "threads_per_rank",
                format!(
                    "is {}, more than the {} workers",
                    self.threads_per_rank, self.p
                ),
            );
        }
        for (field, x) in [("efficiency", self.efficiency), ("aad", self.aad)] {
            if !x.is_finite() || x < 0.0 {
                return bad(field, format!("is {x}: it is finite and >= 0"));
            }
        }
        let times = [
            ("parallel_time_s", self.parallel_time_s),
            ("lower_bound_s", self.lower_bound_s),
            ("sequential_cost_s", self.sequential_cost_s),
            ("combine_time_s", self.combine_time_s),
        ];
        for (field, t) in times {
            if !(0.0..=MAX_REPORT_TIME_S).contains(&t) {
                return bad(
                    field,
                    format!("is {t}: a time is finite, >= 0 and at most {MAX_REPORT_TIME_S:e} s"),
                );
            }
        }
        for r in &self.ranks {
            for (field, t) in [
                ("ranks[].work_time_s", r.work_time_s),
                ("ranks[].idle_time_s", r.idle_time_s),
            ] {
                if !(0.0..=MAX_REPORT_TIME_S).contains(&t) {
                    return bad(
                        field,
                        format!(
                            "of rank {} is {t}: a time is finite, >= 0 and at most \
                             {MAX_REPORT_TIME_S:e} s",
                            r.rank
                        ),
                    );
                }
            }
        }
        if let Some(c) = self
            .chunk_map
            .iter()
            .find(|c| c[0].saturating_add(c[1]) > self.n)
        {
            return bad(
                "chunk_map",
                format!(
                    "holds [{}, {}, {}], beyond its {} iterates",
                    c[0], c[1], c[2], self.n
                ),
            );
        }
        Ok(())
    }

    /// Splits the combining phase off the workers' idle time: everything after the loop's last
    /// chunk ended (merging and sending partial results) is `combine_time_s`, and each worker's
    /// `idle_time_s` keeps only its waiting before. Needs the chunk times of every chunk; without
    /// them nothing changes.
    ///
    /// ```
    /// use dls_model::report::{LoopReport, RankReport};
    /// let mut r = LoopReport {
    ///     parallel_time_s: 1.0,
    ///     chunk_times: vec![Some([0.0, 0.5]), Some([0.0, 0.7])],
    ///     ranks: vec![RankReport { work_time_s: 0.5, idle_time_s: 0.5, ..Default::default() }],
    ///     ..Default::default()
    /// };
    /// r.split_off_the_combine();
    /// assert!((r.combine_time_s - 0.3).abs() < 1e-12);
    /// assert!((r.ranks[0].idle_time_s - 0.2).abs() < 1e-12);
    /// ```
    pub fn split_off_the_combine(&mut self) {
        if self.chunk_map_dropped > 0 || self.chunk_times.iter().any(Option::is_none) {
            return;
        }
        let Some(last) = self
            .chunk_times
            .iter()
            .flatten()
            .map(|t| t[1])
            .reduce(f64::max)
        else {
            return;
        };
        let combine = (self.parallel_time_s - last).max(0.0);
        self.combine_time_s = combine;
        for r in &mut self.ranks {
            r.idle_time_s = (r.idle_time_s - combine).max(0.0);
        }
    }

    /// What to call one worker of this report: `worker` on threads, `rank` on MPI, in
    /// simulations and in reports that do not say.
    ///
    /// ```
    /// let r = dls_model::report::LoopReport { backend: "threads".into(), ..Default::default() };
    /// assert_eq!(r.worker_word(), "worker");
    /// assert_eq!(dls_model::report::LoopReport::default().worker_word(), "rank");
    /// ```
    pub fn worker_word(&self) -> &'static str {
        if self.threads_per_rank > 0 {
            "rank.thread"
        } else if self.backend == "threads" {
            "worker"
        } else {
            "rank"
        }
    }

    /// The name of worker `w` of the report: its number, or under threads inside ranks
    /// `rank.share` (worker `r·k + j` is thread share `j` of rank `r`).
    ///
    /// ```
    /// let r = dls_model::report::LoopReport { threads_per_rank: 4, ..Default::default() };
    /// assert_eq!(r.worker_name(6), "1.2");
    /// assert_eq!(dls_model::report::LoopReport::default().worker_name(6), "6");
    /// ```
    pub fn worker_name(&self, w: u64) -> String {
        match self.threads_per_rank as u64 {
            0 => w.to_string(),
            k => format!("{}.{}", w / k, w % k),
        }
    }

    /// The workers' CPU time over their work time, summed over the workers where measured
    /// (`None` when no worker's CPU time was measured): near 1 when every worker had a core to
    /// itself while it executed iterates, lower when workers waited.
    ///
    /// ```
    /// use dls_model::report::{LoopReport, RankReport};
    /// let mut r = LoopReport::default();
    /// assert_eq!(r.cpu_share(), None);
    /// r.ranks = vec![RankReport { work_time_s: 2.0, cpu_time_s: 1.0, ..Default::default() }];
    /// assert_eq!(r.cpu_share(), Some(0.5));
    /// ```
    pub fn cpu_share(&self) -> Option<f64> {
        let measured = self.ranks.iter().filter(|k| k.cpu_time_s > 0.0);
        let (cpu, work) = measured.fold((0.0, 0.0), |(c, w), k| {
            (c + k.cpu_time_s, w + k.work_time_s)
        });
        (work > 0.0).then(|| cpu / work)
    }
}

/// What one group (inner communicator) did during a two-level loop.
///
/// ```
/// let g = dls_model::report::GroupReport { group: 0, ranks: vec![1, 2], outer_iterates: 5, work_time_s: 2.0, ..Default::default() };
/// assert_eq!(g.cost_s(), 4.0);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct GroupReport {
    /// Group number.
    pub group: usize,
    /// World ranks of the group; the first is the leader.
    pub ranks: Vec<usize>,
    /// Racks of the members.
    pub racks: Vec<String>,
    /// Outer iterates executed by the group.
    pub outer_iterates: u64,
    /// Outer chunks executed by the group.
    pub outer_chunks: u64,
    /// Inner iterates executed by the group's ranks, summed over all inner loops.
    pub inner_iterates: u64,
    /// Seconds the group spent executing its outer iterates (the leader's clock).
    pub work_time_s: f64,
}

impl GroupReport {
    /// The group's cost: its work time times its number of ranks, seconds (Cariño & Banicescu 2007, §4.2 sums
    /// these "costs from each iComm" to estimate the sequential cost).
    pub fn cost_s(&self) -> f64 {
        self.work_time_s * self.ranks.len() as f64
    }
}

/// Average absolute deviation relative to the mean: `sum |x_i - mean| / (k * mean)` (Cariño & Banicescu 2007, §4.2).
/// Zero for an empty input or a zero mean.
///
/// ```
/// assert_eq!(dls_model::report::aad([1.0, 1.0]), 0.0);
/// assert_eq!(dls_model::report::aad([1.0, 3.0]), 0.5);
/// ```
pub fn aad(xs: impl IntoIterator<Item = f64>) -> f64 {
    let xs: Vec<f64> = xs.into_iter().collect();
    if xs.is_empty() {
        return 0.0;
    }
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    if mean <= 0.0 {
        return 0.0;
    }
    xs.iter().map(|x| (x - mean).abs()).sum::<f64>() / (xs.len() as f64 * mean)
}

/// For serde: omit a zero count.
fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_zero_usize(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::LoopReport;

    #[test]
    fn cpu_lists_are_counted() {
        assert_eq!(super::cpu_list("0-1"), Some(vec![0, 1]));
        assert_eq!(
            super::cpu_list("0-3,8,10-11"),
            Some(vec![0, 1, 2, 3, 8, 10, 11])
        );
        assert_eq!(super::cpu_list("5"), Some(vec![5]));
        assert_eq!(super::cpu_list(""), None);
        assert_eq!(super::cpu_list("3-1"), None);
        assert_eq!(super::cpu_list("a-b"), None);
    }

    #[test]
    fn a_report_written_before_chunk_times_and_cpu_time_still_loads() {
        let old = r#"{"name":"l","technique":"ss","n":2,"p":1,"parallel_time_s":1.0,
            "sequential_cost_s":1.0,"efficiency":1.0,"aad":0.0,"chunks":2,
            "ranks":[{"rank":0,"iterates":2,"work_time_s":1.0,"chunks":2,"idle_time_s":0.0}],
            "chunk_map":[[0,1,0],[1,1,0]]}"#;
        let r: LoopReport = serde_json::from_str(old).unwrap();
        assert!(r.chunk_times.is_empty());
        assert_eq!(r.ranks[0].cpu_time_s, 0.0);
        assert_eq!(r.cpu_share(), None);
        assert_eq!(r.worker_word(), "rank");
    }

    #[test]
    fn chunk_times_travel_as_pairs_or_null() {
        let r = LoopReport {
            chunk_map: vec![[0, 1, 0], [1, 1, 0]],
            chunk_times: vec![Some([0.0, 0.5]), None],
            ..Default::default()
        };
        let text = serde_json::to_string(&r).unwrap();
        assert!(text.contains(r#""chunk_times":[[0.0,0.5],null]"#), "{text}");
        assert_eq!(serde_json::from_str::<LoopReport>(&text).unwrap(), r);
    }
}
