//! Loop scheduling techniques as pure chunk calculators.
//!
//! A [`Technique`] is a technique [`Kind`] plus its [`Params`]; it parses from text such as
//! `"fac2,min=4"` or `"fsc,h=200us,sigma=50us"`. Each technique is one file (whose documentation
//! gives the formula and the source) exporting its [`Entry`], listed once in the registry; its
//! chunk rule sizes the next chunk for the requesting rank from the loop's state. The
//! [`ChunkScheduler`] owns the loop state (remaining iterates, batches, per-rank measurements),
//! and hands out contiguous `(start, size)` chunks, in index order except for static-steal,
//! whose chunks come from the ranks' own blocks. The simulator, the threads backend and the
//! MPI scheduler all drive the same `ChunkScheduler`; no technique knows about MPI or threads.
//!
//! The adaptive techniques (AF, AWF-B..E, and AWF on its first time step) start with a
//! sampling phase, a dls choice: until a rank has been measured, its chunks are at most the probe
//! chunk (parameter `probe`, default `ceil(N/(40P))`), so that a slow rank does not take on
//! FAC2's first chunk `ceil(N/(2P))` before anything is known about it; `probe=0` gives the
//! published first chunks ([`Params::probe_chunk`]).
//!
//! ```
//! use dls_technique::{ChunkScheduler, Technique};
//! let mut s = ChunkScheduler::new(&"af".parse::<Technique>().unwrap(), 20_000, 8).unwrap();
//! assert_eq!(s.next_chunk(0).unwrap().size, 63); // ceil(20000/320)
//! let mut s = ChunkScheduler::new(&"af,probe=0".parse::<Technique>().unwrap(), 20_000, 8).unwrap();
//! assert_eq!(s.next_chunk(0).unwrap().size, 1250); // FAC2: ceil(20000/16)
//! ```
//!
//! The folder shows the kinds of file: `formulas/` holds one file per technique and the
//! registry (`formulas/mod.rs`, the one list of techniques, see [`Entry`]); `spec/` the text
//! form ([`Kind`], [`Params`], [`Technique`], durations, [`TechniqueError`]); `learning/` what
//! the adaptive techniques learn from ([`RankStats`], the sampling phase, [`AwfHistory`] and
//! the cross-loop [`History`]); the engine is `scheduler.rs`, `calculator.rs`, `state.rs` and
//! `chunk.rs`.
//!
//! ```
//! use dls_technique::{ChunkScheduler, Technique};
//! let t: Technique = "tss".parse().unwrap();
//! let mut s = ChunkScheduler::new(&t, 1000, 4).unwrap();
//! let sizes: Vec<u64> = std::iter::from_fn(|| s.next_chunk(0)).map(|c| c.size).collect();
//! assert_eq!(sizes, [125, 117, 109, 101, 92, 84, 76, 68, 59, 51, 43, 35, 26, 14]);
//! ```

#![warn(missing_docs, missing_debug_implementations, unreachable_pub)]

mod calculator;
mod chunk;
mod entry;
mod formulas;
mod learning;
mod scheduler;
mod spec;
mod state;
mod strategy;

pub use chunk::{Chunk, ChunkTiming};
pub use entry::{Entry, ModelFacts};
pub use formulas::theta_split::OrderMoments;
pub use learning::awf_history::AwfHistory;
pub use learning::history::History;
pub use learning::rank_stats::RankStats;
pub use scheduler::ChunkScheduler;
pub use spec::duration::{format_duration, format_duration_short, parse_duration};
pub use spec::error::TechniqueError;
pub use spec::kind::Kind;
pub use spec::params::{ParamSpec, Params, ThetaCriterion, ThetaModel, COMMON_PARAMETERS};
pub use spec::technique::Technique;
pub use strategy::{Strategy, UnknownStrategy};
