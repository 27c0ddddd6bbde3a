//! Per-rank fault checks (placeholder docs, rewritten below).

mod permutation;

pub use permutation::Permutation;
