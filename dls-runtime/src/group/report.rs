//! Per-group statistics of a two-level loop, as in seed 004 fig. 4.5: outer iterates and work
//! time per group, the AAD of the groups' work times and the efficiency estimate.

use serde::{Deserialize, Serialize};

use crate::report::{aad, LoopReport};

/// What one group (inner communicator) did during a two-level loop.
///
/// ```
/// let g = dls_runtime::group::GroupReport { group: 0, ranks: vec![1, 2], outer_iterates: 5, work_time_s: 2.0, ..Default::default() };
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
    /// The group's cost: its work time times its number of ranks, seconds (seed 004 §4.2 sums
    /// these "costs from each iComm" to estimate the sequential cost).
    pub fn cost_s(&self) -> f64 {
        self.work_time_s * self.ranks.len() as f64
    }
}

/// Fills the loop-level figures of a two-level report from its `groups`, `p` (all world ranks,
/// the coordinator included) and `parallel_time_s`, as seed 004 §4.2 computes them for fig. 4.5:
/// - `sequential_cost_s` = Σ over groups of work time × group size;
/// - `efficiency` = sequential cost / (p × parallel time);
/// - `aad` = Σ |x_g − x̄| / (G · x̄) over the groups' work times x_g;
/// - `chunks` = outer chunks.
///
/// ```
/// use dls_runtime::{LoopReport, group::{GroupReport, summarise_groups}};
/// let mut r = LoopReport { p: 5, parallel_time_s: 1.0, ..Default::default() };
/// r.groups = vec![
///     GroupReport { group: 0, ranks: vec![1, 2, 3], work_time_s: 1.0, outer_chunks: 2, ..Default::default() },
///     GroupReport { group: 1, ranks: vec![4], work_time_s: 0.5, outer_chunks: 1, ..Default::default() },
/// ];
/// summarise_groups(&mut r);
/// assert_eq!(r.sequential_cost_s, 3.5);
/// assert_eq!(r.efficiency, 0.7);
/// assert!((r.aad - 0.25 / 0.75).abs() < 1e-12);
/// assert_eq!(r.chunks, 3);
/// ```
pub fn summarise_groups(report: &mut LoopReport) {
    report.sequential_cost_s = report.groups.iter().map(GroupReport::cost_s).sum();
    report.chunks = report.groups.iter().map(|g| g.outer_chunks).sum();
    report.efficiency = if report.parallel_time_s > 0.0 && report.p > 0 {
        report.sequential_cost_s / (report.p as f64 * report.parallel_time_s)
    } else {
        1.0
    };
    report.aad = aad(report.groups.iter().map(|g| g.work_time_s));
}

/// The per-group lines of the `DLS_REPORT=1` summary (empty for a one-level loop).
///
/// ```
/// use dls_runtime::{LoopReport, group::{GroupReport, group_summary}};
/// let mut r = LoopReport::default();
/// assert_eq!(group_summary(&r), "");
/// r.coordinator = Some(0);
/// r.groups = vec![GroupReport { group: 0, ranks: vec![1, 2], racks: vec!["a".into()], outer_iterates: 7, work_time_s: 1.5, ..Default::default() }];
/// let s = group_summary(&r);
/// assert!(s.contains("group 0") && s.contains("ranks 1,2") && s.contains("outer iterates 7"));
/// ```
pub fn group_summary(report: &LoopReport) -> String {
    if report.groups.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "dls:   two-level: coordinator {}, {} groups, group work-time AAD {:.3}, efficiency {:.3}\n",
        report
            .coordinator
            .map_or_else(|| "-".to_string(), |c| c.to_string()),
        report.groups.len(),
        report.aad,
        report.efficiency
    );
    for g in &report.groups {
        let ranks: Vec<String> = g.ranks.iter().map(usize::to_string).collect();
        s.push_str(&format!(
            "dls:   group {}: ranks {} (racks {}): outer iterates {}, chunks {}, inner iterates {}, work {:.4} s\n",
            g.group,
            ranks.join(","),
            g.racks.join("+"),
            g.outer_iterates,
            g.outer_chunks,
            g.inner_iterates,
            g.work_time_s
        ));
    }
    s
}
