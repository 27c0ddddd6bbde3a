//! The techniques, one file each, and **the registry**: the one list of every technique.
//!
//! Each technique file documents its formula, source and test vector, and exports its
//! [`Entry`](crate::Entry) (name, description, parameters, example, chunk rule, hooks). A line
//! `mod file { Variant => ENTRY }` below declares the file's module, the [`Kind`] variant and
//! its place in [`Kind::ALL`] (the order of `valid_names`). Adding a technique is one new file
//! plus one line here; nothing else in dls names individual techniques.
//!
//! | name | file | source |
//! |---|---|---|
//! | static | `static_chunking` | - |
//! | ss | `self_scheduling` | - |
//! | fsc | `fixed_size_chunking` | Kruskal & Weiss 1985 |
//! | mfsc | `modified_fsc` | LB4OMP / DLS4LB |
//! | gss | `guided` | Polychronopoulos & Kuck 1987 |
//! | tss | `trapezoid` | Tzen & Ni 1993 |
//! | fac, fac2 | `factoring`, `fac2` | Hummel, Schonberg & Flynn 1992 |
//! | wf | `weighted_factoring` | Hummel, Schmidt, Uma & Wein 1996 |
//! | awf | `awf_time_steps` | Banicescu, Velusamy & Devaprasad 2003 |
//! | awf-b, awf-c, awf-d, awf-e | `adaptive_weighted_factoring` | Cariño & Banicescu 2008 |
//! | af | `adaptive_factoring` | Banicescu & Liu 2000 |
//! | tfss | `trapezoid_factoring` | Chronopoulos et al. 2001 |
//! | fiss | `fixed_increase` | Philip & Das 1997 |
//! | viss | `variable_increase` | LB4OMP |
//! | rnd | `random` | LB4OMP |
//! | pls | `performance_based` | Shih, Yang & Tseng 2007 |
//! | tap | `taper` | Lucco 1992 |
//! | theta | `theta_split` | Wegman 1991 |
//! | fac2a | `fac2a` | LB4OMP (Korndörfer et al. 2022), after Hummel, Schonberg & Flynn 1992 |
//! | faca | `faca` | LB4OMP, after Hummel, Schonberg & Flynn 1992 |
//! | af-a | `af_a` | LB4OMP, after Banicescu & Liu 2000 |
//! | bold | `bold` | Hagerup 1997 (LB4OMP form) |
//! | static-steal | `static_steal` | LLVM OpenMP / LB4OMP (chunks placed in the ranks' blocks) |
//! | auto | `auto` | SimAS (Mohammed & Ciorba 2020); re-selection after Auto4OMP (Mohammed, Korndörfer, Eleliemy & Ciorba 2022) |
//!
//! Helpers shared by several formulas: `rounding` (whole chunks from real formulas).
//!
//! # Adding a technique
//!
//! 1. A new file `formulas/<name>.rs` with:
//!    * a module doc: the formula, its source (authors, venue, year) and a test vector;
//!    * its own parameters, if any, as `ParamSpec` consts (`name`, `value`, `help`, `kind`),
//!      read in the formula with [`Params::number`](crate::Params::number) (shared ones such as
//!      `MU`, `SIGMA`, `WEIGHTS`, `PROBE` come from `spec/params.rs`; no field is added to
//!      [`Params`](crate::Params));
//!    * the chunk rule: `fn chunk(s: &LoopState) -> u64` (`Rule::Formula`), or, with per-loop
//!      state, `fn start(params, n, p) -> Box<dyn LoopPlan>` (`Rule::PerLoop`) and a type
//!      implementing `LoopPlan` (`chunk`, and as needed `new_batch`, `weights_given`,
//!      `weights`, `theta`, and `place` for a technique that keeps its own ranges of iterates,
//!      as static-steal's blocks, instead of taking the next iterates in order);
//!    * `pub(crate) const ENTRY: Entry = Entry { example, merges_tail, adaptive,
//!      learns_across_loops, check, fill_from_model, ..Entry::new(name, description, params,
//!      rule) }`, setting only what differs from the defaults (off, none, example = name).
//! 2. One line in the `registry!` list below: `mod <name> { /** doc */ Variant => ENTRY }`.
//!
//! Parsing, display, `valid_names`, validation, `dls chunks`, `dls compare`, the simulator and
//! the backends then know the technique.

pub(crate) mod rounding;

