//! The result of one simulated loop and its readable form.

use std::fmt;

use super::duration::format_duration;
use crate::LoopReport;

/// Ranks listed one per line in the readable report; above this, a summary of the ranks.
const MAX_LISTED_RANKS: usize = 32;

/// What [`simulate`](super::simulate) returns: the loop report (same JSON field names as the
/// runtime's) and simulator-only figures. `Display` gives a readable report.
///
/// ```
/// use dls_model::sim::{simulate, SimConfig};
/// let out = simulate(&SimConfig::new("gss".parse().unwrap(), 100, 4)).unwrap();
/// assert_eq!(out.report.n, 100);
/// assert!(out.to_string().contains("makespan"));
/// assert!(out.makespan_over_lower_bound() >= 1.0);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct SimOutcome {
    /// The loop report: makespan (`parallel_time_s`), `lower_bound_s`, efficiency, per-rank
    /// iterates, work and idle time, chunks.
    pub report: LoopReport,
    /// The iterate-time model, as text.
    pub iterate_time: String,
    /// h, seconds per request served.
    pub overhead_s: f64,
    /// One-way message latency, seconds.
    pub latency_s: f64,
    /// Seed of the iterate-time model.
    pub seed: u64,
    /// How requests were served.
    pub service: super::ServiceModel,
    /// Sum of the iterate times at time factor 1, seconds.
    pub base_work_s: f64,
    /// Longest single iterate at time factor 1, seconds.
    pub longest_iterate_s: f64,
    /// Requests served by the scheduler (chunks plus one final request per rank).
    pub requests: u64,
    /// Seconds spent serving requests (`requests × h`; spread over the ranks under parallel
    /// service).
    pub scheduler_busy_s: f64,
    /// Under a scheduler tree ([`HandOut::Tree`](super::HandOut::Tree)): requests served by the
    /// sub-schedulers, all together (ranks' chunk requests and final requests); 0 otherwise.
    /// `requests` and `scheduler_busy_s` are then the top scheduler's batch requests.
    ///
    /// ```
    /// use dls_model::sim::{simulate, HandOut, SimConfig};
    /// let mut c = SimConfig::new("fac2".parse().unwrap(), 10_000, 8);
    /// c.overhead_s = 1e-6;
    /// c.hand_out = HandOut::tree(4);
    /// let o = simulate(&c).unwrap();
    /// assert_eq!(o.sub_requests, o.report.chunks + 8);
    /// assert!(o.sub_busy_max_s > 0.0 && o.requests < o.sub_requests);
    /// ```
    pub sub_requests: u64,
    /// Under a scheduler tree: the busy time of the busiest sub-scheduler (its requests × h); 0
    /// otherwise.
    pub sub_busy_max_s: f64,
    /// Chunks in progress split for an idle rank ([`SplitModel`](super::SplitModel)).
    pub splits: u64,
    /// Who asked for chunks: each worker, or each rank for its threads
    /// ([`HandOut`](super::HandOut)). Under hierarchical hand-out the report's `p` and `ranks`
    /// count workers (thread j of rank r is worker r·k + j), `requests` counts batch requests and
    /// `scheduler_busy_s` sums their service times.
    pub hand_out: super::HandOut,
}

impl SimOutcome {
    /// Makespan divided by its lower bound (1 is perfect; 1 when both are 0).
    ///
    /// ```
    /// let mut o = dls_model::sim::simulate(&dls_model::sim::SimConfig::new(
    ///     "static".parse().unwrap(), 8, 4)).unwrap();
    /// assert_eq!(o.makespan_over_lower_bound(), 1.0);
    /// ```
    pub fn makespan_over_lower_bound(&self) -> f64 {
        if self.report.lower_bound_s > 0.0 {
            self.report.parallel_time_s / self.report.lower_bound_s
        } else {
            1.0
        }
    }

