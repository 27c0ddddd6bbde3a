//! `auto`: not a chunk formula but a choice among the other techniques, made per loop name by
//! the runtime, after SimAS (Mohammed & Ciorba, "SimAS: A simulation-assisted approach for the
//! scheduling algorithm selection under perturbations", Concurrency and Computation: Practice
//! and Experience 32(15), 2020): the loop's first execution runs FAC2 (chunks capped at
//! ceil(N/(8P)) for a finer view of the index) and is measured (iterate
//! times over the index, per-rank speeds, the per-chunk overhead); before each later execution
//! the simulator runs the candidate techniques on a workload built from those measurements and
//! the loop takes the one with the smallest predicted makespan. As in Auto4OMP (Mohammed,
//! Korndörfer, Eleliemy & Ciorba, IEEE TPDS 33(10), 2022) the choice is made again when the
//! measured load imbalance grows.
//!
//! The selection itself is in the runtime (`dls-runtime/src/runtime/memory/auto.rs`, with the pure
//! model and choice in `dls-runtime/src/sim/selection.rs`). Where no choice is made (the
//! simulator, `dls chunks`, a loop nested in an iterate, two-level loops) `auto` sizes chunks
//! as FAC2, its measuring run: test vector (N = 1000, P = 4) 125×4, 63×4, 31×4, 16×4, 8×4,
//! 4×4, 2×4, then 1 1 2, as FAC2's.

use crate::entry::{Entry, Rule};

/// The registry entry of `auto`.
pub(crate) const ENTRY: Entry = Entry {
    merges_tail: true,
    selects: true,
    ..Entry::new(
        "auto",
        "the technique with the smallest simulated makespan, chosen per loop from its measured \
         first execution (FAC2), re-chosen when imbalance grows (SimAS, Mohammed & Ciorba 2020; \
         Auto4OMP, Mohammed et al. 2022)",
        &[],
        Rule::Formula(super::fac2::chunk),
    )
};

#[cfg(test)]
mod tests {
    use crate::{ChunkScheduler, Technique};

    #[test]
    fn unresolved_auto_sizes_chunks_as_fac2() {
        let sizes = |t: &str| {
            let t: Technique = t.parse().unwrap();
            let mut s = ChunkScheduler::new(&t, 1000, 4).unwrap();
            let mut v = Vec::new();
            while let Some(c) = s.next_chunk(v.len() % 4) {
                v.push(c.size);
            }
            v
        };
        assert_eq!(sizes("auto"), sizes("fac2"));
        assert_eq!(&sizes("auto")[..5], &[125, 125, 125, 125, 63]);
        let t: Technique = "AUTO".parse().unwrap();
        assert!(t.kind.entry().selects);
        assert_eq!(t.to_string(), "auto");
        assert!("auto,min=2".parse::<Technique>().is_ok());
    }
}
