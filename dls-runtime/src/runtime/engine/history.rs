//! The per-loop-name history of AWF (Banicescu, Velusamy & Devaprasad 2003): the weights of a
//! loop's next execution (time step) come from its earlier executions on the same runtime.

use crate::report::{AutoReport, LoopReport};
use crate::runtime::loops::handle::LoopMemory;
use crate::runtime::sync::lock;
use crate::runtime::Runtime;
use crate::Technique;

impl Runtime {
    /// AWF's weights for the next execution of the loop `name`, from its earlier executions
    /// (time steps) on this runtime: `None` before the first, or when the loop is not AWF.
    /// `w_i = P·rho_i / Σ rho_k` with `rho_i = mean(pi) / pi_i` and
    /// `pi_i = Σ_s s·T_is / Σ_s s·N_is` (Banicescu, Velusamy & Devaprasad 2003; see
    /// [`AwfHistory`](crate::technique::AwfHistory)).
    ///
    /// ```
    /// use dls_runtime::{Runtime, runtime::settings::Settings};
    /// let rt = Runtime::threads(2, Settings::default()).unwrap();
    /// assert_eq!(rt.awf_weights("step"), None);
    /// rt.doall_named("step", 0..100u32, "awf".parse().unwrap(), |_| {}).unwrap();
    /// assert_eq!(rt.awf_weights("step").unwrap().len(), 2);
    /// ```
    pub fn awf_weights(&self, name: &str) -> Option<Vec<f64>> {
        lock(&self.shared.history).weights(name)
    }

    /// The weights a technique that learns across loops (AWF) takes for the next execution of
    /// the loop `name` on `p` workers; `None` for every other technique.
    pub(crate) fn awf_weights_for(
        &self,
        name: &str,
        technique: &Technique,
        p: usize,
    ) -> Option<Vec<f64>> {
        lock(&self.shared.history).weights_for(name, technique, p)
    }

    /// The mean merge time measured in the last run of the loop `name` on this rank.
    pub(crate) fn merge_time_of(&self, name: &str) -> Option<f64> {
        lock(&self.shared.merge_times).get(name).copied()
    }

    /// Records the mean merge time of a run of the loop `name` (kept for at most 1024 names:
    /// a program that names its loops by a counter does not grow it without bound).
    pub(crate) fn record_merge_time(&self, name: &str, seconds: f64) {
        let mut times = lock(&self.shared.merge_times);
        // A name already kept is updated in place (no key allocated at every loop).
        if let Some(t) = times.get_mut(name) {
            *t = seconds;
        } else if times.len() < 1024 {
            times.insert(name.to_string(), seconds);
        }
    }

    /// Records a finished loop as one more execution (time step) of its name's history; does
    /// nothing for techniques that do not learn across loops.
    pub(crate) fn record_history(&self, technique: &Technique, report: &LoopReport) {
        let per_rank: Vec<(u64, f64)> = report
            .ranks
            .iter()
            .map(|r| (r.iterates, r.work_time_s))
            .collect();
        lock(&self.shared.history).record(&report.name, technique, &per_rank);
    }
}

impl LoopMemory for Runtime {
    fn remember(&self, technique: &Technique, report: &LoopReport) {
        self.record_history(technique, report);
        if report.auto.is_some() {
            self.record_auto(report);
        }
    }
}

/// `schedule = "auto"` (`auto.rs`): the choice at a loop's start and what its run measured.
impl Runtime {
    /// The technique the next run of the loop `name` takes under `auto` (`requested`, with its
    /// `min` and `max`), and the report entry saying why. Collective on MPI.
    pub(crate) fn resolve_auto(
        &self,
        at: &crate::runtime::backend::platform::LoopStart<'_>,
        p: usize,
        requested: &Technique,
    ) -> (Technique, AutoReport) {
        let (name, n) = (at.name, at.n);
        let decides = self.rank() == 0;
        let mine = lock(&self.shared.auto).propose(name, n, p, decides);
        let bytes = serde_json::to_vec(&mine).expect("an auto report serialises");
        let theirs = self.shared.platform.rank0_value(at, requested, bytes);
        let agreed: AutoReport = serde_json::from_slice(&theirs).unwrap_or(mine);
        lock(&self.shared.auto).adopt(name, &agreed);
        let mut technique: Technique = agreed.chose.parse().unwrap_or_else(|_| {
            crate::runtime::memory::auto::MEASURE_WITH
                .parse()
                .expect("a valid technique")
        });
        technique.params.min_chunk = requested.params.min_chunk;
        if requested.params.max_chunk.is_some() {
            technique.params.max_chunk = requested.params.max_chunk;
        }
        if let Some(max) = technique.params.max_chunk {
            technique.params.max_chunk = Some(max.max(technique.params.min_chunk));
        }
        (technique, agreed)
    }

    /// Records a finished run of a loop under `auto` (its report has the `auto` entry).
    pub(crate) fn record_auto(&self, report: &LoopReport) {
        lock(&self.shared.auto).record(report);
    }
}
