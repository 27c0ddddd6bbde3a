//! Reductions whose merge depends on order (appending, concatenating, "the first that…"): the
//! serial loop's order, whatever the schedule.
//!
//! Under dynamic scheduling a worker's chunks are not next to each other, so folding a worker's
//! iterates into one value would mix the order. Here each worker keeps one partial result per run
//! of consecutive iterates it executed (a chunk, or several chunks that follow each other), tagged
//! with the run's first index; the runs of all workers and ranks travel by the loop's strategy in
//! any order, and are then combined in index order. A commutative merge does not need this (the
//! plain [`Runtime::doall_reduce`] combines in any order and keeps one value per worker).

use serde::{Deserialize, Serialize};

use super::error::DlsError;
use super::range::{LoopIndex, LoopRange};
use super::stats::LoopStats;
use super::wire::Wire;
use super::Runtime;
use crate::Technique;

/// The partial results of one worker: `(first offset, end offset, value)` per run of
/// consecutive iterates, in the order the worker ran them.
#[derive(Debug, Serialize, Deserialize)]
#[serde(bound(
    serialize = "T: Serialize",
    deserialize = "T: serde::de::DeserializeOwned"
))]
struct Runs<T> {
    runs: Vec<(u64, u64, T)>,
}

impl Runtime {
    /// [`doall_reduce`](Runtime::doall_reduce) for a `combine` that depends on order: the
    /// result is `identity() ⊕ v_0 ⊕ v_1 ⊕ …` with the iterates' contributions combined in index
    /// order, as the serial loop produces it, on every technique, strategy and number of workers.
    /// Each worker keeps one partial result per run of consecutive iterates it executed (a
    /// chunk, or chunks that follow each other), so memory grows with the number of chunks.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let (words, _) = rt.doall_reduce_ordered("sentence", 0..6u32, "ss".parse().unwrap(),
    ///     String::new,
    ///     |i, s: &mut String| s.push_str(["to ", "be ", "or ", "not ", "to ", "be"][i as usize]),
    ///     |a, b| a + &b).unwrap();
    /// assert_eq!(words, "to be or not to be");
    /// ```
    pub fn doall_reduce_ordered<R, T, Id, B, C>(
        &self,
        name: &str,
        range: R,
        technique: Technique,
        identity: Id,
        body: B,
        combine: C,
    ) -> Result<(T, LoopStats), DlsError>
    where
        R: LoopRange,
        T: Send + Wire,
        Id: Fn() -> T + Sync,
        B: Fn(R::Index, &mut T) + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        let (first, _) = range.first_and_len()?;
        let (runs, stats) = self.doall_reduce(
            name,
            range,
            technique,
            || Runs { runs: Vec::new() },
            |i, own: &mut Runs<T>| {
                let k = R::Index::span(first, i) as u64;
                match own.runs.last_mut() {
                    // The iterate follows the last one this worker ran: the same run.
                    Some((_, end, value)) if *end == k => {
                        body(i, value);
                        *end += 1;
                    }
                    _ => {
                        let mut value = identity();
                        body(i, &mut value);
                        own.runs.push((k, k + 1, value));
                    }
                }
            },
            |mut a, mut b| {
                if a.runs.len() < b.runs.len() {
                    std::mem::swap(&mut a, &mut b);
                }
                a.runs.append(&mut b.runs);
                a
            },
        )?;
        let mut runs = runs.runs;
        runs.sort_unstable_by_key(|r| r.0);
        let total = runs
            .into_iter()
            .map(|(_, _, v)| v)
            .fold(identity(), &combine);
        Ok((total, stats))
    }
}
