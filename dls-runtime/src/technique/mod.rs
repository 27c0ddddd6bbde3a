//! Loop scheduling techniques as pure chunk calculators.
//!
//! A [`Technique`] is a technique [`Kind`] plus its [`Params`]; it parses from text such as
//! `"fac2,min=4"` or `"fsc,h=200us,sigma=50us"`. Each technique lives in its own module (whose
//! documentation gives the formula and the source) and is a pure function of a [`LoopState`]:
//! [`Technique::chunk_size`] returns the size of the next chunk for the requesting rank. The
//! [`ChunkScheduler`] owns the loop state (remaining iterates, batches, per-rank measurements),
//! and hands out contiguous `(start, size)` chunks. The simulator, the threads backend and the
//! MPI scheduler all drive the same `ChunkScheduler`; no technique knows about MPI or threads.
//!
//! The adaptive techniques (AF, AWF-B..E, and AWF on its first time step) start with a
//! sampling phase, a dls choice: until a rank has been measured, its chunks are at most the probe
//! chunk (parameter `probe`, default `ceil(N/(40P))`), so that a slow rank does not take on
//! FAC2's first chunk `ceil(N/(2P))` before anything is known about it; `probe=0` gives the
//! published first chunks ([`Params::probe_chunk`]).
//!
//! ```
//! use dls_runtime::{ChunkScheduler, Technique};
//! let mut s = ChunkScheduler::new(&"af".parse::<Technique>().unwrap(), 20_000, 8).unwrap();
//! assert_eq!(s.next_chunk(0).unwrap().size, 63); // ceil(20000/320)
//! let mut s = ChunkScheduler::new(&"af,probe=0".parse::<Technique>().unwrap(), 20_000, 8).unwrap();
//! assert_eq!(s.next_chunk(0).unwrap().size, 1250); // FAC2: ceil(20000/16)
//! ```
//!
//! | name | module | source |
//! |---|---|---|
//! | static | `static_chunking` | - |
//! | ss | `self_scheduling` | - |
//! | fsc | `fixed_size_chunking` | Kruskal & Weiss 1985 |
//! | mfsc | `modified_fsc` | LB4OMP / DLS4LB |
//! | gss | `guided` | Polychronopoulos & Kuck 1987 |
//! | tss | `trapezoid` | Tzen & Ni 1993 |
//! | fac, fac2 | `factoring`, `fac2` | Hummel, Schonberg & Flynn 1992 |
//! | wf, awf | `weighted_factoring`, `awf_history` | Hummel et al. 1996; Banicescu et al. 2003 |
//! | awf-b, awf-c, awf-d, awf-e | `adaptive_weighted_factoring` | Cariño & Banicescu 2008 |
//! | af | `adaptive_factoring` | Banicescu & Liu 2000 |
//! | (sampling phase of af, awf, awf-b..e) | `probe` | dls choice |
//! | tfss | `trapezoid_factoring` | Chronopoulos et al. 2001 |
//! | fiss | `fixed_increase` | Philip & Das 1997 |
//! | viss | `variable_increase` | LB4OMP |
//! | rnd | `random` | LB4OMP |
//! | pls | `performance_based` | Shih, Yang & Tseng 2007 |
//! | tap | `taper` | Lucco 1992 |
//! | theta | `theta_split` | Wegman (seed 000 §4) |
//!
//! ```
//! use dls_runtime::{ChunkScheduler, Technique};
//! let t: Technique = "tss".parse().unwrap();
//! let mut s = ChunkScheduler::new(&t, 1000, 4).unwrap();
//! let sizes: Vec<u64> = std::iter::from_fn(|| s.next_chunk(0)).map(|c| c.size).collect();
//! assert_eq!(sizes, [125, 117, 109, 101, 92, 84, 76, 68, 59, 51, 43, 35, 26, 14]);
//! ```

mod adaptive_factoring;
mod adaptive_weighted_factoring;
mod aggregates;
mod awf_history;
mod calculator;
mod duration;
mod error;
mod fac2;
mod factoring;
mod fixed_increase;
mod fixed_size_chunking;
mod guided;
mod kind;
mod modified_fsc;
mod params;
mod performance_based;
mod probe;
mod random;
mod rank_stats;
mod rounding;
mod scheduler;
mod self_scheduling;
mod spec;
mod state;
mod static_chunking;
mod taper;
mod theta_split;
mod trapezoid;
mod trapezoid_factoring;
mod variable_increase;
mod weighted_factoring;

pub use aggregates::{Aggregates, AwfSums};
pub use awf_history::AwfHistory;
pub use duration::{format_duration, parse_duration};
pub use error::TechniqueError;
pub use kind::Kind;
pub use params::{ParamSpec, Params, ThetaCriterion, ThetaModel, COMMON_PARAMETERS};
pub use rank_stats::{RankStats, TimeBasis, MIN_TIME};
pub use scheduler::{Chunk, ChunkScheduler, ChunkTiming};
pub use spec::Technique;
pub use state::{Batch, LoopState};
pub use theta_split::OrderMoments;
