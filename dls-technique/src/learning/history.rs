//! Cross-loop learning: what techniques learn from earlier executions of the same loop, kept
//! per loop name. Today AWF's weights across time steps (Banicescu, Velusamy & Devaprasad,
//! Cluster Computing 6, 2003; see [`AwfHistory`]); which techniques learn is said by their
//! [`Entry::learns_across_loops`](crate::Entry::learns_across_loops), so a caller (the runtime)
//! never names a technique.

use std::collections::{HashMap, VecDeque};

use crate::learning::awf_history::AwfHistory;
use crate::spec::technique::Technique;

/// What techniques learnt from earlier executions, per loop name.
///
/// Before a loop runs, [`weights_for`](Self::weights_for) gives the weights to hand to
/// [`ChunkScheduler::set_weights`](crate::ChunkScheduler::set_weights); after it finished,
/// [`record`](Self::record) adds the execution. Both do nothing for techniques that do not
/// learn across loops.
///
/// ```
/// use dls_technique::{History, Technique};
/// let awf: Technique = "awf".parse().unwrap();
/// let mut h = History::default();
/// assert_eq!(h.weights_for("step", &awf, 2), None); // first time step: nothing learnt yet
/// // rank 0 ran 100 iterates in 1 s, rank 1 ran 100 iterates in 3 s
/// h.record("step", &awf, &[(100, 1.0), (100, 3.0)]);
/// let w = h.weights_for("step", &awf, 2).unwrap();
/// assert!((w[0] - 1.5).abs() < 1e-12 && (w[1] - 0.5).abs() < 1e-12);
/// // Techniques that do not learn across loops get nothing and record nothing.
/// let gss: Technique = "gss".parse().unwrap();
/// h.record("other", &gss, &[(100, 1.0), (100, 3.0)]);
/// assert_eq!(h.weights_for("other", &gss, 2), None);
/// assert_eq!(h.weights("other"), None);
/// ```
#[derive(Debug, Clone, Default)]
pub struct History {
    loops: HashMap<String, AwfHistory>,
    /// Loop names in the order they were first recorded, to forget the oldest beyond
    /// [`History::MAX_LOOPS`].
    order: VecDeque<String>,
}

impl History {
    /// The most loop names a history keeps: a program that names loops after a changing value
    /// (`format!("step{t}")`) would otherwise grow it without bound. Beyond it, the name recorded
    /// first is forgotten (its loop starts learning again if it runs once more).
    pub const MAX_LOOPS: usize = 1024;

    /// An empty history.
    pub fn new() -> Self {
        History::default()
    }

    /// The weights for the next execution of loop `name` under `technique` on `workers` ranks:
    /// `None` when the technique does not learn across loops, before the first execution, or
    /// when the recorded executions had another number of ranks.
    pub fn weights_for(
        &self,
        name: &str,
        technique: &Technique,
        workers: usize,
    ) -> Option<Vec<f64>> {
        if !technique.kind.entry().learns_across_loops {
            return None;
        }
        let h = self.loops.get(name)?;
        let w = h.weights();
        (h.steps() > 0 && w.len() == workers).then_some(w)
    }

    /// The weights learnt for loop `name` so far, whatever the technique (`None` before the
    /// first recorded execution).
    pub fn weights(&self, name: &str) -> Option<Vec<f64>> {
        self.loops.get(name).map(AwfHistory::weights)
    }

    /// Records a finished execution of loop `name` under `technique`: per rank, the iterates it
    /// executed and its work time in seconds. Does nothing when the technique does not learn
    /// across loops or there are no ranks; a different number of ranks than before (e.g. the
    /// loop also ran nested) starts a new history.
    pub fn record(&mut self, name: &str, technique: &Technique, per_rank: &[(u64, f64)]) {
        let p = per_rank.len();
        if !technique.kind.entry().learns_across_loops || p == 0 {
            return;
        }
        if !self.loops.contains_key(name) {
            if self.order.len() >= Self::MAX_LOOPS {
                if let Some(oldest) = self.order.pop_front() {
                    self.loops.remove(&oldest);
                }
            }
            self.order.push_back(name.to_string());
        }
        let h = self
            .loops
            .entry(name.to_string())
            .or_insert_with(|| AwfHistory::new(p));
        if h.update(per_rank).is_err() {
            let mut fresh = AwfHistory::new(p);
            if fresh.update(per_rank).is_ok() {
                *h = fresh;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::History;

    #[test]
    fn the_history_forgets_the_oldest_names_beyond_its_bound() {
        let awf = "awf".parse().unwrap();
        let mut h = History::new();
        for t in 0..History::MAX_LOOPS + 10 {
            h.record(&format!("step{t}"), &awf, &[(10, 1.0), (10, 2.0)]);
        }
        assert_eq!(h.loops.len(), History::MAX_LOOPS);
        assert_eq!(h.order.len(), History::MAX_LOOPS);
        assert_eq!(h.weights("step0"), None);
        assert!(h
            .weights(&format!("step{}", History::MAX_LOOPS + 9))
            .is_some());
        // Recording a known name again does not grow it.
        h.record("step20", &awf, &[(10, 1.0), (10, 2.0)]);
        assert_eq!(h.loops.len(), History::MAX_LOOPS);
    }
}
