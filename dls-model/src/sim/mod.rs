//! A discrete-event simulator of loop scheduling.
//!
//! [`simulate`] executes a loop of N iterates on P simulated ranks, driven by the same
//! [`ChunkScheduler`](crate::ChunkScheduler) as the runtime backends. Rank 0 also hosts the
//! scheduler (Cariño & Banicescu 2007); the [engine] documentation gives the timing model. Iterate times come
//! from an [`IterateTimeModel`], rank heterogeneity from time factors and [`Slowdown`]s, and the
//! result is a [`LoopReport`](crate::LoopReport) with the runtime's JSON field names plus a lower
//! bound of the makespan. `experiment` (feature `analysis`) reproduces Hummel, Schonberg & Flynn's comparison.
//! [`HandOut`] chooses whether every worker asks the scheduler for its own chunks (the default) or
//! ranks of k threads ask for up to k chunks at a time (threads inside ranks; SS, FSC and mFSC:
//! blocks of whole chunks), or a scheduler tree hands batches to sub-schedulers of groups of
//! ranks ([`tree`]).
//!
//! ```
//! use dls_model::sim::{simulate, SimConfig};
//! let mut c = SimConfig::new("gss".parse().unwrap(), 10_000, 8);
//! c.iterate_time = "exp:1ms".parse().unwrap();
//! c.overhead_s = 5e-6;
//! let out = simulate(&c).unwrap();
//! assert!(out.report.efficiency > 0.8);
//! assert!(out.report.parallel_time_s >= out.report.lower_bound_s);
//! ```

mod config;
mod duration;
pub mod engine;
mod error;
mod event_queue;
#[cfg(feature = "analysis")]
pub mod experiment;
mod hand_out;
mod hierarchy;
mod iterate_time;
#[cfg(feature = "analysis")]
mod measured;
mod outcome;
pub(crate) mod rng;
pub mod selection;
mod service;
mod speed;
mod split;
mod state;
pub mod tree;

pub use config::{SimConfig, MAX_RANKS};
pub use duration::{format_duration, parse_duration};
pub use engine::simulate;
pub use error::SimError;
#[cfg(feature = "analysis")]
pub use experiment::{HsfGrid, HsfTable};
pub use hand_out::{HandOut, Hierarchy, Tree};
pub use iterate_time::{IterateSampler, IterateTimeModel};
#[cfg(feature = "analysis")]
pub use measured::{measured_iterate_times, MeasuredTimes};
pub use outcome::SimOutcome;
pub use service::ServiceModel;
pub use speed::{parse_speeds, RankSpeeds, Slowdown, SlowdownStart};
pub use split::SplitModel;
