//! [`Entry`]: everything dls knows about one technique, exported by the technique's file in
//! `formulas/` and listed once in the registry (`formulas/mod.rs`).
//!
//! A technique is a text form (name, description, parameters, example), a chunk rule and
//! optional hooks. The chunk rule follows LB4OMP's init/next split
//! (`__kmp_dispatch_init_algorithm` / `__kmp_dispatch_next_algorithm`): a technique without
//! per-loop state is a pure [`Rule::Formula`] of the [`LoopState`]; a technique with per-loop
//! state (theta's θ, AWF-B/D's batch weights, AWF's first-step learning) is a [`Rule::PerLoop`]
//! whose `start(params, n, p)` builds a [`LoopPlan`] once per loop, which then sizes every chunk.
//! The [`ChunkScheduler`](crate::ChunkScheduler) holds no per-technique code: it calls the rule,
//! tells the plan when a batch starts and when weights are given, and clamps the result.

use std::fmt;

use crate::chunk::Chunk;
use crate::learning::aggregates::Aggregates;
use crate::learning::rank_stats::RankStats;
use crate::spec::error::TechniqueError;
use crate::spec::params::{ParamSpec, Params};
use crate::spec::technique::Technique;
use crate::state::LoopState;

/// One technique: its text form, its chunk rule and its hooks.
///
/// ```
/// use dls_technique::Kind;
/// let e = Kind::Fac2.entry();
/// assert_eq!((e.name, e.merges_tail, e.adaptive), ("fac2", true, false));
/// assert_eq!(e.example, "fac2,min=4");
/// ```
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct Entry {
    /// The canonical (lower-case) name, as parsed.
    pub name: &'static str,
    /// One line: what the technique is and its source (authors, venue, year).
    pub description: &'static str,
    /// The technique's own parameters (without the common `min`, `max`, `seed`).
    pub params: &'static [ParamSpec],
    /// A valid specification, with example values for the parameters that work together.
    pub example: &'static str,
    /// Whether a chunk that would leave at most the minimum chunk behind takes that remainder
    /// too (the factoring family; yields the published FAC2 vector's tail `1 1 2`).
    pub merges_tail: bool,
    /// Whether chunks depend on measured iterate times.
    pub adaptive: bool,
    /// Whether every chunk but the last has one size, set when the loop starts: neither the
    /// asking rank, nor the order of requests, nor any timing changes it (SS, STATIC, FSC, mFSC).
    /// A backend may then hand chunks out with one atomic add on the chunk counter
    /// ([`ChunkScheduler::fixed_chunk`](crate::ChunkScheduler::fixed_chunk)).
    pub fixed_size: bool,
    /// Whether the technique learns weights across executions of the same loop (AWF's time
    /// steps, see [`History`](crate::History)).
    pub learns_across_loops: bool,
    /// Whether this is not one technique but a choice among the others, made per loop by the
    /// runtime from measurements of the loop's earlier executions (`auto`); where no choice is
    /// made (the simulator, nested loops) its own chunk rule runs.
    pub selects: bool,
    /// How the next chunk is sized.
    pub(crate) rule: Rule,
    /// Checks that only make sense for this technique (parameters that work together, ...),
    /// after the generic checks of [`Technique::validate`]; `p` as there.
    pub(crate) check: Option<Check>,
    /// Fills parameters the specification left unset from a model of the loop (the
    /// simulator's iterate-time model and rank speeds); returns a note naming what was filled.
    pub(crate) fill_from_model: Option<fn(&mut Params, &ModelFacts) -> Option<String>>,
}

impl fmt::Debug for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entry")
            .field("name", &self.name)
            .field("merges_tail", &self.merges_tail)
            .field("adaptive", &self.adaptive)
            .field("learns_across_loops", &self.learns_across_loops)
            .field("selects", &self.selects)
            .finish_non_exhaustive()
    }
}

impl Entry {
    /// An entry with the given name, description, parameters and chunk rule; every flag off,
    /// no hooks, the name as example. Technique files start from this and set what differs.
    pub(crate) const fn new(
        name: &'static str,
        description: &'static str,
        params: &'static [ParamSpec],
        rule: Rule,
    ) -> Self {
        Entry {
            name,
            description,
            params,
            example: name,
            merges_tail: false,
            adaptive: false,
            fixed_size: false,
            learns_across_loops: false,
            selects: false,
            rule,
            check: None,
            fill_from_model: None,
        }
    }
}

/// A technique's own validation hook (see [`Entry`]'s `check`).
pub(crate) type Check = fn(&Technique, Option<usize>) -> Result<(), TechniqueError>;

