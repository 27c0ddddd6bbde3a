//! Runtime of **dls**: loop scheduling techniques as pure chunk calculators, the scheduler state
//! machine that drives them, and the execution backends. The simulator and the fault checks'
//! statistics are `dls-model`'s (re-exported here under their old paths).
//!
//! Most users depend on the facade crate `dls`, which re-exports this crate's public items one by
//! one. The hidden module `__private` is the contract with the code the macros of `dls-macros`
//! generate, not public API.

#[doc(hidden)]
pub mod __private;
pub mod captured;
pub mod clause_types;
pub mod collection;
pub mod default_start;
pub mod gather;
pub mod gather_view;
pub mod group;
pub mod interior;
pub mod lanes;
#[cfg(feature = "ndarray")]
pub mod nd;
pub mod partials;
pub mod plain;
pub mod reduce;
pub mod runtime;

/// Loop scheduling techniques as pure chunk calculators: the `dls-technique` crate.
pub use dls_technique as technique;

/// The statistics of the fault checks (`dls-model`), which checked loops run.
pub use dls_model::fault_check;
/// Reading a program's input with a bound on its size (`dls-model`).
pub use dls_model::input;
/// What a loop report holds (`dls-model`: the simulator's reports are the same types).
pub use dls_model::report;
/// The simulator (`dls-model`), which `schedule = "auto"` runs to choose a technique.
pub use dls_model::sim;
pub use report::{LoopReport, RankReport};
pub use runtime::{
    checkpoint_key, current, init, init_with_threads, inject, is_root, region, Backend, ChunkRange,
    DlsError, Loop, LoopIndex, LoopRange, LoopStats, Runtime, Strategy, Wire,
};
pub use technique::{Chunk, ChunkScheduler, ChunkTiming, Technique, TechniqueError};

/// bytemuck, whose [`Pod`](bytemuck::Pod) marks the plain element types that travel as their
/// bytes ([`plain`]).
pub use bytemuck;
/// The ndarray crate dls is built with (feature `ndarray`): the arrays its clauses take are this
/// version's.
#[cfg(feature = "ndarray")]
pub use ndarray;

/// The MPI bindings (rsmpi) dls is built with, for programs that pass their own communicators
/// (feature `mpi`).
#[cfg(feature = "mpi")]
pub use mpi;
