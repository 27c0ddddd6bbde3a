//! The runtime's splitting of a chunk in progress for an idle rank (`runtime/tolerance/split.rs`), in the
//! simulator: which ranks' chunks may be split, and where.

use std::fmt;
use std::str::FromStr;

use super::error::SimError;

/// How an idle rank splits a chunk in progress once every iterate has been handed out.
///
/// ```
/// use dls_model::sim::SplitModel;
/// assert_eq!("mpi".parse::<SplitModel>().unwrap(), SplitModel::Mpi);
/// assert_eq!(SplitModel::default().to_string(), "off");
/// assert!("some".parse::<SplitModel>().unwrap_err().to_string().contains("off, mpi, threads"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SplitModel {
    /// No splits: every chunk runs to its end on the rank it was handed to (the published
    /// techniques, and the runtime with `DLS_SPLIT=off`). The default.
    #[default]
    Off,
    /// As under MPI: rank 0 (whose chunks the scheduler splits at once) takes the second half of
    /// what the holder has not started, any other rank the last quarter. A chunk of another rank
    /// is split as the runtime does it, by an ask and an answer: the ask reaches the holder after
    /// the latency, the holder looks for asks every `SPLIT_POLL` (0.2 ms) at the end of an
    /// iterate, so it answers at the end of the first iterate that ends half a poll after the
    /// ask's arrival, splits at that point (or refuses if less than `SPLIT_MIN` is left, and is
    /// not asked again for that chunk), and the part reaches the asker one latency later for
    /// each hop (holder to rank 0, rank 0 to the asker). Meanwhile the holder is not asked
    /// again, and an idle rank that finds nothing else to split waits for the answer.
    Mpi,
    /// As on the threads backend: the idle rank takes the second half.
    Threads,
}

impl SplitModel {
    /// The accepted names, for error and help messages.
    ///
    /// ```
    /// assert_eq!(dls_model::sim::SplitModel::NAMES, "off, mpi, threads");
    /// ```
    pub const NAMES: &'static str = "off, mpi, threads";

    /// The quarters of what it has not started that a holder keeps when `asker` splits its
    /// chunk; `None` without splits.
    ///
    /// ```
    /// use dls_model::sim::SplitModel;
    /// assert_eq!(SplitModel::Mpi.keep(0), Some(2));
    /// assert_eq!(SplitModel::Mpi.keep(3), Some(3));
    /// assert_eq!(SplitModel::Threads.keep(3), Some(2));
    /// assert_eq!(SplitModel::Off.keep(0), None);
    /// ```
    pub fn keep(self, asker: usize) -> Option<u64> {
        match self {
            SplitModel::Off => None,
            SplitModel::Mpi => Some(if asker == 0 { 2 } else { 3 }),
            SplitModel::Threads => Some(2),
        }
    }
}

impl FromStr for SplitModel {
    type Err = SimError;

    fn from_str(text: &str) -> Result<Self, SimError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "off" | "none" => Ok(SplitModel::Off),
            "mpi" => Ok(SplitModel::Mpi),
            "threads" => Ok(SplitModel::Threads),
            _ => Err(SimError::new(format!(
                "--split: unknown model `{text}`; valid models: {}",
                SplitModel::NAMES
            ))),
        }
    }
}

impl fmt::Display for SplitModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SplitModel::Off => "off",
            SplitModel::Mpi => "mpi",
            SplitModel::Threads => "threads",
        })
    }
}

/// A chunk in progress: its iterates' base times (prefix sums), when it started and its time
/// factor.
#[derive(Debug, Clone)]
pub(crate) struct Running {
    pub(crate) start: u64,
    /// `prefix[k]`: base time of the chunk's first k iterates.
    pub(crate) prefix: Vec<f64>,
    /// When its rank received it.
    pub(crate) received: f64,
    /// Its duration over its base time (the rank's time factor during the chunk).
    pub(crate) factor: f64,
    /// Its index in the chunk map, if listed.
    pub(crate) map_index: Option<usize>,
    /// Until when an ask to split it is pending (its answer reaches rank 0 then); infinite once
    /// its holder refused, as the runtime does not ask again after a refusal.
    pub(crate) asked_until: f64,
}

impl Running {
    /// Iterates of the chunk.
    pub(crate) fn len(&self) -> u64 {
        (self.prefix.len() - 1) as u64
    }

    /// Iterates started by time `t` (the one in progress included: it is not cut).
    pub(crate) fn started_by(&self, t: f64) -> u64 {
        let done = ((t - self.received) / self.factor.max(f64::MIN_POSITIVE)).max(0.0);
        // The first k with prefix[k] > done: iterates 0..k have started.
        let k = self.prefix.partition_point(|&p| p <= done) as u64;
        k.min(self.len())
    }

    /// Seconds of the chunk from iterate `k` to its end.
    pub(crate) fn left_after(&self, k: u64) -> f64 {
        (self.prefix[self.prefix.len() - 1] - self.prefix[k as usize]) * self.factor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn started_iterates_follow_the_prefix_sums() {
        let r = Running {
            start: 10,
            prefix: vec![0.0, 1.0, 2.0, 4.0],
            received: 5.0,
            factor: 2.0,
            map_index: None,
            asked_until: f64::NEG_INFINITY,
        };
        assert_eq!(r.len(), 3);
        assert_eq!(r.started_by(5.0), 1, "the first iterate starts at once");
        assert_eq!(r.started_by(6.9), 1);
        assert_eq!(r.started_by(7.0), 2);
        assert_eq!(r.started_by(9.1), 3);
        assert_eq!(r.started_by(100.0), 3);
        assert_eq!(r.left_after(1), 6.0);
    }
}
