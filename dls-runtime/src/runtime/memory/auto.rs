//! `schedule = "auto"`: per loop name, the first run measures the loop under FAC2 (its chunks
//! capped at ceil(N/(8P)), see [`measuring`]); the next
//! runs take the technique the simulator predicts fastest on the measured workload (SimAS,
//! Mohammed & Ciorba 2020; the model and the choice are `sim/selection.rs`); when a later run's
//! load imbalance grows past the first run of the choice by [`REMEASURE_ABOVE`], the loop is
//! measured and chosen for again (Auto4OMP's re-selection, Mohammed, Korndörfer, Eleliemy &
//! Ciorba 2022).
//!
//! **Why FAC2 measures.** It needs no parameter, is within a few percent of the best of the
//! classic techniques over a wide range of variance and overhead (Hummel, Schonberg & Flynn
//! 1992), and its geometrically shrinking chunks give every rank chunks spread over the index
//! plus small ones at the end: what separates a slow rank from expensive iterates and shows the
//! spread of iterate times. Its first batch, though, hands out half the loop in P chunks, each
//! of which would be one step of the measured profile; capped at N/(8P) iterates the profile
//! has about 8P steps (what tells Mandelbrot's expensive middle rows apart) for about 4P more
//! chunks. It is also the baseline `auto` must not lose to: the choice keeps
//! FAC2 unless a candidate is predicted more than [`MARGIN`] faster.
//!
//! **On MPI** only rank 0 holds the chunk map, so rank 0 proposes and every rank takes its
//! proposal ([`Platform::rank0_value`](crate::runtime::backend::platform::Platform), after checking that every rank
//! starts the same loop under `auto`): every rank runs and reports the same technique.

use std::collections::{HashMap, VecDeque};

use crate::report::AutoReport;
use crate::sim::selection::{select, Workload};
use crate::{LoopReport, Technique};

/// The technique a measuring run is named after, and the default the choice keeps.
pub(crate) const MEASURE_WITH: &str = "fac2";

/// A measuring run's technique for `n` iterates on `p` workers: FAC2 with chunks of at most
/// ceil(N/(8P)) iterates, so that its first chunks (N/(2P) under plain FAC2, half the loop in
/// the first batch) do not average a quarter of the index each: the profile the simulator
/// sees has about 8P steps, not P, at the cost of about 4P more chunks than FAC2.
fn measuring(n: u64, p: usize) -> String {
    let cap = n.div_ceil(8 * p.max(1) as u64).max(1);
    format!("{MEASURE_WITH},max={cap}")
}
/// The choice keeps FAC2 unless a candidate is predicted more than this fraction faster.
pub(crate) const MARGIN: f64 = 0.03;
/// A run under the choice whose load imbalance, `(max − mean) / max` of the ranks' work times,
/// exceeds the first run's by more than this brings a new measuring run.
pub(crate) const REMEASURE_ABOVE: f64 = 0.10;
/// Noise draws per candidate in the simulation: 4 up to 100,000 iterates (the predictions of
/// close candidates then differ by their technique, not by the draw), 1 above (the simulation
/// time grows with the iterates).
fn replications(n: u64) -> u64 {
    if n <= 100_000 {
        4
    } else {
        1
    }
}
/// Loop names kept (the oldest is forgotten beyond it).
const MAX_LOOPS: usize = 1024;

/// What one loop name measured and chose.
#[derive(Debug, Default)]
struct AutoLoop {
    /// Runs recorded.
    runs: u64,
    /// The last measuring run: its number, its workload (or why none) and its workers.
    measured: Option<(u64, Result<Workload, String>, usize)>,
    /// The choice in force.
    chosen: Option<AutoReport>,
    /// Load imbalance of the choice's first run.
    reference: Option<f64>,
    /// Why the next run measures again.
    remeasure: Option<String>,
}

/// Every loop name's state under `auto`.
#[derive(Debug, Default)]
pub(crate) struct AutoHistory {
    loops: HashMap<String, AutoLoop>,
    order: VecDeque<String>,
}

