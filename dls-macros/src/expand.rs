//! Code generation for one `#[par_doall]` loop. The generated code names only the runtime's hidden
//! module `::dls::__private` (the loop functions, reduction operators and identities, gather
//! logs, collection views) and `core`; `src/snapshots.rs` checks this and pins the expansion of
//! every clause form. See the crate documentation for the shape of the expansion.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, ExprForLoop, Ident};

use crate::clauses::{Clauses, ReduceOp, RUNTIME_SCHEDULE};
use crate::control;
use crate::nested::{call_shape, CallShape, LoopKind};
use crate::source::LoopSource;

/// Generates the block expression that replaces `for_loop`; `attrs` are its other attributes, kept.
/// `kind` says which runtime function the loop calls (a one-level loop, or the outer or an inner
/// loop of a two-level loop, see `nested.rs`).
pub(crate) fn expand(
    mut for_loop: ExprForLoop,
    clauses: &Clauses,
    source: LoopSource,
    attrs: Vec<Attribute>,
    kind: LoopKind,
) -> syn::Result<TokenStream> {
    let wrap_body = control::check_and_rewrite(&mut for_loop.body, for_loop.label.as_ref())?;
    let span = for_loop.for_token.span;
    let private = quote_spanned!(span=> ::dls::__private);

    let schedule = match &clauses.schedule {
        Some(lit) => quote!(#lit),
        None => quote!(#RUNTIME_SCHEDULE),
    };
    let name = match &clauses.name {
        Some(lit) => quote!(#lit),
        None => quote_spanned!(span=> ::core::concat!(::core::file!(), ":", ::core::line!())),
    };

    let mut setup = Vec::new();
    let mut identities = Vec::new();
    let mut take = Vec::new();
    let mut put_back = Vec::new();
    let mut combine = Vec::new();
    let mut results = Vec::new();
    let mut finish = Vec::new();
    let mut slot = 0usize;
    let acc = Ident::new("__dls_acc", Span::call_site());

    for r in &clauses.reductions {
        let var = &r.var;
        let idx = syn::Index::from(slot);
        let op = format_ident!("__dls_op_{}", slot);
        let ty = format_ident!("__dls_ty_{}", slot);
        let res = format_ident!("__dls_result_{}", slot);
        let op_value = match &r.op {
            ReduceOp::Sum(s) => quote_spanned!(*s=> #private::Sum),
            ReduceOp::Product(s) => quote_spanned!(*s=> #private::Product),
            ReduceOp::Max(s) => quote_spanned!(*s=> #private::Max),
            ReduceOp::Min(s) => quote_spanned!(*s=> #private::Min),
            ReduceOp::Merge(p) => quote_spanned!(p.span()=> #private::Merge(#p)),
        };
        setup.push(quote_spanned!(var.span()=>
            let #op = #op_value;
            let #ty = #private::type_of(&#var);
        ));
        identities.push(quote!(#private::identity(&#op, #ty)));
        take.push(quote_spanned!(var.span()=>
            #[allow(unused_mut)]
            let mut #var = ::core::mem::take(&mut #acc.#idx);
        ));
        put_back.push(quote!(#acc.#idx = #var;));
        combine.push(quote!(#private::Operator::combine(&#op, __dls_a.#idx, __dls_b.#idx)));
        results.push(res.clone());
        finish.push(quote_spanned!(var.span()=>
            #var = #private::Operator::combine(&#op, #var, #res);
        ));
        slot += 1;
    }

    let mut slots = Vec::new();
    for var in &clauses.gathers {
        let idx = syn::Index::from(slot);
        let view = format_ident!("__dls_view_{}", slot);
        let res = format_ident!("__dls_result_{}", slot);
        setup.push(quote_spanned!(var.span()=>
            let #view = #private::view(&#var);
        ));
        identities.push(quote!(#private::GatherBuf::new()));
        slots.push(quote_spanned!(var.span()=>
            #[allow(unused_mut)]
            let mut #var = #private::GatherSlot::new(#view, &mut #acc.#idx);
        ));
        combine.push(quote!(#private::GatherBuf::merge(__dls_a.#idx, __dls_b.#idx)));
        results.push(res.clone());
        finish.push(quote_spanned!(var.span()=>
            // Method syntax reborrows a `&mut [T]` parameter without needing `mut` on it.
            #private::scatter(#res, {
                use #private::GatherTarget as _;
                #var.elements_mut()
            }, ::core::stringify!(#var), #name);
        ));
        slot += 1;
    }

    let pat = &for_loop.pat;
    let (range, bind) = match source {
        LoopSource::Range(range) => (quote!(#range), quote!(let #pat = __dls_index;)),
        LoopSource::Reference(reference) => {
            setup.push(quote_spanned!(reference.span()=>
                let __dls_items = #private::borrowed(#reference);
            ));
            (
                quote!(0..__dls_items.len()),
                quote!(let #pat = &__dls_items[__dls_index];),
            )
        }
        LoopSource::Collection {
            collection,
            enumerate,
        } => {
            setup.push(quote_spanned!(collection.span()=>
                let __dls_items = #private::elements(&#collection);
            ));
            let item = if enumerate {
                quote!((__dls_index, &__dls_items[__dls_index]))
            } else {
                quote!(&__dls_items[__dls_index])
            };
            (quote!(0..__dls_items.len()), quote!(let #pat = #item;))
        }
    };

    let body = &for_loop.body;
    let label = control::iterate_label();
    let body = if wrap_body {
        quote!(#label: #body)
    } else {
        quote!(#body)
    };

    let CallShape {
        function,
        lead,
        group_args,
        extra_param,
        takes_reduction,
    } = call_shape(kind, &private);
    let reduction = match (&clauses.reduction, takes_reduction) {
        (Some(lit), true) => quote!(::core::option::Option::Some(#lit),),
        (None, true) => quote!(::core::option::Option::None,),
        (Some(lit), false) => {
            return Err(syn::Error::new_spanned(
                lit,
                "an inner loop's partial results travel as the outer loop's do: put \
                 `reduction = \"...\"` on the outer #[par_doall]",
            ))
        }
        (None, false) => quote!(),
    };
    Ok(quote_spanned! {span=> {
        #(#attrs)*
        let () = {
            #(#setup)*
            let (#(#results,)*) = #function(
                #lead
                #name,
                #schedule,
                #reduction
                #group_args
                #range,
                || (#(#identities,)*),
                |__dls_index, #extra_param #acc| {
                    #bind
                    #(#take)*
                    #(#slots)*
                    let () = #body;
                    #(#put_back)*
                },
                |__dls_a, __dls_b| (#(#combine,)*),
            );
            #(#finish)*
        };
    }})
}
