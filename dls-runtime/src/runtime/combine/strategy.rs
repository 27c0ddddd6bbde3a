//! Reduction strategies: how the partial results of a loop's processes travel and are combined
//! (Kuntraruk, Pottenger & Ross, 2005, compare a master, a binary tree and their parallel
//! pipeline). The operator (`+`, a merge function) says *what* is combined; the strategy says
//! *where* and *in what order*. Every strategy gives every rank the same total; the operator must
//! be associative, and commutative for `pipeline` (which does not combine in rank order).
//!
//! | strategy | who merges | merges on the critical path | messages |
//! |---|---|---|---|
//! | `allgather` | every rank, all P values in rank order | P − 1 | one all-gather (values above 8 MiB in all: one broadcast per rank) |
//! | `master` | rank 0, in rank order, then a broadcast | P − 1 | P − 1 sends, one broadcast |
//! | `tree` | a binomial tree in rank order, then a broadcast | ⌈lg P⌉ | P − 1 sends, one broadcast |
//! | `pipeline` | the parallel-pipeline pairs (sender iff `rank mod 2^i < 2^(i−1)`), the total at rank P − 1, then a broadcast | ⌈lg P⌉ | P − 1 sends, one broadcast |
//! | `auto` | `allgather` when all values together take at most [`AUTO_ALLGATHER_BYTES`] and the merges a tree would save took at most [`AUTO_MERGE_SAVING_S`] in the loop's last run (measured per loop name, slowest rank), else `tree` | | one all-gather of the sizes and merge times first |
//!
//! The report's `reduction` entry says which strategy ran and why (`auto` resolves to one of the
//! others).

pub use dls_technique::Strategy;

/// Above this many bytes from all ranks together, `auto` does not use `allgather`.
pub const AUTO_ALLGATHER_BYTES: u64 = 64 << 10;

/// `auto` uses the tree, whatever the size, when the merges it saves (P − 1 − ⌈lg P⌉ of the
/// slowest merge measured in the loop's last run on any rank) take longer than this (seconds).
pub const AUTO_MERGE_SAVING_S: f64 = 100e-6;
