//! How a gathered place is made where the body only assigns to its elements (an element at the
//! loop's index, `gather(v)`; the iterate's row, `gather(v: rows(w))`; an ndarray array's row):
//! under MPI, plain elements are written in place by each rank too, and the ranges written
//! travel between the ranks after the loop (`__private::Place::exchanged`,
//! `__private::scatter_exchanged`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;

/// How a gathered place is made where the body only assigns to its elements (`assigned`): under
/// MPI, plain elements are written in place by each rank's first executions too, their ranges
/// recorded (`Place::exchanged`) and exchanged after the loop (`__private::scatter_exchanged`).
pub(super) struct Exchanged {
    /// The exchange's name (`__private::Exchanger`), where `assigned`.
    pub(super) exchange: Option<Ident>,
    /// The statements that ask for it, before the place is made.
    pub(super) setup: TokenStream,
    /// The place: `unsafe { Place::new(target, when) }` (writing in place when `when`, or on a
    /// rank that exchanges), then `.exchanged(owner)` where `assigned`. The `unsafe` block
    /// carries the macro's span (`quote!`), so that a crate under `#![forbid(unsafe_code)]` can
    /// still use `gather` (see `super::gather::at_the_index`); the caller keeps its contract.
    pub(super) place: TokenStream,
}

/// The [`Exchanged`] of the gathered `var` in slot `slot`, whose place over `target` writes in
/// place when `when` (`__dls_assigned_in_place` or `__dls_in_place`); nothing to add unless
/// `assigned`.
pub(super) fn exchanged_place(
    var: &Ident,
    slot: usize,
    assigned: bool,
    target: &Ident,
    when: TokenStream,
) -> Exchanged {
    let private = quote_spanned!(var.span()=> ::dls::__private);
    let make = |when: &TokenStream| quote!(unsafe { #private::Place::new(#target, #when) });
    if !assigned {
        return Exchanged {
            exchange: None,
            setup: quote!(),
            place: make(&when),
        };
    }
    let exchange = format_ident!("__dls_exchange_{}", slot);
    let owner = format_ident!("__dls_owner_{}", slot);
    let when_here = format_ident!("__dls_when_{}", slot);
    let setup = quote_spanned!(var.span()=>
        let #exchange = {
            #[allow(unused_imports)]
            use #private::GatherOfPlain as _;
            #[allow(unused_imports)]
            use #private::GatherOfAny as _;
            (&&#private::gather_of(&#var)).__dls_exchange()
        };
        let #owner = #exchange.owner(__dls_assigned_exchanged);
        let #when_here = #when || #owner.is_some();
    );
    let made = make(&quote!(#when_here));
    Exchanged {
        exchange: Some(exchange),
        setup,
        place: quote!(#made.exchanged(#owner)),
    }
}
