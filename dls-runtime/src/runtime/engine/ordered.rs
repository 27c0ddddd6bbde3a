//! Reductions whose merge depends on order (appending, concatenating, "the first that…"): the
//! serial loop's order, whatever the schedule.
//!
//! Under dynamic scheduling a worker's chunks are not next to each other, so folding a worker's
//! iterates into one value would mix the order. Here each worker keeps one partial result per run
//! of consecutive iterates it executed (a chunk, or several chunks that follow each other), tagged
//! with the run's first index; the runs of all workers and ranks travel by the loop's strategy in
//! any order, and are then combined in index order. A commutative merge does not need this (the
//! plain [`crate::Runtime::doall_reduce`] combines in any order and keeps one value per worker).

use serde::{Deserialize, Serialize};

/// The partial results of one worker: `(first offset, end offset, value)` per run of
/// consecutive iterates, in the order the worker ran them. The engine wraps an ordered loop's
/// accumulator in it ([`Runs::at`]), combines the workers' with [`Runs::append`] in any order,
/// and folds the runs in index order at the end ([`Runs::finish`]); the same adaptor serves
/// one-level, outer and inner loops, checked or not.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(
    serialize = "T: Serialize",
    deserialize = "T: serde::de::DeserializeOwned"
))]
pub(crate) struct Runs<T> {
    runs: Vec<(u64, u64, T)>,
}

impl<T> Runs<T> {
    /// No runs yet: a worker's identity.
    pub(crate) fn new() -> Runs<T> {
        Runs { runs: Vec::new() }
    }

    /// The accumulator of the iterate at offset `k`: the last run's when `k` follows it, else a
    /// new run's, started from `identity()`.
    pub(crate) fn at(&mut self, k: u64, identity: &impl Fn() -> T) -> &mut T {
        let extends = matches!(self.runs.last(), Some((_, end, _)) if *end == k);
        if extends {
            let last = self.runs.last_mut().expect("a last run");
            last.1 += 1;
        } else {
            self.runs.push((k, k + 1, identity()));
        }
        &mut self.runs.last_mut().expect("a run").2
    }

    /// Both workers' runs (the combine of the wrapped loop: any order).
    pub(crate) fn append(mut a: Runs<T>, mut b: Runs<T>) -> Runs<T> {
        if a.runs.len() < b.runs.len() {
            std::mem::swap(&mut a, &mut b);
        }
        a.runs.append(&mut b.runs);
        a
    }

    /// `identity() ⊕ v_0 ⊕ v_1 ⊕ …`: the runs' values combined in index order.
    pub(crate) fn finish(self, identity: impl Fn() -> T, combine: impl Fn(T, T) -> T) -> T {
        let mut runs = self.runs;
        runs.sort_unstable_by_key(|r| r.0);
        runs.into_iter()
            .map(|(_, _, v)| v)
            .fold(identity(), combine)
    }
}

#[cfg(test)]
mod tests {
    use super::Runs;

    /// Runs of consecutive offsets share a value; the finish folds in index order whatever the
    /// order the runs were appended in.
    #[test]
    fn runs_fold_in_index_order() {
        let id = String::new;
        let mut a = Runs::new();
        for k in [4, 5, 0] {
            a.at(k, &id).push_str(&k.to_string());
        }
        let mut b = Runs::new();
        for k in [1, 2, 3] {
            b.at(k, &id).push_str(&k.to_string());
        }
        assert_eq!(a.runs.len() + b.runs.len(), 3);
        assert_eq!(Runs::append(a, b).finish(id, |x, y| x + &y), "012345");
    }
}