/// `(max − mean) / max` of the ranks' work times (0 without work).
fn imbalance(report: &LoopReport) -> f64 {
    let w: Vec<f64> = report.ranks.iter().map(|r| r.work_time_s).collect();
    let max = w.iter().copied().fold(0.0, f64::max);
    if w.is_empty() || max <= 0.0 {
        return 0.0;
    }
    (max - w.iter().sum::<f64>() / w.len() as f64) / max
}

impl AutoHistory {
    fn entry(&mut self, name: &str) -> &mut AutoLoop {
        if !self.loops.contains_key(name) {
            if self.order.len() >= MAX_LOOPS {
                if let Some(old) = self.order.pop_front() {
                    self.loops.remove(&old);
                }
            }
            self.order.push_back(name.to_string());
        }
        self.loops.entry(name.to_string()).or_default()
    }

    /// What this process proposes for the next run of `name` on `p` workers (`decides`: this
    /// process's proposal is the one taken, so it simulates).
    pub(crate) fn propose(&mut self, name: &str, n: u64, p: usize, decides: bool) -> AutoReport {
        let e = self.entry(name);
        let run = e.runs + 1;
        let measure = |why: String| AutoReport {
            phase: "measure".into(),
            chose: measuring(n, p),
            why,
            run,
            ..Default::default()
        };
        if let Some(why) = &e.remeasure {
            return measure(why.clone());
        }
        let Some((from_run, workload, workers)) = &e.measured else {
            return measure(format!(
                "first run of this loop: it runs {} and is measured; the next run takes the \
                 technique the simulator predicts fastest",
                measuring(n, p)
            ));
        };
        if *workers != p {
            return measure(format!(
                "measured on {workers} workers, now {p}: it is measured again"
            ));
        }
        if let Some(c) = &e.chosen {
            return AutoReport {
                phase: "kept".into(),
                run,
                ..c.clone()
            };
        }
        let fallback = |why: String| AutoReport {
            phase: "chosen".into(),
            chose: MEASURE_WITH.into(),
            why,
            run,
            from_run: *from_run,
            ..Default::default()
        };
        if !decides {
            return fallback("rank 0 chooses".into());
        }
        let default: Technique = MEASURE_WITH.parse().expect("a valid technique");
        let selection = workload.as_ref().map_err(Clone::clone).and_then(|w| {
            select(w, &default, MARGIN, replications(w.n)).map_err(|e| e.to_string())
        });
        match selection {
            Ok(s) => AutoReport {
                phase: "chosen".into(),
                chose: s.chose.to_string(),
                why: s.why,
                predicted: s
                    .predicted
                    .iter()
                    .map(|x| (x.technique.to_string(), x.makespan_s))
                    .collect(),
                run,
                from_run: *from_run,
            },
            Err(why) => fallback(format!(
                "kept {MEASURE_WITH}: run {from_run} could not be modelled: {why}"
            )),
        }
    }

    /// Takes the proposal every process agreed on.
    pub(crate) fn adopt(&mut self, name: &str, agreed: &AutoReport) {
        let e = self.entry(name);
        match agreed.phase.as_str() {
            "measure" => {
                e.remeasure = None;
                e.chosen = None;
            }
            "chosen" => {
                e.chosen = Some(agreed.clone());
                e.reference = None;
            }
            _ => {}
        }
    }

