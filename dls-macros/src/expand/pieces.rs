//! The pieces one `#[par_doall]` loop is assembled from, which each clause contributes to
//! ([`Pieces`]), and what every clause's pieces may name about the loop ([`LoopCx`]).

use proc_macro2::TokenStream;
use syn::Ident;

use crate::nested::LoopKind;

/// What the clauses contribute to the generated loop, each list in the order of the clauses
/// (reductions, then gathered vectors), one slot of the workers' accumulator tuple per variable.
#[derive(Default)]
pub(super) struct Pieces {
    /// Statements before the loop's call: checks of the variables' types, operators, places.
    pub(super) setup: Vec<TokenStream>,
    /// Each slot's identity: a worker's starting partial result.
    pub(super) identities: Vec<TokenStream>,
    /// Statements at the start of a run of iterates (of an iterate, in a checked or two-level
    /// loop) that take partial results out of the accumulator.
    pub(super) take: Vec<TokenStream>,
    /// Statements at the end of a run (or iterate) that put them back.
    pub(super) put_back: Vec<TokenStream>,
    /// Statements at the start of each iterate: what a variable's name means in it.
    pub(super) slots: Vec<TokenStream>,
    /// Each slot's combination of two workers' partial results, `__dls_a` and `__dls_b`.
    pub(super) combine: Vec<TokenStream>,
    /// The locals that hold each slot's combined partial results after the loop.
    pub(super) results: Vec<Ident>,
    /// Statements after the loop that put the results into the variables.
    pub(super) finish: Vec<TokenStream>,
    /// Markers of the partial results' types, one per slot, each at its variable: the witness
    /// that they travel (`dls_runtime::partials`), so that one that cannot is reported there.
    pub(super) witnesses: Vec<TokenStream>,
    /// The next slot.
    pub(super) slot: usize,
    /// Some gathered vector may be written in place (`Loop::writes_in_place` is asked).
    pub(super) any_in_place: bool,
    /// Some gathered vector is only assigned to (`Loop::writes_assigned_in_place` is asked, and
    /// each run says whether it is a copy).
    pub(super) any_assigned: bool,
    /// Some gathered vector's iterates own blocks of it (`gather(v: rows(W))`): each run says
    /// whether it is a copy.
    pub(super) any_blocks: bool,
    /// Some gathered vector is read and written in place: the loop does not re-execute by
    /// default (`Loop::reads_in_place`).
    pub(super) reads_in_place: bool,
    /// The gathered vectors of `gather(v: rows(W))`, with their widths: where every one's
    /// access writes in place, each iterate's body runs with their rows as `&mut [T]`
    /// parameters (`in_rows.rs`).
    pub(super) rows: Vec<(Ident, syn::Expr)>,
    /// The gathered ndarray arrays written in their own rows (`gather(a)`, `a[[i, ..]]`,
    /// `gather_nd.rs`): likewise, their rows as `&mut [T]` parameters (`a[[i, j]]` of a
    /// two-axis array becomes `a.row2()[j]`, `in_rows::rewrite_nd_columns`).
    pub(super) nd_rows: Vec<Ident>,
}

impl Pieces {
    /// Takes the next slot of the accumulator tuple.
    pub(super) fn next_slot(&mut self) -> usize {
        self.slot += 1;
        self.slot - 1
    }
}

/// What every clause's pieces may name about the loop.
pub(super) struct LoopCx {
    /// `::dls::__private` at the loop's `for`.
    pub(super) private: TokenStream,
    /// The loop's name: `name = "..."`, or its file and line.
    pub(super) name: TokenStream,
    /// The worker's accumulator, the tuple of the slots' partial results.
    pub(super) acc: Ident,
    /// Which runtime function the loop calls.
    pub(super) kind: LoopKind,
    /// The loop hands its body whole runs of iterates (a one-level loop that is not checked),
    /// which say whether they are copies (re-execution).
    pub(super) runs: bool,
}