    /// The report's lines on the schedulers: the tree's shape, each level's busy time and
    /// utilisation (busy / makespan), and the limit one scheduler (the top) sets.
    fn write_schedulers(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.report;
        let secs = |s: f64| format!("{s:.6} s");
        let tree = match self.hand_out {
            super::HandOut::Tree(t) => Some(t),
            _ => None,
        };
        if let Some(t) = tree {
            writeln!(
                f,
                "hand-out         scheduler tree: top on rank 0, {} sub-schedulers of up to {} \
                 ranks",
                t.groups(r.p),
                t.fan_out.min(r.p)
            )?;
        }
        let utilisation = |busy: f64| {
            if r.parallel_time_s > 0.0 {
                100.0 * busy / r.parallel_time_s
            } else {
                0.0
            }
        };
        let who = if tree.is_some() {
            "top scheduler"
        } else {
            "scheduler"
        };
        writeln!(
            f,
            "{:<16} {}  ({} {}requests; utilisation busy / makespan = {:.2}%)",
            format!("{who} busy"),
            secs(self.scheduler_busy_s),
            self.requests,
            if tree.is_some() { "batch " } else { "" },
            utilisation(self.scheduler_busy_s)
        )?;
        if tree.is_some() {
            writeln!(
                f,
                "sub-schedulers   {} requests in all; the busiest {} busy (utilisation {:.2}%)",
                self.sub_requests,
                secs(self.sub_busy_max_s),
                utilisation(self.sub_busy_max_s)
            )?;
        }
        if self.overhead_s > 0.0 && r.p > 0 {
            // The scheduler serves every request of the loop in turn: a loop cannot end before
            // it has, so below this time per worker one scheduler is the limit. Under a tree,
            // the top scheduler's batch requests.
            writeln!(
                f,
                "{:<16} limits the loop below {} of work per worker ({} requests x h); \
                 here {} per worker ({:.2}x that)",
                if tree.is_some() {
                    "top scheduler"
                } else {
                    "one scheduler"
                },
                secs(self.requests as f64 * self.overhead_s),
                self.requests,
                secs(r.sequential_cost_s / r.p as f64),
                r.sequential_cost_s / r.p as f64 / (self.requests as f64 * self.overhead_s)
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for SimOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.report;
        let secs = |s: f64| format!("{s:.6} s");
        writeln!(
            f,
            "technique {}, n = {}, p = {}, iterate time {}, overhead h = {} ({} service), \
             latency = {}, seed {}",
            r.technique,
            r.n,
            r.p,
            self.iterate_time,
            format_duration(self.overhead_s),
            self.service,
            format_duration(self.latency_s),
            self.seed
        )?;
        if let super::HandOut::Hierarchical(h) = self.hand_out {
            writeln!(
                f,
                "hand-out         {} ranks x {} threads (batch requests; one more chunk {}, a \
                 pop {})",
                r.p / h.threads.max(1),
                h.threads,
                format_duration(h.chunk_cost_s),
                format_duration(h.pop_cost_s)
            )?;
        }
        writeln!(f, "makespan         {}", secs(r.parallel_time_s))?;
        writeln!(
            f,
            "lower bound      {}  (makespan / lower bound = {:.4})",
            secs(r.lower_bound_s),
            self.makespan_over_lower_bound()
        )?;
        writeln!(
            f,
            "efficiency       {:.4}  (total work {} / (p x makespan))",
            r.efficiency,
            secs(r.sequential_cost_s)
        )?;
        writeln!(f, "chunks           {}", r.chunks)?;
        self.write_schedulers(f)?;
        writeln!(f, "work imbalance   aad = {:.4}", r.aad)?;
        if r.ranks.len() <= MAX_LISTED_RANKS {
            writeln!(
                f,
                "{:>6} {:>12} {:>8} {:>14} {:>14}",
                "rank", "iterates", "chunks", "work_s", "idle_s"
            )?;
            for x in &r.ranks {
                writeln!(
                    f,
                    "{:>6} {:>12} {:>8} {:>14.6} {:>14.6}",
                    x.rank, x.iterates, x.chunks, x.work_time_s, x.idle_time_s
                )?;
            }
        } else {
            writeln!(
                f,
                "{:>10} {:>14} {:>14} {:>14}",
                "per rank", "min", "mean", "max"
            )?;
            let k = r.ranks.len() as f64;
            let stat = |g: &dyn Fn(&crate::RankReport) -> f64| {
                let (mut lo, mut hi, mut sum) = (f64::INFINITY, f64::NEG_INFINITY, 0.0);
                for x in &r.ranks {
                    let v = g(x);
                    lo = lo.min(v);
                    hi = hi.max(v);
                    sum += v;
                }
                (lo, sum / k, hi)
            };
            let rows: [(&str, (f64, f64, f64)); 4] = [
                ("iterates", stat(&|x| x.iterates as f64)),
                ("chunks", stat(&|x| x.chunks as f64)),
                ("work_s", stat(&|x| x.work_time_s)),
                ("idle_s", stat(&|x| x.idle_time_s)),
            ];
            for (name, (lo, mean, hi)) in rows {
                writeln!(f, "{name:>10} {lo:>14.6} {mean:>14.6} {hi:>14.6}")?;
            }
            writeln!(f, "(use --json for every rank)")?;
        }
        Ok(())
    }
}
