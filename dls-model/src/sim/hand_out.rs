//! How chunks reach the workers: every worker asks rank 0 for its own chunk (central), a rank
//! of several threads asks rank 0 for up to one chunk per thread at once (SS, FSC and mFSC: for a
//! block of whole chunks), and its threads take them from a local queue (hierarchical), or rank
//! 0 hands batches to sub-schedulers that serve groups of ranks (a scheduler tree).

use std::fmt;
use std::str::FromStr;

use super::duration::{format_duration, parse_duration};
use super::error::SimError;

/// Who asks the scheduler on rank 0 for chunks. [`SimConfig::hand_out`](super::SimConfig::hand_out)
/// chooses it; the [engine](super::engine) documentation gives both timing models.
///
/// Text form: `central`, `threads:K`, or `threads:K:C:L` with the cost `C` of computing one more
/// chunk of a batch and the cost `L` of a thread's pop from its rank's queue (durations, default
/// 100ns each), or `tree:F` for a scheduler tree of fan-out F.
///
/// ```
/// use dls_model::sim::{HandOut, Hierarchy};
/// assert_eq!(HandOut::default(), HandOut::Central);
/// assert_eq!("threads:64".parse::<HandOut>().unwrap(), HandOut::threads(64));
/// let h: HandOut = "threads:16:200ns:50ns".parse().unwrap();
/// assert_eq!(h, HandOut::Hierarchical(Hierarchy { threads: 16, chunk_cost_s: 2e-7, pop_cost_s: 5e-8 }));
/// assert_eq!(h.to_string(), "threads:16:200ns:50ns");
/// assert_eq!(HandOut::threads(8).to_string(), "threads:8");
/// assert!("threads:0".parse::<HandOut>().unwrap_err().to_string().contains("--hand-out"));
/// assert_eq!("tree:32".parse::<HandOut>().unwrap(), HandOut::tree(32));
/// assert_eq!(HandOut::tree(32).to_string(), "tree:32");
/// assert!("tree:0".parse::<HandOut>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[non_exhaustive]
pub enum HandOut {
    /// Every worker is a rank of its own and sends its own request to rank 0 (`mpirun -np P·k`,
    /// one worker per rank: today's MPI backend). The default.
    #[default]
    Central,
    /// Threads inside ranks (`DLS_THREADS=k` under mpirun): [`SimConfig::p`](super::SimConfig::p)
    /// ranks of `threads` threads each; a rank asks rank 0 for up to k chunks at once (SS, FSC
    /// and mFSC: for a block of whole chunks), when and as many as the runtime's rank does (by
    /// its measured chunk time and round trip), and its threads take them from a local queue.
    Hierarchical(Hierarchy),
    /// A scheduler tree for one-level loops: rank 0's top scheduler hands batches of iterates
    /// to sub-schedulers, one per group of F consecutive ranks, each on its group's first rank,
    /// which hand the group's ranks chunks of their batches (the [tree](super::tree) module
    /// documentation gives the model and what each technique means on each level).
    Tree(Tree),
}

/// The shape of a scheduler tree (see [`HandOut::Tree`]).
///
/// ```
/// let t = dls_model::sim::Tree { fan_out: 100 };
/// assert_eq!(t.groups(1000), 10);
/// assert_eq!(t.groups(1001), 11);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tree {
    /// F, ranks per group (the last group may have fewer); at least 1. F ≥ P is one group.
    pub fan_out: usize,
}

impl Tree {
    /// G, the groups (sub-schedulers) of `p` ranks: ⌈p / F⌉.
    ///
    /// ```
    /// assert_eq!(dls_model::sim::Tree { fan_out: 8 }.groups(4), 1);
    /// ```
    pub fn groups(&self, p: usize) -> usize {
        p.div_ceil(self.fan_out.clamp(1, p.max(1)))
    }
}

impl HandOut {
    /// Threads inside ranks, `threads` per rank, with the default costs
    /// ([`Hierarchy::new`]).
    ///
    /// ```
    /// let h = dls_model::sim::HandOut::threads(4);
    /// assert_eq!(h.threads_per_rank(), 4);
    /// ```
    pub fn threads(threads: usize) -> HandOut {
        HandOut::Hierarchical(Hierarchy::new(threads))
    }

    /// A scheduler tree of fan-out `fan_out` ([`HandOut::Tree`]).
    ///
    /// ```
    /// let t = dls_model::sim::HandOut::tree(16);
    /// assert_eq!(t.threads_per_rank(), 1);
    /// ```
    pub fn tree(fan_out: usize) -> HandOut {
        HandOut::Tree(Tree { fan_out })
    }