    /// Records a finished run of a loop under `auto`.
    pub(crate) fn record(&mut self, report: &LoopReport) {
        let Some(a) = &report.auto else { return };
        let e = self.entry(&report.name);
        e.runs = e.runs.max(a.run);
        if a.phase == "measure" {
            let w = Workload::from_report(report).map_err(|e| e.to_string());
            e.measured = Some((a.run, w, report.p));
            return;
        }
        let lib = imbalance(report);
        match e.reference {
            None => e.reference = Some(lib),
            Some(r) if lib > r + REMEASURE_ABOVE => {
                e.remeasure = Some(format!(
                    "run {} under {} had a load imbalance of {lib:.2}, up from {r:.2} in the \
                     choice's first run: it is measured again (Auto4OMP's re-selection)",
                    a.run, a.chose
                ));
                e.chosen = None;
            }
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::check::inject::current_worker;
    use crate::runtime::settings::{parse_schedule, Settings};
    use crate::RankReport;
    use crate::Runtime;
    use std::time::Duration;

    /// `DLS_SCHEDULE=auto` over a program's `fac2`: run 1 measures under FAC2, run 2 takes the
    /// simulator's choice, which with worker 3 ten times slower (three times was not always
    /// told from the noise when the whole test suite shares the cores) is not FAC2 and is predicted
    /// faster; run 3 keeps it. Every iterate runs once in every run.
    #[test]
    fn dls_schedule_auto_measures_then_chooses_then_keeps() {
        let s = Settings {
            schedule: Some(parse_schedule("auto").unwrap()),
            ..Settings::default()
        };
        let rt = Runtime::threads(4, s).unwrap().with_statistics(true);
        let mut phases = Vec::new();
        for _ in 0..3 {
            let (sum, stats) = rt
                .doall_reduce(
                    "step",
                    0..600u64,
                    "fac2".parse().unwrap(),
                    || 0u64,
                    |i, s| {
                        let slow = current_worker() == Some(3);
                        std::thread::sleep(Duration::from_micros(if slow { 5000 } else { 500 }));
                        *s += i;
                    },
                    |a, b| a + b,
                )
                .unwrap();
            assert_eq!(sum, 599 * 600 / 2);
            let a = stats.report.auto.clone().expect("an auto entry");
            assert_eq!(stats.report.technique, a.chose);
            phases.push(a);
        }
        assert_eq!(phases[0].phase, "measure");
        assert_eq!(phases[0].chose, "fac2,max=19"); // ceil(600 / 32)
        assert_eq!(
            (phases[1].phase.as_str(), phases[1].from_run),
            ("chosen", 1)
        );
        assert_ne!(phases[1].chose, "fac2", "{}", phases[1].why);
        let fac2 = phases[1]
            .predicted
            .iter()
            .find(|(t, _)| t == "fac2")
            .unwrap()
            .1;
        assert!(phases[1].predicted[0].1 < fac2, "{:?}", phases[1].predicted);
        assert_eq!(phases[2].phase, "kept");
        assert_eq!(phases[2].chose, phases[1].chose);
    }

    fn report(work: &[f64], a: AutoReport) -> LoopReport {
        LoopReport {
            name: "l".into(),
            n: 100,
            p: work.len(),
            ranks: work
                .iter()
                .enumerate()
                .map(|(rank, &w)| RankReport {
                    rank,
                    iterates: 25,
                    work_time_s: w,
                    ..Default::default()
                })
                .collect(),
            auto: Some(a),
            ..Default::default()
        }
    }

    /// Auto4OMP's re-selection: a run of the choice whose imbalance grew by more than
    /// REMEASURE_ABOVE over the choice's first run makes the next run measure again.
    #[test]
    fn a_growing_imbalance_brings_a_new_measuring_run() {
        let mut h = AutoHistory::default();
        let a = h.propose("l", 100, 2, true);
        assert_eq!(a.phase, "measure");
        h.adopt("l", &a);
        h.record(&report(&[1.0, 1.0], a));
        let b = h.propose("l", 100, 2, true);
        assert_eq!(b.phase, "chosen");
        h.adopt("l", &b);
        h.record(&report(&[1.0, 0.98], b));
        let c = h.propose("l", 100, 2, true);
        assert_eq!(c.phase, "kept");
        h.adopt("l", &c);
        h.record(&report(&[1.0, 0.95], c)); // imbalance 0.025: kept
        let d = h.propose("l", 100, 2, true);
        assert_eq!(d.phase, "kept");
        h.adopt("l", &d);
        h.record(&report(&[1.0, 0.5], d)); // imbalance 0.25: measure again
        let e = h.propose("l", 100, 2, true);
        assert_eq!((e.phase.as_str(), e.run), ("measure", 5));
        assert!(e.why.contains("imbalance"), "{}", e.why);
        // Another worker count measures again too.
        let f = h.propose("other", 100, 2, true);
        h.adopt("other", &f);
        h.record(&LoopReport {
            name: "other".into(),
            ..report(&[1.0, 1.0], f)
        });
        assert_eq!(h.propose("other", 100, 3, true).phase, "measure");
    }
}
