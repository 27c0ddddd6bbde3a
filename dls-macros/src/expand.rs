//! Code generation for one `#[par_doall]` loop. The generated code names only the runtime's hidden
//! module `::dls::__private` (the loop functions, reduction operators and identities, gather
//! logs, collection views) and `core`; `src/snapshots.rs` checks this and pins the expansion of
//! every clause form. See the crate documentation for the shape of the expansion.
//!
//! Each clause contributes its [`Pieces`] (`reduce` in `expand/reduce.rs`, `gather` in
//! `expand/gather.rs`, the loop's source, `check` and the interior-mutability probe here, the
//! builder chain's methods for `reduction`, `shared`, ordered merges, `check` and `group` in
//! [`chain`]); [`expand`] assembles them into the loop's call.

mod captured;
mod exchanged;
mod gather;
mod gather_nd;
mod pieces;
mod reduce;

use pieces::{LoopCx, Pieces};

use proc_macro2::{Group, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Attribute, ExprForLoop, Ident, Pat};

use crate::clauses::{CheckClause, Clauses, RUNTIME_SCHEDULE};
use crate::control;
use crate::nested::{call_shape, check_combination, CallShape, LoopKind};
use crate::source::{LaneKind, LoopSource};

/// Generates the block expression that replaces `for_loop`; `attrs` are its other attributes, kept.
/// `kind` says which runtime function the loop calls (a one-level loop, or the outer or an inner
/// loop of a two-level loop, see `nested.rs`).
pub(crate) fn expand(
    mut for_loop: ExprForLoop,
    clauses: &Clauses,
    source: LoopSource,
    attrs: Vec<Attribute>,
    kind: LoopKind,
    captured: &[crate::mutation::Captured],
) -> syn::Result<TokenStream> {
    let wrap_body = control::check_and_rewrite(&mut for_loop.body, for_loop.label.as_ref())?;
    if let Some(check) = &clauses.check {
        observe_checked(&mut for_loop, check);
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

    let mut p = Pieces::default();
    let captured = probe_captured(&mut p, captured, &name, span);
    let cx = LoopCx {
        private,
        name,
        acc: Ident::new("__dls_acc", Span::call_site()),
        kind,
        // Only a one-level loop that is not checked hands its body runs, which say whether they
        // are copies (re-execution).
        runs: kind == LoopKind::OneLevel && clauses.check.is_none(),
    };
    for r in &clauses.reductions {
        reduce::reduction(&mut p, r, &cx.acc);
    }
    for var in &clauses.gathers {
        let rows = clauses
            .gather_rows
            .iter()
            .find(|(v, _)| v == var)
            .map(|(_, width)| width);
        gather::gather(&mut p, var, rows, &cx, &source, &mut for_loop)?;
    }
    let (range, bind) = bind_source(&mut p, source, &for_loop.pat, &cx.private);

    // A run of iterates is handed the captured variables as parameters (`expand/captured.rs`).
    let hand_captured = cx.runs && !captured.is_empty() && captured.len() <= captured::MOST;
    let handed = if hand_captured { &captured[..] } else { &[] };
    let (body, row_body) = bodies(&p, &cx, &mut for_loop, wrap_body, handed);

    let identities = &p.identities;
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
    if cx.runs {
        run = Ident::new("run_iterates", Span::call_site());
    }
    let mut chain = chain(clauses, kind);
    if p.reads_in_place {
        // Re-execution would log the vector read in place: off by default for this loop.
        chain.push(quote!(.reads_in_place()));
    }
    let private = &cx.private;
    let name = &cx.name;
    // The loop's call is the `for` keyword's, wholly: an error about the call (a clause value
    // that cannot travel) then marks the loop, not the function's attribute.
    let call = respan(
        quote!(#private::Loop::new(#name, #schedule) #(#chain)* .#run),
        span,
    );
    let (in_place, range) = in_place_prelude(&p, &cx, &schedule, &chain, range, span);
    let body = match &row_body {
        Some(row_body) => in_rows(&p, &cx, &body, row_body),
        None => quote!(let () = #body;),
    };
    let closure = closure(&p, &cx, clauses, &bind, &body, &extra_param, handed);
    let Pieces {
        setup,
        results,
        witnesses,
        combine,
        finish,
        ..
    } = &p;
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

/// `check(...: y)`: the iterate's value of the checked variable, at the end of the body (an
/// iterate that ends early with `continue` yields none).
fn observe_checked(for_loop: &mut ExprForLoop, check: &CheckClause) {
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

/// Adds to `p` the interior-mutability probe of the captured variables that need one
/// (`Captured::probed`), and returns the variables the body names itself, which its runs may
/// take as parameters.
fn probe_captured(
    p: &mut Pieces,
    captured: &[crate::mutation::Captured],
    name: &TokenStream,
    span: Span,
) -> Vec<Ident> {
    let probed: Vec<&crate::mutation::Captured> = captured.iter().filter(|c| c.probed()).collect();
    if !probed.is_empty() {
        p.setup.push(interior_probe(&probed, name, span));
    }
    captured
        .iter()
        .filter(|c| c.direct)
        .map(|c| c.var.clone())
        .collect()
}

/// The iterate's body (labelled where `wrap_body`), and under `gather(v: rows(W))` or an ndarray
/// array written in its own rows (`gather(a)`, `a[[i, j]]`) a copy of it whose own rows'
/// elements are the row slices' (`in_rows.rs`), for the iterates that write their rows in place.
/// In both, the variables of `handed` become the run's parameters (`expand/captured.rs`).
fn bodies(
    p: &Pieces,
    cx: &LoopCx,
    for_loop: &mut ExprForLoop,
    wrap_body: bool,
    handed: &[Ident],
) -> (TokenStream, Option<TokenStream>) {
    let label = control::iterate_label();
    let labelled = |body: &syn::Block| {
        let body = if wrap_body {
            quote!(#label: #body)
        } else {
            quote!(#body)
        };
        if handed.is_empty() {
            body
        } else {
            // The parameters replace some of the body's names (`x[d]` becomes
            // `(*__dls_cap_0.get())[d]`), so clippy would read a user's `for d in 0..3` that
            // indexes several arrays as indexing one alone and ask for an iterator: the lint is
            // about code the user did not write.
            quote!({
                #[allow(clippy::needless_range_loop)]
                let () = #body;
            })
        }
    };
    let row_body = (cx.runs && !(p.rows.is_empty() && p.nd_rows.is_empty())).then(|| {
        let mut body = for_loop.body.clone();
        for (var, width) in &p.rows {
            crate::in_rows::rewrite_columns(&mut body, &for_loop.pat, var, width);
        }
        for var in &p.nd_rows {
            crate::in_rows::rewrite_nd_columns(&mut body, &for_loop.pat, var);
        }
        captured::rewrite(&mut body, handed);
        labelled(&body)
    });
    captured::rewrite(&mut for_loop.body, handed);
    (labelled(&for_loop.body), row_body)
}

/// Variables the body uses without a clause: a type with interior mutability (an atomic, a
/// Mutex, a Cell, ...) would be changed per rank under MPI (`__private::interior`). One reached
/// through a closure is labelled `var@closure`.
fn interior_probe(
    captured: &[&crate::mutation::Captured],
    name: &TokenStream,
    span: Span,
) -> TokenStream {
    let probes = captured.iter().map(|c| {
        let v = &c.var;
        let label = match &c.via {
            Some(closure) => {
                quote_spanned!(v.span()=> ::core::concat!(::core::stringify!(#v), "@", #closure))
            }
            None => quote_spanned!(v.span()=> ::core::stringify!(#v)),
        };
        quote_spanned!(v.span()=> (#label, {
            #[allow(unused_imports)]
            use ::dls::__private::FoundInterior as _;
            #[allow(unused_imports)]
            use ::dls::__private::NoInterior as _;
            (&::dls::__private::Probe(&#v)).interior()
        }))
    });
    quote_spanned!(span=>
        ::dls::__private::interior(#name, &[#(#probes),*]);
    )
}

/// The loop's source: the range handed to the runtime, and the statement that binds the loop's
/// pattern to iterate `__dls_index` (for a collection, a setup statement that borrows it).
fn bind_source(
    p: &mut Pieces,
    source: LoopSource,
    pat: &Pat,
    private: &TokenStream,
) -> (TokenStream, TokenStream) {
    match source {
        LoopSource::Range(range) => (quote!(#range), quote!(let #pat = __dls_index;)),
        LoopSource::Reference(reference) => {
            p.setup.push(quote_spanned!(reference.span()=>
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
            p.setup.push(quote_spanned!(collection.span()=>
                let __dls_items = #private::elements(&#collection);
            ));
            let item = if enumerate {
                quote!((__dls_index, &__dls_items[__dls_index]))
            } else {
                quote!(&__dls_items[__dls_index])
            };
            (quote!(0..__dls_items.len()), quote!(let #pat = #item;))
        }
        LoopSource::Lanes {
            collection,
            kind,
            enumerate,
        } => {
            let of = match kind {
                LaneKind::Rows => quote_spanned!(collection.span()=> #private::rows_of),
                LaneKind::Outer => quote_spanned!(collection.span()=> #private::outer_of),
            };
            p.setup.push(quote_spanned!(collection.span()=>
                let __dls_items = #of(&#collection);
            ));
            let lane = quote!(#private::Lanes::lane(&__dls_items, __dls_index));
            let item = if enumerate {
                quote!((__dls_index, #lane))
            } else {
                lane
            };
            (
                quote!(0..#private::Lanes::count(&__dls_items)),
                quote!(let #pat = #item;),
            )
        }
    }
}

/// The builder chain: one method per clause given (tokio-macros' `entry.rs` manner).
fn chain(clauses: &Clauses, kind: LoopKind) -> Vec<TokenStream> {
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
    chain
}

/// Where a gathered vector may be written in place: the statements that ask the loop whether
/// it writes in place, and the range they take first, with the range the call then gets. Asked
/// once, before the vectors' places are made; the range is taken before them too
/// (`0..out.len()` reads the vector that a place then borrows to write).
fn in_place_prelude(
    p: &Pieces,
    cx: &LoopCx,
    schedule: &TokenStream,
    chain: &[TokenStream],
    range: TokenStream,
    span: Span,
) -> (TokenStream, TokenStream) {
    if !p.any_in_place {
        return (quote!(), range);
    }
    let LoopCx { private, name, .. } = cx;
    let ask = respan(
        quote!(#private::Loop::new(#name, #schedule) #(#chain)* .writes_in_place()),
        span,
    );
    let ask_assigned = if p.any_assigned {
        let ask = respan(
            quote!(#private::Loop::new(#name, #schedule) #(#chain)* .writes_assigned_in_place()),
            span,
        );
        let exchanged = respan(
            quote!(#private::Loop::new(#name, #schedule) #(#chain)* .exchanges_assigned_in_place()),
            span,
        );
        quote!(
            let __dls_assigned_in_place = #ask;
            #[allow(unused_variables)]
            let __dls_assigned_exchanged = #exchanged;
        )
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
}

/// The loop's body as the runtime calls it: over a run of iterates (the slots' partial results
/// taken out once per run), or per iterate (a checked loop yields the iterate's value).
fn closure(
    p: &Pieces,
    cx: &LoopCx,
    clauses: &Clauses,
    bind: &TokenStream,
    body: &TokenStream,
    extra_param: &TokenStream,
    handed: &[Ident],
) -> TokenStream {
    let Pieces {
        take,
        put_back,
        slots,
        ..
    } = p;
    let acc = &cx.acc;
    if cx.runs {
        let copy = if p.any_assigned || p.any_blocks {
            quote!(let __dls_copy = __dls_iterates.is_copy();)
        } else {
            quote!()
        };
        let run = quote!(
            #copy
            #(#take)*
            for __dls_index in __dls_iterates {
                #bind
                #(#slots)*
                #body
            }
            #(#put_back)*
        );
        // The whole run inside the closure that takes the captured variables as parameters,
        // its partial results and locals its own.
        let run = if handed.is_empty() {
            run
        } else {
            captured::wrap(&cx.private, handed, run)
        };
        return quote!(|__dls_iterates, #acc| { #run });
    }
    let (y_init, y_return) = match &clauses.check {
        Some(_) => (
            quote!(let mut __dls_y = ::core::option::Option::None;),
            quote!(__dls_y),
        ),
        None => (quote!(), quote!()),
    };
    quote!(|__dls_index, #extra_param #acc| {
        #bind
        #(#take)*
        #(#slots)*
        #y_init
        #body
        #(#put_back)*
        #y_return
    })
}

/// An iterate's body under `gather(v: rows(W))` or `gather(a)` of an ndarray array written in
/// its own rows: where every such vector's and array's access writes in place, `row_body` runs
/// inside `__private::with_row` (`nd_with_row`), which hands it each row as a `&mut [T]`
/// parameter (so the compiler knows nothing else reaches the row, and keeps the body's other
/// vectors in registers), the vector's name a `BlockRow` (`NdBlockRow`) of the row and the
/// access; otherwise `body`, on the accesses.
fn in_rows(p: &Pieces, cx: &LoopCx, body: &TokenStream, row_body: &TokenStream) -> TokenStream {
    let private = &cx.private;
    // Each variable with its access type, its row type and its wrapper.
    let vars: Vec<(&Ident, TokenStream, TokenStream, TokenStream)> = p
        .rows
        .iter()
        .map(|(v, _)| {
            (
                v,
                quote!(#private::BlockAccess),
                quote!(#private::BlockRow),
                quote!(#private::with_row),
            )
        })
        .chain(p.nd_rows.iter().map(|v| {
            (
                v,
                quote!(#private::NdBlockAccess),
                quote!(#private::NdBlockRow),
                quote!(#private::nd_with_row),
            )
        }))
        .collect();
    let mut fast = quote!(let () = #row_body;);
    for (k, (var, access, row_ty, with_row)) in vars.iter().enumerate().rev() {
        let row = quote::format_ident!("__dls_row_{}", k);
        let rest = quote::format_ident!("__dls_rest_{}", k);
        fast = quote!(
            #with_row(#access::split(&mut #var), |#row, #rest| {
                #[allow(unused_mut)]
                let mut #var = #row_ty::new(#row, #rest);
                #fast
            });
        );
    }
    let in_place = vars
        .iter()
        .map(|(var, access, _, _)| quote!(#access::in_place(&#var)));
    quote!(
        if #(#in_place)&&* {
            #fast
        } else {
            let () = #body;
        }
    )
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