    /// Workers per rank: 1 under central hand-out and a tree, k under hierarchical.
    ///
    /// ```
    /// assert_eq!(dls_model::sim::HandOut::Central.threads_per_rank(), 1);
    /// ```
    pub fn threads_per_rank(&self) -> usize {
        match self {
            HandOut::Central | HandOut::Tree(_) => 1,
            HandOut::Hierarchical(h) => h.threads,
        }
    }

    /// The syntax, for error and help messages.
    ///
    /// ```
    /// assert!(dls_model::sim::HandOut::SYNTAX.starts_with("central"));
    /// ```
    pub const SYNTAX: &'static str =
        "central, threads:K or threads:K:C:L (K threads per rank; C the cost of one more chunk \
         of a batch, L of a pop from the rank's queue, default 100ns each; e.g. threads:64), or \
         tree:F (a scheduler tree: sub-schedulers for groups of F ranks; e.g. tree:32)";
}

/// The threads of one rank and what their hand-out costs (see [`HandOut::Hierarchical`]).
///
/// ```
/// let h = dls_model::sim::Hierarchy::new(5);
/// assert_eq!((h.threads, h.chunk_cost_s, h.pop_cost_s), (5, 1e-7, 1e-7));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hierarchy {
    /// k, threads per rank (workers per rank); at least 1.
    pub threads: usize,
    /// c, seconds of scheduler time for each chunk of a request after the first: a request
    /// answered with m chunks is served in `h + (m − 1)·c` (a block, in `h`).
    pub chunk_cost_s: f64,
    /// l, seconds a thread spends taking one chunk from its rank's queue.
    pub pop_cost_s: f64,
}

impl Hierarchy {
    /// The default c and l: 100 ns each (a technique's chunk formula and a locked queue's pop).
    ///
    /// ```
    /// assert_eq!(dls_model::sim::Hierarchy::DEFAULT_COST_S, 1e-7);
    /// ```
    pub const DEFAULT_COST_S: f64 = 1e-7;

    /// `threads` threads per rank with the default costs.
    ///
    /// ```
    /// assert_eq!(dls_model::sim::Hierarchy::new(64).threads, 64);
    /// ```
    pub fn new(threads: usize) -> Self {
        Hierarchy {
            threads,
            chunk_cost_s: Self::DEFAULT_COST_S,
            pop_cost_s: Self::DEFAULT_COST_S,
        }
    }
}

impl FromStr for HandOut {
    type Err = SimError;

    fn from_str(text: &str) -> Result<Self, SimError> {
        let t = text.trim().to_ascii_lowercase();
        if t == "central" {
            return Ok(HandOut::Central);
        }
        let bad = || {
            SimError::new(format!(
                "--hand-out: `{text}` is not a hand-out; use {}",
                HandOut::SYNTAX
            ))
        };
        if let Some(f) = t.strip_prefix("tree:") {
            return f
                .trim()
                .parse()
                .ok()
                .filter(|&f: &usize| f >= 1)
                .map(HandOut::tree)
                .ok_or_else(bad);
        }
        let mut parts = t.split(':');
        if parts.next() != Some("threads") {
            return Err(bad());
        }
        let threads: usize = parts
            .next()
            .and_then(|k| k.trim().parse().ok())
            .filter(|&k| k >= 1)
            .ok_or_else(bad)?;
        let mut h = Hierarchy::new(threads);
        let rest: Vec<&str> = parts.collect();
        match rest.as_slice() {
            [] => {}
            [c, l] => {
                h.chunk_cost_s = parse_duration(c, "--hand-out")?;
                h.pop_cost_s = parse_duration(l, "--hand-out")?;
            }
            _ => return Err(bad()),
        }
        Ok(HandOut::Hierarchical(h))
    }
}

impl fmt::Display for HandOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandOut::Central => f.write_str("central"),
            HandOut::Tree(t) => write!(f, "tree:{}", t.fan_out),
            HandOut::Hierarchical(h) => {
                write!(f, "threads:{}", h.threads)?;
                if h.chunk_cost_s != Hierarchy::DEFAULT_COST_S
                    || h.pop_cost_s != Hierarchy::DEFAULT_COST_S
                {
                    write!(
                        f,
                        ":{}:{}",
                        format_duration(h.chunk_cost_s),
                        format_duration(h.pop_cost_s)
                    )?;
                }
                Ok(())
            }
        }
    }
}