/// How a technique sizes its chunks.
#[derive(Clone, Copy)]
pub(crate) enum Rule {
    /// A pure function of the loop state (most techniques).
    Formula(fn(&LoopState) -> u64),
    /// Per-loop state: `start(params, n, p)` once per loop, then the plan sizes every chunk.
    PerLoop(fn(&Params, u64, usize) -> Box<dyn LoopPlan>),
}

/// What the scheduler knows that a technique may learn from: per-rank measurements, their sums,
/// and the weights given (normalised to sum P; all 1 unless given).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Learnt<'a> {
    pub(crate) stats: &'a [RankStats],
    pub(crate) aggregates: &'a Aggregates,
    pub(crate) base_weights: &'a [f64],
}

/// The per-loop state of a technique with a [`Rule::PerLoop`] (LB4OMP's "next" half).
pub(crate) trait LoopPlan: fmt::Debug + Send + Sync {
    /// The technique's chunk for `s.rank` (before the scheduler clamps it).
    fn chunk(&self, s: &LoopState) -> u64;
    /// A new batch starts (every P chunks).
    fn new_batch(&mut self, _learnt: &Learnt) {}
    /// Weights were given from outside ([`ChunkScheduler::set_weights`](crate::ChunkScheduler::set_weights),
    /// e.g. from [`History`](crate::History)); they are in `learnt.base_weights`.
    fn weights_given(&mut self, _learnt: &Learnt) {}
    /// The weights in force, when the technique learns its own; `None`: the given ones.
    fn weights(&self, _learnt: &Learnt) -> Option<Vec<f64>> {
        None
    }
    /// θ of the theta split; `None` for other techniques.
    fn theta(&self) -> Option<f64> {
        None
    }
    /// Where the next chunk for `s.rank` goes, for a technique that keeps its own ranges of
    /// iterates (static-steal's blocks); `None`, for every other technique: the next
    /// [`chunk`](Self::chunk) iterates in order. A placed chunk lies in [0, N), has 1 to R
    /// iterates, is within `min`/`max` (but for the loop's last piece) and never overlaps one
    /// placed before; a plan that places one chunk places all of its loop's chunks.
    fn place(&mut self, _s: &LoopState) -> Option<Chunk> {
        None
    }
    /// A copy (the scheduler is `Clone`).
    fn clone_box(&self) -> Box<dyn LoopPlan>;
}

/// What a model of the loop says about it, for [`Technique::fill_from_model`]: the simulator
/// builds this from its iterate-time model, overhead and rank speeds.
///
/// ```
/// use dls_technique::{ModelFacts, Technique};
/// let mut t: Technique = "fac".parse().unwrap();
/// let facts = ModelFacts::new(&|| Some((2e-3, 1e-3)), 0.0, &[]);
/// assert!(t.fill_from_model(&facts).unwrap().contains("mu = 2ms, sigma = 1ms"));
/// assert_eq!(t.params.mu, Some(2e-3));
/// ```
#[non_exhaustive]
pub struct ModelFacts<'a> {
    /// Mean and standard deviation of one iterate's time, seconds (computed on demand).
    pub moments: &'a dyn Fn() -> Option<(f64, f64)>,
    /// Scheduling overhead of one chunk, seconds (0: unknown).
    pub overhead_s: f64,
    /// Per-rank time factors (3 = three times slower); empty: all 1.
    pub speeds: &'a [f64],
}

impl<'a> ModelFacts<'a> {
    /// The facts of a model (fields as documented on the struct).
    pub fn new(
        moments: &'a dyn Fn() -> Option<(f64, f64)>,
        overhead_s: f64,
        speeds: &'a [f64],
    ) -> Self {
        ModelFacts {
            moments,
            overhead_s,
            speeds,
        }
    }
}

impl fmt::Debug for ModelFacts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModelFacts")
            .field("overhead_s", &self.overhead_s)
            .field("speeds", &self.speeds)
            .finish_non_exhaustive()
    }
}

/// Fills the unset duration parameters `(slot, name, value)` that are > 0 and finite, and
/// returns the note `"<technique>: mu = 2ms, ... taken from the simulated loop ..."`, or `None`
/// when nothing was filled (the shared tail of the statistics techniques' model hooks).
pub(crate) fn fill_durations(
    technique: &str,
    slots: [(&mut Option<f64>, &str, f64); 2],
) -> Option<String> {
    let mut filled = Vec::new();
    for (slot, name, v) in slots {
        if slot.is_none() && v > 0.0 && v.is_finite() {
            *slot = Some(v);
            filled.push(format!(
                "{name} = {}",
                crate::spec::duration::format_duration_short(v)
            ));
        }
    }
    if filled.is_empty() {
        return None;
    }
    Some(format!(
        "{technique}: {} taken from the simulated loop (set them in the technique spec to override)",
        filled.join(", ")
    ))
}
