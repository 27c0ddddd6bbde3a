//! The pieces of a `gather(...)` clause, one slot per vector: the worker's log (identity), what
//! the vector's name means in the body (an access through the runtime's in-place `Place`, or a
//! logging slot), the merge of two workers' logs, the witness that they travel, and the scatter
//! of the writes into the vector after the loop.

use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ExprForLoop, Ident};

use super::exchanged::{exchanged_place, Exchanged};
use super::pieces::{LoopCx, Pieces};
use crate::in_place;
use crate::in_place_nd;
use crate::nested::LoopKind;
use crate::source::LoopSource;

/// Adds the pieces of the gathered vector `var` to `p`, in the next slot. A vector the body
/// uses only at the loop's index may be written in place; `for_loop`'s body is then rewritten
/// where it only assigns to the vector (`in_place::rewrite_assignments`).
pub(super) fn gather(
    p: &mut Pieces,
    var: &Ident,
    rows: Option<&syn::Expr>,
    cx: &LoopCx,
    source: &LoopSource,
    for_loop: &mut ExprForLoop,
) -> syn::Result<()> {
    let outer_private = &cx.private;
    let slot = p.next_slot();
    // Errors about the target's type (not a vector, elements that cannot travel) point at it.
    let private = quote_spanned!(var.span()=> ::dls::__private);
    let idx = syn::Index::from(slot);
    let res = format_ident!("__dls_result_{}", slot);
    let name = &cx.name;
    p.identities.push(quote!(#outer_private::GatherBuf::new()));
    let ranged = matches!(source, LoopSource::Range(_));
    let mut logged = false;
    // A vector only assigned to at the loop's index (its element, or its row): how its elements
    // written in place on MPI ranks travel (`exchanged_place`).
    let mut exchange = None;
    if let (Some(width), true, true) = (rows, cx.runs, ranged) {
        exchange = in_rows(p, var, width, cx, slot, for_loop)?;
    } else if let (None, true, Some(assigned)) = (
        rows,
        cx.runs,
        in_place_nd::writes_own_rows(source, &for_loop.pat, &for_loop.body, var),
    ) {
        // An ndarray array written only in the loop's own rows, `a[[i, ..]]` (issue 45).
        exchange = super::gather_nd::in_nd_rows(p, var, cx, slot, for_loop, assigned);
    } else if cx.kind == LoopKind::OneLevel
        && in_place::writes_at_the_index(source, &for_loop.pat, &for_loop.body, var)
    {
        exchange = at_the_index(p, var, cx, slot, for_loop);
    } else {
        let view = format_ident!("__dls_view_{}", slot);
        let acc = &cx.acc;
        // An ndarray array is seen through a slot that takes its indices (`a[[i, j]]`), any
        // other target through the slot of its elements (`dls-runtime/src/gather_view.rs`).
        p.setup.push(quote_spanned!(var.span()=>
            #private::gathers(&#var);
            let #view = {
                #[allow(unused_imports)]
                use #private::ViewOfShaped as _;
                #[allow(unused_imports)]
                use #private::ViewOfFlat as _;
                (&&#private::ViewOf(&#var)).__dls_view()
            };
        ));
        // Plain elements travel as bytes (`gather_of`'s autoref choice).
        p.witnesses.push(quote_spanned!(var.span()=> {
            #[allow(unused_imports)]
            use #private::GatherOfPlain as _;
            #[allow(unused_imports)]
            use #private::GatherOfAny as _;
            (&&#private::gather_of(&#var)).__dls_gather_slot()
        }));
        p.slots.push(quote_spanned!(var.span()=>
            #[allow(unused_mut)]
            let mut #var = #private::gather_slot(&#view, &mut #acc.#idx);
        ));
        logged = cx.kind == LoopKind::OneLevel && rows.is_none();
    }
    // A vector written at other elements than the loop's index logs every write: the first
    // run says so (`__private::scatter_logged`).
    p.combine
        .push(quote!(#outer_private::GatherBuf::merge(__dls_a.#idx, __dls_b.#idx)));
    p.results.push(res.clone());
    p.finish.push(match exchange {
        // Ranges written in place on MPI ranks are exchanged (`__private::scatter_exchanged`).
        Some(exchange) => quote_spanned!(var.span()=>
            #private::scatter_exchanged(#res, {
                use #private::ScatterTarget as _;
                #var.scatter_elements()
            }, #exchange, ::core::stringify!(#var), #name);
        ),
        // A logged loop's message names the ndarray form for an ndarray array.
        None if logged => quote_spanned!(var.span()=>
            #private::scatter_logged(#res, #private::is_nd_array(&#var), {
                use #private::ScatterTarget as _;
                #var.scatter_elements()
            }, ::core::stringify!(#var), #name);
        ),
        None => quote_spanned!(var.span()=>
            // Method syntax reborrows a `&mut [T]` parameter without needing `mut` on it.
            #private::scatter(#res, {
                use #private::ScatterTarget as _;
                #var.scatter_elements()
            }, ::core::stringify!(#var), #name);
        ),
    });
    Ok(())
}

/// `gather(var: rows(width))` in a one-level loop over a range: iterate `i` writes row `i` in
/// place where the loop runs each iterate once on this process's threads (or, for a body that
/// only assigns to the vector, in each iterate's first execution, and on MPI ranks for plain
/// elements, whose rows are exchanged after the loop: returns the name of the exchange then),
/// anything else logged (`__private::BlockAccess`).
fn in_rows(
    p: &mut Pieces,
    var: &Ident,
    width: &syn::Expr,
    cx: &LoopCx,
    slot: usize,
    for_loop: &mut ExprForLoop,
) -> syn::Result<Option<Ident>> {
    let private = quote_spanned!(var.span()=> ::dls::__private);
    let idx = syn::Index::from(slot);
    let acc = &cx.acc;
    let name = &cx.name;
    p.any_in_place = true;
    p.any_blocks = true;
    let assigned = in_place::block_uses(&for_loop.body, var)?;
    // Re-execution costs a rows loop whose workers keep pace 1.5× (the Jacobi sweep of
    // `benches/src/bin/jacobi_flat.rs`, BENCHMARKS.md): off by default, as for a vector read in
    // place.
    p.reads_in_place = true;
    let when = if assigned {
        p.any_assigned = true;
        // A trait's method: the body's copy that runs on a `BlockRow` (`in_rows.rs`) calls it
        // too.
        let set: syn::Path = syn::parse_quote!(::dls::__private::BlockSet::set);
        in_place::rewrite_assignments_to(&mut for_loop.body, var, &set);
        quote!(__dls_assigned_in_place)
    } else {
        quote!(__dls_in_place)
    };
    p.rows.push((var.clone(), width.clone()));
    let place = format_ident!("__dls_place_{}", slot);
    let target = format_ident!("__dls_target_{}", slot);
    let rows = format_ident!("__dls_rows_{}", slot);
    // `Place::new` is `unsafe` (it writes in place when `when`): the macro keeps its contract,
    // each row reached by the one access of the iterate that owns it, run once (a copy under
    // re-execution logs, and only bodies that never read the vector run copies beside an
    // in-place first execution), and elements outside the loop's rows only read (writes there
    // are logged). As for `gather(v)`, the block holds that call alone.
    // Under MPI (an assigned body, plain elements) each rank's accesses write their rows in
    // its own memory: one worker thread per rank runs its iterates one after the other, and
    // with threads inside a rank a copy logs, so the contract holds there as on threads.
    let Exchanged {
        exchange,
        setup: exchanging,
        place: make_place,
    } = exchanged_place(var, slot, assigned, &target, when);
    let width = quote_spanned!(width.span()=> { let __dls_width: usize = #width; __dls_width });
    p.setup.push(quote_spanned!(var.span()=>
        #private::gathers(&#var);
        let #rows = #width;
        #exchanging
        let #target = {
            use #private::ScatterTarget as _;
            #var.scatter_elements()
        };
        let #place = #private::block_place(
            #make_place, #rows, &__dls_range, ::core::stringify!(#var), #name);
    ));
    p.witnesses
        .push(quote_spanned!(var.span()=> #private::block_partial(&#place)));
    p.slots.push(quote_spanned!(var.span()=>
        #[allow(unused_mut)]
        let mut #var = #private::BlockAccess::new(
            &#place, &mut #acc.#idx, #private::block_iterate(__dls_index), __dls_copy);
    ));
    Ok(exchange)
}

/// A vector used only at the loop's index, in slot `slot`: written in place where the loop runs
/// each iterate once on this process's threads (`Loop::writes_in_place`), else logged. A vector
/// the body only assigns to is written in place by first executions, on threads, and on MPI
/// ranks for plain elements, whose ranges are then exchanged after the loop: returns the name
/// of its exchange (`__private::Exchanger`) then.
fn at_the_index(
    p: &mut Pieces,
    var: &Ident,
    cx: &LoopCx,
    slot: usize,
    for_loop: &mut ExprForLoop,
) -> Option<Ident> {
    let private = quote_spanned!(var.span()=> ::dls::__private);
    let idx = syn::Index::from(slot);
    let acc = &cx.acc;
    p.any_in_place = true;
    let place = format_ident!("__dls_place_{}", slot);
    // Only assigned (`out[i] = …`): the first execution of an iterate writes in place even
    // under re-execution, a copy logs (it never reads the element).
    let assigned = cx.runs && in_place::only_assigned(&for_loop.pat, &for_loop.body, var);
    let (when, access) = if assigned {
        p.any_assigned = true;
        in_place::rewrite_assignments(&mut for_loop.body, var);
        (
            quote!(__dls_assigned_in_place),
            quote_spanned!(var.span()=>
                #private::GatherWriter::of_run(&#place, &mut #acc.#idx, __dls_copy)
            ),
        )
    } else {
        p.reads_in_place = true;
        (
            quote!(__dls_in_place),
            quote_spanned!(var.span()=>
                #private::GatherAccess::new(&#place, &mut #acc.#idx)
            ),
        )
    };
    let target = format_ident!("__dls_target_{}", slot);
    // `Place::new` is `unsafe` (it writes in place when `when`): the macro keeps its contract,
    // each element reached only by the iterate at its index, run once (by its first execution
    // on this process: under MPI each rank writes its own memory, and copies log). The block
    // holds that
    // call alone (the user's tokens are evaluated before it), and its `unsafe` and braces carry
    // the macro's span (`quote!`, not the variable's), so that a crate under
    // `#![forbid(unsafe_code)]` can still use `gather`: rustc does not report the lint in code
    // from an external proc macro (`tests/ui/pass/forbid_unsafe_gather.rs`).
    let Exchanged {
        exchange,
        setup: exchanging,
        place: make_place,
    } = exchanged_place(var, slot, assigned, &target, when);
    p.setup.push(quote_spanned!(var.span()=>
        #private::gathers(&#var);
        #exchanging
        let #target = {
            use #private::ScatterTarget as _;
            #var.scatter_elements()
        };
        let #place = #make_place;
    ));
    p.witnesses.push(quote_spanned!(var.span()=> {
        #[allow(unused_imports)]
        use #private::GatherOfPlain as _;
        #[allow(unused_imports)]
        use #private::GatherOfAny as _;
        (&&#private::gather_of_place(&#place)).__dls_gather_slot()
    }));
    let slot_code = quote_spanned!(var.span()=>
        #[allow(unused_mut)]
        let mut #var = #access;
    );
    if assigned {
        // One access for the run: `set` keeps no state per iterate.
        p.take.push(slot_code);
    } else {
        p.slots.push(slot_code);
    }
    exchange
}