/// Declares the technique modules, the [`Kind`] enum (one variant per line), [`Kind::ALL`]
/// and [`Kind::entry`] from the registry list.
macro_rules! registry {
    ($(
        $(#[$mod_attr:meta])*
        mod $module:ident { $( $(#[$doc:meta])* $variant:ident => $entry:ident ),+ $(,)? }
    )*) => {
        $( $(#[$mod_attr])* pub(crate) mod $module; )*

        /// Which loop scheduling technique: one variant per registry line of
        /// `formulas/mod.rs`; everything else about it is in its [`Entry`](crate::Entry).
        ///
        /// ```
        /// use dls_technique::Kind;
        /// assert_eq!(Kind::from_name("AWF-B"), Some(Kind::AwfB));
        /// assert_eq!(Kind::Tss.to_string(), "tss");
        /// ```
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Kind { $( $( $(#[$doc])* $variant, )+ )* }

        impl Kind {
            /// Number of techniques.
            pub const COUNT: usize = [$( $( Kind::$variant, )+ )*].len();

            /// Every kind, in the order of [`Technique::valid_names`](crate::Technique::valid_names).
            ///
            /// ```
            /// assert_eq!(dls_technique::Kind::ALL.len(), dls_technique::Kind::COUNT);
            /// ```
            pub const ALL: [Kind; Kind::COUNT] = [$( $( Kind::$variant, )+ )*];

            /// Everything dls knows about this technique.
            ///
            /// ```
            /// assert_eq!(dls_technique::Kind::Gss.entry().name, "gss");
            /// ```
            pub fn entry(self) -> &'static crate::Entry {
                match self { $( $( Kind::$variant => &$module::$entry, )+ )* }
            }
        }
    };
}

registry! {
    mod static_chunking {
        /// Static chunking: one chunk of ceil(N/P) per rank.
        Static => ENTRY
    }
    mod self_scheduling {
        /// Self-scheduling: chunks of one iterate.
        Ss => ENTRY
    }
    mod fixed_size_chunking {
        /// Fixed size chunking (Kruskal & Weiss 1985).
        Fsc => ENTRY
    }
    mod modified_fsc {
        /// Modified fixed size chunking.
        Mfsc => ENTRY
    }
    mod guided {
        /// Guided self-scheduling (Polychronopoulos & Kuck 1987).
        Gss => ENTRY
    }
    mod trapezoid {
        /// Trapezoid self-scheduling (Tzen & Ni 1993).
        Tss => ENTRY
    }
    mod factoring {
        /// Factoring (Hummel, Schonberg & Flynn 1992).
        Fac => ENTRY
    }
    mod fac2 {
        /// Factoring with x = 2.
        Fac2 => ENTRY
    }
    mod weighted_factoring {
        /// Weighted factoring (Hummel, Schmidt, Uma & Wein 1996).
        Wf => ENTRY
    }
    mod awf_time_steps {
        /// Adaptive weighted factoring across time steps (Banicescu, Velusamy & Devaprasad 2003).
        Awf => ENTRY
    }
    mod adaptive_weighted_factoring {
        /// AWF-B: weights adapted during the loop, batched (Cariño & Banicescu 2008).
        AwfB => AWF_B,
        /// AWF-C: as B, chunk recomputed at every request.
        AwfC => AWF_C,
        /// AWF-D: as B, time includes scheduling overhead.
        AwfD => AWF_D,
        /// AWF-E: as C, time includes scheduling overhead.
        AwfE => AWF_E,
    }
    mod adaptive_factoring {
        /// Adaptive factoring (Banicescu & Liu 2000).
        Af => ENTRY
    }
    mod trapezoid_factoring {
        /// Trapezoid factoring self-scheduling (Chronopoulos et al. 2001).
        Tfss => ENTRY
    }
    mod fixed_increase {
        /// Fixed increase self-scheduling (Philip & Das 1997).
        Fiss => ENTRY
    }
    mod variable_increase {
        /// Variable increase self-scheduling.
        Viss => ENTRY
    }
    mod random {
        /// Random chunk sizes.
        Rnd => ENTRY
    }
    mod performance_based {
        /// Performance-based loop scheduling (Shih, Yang & Tseng 2007).
        Pls => ENTRY
    }
    mod taper {
        /// Taper (Lucco 1992).
        Tap => ENTRY
    }
    mod theta_split {
        /// Wegman's stochastic load balancing: theta split (Wegman 1991).
        Theta => ENTRY
    }
    mod fac2a {
        /// FAC2 by chunk recurrence, c_j = ceil(N/(P·2^(j+1))) (LB4OMP).
        Fac2a => ENTRY
    }
    mod faca {
        /// FAC with the batch remainder computed, not measured (LB4OMP).
        Faca => ENTRY
    }
    mod af_a {
        /// AF in sub-chunks, timed with scheduling overhead (LB4OMP's AF_a).
        AfA => ENTRY
    }
    mod bold {
        /// The bold strategy (Hagerup 1997).
        Bold => ENTRY
    }
    mod static_steal {
        /// Static blocks with stealing (LLVM/LB4OMP static_steal).
        StaticSteal => ENTRY
    }
    mod auto {
        /// A choice per loop: the technique the simulator predicts fastest from the loop's
        /// measured first execution (SimAS, Mohammed & Ciorba 2020).
        Auto => ENTRY
    }
}

#[cfg(test)]
mod tests {
    use super::Kind;

    #[test]
    fn every_entry_has_a_unique_name_that_parses_back() {
        for (i, kind) in Kind::ALL.into_iter().enumerate() {
            assert_eq!(Kind::from_name(kind.name()), Some(kind));
            assert!(Kind::ALL[..i].iter().all(|k| k.name() != kind.name()));
            let example: crate::Technique = kind.example().parse().unwrap();
            assert_eq!(example.kind, kind);
        }
    }
}
