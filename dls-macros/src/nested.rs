//! Two-level loops: a `#[par_doall]` loop inside the body of another one.
//!
//! ```text
//! #[par_doall(schedule = "af", group(min = 2, max = 4))]
//! for j in 0..m {
//!     PART A
//!     #[par_doall(schedule = "fac2", reduce(+: s))]
//!     for i in 0..n[j] { … }
//!     PART B
//! }
//! ```
//!
//! The outer loop becomes a builder chain ending in `dls::__private::Loop::run_2d` (its closure
//! gets a third parameter, the group's inner-loop handle `__dls_inner`), every inner loop one
//! ending in `Loop::run_inner(__dls_inner, …)`; everything else (clauses, checks, the shape of
//! the closures) is the one-level expansion of `expand.rs`. On MPI the ranks are grouped by rack
//! (the two-level strategy of Cariño and Banicescu, Scalable Computing: Practice and Experience,
//! 2007, §3); `group(min = …, max = …)` bounds the group sizes (default: one group per rack).
//! Part A and part B run redundantly on every rank of a group; the group shares the inner
//! iterates. Only two levels are supported. The `group(...)` clause is parsed with the others, in
//! `clauses.rs`; this file decides the kind of each loop and the shape of its call.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Attribute, Ident};

use crate::clauses::{Clauses, GroupClause};

/// Which call a `#[par_doall]` loop expands to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum LoopKind {
    /// A one-level loop: `dls::__private::Loop::run`.
    OneLevel,
    /// The outer loop of a two-level loop: `dls::__private::Loop::run_2d`.
    Outer {
        /// Fewest ranks per group.
        min: usize,
        /// Most ranks per group.
        max: usize,
    },
    /// An inner loop of a two-level loop: `dls::__private::Loop::run_inner`.
    Inner,
}

/// Decides the kind of a loop: `inside_outer` when it sits in the body of a two-level outer loop,
/// `nested` the first `#[par_doall]` found in its own body.
pub(crate) fn kind(
    inside_outer: bool,
    group: Option<&GroupClause>,
    nested: Option<&Attribute>,
) -> syn::Result<LoopKind> {
    match (inside_outer, nested, group) {
        (true, Some(deeper), _) => Err(syn::Error::new_spanned(
            deeper,
            "only two levels of #[par_doall] loops are supported; run this loop serially \
             (remove its #[par_doall])",
        )),
        (true, None, Some(g)) => Err(syn::Error::new_spanned(
            &g.key,
            "group(...) belongs on the outer loop of a two-level loop, not on an inner loop",
        )),
        (true, None, None) => Ok(LoopKind::Inner),
        (false, Some(_), g) => Ok(LoopKind::Outer {
            min: g.map_or(1, |g| g.min),
            max: g.map_or(usize::MAX, |g| g.max),
        }),
        (false, None, Some(g)) => Err(syn::Error::new_spanned(
            &g.key,
            "group(...) makes a two-level loop and needs an inner #[par_doall] loop in the body",
        )),
        (false, None, None) => Ok(LoopKind::OneLevel),
    }
}

/// The identifier of the inner-loop handle, the outer closure's second parameter.
fn inner_handle() -> Ident {
    Ident::new("__dls_inner", Span::call_site())
}

/// Refuses the clause combinations a loop of `kind` cannot have, each with the form that works,
/// before any code is generated (tokio-macros' `Configuration::build` manner). Every other
/// combination runs: an order-keeping merge in a checked loop, or in either level of a two-level
/// loop.
pub(crate) fn check_combination(clauses: &Clauses, kind: LoopKind) -> syn::Result<()> {
    if let (Some(check), LoopKind::Outer { .. }) = (&clauses.check, kind) {
        return Err(syn::Error::new_spanned(
            &check.var,
            "check(...) goes on a one-level loop or on an inner loop of a two-level loop \
             (whose group's ranks it compares), not on the outer loop",
        ));
    }
    if let (Some(lit), LoopKind::Inner) = (&clauses.reduction, kind) {
        return Err(syn::Error::new_spanned(
            lit,
            "an inner loop's partial results travel as the outer loop's do: put \
             `reduction = \"...\"` on the outer #[par_doall]",
        ));
    }
    Ok(())
}

/// The parts of the builder chain that depend on the kind: the run method, the arguments before
/// the witness, and the closure parameters between the index and the accumulator.
pub(crate) struct CallShape {
    pub run: Ident,
    pub lead: TokenStream,
    pub extra_param: TokenStream,
}

/// The call shape of `kind`.
pub(crate) fn call_shape(kind: LoopKind) -> CallShape {
    let handle = inner_handle();
    let run = |name: &str| Ident::new(name, Span::call_site());
    match kind {
        LoopKind::OneLevel => CallShape {
            run: run("run"),
            lead: quote!(),
            extra_param: quote!(),
        },
        LoopKind::Outer { .. } => CallShape {
            run: run("run_2d"),
            lead: quote!(),
            extra_param: quote!(#handle,),
        },
        LoopKind::Inner => CallShape {
            run: run("run_inner"),
            lead: quote!(#handle,),
            extra_param: quote!(),
        },
    }
}
