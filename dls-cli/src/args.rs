//! Options shared by the commands that simulate, and their value parsers.

use clap::Args;
use dls::Technique;
use dls_model::sim::{
    parse_duration, parse_speeds, IterateTimeModel, ServiceModel, SimConfig, Slowdown, SplitModel,
};

/// Parses `--overhead`.
fn overhead(text: &str) -> Result<f64, String> {
    parse_duration(text, "--overhead").map_err(|e| e.to_string())
}

/// Parses `--latency`.
fn latency(text: &str) -> Result<f64, String> {
    parse_duration(text, "--latency").map_err(|e| e.to_string())
}

/// Parses `--speeds` (a newtype, so that clap takes the list as one value).
fn speeds(text: &str) -> Result<RankFactors, String> {
    parse_speeds(text)
        .map(RankFactors)
        .map_err(|e| e.to_string())
}

/// The value of `--speeds`: one time factor per rank.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RankFactors(pub Vec<f64>);

/// Parses `--starts` (a newtype, so that clap takes the list as one value).
fn starts(text: &str) -> Result<StartTimes, String> {
    text.split(',')
        .map(|t| parse_duration(t.trim(), "--starts"))
        .collect::<Result<Vec<f64>, _>>()
        .map(StartTimes)
        .map_err(|e| e.to_string())
}

/// The value of `--starts`: when each rank reaches the loop.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StartTimes(pub Vec<f64>);

/// The most iterates a simulated loop may have (`--n` of `simulate`, `compare` and `hsf`): the
/// simulator draws every iterate's time, about a minute for 10^9; more ran for minutes without a
/// word.
pub(crate) const MAX_SIMULATED: u64 = 1_000_000_000;

/// Parses a technique specification.
pub(crate) fn technique(text: &str) -> Result<Technique, String> {
    text.parse::<Technique>().map_err(|e| e.to_string())
}

/// The loop to simulate: size, iterate times, rank speeds, costs.
#[derive(Debug, Clone, Args)]
pub(crate) struct LoopArgs {
    /// Number of iterates N of the loop, 0 to 10^9 (the simulator draws every iterate's time).
    /// Example: --n 100000
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=MAX_SIMULATED))]
    pub n: u64,

    /// Number of ranks P that execute iterates (rank 0 also serves the scheduler). Example: --p 16
    #[arg(long, value_name = "P", value_parser = clap::value_parser!(u64).range(1..=dls_model::sim::MAX_RANKS as u64))]
    pub p: u64,

    #[command(flatten)]
    pub model: ModelArgs,
}

impl LoopArgs {
    /// The simulator settings for `technique`.
    pub(crate) fn config(&self, technique: Technique) -> SimConfig {
        self.model.config(technique, self.n, self.p as usize)
    }
}

/// How the simulated loop runs, apart from its size: iterate times, rank speeds, costs.
#[derive(Debug, Clone, Args)]
pub(crate) struct ModelArgs {
    /// Time of one iterate at speed 1: const:T, uniform:LOW:HIGH, normal:MEAN:SD (truncated at
    /// 0), exp:MEAN, gamma:K:THETA (shape K, scale THETA), bimodal:P:A:B (A with probability P,
    /// else B), linear:FIRST:LAST (over the index), file:PATH (one time per line). Times take a
    /// unit ns, us, ms or s. Default: const:1ms. Example: --iterate-time exp:1ms
    #[arg(long, value_name = "MODEL")]
    pub iterate_time: Option<IterateTimeModel>,

    /// Time factor of every rank, comma-separated, one per rank (3 = three times slower).
    /// Default: all 1. Example: --speeds 1,1,1,3
    #[arg(long, value_name = "F0,F1,...", value_parser = speeds)]
    pub speeds: Option<RankFactors>,

    /// A rank whose time factor is multiplied by FACTOR from WHEN on: RANK@WHENxFACTOR, WHEN a
    /// fraction of the loop's iterates handed out (0.5: chunks handed out from the middle of the
    /// loop on) or a simulated time with a unit (20ms: exact, from that moment). Repeatable.
    /// Example: --slowdown 2@0.5x4 (rank 2 becomes 4x slower at half the loop)
    #[arg(long, value_name = "RANK@WHENxFACTOR")]
    pub slowdown: Vec<Slowdown>,

    /// When each rank reaches the loop, after rank 0, comma-separated durations, one per rank:
    /// under mpirun a rank often starts a loop a millisecond or more after rank 0. Default: all
    /// 0. Example: --starts 0,5ms
    #[arg(long, value_name = "T0,T1,...", value_parser = starts)]
    pub starts: Option<StartTimes>,

    /// Scheduling overhead h: time to serve one chunk request (see --service). Default: 0 for
    /// simulate and hsf; for compare, which recommends a technique, 2us (see its help).
    /// Example: --overhead 5us
    #[arg(long, value_name = "DURATION", value_parser = overhead)]
    pub overhead: Option<f64>,

    /// One-way message latency between a rank and the scheduler on rank 0 (rank 0's own
    /// requests are local). Example: --latency 2us
    #[arg(long, value_name = "DURATION", default_value = "0", value_parser = latency)]
    pub latency: f64,

    /// How chunk requests are served: serial (a progress thread on rank 0 serves them one at a
    /// time, each in --overhead; requests queue) or parallel (each request costs --overhead to
    /// its rank and never queues: fetch-and-add / one-sided chunk calculation, Hummel, Schonberg &
    /// Flynn's model). Example: --service parallel
    #[arg(long, value_name = "MODEL", default_value = "serial")]
    pub service: ServiceModel,

    /// How an idle rank splits a chunk in progress once every iterate has been handed out, as
    /// the runtime does with re-execution (DLS_SPLIT): off (the published techniques), mpi
    /// (rank 0 takes the second half of what the holder has not started, another rank the last
    /// quarter; a rank other than 0 splits its chunk when it answers the ask, at the end of its
    /// iterate in progress) or threads (the second half, at once). Example: --split mpi
    #[arg(long, value_name = "MODEL", default_value = "off")]
    pub split: SplitModel,

    /// Seed of the iterate-time model (same seed, same loop). Example: --seed 7
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    pub seed: u64,
}

impl ModelArgs {
    /// The iterate-time model: --iterate-time, or const:1ms.
    /// A `normal` model whose truncation at 0 moves its mean by more than 1% is warned of, once.
    pub(crate) fn iterate_time(&self) -> IterateTimeModel {
        let model = self
            .iterate_time
            .clone()
            .unwrap_or(IterateTimeModel::Constant(1e-3));
        if let Some(w) = model.truncation_warning() {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| eprintln!("dls: warning: {w}"));
        }
        model
    }

    /// The simulator settings for `technique` on a loop of `n` iterates and `p` ranks.
    pub(crate) fn config(&self, technique: Technique, n: u64, p: usize) -> SimConfig {
        let mut c = SimConfig::new(technique, n, p);
        c.iterate_time = self.iterate_time();
        c.speeds = self.speeds.clone().map(|f| f.0).unwrap_or_default();
        c.slowdowns = self.slowdown.clone();
        c.start_s = self.starts.clone().map(|s| s.0).unwrap_or_default();
        c.split = self.split;
        c.overhead_s = self.overhead.unwrap_or(0.0);
        c.latency_s = self.latency;
        c.seed = self.seed;
        c.service = self.service;
        c
    }
}
