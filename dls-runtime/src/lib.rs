//! Runtime of **dls**: loop scheduling techniques as pure chunk calculators, the scheduler state
//! machine that drives them, a discrete-event simulator, and the execution backends.
//!
//! Most users depend on the facade crate `dls`, which re-exports this crate's public items one by
//! one. The hidden module `__private` is the contract with the code the macros of `dls-macros`
//! generate, not public API.

#[doc(hidden)]
pub mod __private;
pub mod clause_types;
pub mod collection;
pub mod fault_check;
pub mod gather;
pub mod group;
pub mod input;
pub mod interior;
pub mod markov;
pub mod partials;
pub mod pipeline_model;
pub mod reduce;
pub mod report;
pub mod runtime;
pub mod scaltest;
pub mod sim;

/// Loop scheduling techniques as pure chunk calculators: the `dls-technique` crate.
pub use dls_technique as technique;
pub use report::{LoopReport, RankReport};
pub use runtime::{
    checkpoint_key, current, init, init_with_threads, inject, is_root, region, Backend, ChunkRange,
    DlsError, Loop, LoopIndex, LoopRange, LoopStats, Runtime, Strategy, Wire,
};
pub use technique::{Chunk, ChunkScheduler, ChunkTiming, Technique, TechniqueError};

/// The MPI bindings (rsmpi) dls is built with, for programs that pass their own communicators
/// (feature `mpi`).
#[cfg(feature = "mpi")]
pub use mpi;
