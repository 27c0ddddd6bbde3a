//! Reduction strategies: how the partial results of a loop's processes travel and are combined
//! (`DLS_REDUCTION`, the `reduction = "..."` clause of `#[par_doall]`, the runtime's
//! `with_reduction`). Not a chunk technique, but like one a name that the program, the settings
//! and the macro (which rejects an unknown one at compile time) spell the same way, so it lives
//! here with the techniques. The runtime's `combine.rs` implements them.

use std::fmt;
use std::str::FromStr;

/// How a loop's partial results travel between processes (`DLS_REDUCTION`, the `reduction`
/// clause of `#[par_doall]`, the runtime's `with_reduction`).
///
/// ```
/// use dls_technique::Strategy;
/// let s: Strategy = "tree".parse().unwrap();
/// assert_eq!(s, Strategy::Tree);
/// assert_eq!(s.to_string(), "tree");
/// assert!("fastest".parse::<Strategy>().unwrap_err().to_string().contains("auto, allgather"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Strategy {
    /// Chosen from the values' sizes: `allgather` for small values, else `tree`.
    #[default]
    Auto,
    /// Every rank receives every rank's value and combines them all, in rank order.
    AllGather,
    /// Every rank sends its value to rank 0, which combines them in rank order and broadcasts
    /// the total.
    Master,
    /// A binomial tree: at level k, rank r with r mod 2^k = 2^(k−1) sends to r − 2^(k−1), which
    /// combines (in rank order); rank 0 broadcasts the total.
    Tree,
    /// Kuntraruk, Pottenger & Ross's (2005) parallel-pipeline pairs: at level i, rank r sends to
    /// r + 2^(i−1) when r mod 2^i < 2^(i−1) and receives from r − 2^(i−1) otherwise; the total
    /// ends at rank P − 1 (ranks from the largest power of two on first fold into rank
    /// r − 2^⌊lg P⌋), which broadcasts it.
    Pipeline,
}

impl Strategy {
    /// Every strategy's name, in the order of the docs.
    pub const NAMES: [&'static str; 5] = ["auto", "allgather", "master", "tree", "pipeline"];

    /// The strategy's name, as `DLS_REDUCTION` takes it.
    ///
    /// ```
    /// assert_eq!(dls_technique::Strategy::AllGather.name(), "allgather");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Auto => "auto",
            Strategy::AllGather => "allgather",
            Strategy::Master => "master",
            Strategy::Tree => "tree",
            Strategy::Pipeline => "pipeline",
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Strategy {
    type Err = UnknownStrategy;

    fn from_str(s: &str) -> Result<Self, UnknownStrategy> {
        let t = s.trim().to_ascii_lowercase();
        Strategy::NAMES
            .iter()
            .position(|&n| n == t)
            .map(|k| {
                [
                    Strategy::Auto,
                    Strategy::AllGather,
                    Strategy::Master,
                    Strategy::Tree,
                    Strategy::Pipeline,
                ][k]
            })
            .ok_or_else(|| UnknownStrategy(s.to_string()))
    }
}

/// A name that is no [`Strategy`]; its message lists the valid ones.
///
/// ```
/// let e = "fast".parse::<dls_technique::Strategy>().unwrap_err();
/// assert_eq!(e.to_string(),
///     "unknown reduction strategy `fast`; valid strategies: auto, allgather, master, tree, pipeline");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownStrategy(pub String);

impl fmt::Display for UnknownStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown reduction strategy `{}`; valid strategies: {}",
            self.0,
            Strategy::NAMES.join(", ")
        )
    }
}

impl std::error::Error for UnknownStrategy {}
