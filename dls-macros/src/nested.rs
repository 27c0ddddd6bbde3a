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
//! The outer loop becomes a call of `dls::__private::run_loop_2d` (its closure gets a third
//! parameter, the group's inner-loop handle `__dls_inner`), every inner loop a call of
//! `dls::__private::inner_run_loop(__dls_inner, …)`; everything else (clauses, checks, the shape of
//! the closures) is the one-level expansion of `expand.rs`. On MPI the ranks are grouped by rack
//! (the two-level strategy of Cariño and Banicescu, Scalable Computing: Practice and Experience,
//! 2007, §3); `group(min = …, max = …)` bounds the group sizes (default: one group per rack).
//! Part A and part B run redundantly on every rank of a group; the group shares the inner
//! iterates. Only two levels are supported. The `group(...)` clause is parsed with the others, in
//! `clauses.rs`; this file decides the kind of each loop and the shape of its call.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Attribute, Ident};

use crate::clauses::GroupClause;

/// Which call a `#[par_doall]` loop expands to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum LoopKind {
    /// A one-level loop: `dls::__private::run_loop`.
    OneLevel,
    /// The outer loop of a two-level loop: `dls::__private::run_loop_2d`.
    Outer {
        /// Fewest ranks per group.
        min: usize,
        /// Most ranks per group.
        max: usize,
    },
    /// An inner loop of a two-level loop: `dls::__private::inner_run_loop`.
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

/// The parts of the runtime call that depend on the kind: the function, the arguments before
/// the loop name, the arguments between the schedule and the range, and the closure parameters
/// between the index and the accumulator.
pub(crate) struct CallShape {
    pub function: TokenStream,
    pub lead: TokenStream,
    pub group_args: TokenStream,
    pub extra_param: TokenStream,
    /// Whether the function takes the loop's `reduction` strategy (inner loops use the outer
    /// loop's).
    pub takes_reduction: bool,
}

/// The call shape of `kind`, with `private` the path of the runtime's hidden module
/// (`::dls::__private`).
pub(crate) fn call_shape(kind: LoopKind, private: &TokenStream) -> CallShape {
    let handle = inner_handle();
    match kind {
        LoopKind::OneLevel => CallShape {
            function: quote!(#private::run_loop),
            lead: quote!(),
            group_args: quote!(),
            extra_param: quote!(),
            takes_reduction: true,
        },
        LoopKind::Outer { min, max } => {
            let max = if max == usize::MAX {
                quote!(::core::primitive::usize::MAX)
            } else {
                quote!(#max)
            };
            CallShape {
                function: quote!(#private::run_loop_2d),
                lead: quote!(),
                group_args: quote!(#min, #max,),
                extra_param: quote!(#handle,),
                takes_reduction: true,
            }
        }
        LoopKind::Inner => CallShape {
            function: quote!(#private::inner_run_loop),
            lead: quote!(#handle,),
            group_args: quote!(),
            extra_param: quote!(),
            takes_reduction: false,
        },
    }
}
