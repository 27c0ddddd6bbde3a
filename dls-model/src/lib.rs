//! Models of **dls**: analysis with no threads and no MPI, over the techniques of `dls-technique`.
//!
//! Always built (the runtime depends on them, so every program has them):
//! - [`sim`]: the discrete-event simulator of loop scheduling, which `schedule = "auto"` runs to
//!   choose a technique ([`sim::selection`]);
//! - [`fault_check`]: the statistics of the fault checks that checked loops run (Wegman c. 2000),
//!   with what one iterate of a checked loop yields ([`fault_check::Observation`]);
//! - [`report`]: what a loop report holds (the runtime's and the simulator's);
//! - [`pipeline_schedule`]: which rank sends to which at each level of the pipelined reduction;
//! - [`tuning`]: the runtime's timing constants the simulator mirrors;
//! - [`input`]: reading an input file with a bound on its size.
//!
//! Behind the feature `analysis` (the `dls` tool, the facade's `model` feature), which no loop runs:
//! the simulator's experiment tables (`sim::experiment`, `sim::measured_iterate_times`), the Markov
//! model of iterative algorithms (`markov`), the pipelined-reduction model (`pipeline_model`) and
//! the scalability test (`scaltest`).
//!
//! ```
//! use dls_model::sim::{simulate, IterateTimeModel, SimConfig};
//!
//! let mut config = SimConfig::new("fac2".parse().unwrap(), 1000, 4);
//! config.iterate_time = IterateTimeModel::Constant(1e-3);
//! let out = simulate(&config).unwrap();
//! assert_eq!(out.report.ranks.iter().map(|r| r.iterates).sum::<u64>(), 1000);
//! ```

pub mod fault_check;
pub mod input;
#[cfg(feature = "analysis")]
pub mod markov;
#[cfg(feature = "analysis")]
pub mod pipeline_model;
pub mod pipeline_schedule;
pub mod report;
#[cfg(feature = "analysis")]
pub mod scaltest;
pub mod sim;
pub mod tuning;

/// Loop scheduling techniques as pure chunk calculators: the `dls-technique` crate.
pub use dls_technique as technique;

pub(crate) use dls_technique::{Chunk, ChunkScheduler, ChunkTiming, Technique, TechniqueError};
pub(crate) use report::{LoopReport, RankReport};
