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
    /// Whether the place writes in place (`when`, or a rank that exchanges).
    pub(super) when: TokenStream,
    /// The call on the made place that names the rank (`.exchanged(owner)`).
    pub(super) mark: TokenStream,
}

/// The [`Exchanged`] of the gathered `var` in slot `slot`, whose place writes in place when
/// `when` (`__dls_assigned_in_place` or `__dls_in_place`); nothing to add unless `assigned`.
pub(super) fn exchanged_place(
    var: &Ident,
    slot: usize,
    assigned: bool,
    when: TokenStream,
) -> Exchanged {
    if !assigned {
        return Exchanged {
            exchange: None,
            setup: quote!(),
            when,
            mark: quote!(),
        };
    }
    let private = quote_spanned!(var.span()=> ::dls::__private);
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
    Exchanged {
        exchange: Some(exchange),
        setup,
        when: quote!(#when_here),
        mark: quote!(.exchanged(#owner)),
    }
}
