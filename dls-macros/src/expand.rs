//! Code generation for one `#[par_doall]` loop. The generated code names only the runtime's hidden
//! module `::dls::__private` (the loop functions, reduction operators and identities, gather
//! logs, collection views) and `core`; `src/snapshots.rs` checks this and pins the expansion of
//! every clause form. See the crate documentation for the shape of the expansion.

use proc_macro2::{Group, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, ExprForLoop, Ident};

use crate::clauses::{Clauses, ReduceOp, RUNTIME_SCHEDULE};
use crate::control;
use crate::in_place;
use crate::nested::{call_shape, check_combination, CallShape, LoopKind};
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
    captured: &[Ident],
) -> syn::Result<TokenStream> {
    let wrap_body = control::check_and_rewrite(&mut for_loop.body, for_loop.label.as_ref())?;
    if let Some(check) = &clauses.check {
        // The iterate's value of the checked variable, at the end of the body (an iterate that
        // ends early with `continue` yields none).
        let var = &check.var;
        if let Some(syn::Stmt::Expr(_, semi @ None)) = for_loop.body.stmts.last_mut() {
            *semi = Some(Default::default());
        }
        // Spanned at the values, so that one that is no number is reported there alone.
        let observation = if check.predictors.is_empty() {
            quote_spanned!(var.span()=> ::dls::__private::observe_value(#var))
        } else {
            let xs = check
                .predictors
                .iter()
                .map(|x| quote_spanned!(x.span()=> ::dls::__private::checked_value(#x)));
            quote_spanned!(var.span()=> ::dls::__private::observe_row([#(#xs),*], #var))
        };
        for_loop
            .body
            .stmts
            .push(syn::parse_quote_spanned!(var.span()=>
                __dls_y = ::core::option::Option::Some(#observation);
            ));
    }
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
    if !captured.is_empty() {
        // Variables the body uses without a clause: a type with interior mutability (an atomic,
        // a Mutex, a Cell, ...) would be changed per rank under MPI (`__private::interior`).
        let probes = captured.iter().map(|v| {
            quote_spanned!(v.span()=> (::core::stringify!(#v), {
                #[allow(unused_imports)]
                use ::dls::__private::FoundInterior as _;
                #[allow(unused_imports)]
                use ::dls::__private::NoInterior as _;
                (&::dls::__private::Probe(&#v)).interior()
            }))
        });
        setup.push(quote_spanned!(span=>
            ::dls::__private::interior(#name, &[#(#probes),*]);
        ));
    }
    let mut identities = Vec::new();
    let mut take = Vec::new();
    let mut put_back = Vec::new();
    let mut slots = Vec::new();
    let mut combine = Vec::new();
    let mut results = Vec::new();
    let mut finish = Vec::new();
    // Markers of the partial results' types, one per slot, each at its variable: the witness
    // that they travel (`dls_runtime::partials`), so that one that cannot is reported there.
    let mut witnesses = Vec::new();
    let mut slot = 0usize;
    let acc = Ident::new("__dls_acc", Span::call_site());

    for r in &clauses.reductions {
        let var = &r.var;
        // Errors about the variable's type (not reducible, not serialisable) point at it.
        let private = quote_spanned!(var.span()=> ::dls::__private);
        let idx = syn::Index::from(slot);
        let op = Ident::new(&format!("__dls_op_{slot}"), var.span());
        let ty = Ident::new(&format!("__dls_ty_{slot}"), var.span());
        let res = format_ident!("__dls_result_{}", slot);
        results.push(res.clone());
        slot += 1;
        if let ReduceOp::Append(append) = &r.op {
            // The items of each iterate are logged with its index (`AppendSlot`, which `var`
            // means inside the body) and appended in iteration order after the loop.
            setup.push(quote_spanned!(var.span()=>
                let #ty = #private::type_of(&#var);
                #private::items_travel(&#var);
            ));
            identities.push(quote_spanned!(var.span()=> #private::append_identity(#ty)));
            witnesses.push(quote_spanned!(var.span()=> #private::append_partial(#ty)));
            slots.push(quote_spanned!(var.span()=>
                #[allow(unused_mut)]
                let mut #var = #private::AppendSlot::new(&mut #acc.#idx, __dls_index);
            ));
            combine.push(quote_spanned!(*append=>
                #private::AppendBuf::merge(__dls_a.#idx, __dls_b.#idx)
            ));
            finish.push(quote_spanned!(var.span()=>
                #private::append(#res, &mut #var);
            ));
            continue;
        }
        // The built-in operators start each worker from the identity shaped like the variable
        // (a vector of its length); a merge function from its identity value.
        let (op_value, shaped) = match &r.op {
            ReduceOp::Sum(s) => {
                // `+` on a type of the program's own with `Add` and `Default` too (`pick`).
                let sum = quote_spanned!(*s=> #private::Sum);
                let op_value = quote_spanned!(var.span()=> {
                    #[allow(unused_imports)]
                    use #private::PickBuiltIn as _;
                    #[allow(unused_imports)]
                    use #private::PickAdd as _;
                    #[allow(unused_imports)]
                    use #private::PickAny as _;
                    (&&&#private::pick(#sum, #private::type_of(&#var))).__dls_operator()
                });
                (op_value, true)
            }
            ReduceOp::Product(s) => (quote_spanned!(*s=> #private::Product), true),
            ReduceOp::Max(s) => (quote_spanned!(*s=> #private::Max), true),
            ReduceOp::Min(s) => (quote_spanned!(*s=> #private::Min), true),
            ReduceOp::Merge(p) => (quote_spanned!(p.span()=> #private::Merge(#p)), false),
            ReduceOp::MergeFrom(p, value) => (
                quote_spanned!(p.span()=> #private::MergeFrom(#p, #value)),
                false,
            ),
            ReduceOp::Append(_) => unreachable!("handled above"),
        };
        if let ReduceOp::MergeFrom(..) = &r.op {
            // Checked first: what the type lacks (Clone, or serde) is said once, in this
            // clause's words, and `travels` (implied) is not reported again.
            setup.push(quote_spanned!(var.span()=>
                let #ty = #private::type_of(&#var);
                #private::starts_each_worker(#ty);
            ));
        }
        setup.push(quote_spanned!(var.span()=>
            #private::travels(&#var);
            let #op = #op_value;
        ));
        if let ReduceOp::MergeFrom(..) = &r.op {
            // The type need not be `Default`, so the worker's copy is kept in an `Option` that
            // each iterate takes it out of; every worker starts from a clone of the identity.
            identities.push(quote_spanned!(var.span()=>
                ::core::option::Option::Some(#private::identity(&#op, #ty))
            ));
            witnesses.push(quote_spanned!(var.span()=> #private::option_partial(#ty)));
            take.push(quote_spanned!(var.span()=>
                #[allow(unused_mut)]
                let mut #var = #private::take_partial(&mut #acc.#idx);
            ));
            put_back.push(quote!(#acc.#idx = ::core::option::Option::Some(#var);));
            combine.push(quote_spanned!(var.span()=>
                #private::combine_partials(&#op, __dls_a.#idx, __dls_b.#idx)
            ));
            finish.push(quote_spanned!(var.span()=>
                #var = #private::combine_total(&#op, #var, #res);
            ));
            continue;
        }
        if shaped {
            // A map that the built-in operator combines key by key is merged into this
            // process's as another's bytes are read (`slot_of`).
            witnesses.push(quote_spanned!(var.span()=> {
                #[allow(unused_imports)]
                use #private::SlotOfMap as _;
                #[allow(unused_imports)]
                use #private::SlotOfAny as _;
                (&&#private::slot_of(&#op, #private::type_of(&#var))).__dls_slot()
            }));
        } else {
            witnesses.push(quote_spanned!(var.span()=> #private::type_of(&#var)));
        }
        if shaped {
            identities.push(quote_spanned!(var.span()=> #private::identity_like(&#op, &#var)));
        } else {
            setup.push(quote_spanned!(var.span()=>
                let #ty = #private::type_of(&#var);
            ));
            identities.push(quote_spanned!(var.span()=> #private::identity(&#op, #ty)));
        }
        take.push(quote_spanned!(var.span()=>
            #[allow(unused_mut)]
            let mut #var = ::core::mem::take(&mut #acc.#idx);
        ));
        put_back.push(quote!(#acc.#idx = #var;));
        combine.push(quote_spanned!(var.span()=>
            #private::Operator::combine(&#op, __dls_a.#idx, __dls_b.#idx)
        ));
        finish.push(quote_spanned!(var.span()=>
            #var = #private::Operator::combine(&#op, #var, #res);
        ));
    }

    let mut any_in_place = false;
    let mut any_assigned = false;
    // Only a one-level loop that is not checked hands its body runs, which say whether they
    // are copies (re-execution).
    let runs = kind == LoopKind::OneLevel && clauses.check.is_none();
    for var in &clauses.gathers {
        let outer_private = &private;
        // Errors about the target's type (not a vector, elements that cannot travel) point at it.
        let private = quote_spanned!(var.span()=> ::dls::__private);
        let idx = syn::Index::from(slot);
        let view = format_ident!("__dls_view_{}", slot);
        let res = format_ident!("__dls_result_{}", slot);
        identities.push(quote!(#outer_private::GatherBuf::new()));
        if kind == LoopKind::OneLevel
            && in_place::writes_at_the_index(&source, &for_loop.pat, &for_loop.body, var)
        {
            // Used only at the loop's index: written in place where the loop runs each iterate
            // once on this process's threads (`Loop::writes_in_place`), else logged.
            any_in_place = true;
            let place = format_ident!("__dls_place_{}", slot);
            // Only assigned (`out[i] = …`): the first execution of an iterate writes in place
            // even under re-execution, a copy logs (it never reads the element).
            let assigned = runs && in_place::only_assigned(&for_loop.pat, &for_loop.body, var);
            let (when, access) = if assigned {
                any_assigned = true;
                in_place::rewrite_assignments(&mut for_loop.body, var);
                (
                    quote!(__dls_assigned_in_place),
                    quote_spanned!(var.span()=>
                        #private::GatherWriter::of_run(&#place, &mut #acc.#idx, __dls_copy)
                    ),
                )
            } else {
                (
                    quote!(__dls_in_place),
                    quote_spanned!(var.span()=>
                        #private::GatherAccess::new(&#place, &mut #acc.#idx)
                    ),
                )
            };
            let target = format_ident!("__dls_target_{}", slot);
            // `Place::new` is `unsafe` (it writes in place when `when`): the macro keeps its
            // contract, each element reached only by the iterate at its index, run once. The
            // block holds that call alone (the user's tokens are evaluated before it), and its
            // `unsafe` and braces carry the macro's span (`quote!`, not the variable's), so that
            // a crate under `#![forbid(unsafe_code)]` can still use `gather`: rustc does not
            // report the lint in code from an external proc macro.
            let make_place = quote!(unsafe { #private::Place::new(#target, #when) });
            setup.push(quote_spanned!(var.span()=>
                #private::gathers(&#var);
                let #target = {
                    use #private::ScatterTarget as _;
                    #var.scatter_elements()
                };
                let #place = #make_place;
            ));
            witnesses.push(quote_spanned!(var.span()=> #private::place_partial(&#place)));
            let slot_code = quote_spanned!(var.span()=>
                #[allow(unused_mut)]
                let mut #var = #access;
            );
            if assigned {
                // One access for the run: `set` keeps no state per iterate.
                take.push(slot_code);
            } else {
                slots.push(slot_code);
            }
        } else {
            setup.push(quote_spanned!(var.span()=>
                #private::gathers(&#var);
                let #view = #private::view(&#var);
            ));
            witnesses.push(quote_spanned!(var.span()=> #private::gather_partial(&#var)));
            slots.push(quote_spanned!(var.span()=>
                #[allow(unused_mut)]
                let mut #var = #private::GatherSlot::new(#view, &mut #acc.#idx);
            ));
        }
        combine.push(quote!(#outer_private::GatherBuf::merge(__dls_a.#idx, __dls_b.#idx)));
        results.push(res.clone());
        finish.push(quote_spanned!(var.span()=>
            // Method syntax reborrows a `&mut [T]` parameter without needing `mut` on it.
            #private::scatter(#res, {
                use #private::ScatterTarget as _;
                #var.scatter_elements()
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

    let identity = quote!(|| (#(#identities,)*));

    // Which clause combinations work is decided before any code is made (`nested.rs`).
    check_combination(clauses, kind)?;
    let CallShape {
        mut run,
        lead,
        extra_param,
    } = call_shape(kind);
    // A one-level loop that is not checked hands its body whole runs of iterates: the body
    // becomes a `for` over the run (as in the serial program, which the compiler optimises as
    // a loop), the reduction variables taken out of the accumulator once per run. A checked
    // loop's body yields each iterate's value, so it stays one call per iterate.
    if runs {
        run = Ident::new("run_iterates", Span::call_site());
    }
    // The builder chain: one method per clause given (tokio-macros' `entry.rs` manner).
    let mut chain = Vec::new();
    if let (Some(lit), true) = (&clauses.reduction, kind != LoopKind::Inner) {
        chain.push(quote!(.reduction(#lit)));
    }
    if !clauses.shared.is_empty() && kind != LoopKind::Inner {
        // `shared(...)` variables change through side effects that a copy of an iterate would
        // make twice: such a loop never re-executes iterates.
        chain.push(quote!(.shared()));
    }
    if clauses.ordered_merge().is_some() {
        // A merge function without `unordered` may depend on order: the loop then combines its
        // partial results in the iterates' order.
        chain.push(quote!(.ordered()));
    }
    if let Some(check) = &clauses.check {
        let exchangeable = check.exchangeable;
        chain.push(quote!(.check(#exchangeable)));
    }
    if let LoopKind::Outer { min, max } = kind {
        let max = if max == usize::MAX {
            quote!(::core::primitive::usize::MAX)
        } else {
            quote!(#max)
        };
        chain.push(quote!(.groups(#min, #max)));
    }
    // The loop's call is the `for` keyword's, wholly: an error about the call (a clause value
    // that cannot travel) then marks the loop, not the function's attribute.
    let call = respan(
        quote!(#private::Loop::new(#name, #schedule) #(#chain)* .#run),
        span,
    );
    // Asked once, before the vectors' places are made; the range is taken before them too
    // (`0..out.len()` reads the vector that a place then borrows to write).
    let (in_place, range) = if any_in_place {
        let ask = respan(
            quote!(#private::Loop::new(#name, #schedule) #(#chain)* .writes_in_place()),
            span,
        );
        let ask_assigned = if any_assigned {
            let ask = respan(
                quote!(#private::Loop::new(#name, #schedule) #(#chain)* .writes_assigned_in_place()),
                span,
            );
            quote!(let __dls_assigned_in_place = #ask;)
        } else {
            quote!()
        };
        (
            quote!(
                let __dls_range = #range;
                #[allow(unused_variables)]
                let __dls_in_place = #ask;
                #ask_assigned
            ),
            quote!(__dls_range),
        )
    } else {
        (quote!(), range)
    };
    let (y_init, y_return) = match &clauses.check {
        Some(_) => (
            quote!(let mut __dls_y = ::core::option::Option::None;),
            quote!(__dls_y),
        ),
        None => (quote!(), quote!()),
    };
    let closure = if runs {
        let copy = if any_assigned {
            quote!(let __dls_copy = __dls_iterates.is_copy();)
        } else {
            quote!()
        };
        quote!(|__dls_iterates, #acc| {
            #copy
            #(#take)*
            for __dls_index in __dls_iterates {
                #bind
                #(#slots)*
                let () = #body;
            }
            #(#put_back)*
        })
    } else {
        quote!(|__dls_index, #extra_param #acc| {
            #bind
            #(#take)*
            #(#slots)*
            #y_init
            let () = #body;
            #(#put_back)*
            #y_return
        })
    };
    Ok(quote_spanned! {span=> {
        #(#attrs)*
        let () = {
            #in_place
            #(#setup)*
            let (#(#results,)*) = #call(
                #lead
                (#(#witnesses,)*),
                #range,
                #identity,
                #closure,
                |__dls_a, __dls_b| (#(#combine,)*),
            );
            #(#finish)*
        };
    }})
}

/// `tokens` with every token (and group delimiter) at `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tt| {
            if let proc_macro2::TokenTree::Group(g) = &tt {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                tt = proc_macro2::TokenTree::Group(group);
            } else {
                tt.set_span(span);
            }
            tt
        })
        .collect()
}
