//! Loop scheduling techniques as pure chunk calculators.
//!
//! A [`Technique`] is a technique name plus its parameters; it parses from text such as
//! `"fac2,min=4"`. Each technique lives in its own module and is a pure function of a
//! [`LoopState`]: given the loop state, it returns the size of the next chunk for the requesting
//! rank. The [`ChunkScheduler`] owns the loop state (remaining iterates, batches, per-rank
//! measurements), clamps every chunk to `[min_chunk, R]`, and hands out `(start, size)` chunks.
//! The simulator, the threads backend and the MPI scheduler all drive the same `ChunkScheduler`.

mod error;
mod fac2;
mod gss;
mod scheduler;
mod self_scheduling;
mod spec;
mod state;
mod static_chunking;

pub use error::TechniqueError;
pub use scheduler::{Chunk, ChunkScheduler, ChunkTiming};
pub use spec::{Kind, Params, Technique};
pub use state::{Batch, LoopState, RankStats};
