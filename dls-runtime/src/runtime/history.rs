//! The per-loop-name history of AWF (Banicescu, Velusamy & Devaprasad 2003): the weights of a
//! loop's next execution (time step) come from its earlier executions on the same runtime.

use super::sync::lock;
use super::Runtime;
use crate::report::LoopReport;
use crate::technique::{AwfHistory, Kind};
use crate::Technique;

impl Runtime {
    /// AWF's weights for the next execution of the loop `name`, from its earlier executions
    /// (time steps) on this runtime: `None` before the first, or when the loop is not AWF.
    /// `w_i = P·rho_i / Σ rho_k` with `rho_i = mean(pi) / pi_i` and
    /// `pi_i = Σ_s s·T_is / Σ_s s·N_is` (Banicescu, Velusamy & Devaprasad 2003; see
    /// [`AwfHistory`]).
    ///
    /// ```
    /// use dls_runtime::{Runtime, runtime::settings::Settings};
    /// let rt = Runtime::threads(2, Settings::default()).unwrap();
    /// assert_eq!(rt.awf_weights("step"), None);
    /// rt.doall_named("step", 0..100u32, "awf".parse().unwrap(), |_| {}).unwrap();
    /// assert_eq!(rt.awf_weights("step").unwrap().len(), 2);
    /// ```
    pub fn awf_weights(&self, name: &str) -> Option<Vec<f64>> {
        lock(&self.shared.history).get(name).map(|h| h.weights())
    }

    pub(super) fn awf_weights_for(
        &self,
        name: &str,
        technique: &Technique,
        p: usize,
    ) -> Option<Vec<f64>> {
        if technique.kind != Kind::Awf {
            return None;
        }
        let history = lock(&self.shared.history);
        let h = history.get(name)?;
        let w = h.weights();
        (h.steps() > 0 && w.len() == p).then_some(w)
    }

    /// Records a finished AWF loop as one more time step of its history.
    pub(crate) fn record_history(&self, technique: &Technique, report: &LoopReport) {
        if technique.kind != Kind::Awf || report.p == 0 {
            return;
        }
        let per_rank: Vec<(u64, f64)> = report
            .ranks
            .iter()
            .map(|r| (r.iterates, r.work_time_s))
            .collect();
        let mut history = lock(&self.shared.history);
        let h = history
            .entry(report.name.clone())
            .or_insert_with(|| AwfHistory::new(report.p));
        if h.update(&per_rank).is_err() {
            // Another P than before (e.g. the loop also ran nested): start a new history.
            let mut fresh = AwfHistory::new(report.p);
            if fresh.update(&per_rank).is_ok() {
                *h = fresh;
            }
        }
    }
}
