//! Runtime of **dls**: loop scheduling techniques as pure chunk calculators, the scheduler state
//! machine that drives them, a discrete-event simulator, and the execution backends.
//!
//! Most users depend on the facade crate `dls`, which re-exports this crate.

pub mod group;
pub mod report;
pub mod technique;

pub use report::{LoopReport, RankReport};
pub use technique::{Chunk, ChunkScheduler, ChunkTiming, Technique, TechniqueError};
