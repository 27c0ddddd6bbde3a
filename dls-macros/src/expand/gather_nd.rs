//! The pieces of `gather(a)` on an ndarray array whose iterate `i` uses it only in its own row
//! `a[[i, ..]]` (`crate::in_place_nd`): the array's elements written through the runtime's
//! `NdBlockPlace`, row `i` in place where the loop runs each iterate once on this process's
//! threads (and, for a body that only assigns plain elements, on each MPI rank, the rows then
//! exchanged after the loop), anything else logged (`dls-runtime/src/nd/rows.rs`). The log, its merge and its
//! scatter after the loop are those of every gathered vector (`super::gather`).

use quote::{format_ident, quote, quote_spanned};
use syn::{ExprForLoop, Ident};

use super::exchanged::{exchanged_place, Exchanged};
use super::pieces::{LoopCx, Pieces};
use crate::in_place;

/// Adds the place and the per-iterate access of the gathered array `var` (slot `slot`) to `p`;
/// `assigned`: every use of an element is a plain assignment, rewritten to
/// `NdBlockSet::set` in `for_loop`'s body. An assigned array of plain elements is written in
/// place on MPI ranks too, its rows exchanged after the loop: returns the name of the exchange
/// (`__private::Exchanger`) where `assigned`.
pub(super) fn in_nd_rows(
    p: &mut Pieces,
    var: &Ident,
    cx: &LoopCx,
    slot: usize,
    for_loop: &mut ExprForLoop,
    assigned: bool,
) -> Option<Ident> {
    let private = quote_spanned!(var.span()=> ::dls::__private);
    let idx = syn::Index::from(slot);
    let acc = &cx.acc;
    let name = &cx.name;
    p.any_in_place = true;
    p.any_blocks = true;
    // As for `gather(v: rows(w))`: re-execution of a body that reads its rows is off by default.
    p.reads_in_place = true;
    p.nd_rows.push(var.clone());
    let when = if assigned {
        p.any_assigned = true;
        // A trait's method: the body's copy that runs on an `NdBlockRow` (`in_rows.rs`) calls
        // it too, where a column is not rewritten to the row slice.
        let set: syn::Path = syn::parse_quote!(::dls::__private::NdBlockSet::set);
        in_place::rewrite_assignments_to(&mut for_loop.body, var, &set);
        quote!(__dls_assigned_in_place)
    } else {
        quote!(__dls_in_place)
    };
    let place = format_ident!("__dls_place_{}", slot);
    let target = format_ident!("__dls_target_{}", slot);
    let shape = format_ident!("__dls_shape_{}", slot);
    // `Place::new` is `unsafe` (it writes in place when `when`): the macro keeps its contract
    // as for `gather(v: rows(w))`. Each row is reached by the one access of the iterate that
    // owns it (the body names the array only at indices whose first component is the loop's
    // index, which it never rebinds, or asks its shape), run once where `when` holds (a copy
    // under re-execution logs, and only bodies that never read the array run copies beside an
    // in-place first execution); the runtime checks every index axis by axis, so no index
    // reaches another row. The block holds that call alone, with the macro's span (see
    // `super::gather::at_the_index`).
    // Under MPI (an assigned body, plain elements) each rank's accesses write their rows in its
    // own memory, one after the other on a rank of one worker thread (with threads inside a
    // rank a copy logs): the contract holds there as on threads, and the rows travel after the
    // loop (`super::exchanged`).
    let Exchanged {
        exchange,
        setup: exchanging,
        place: make_place,
    } = exchanged_place(var, slot, assigned, &target, when);
    p.setup.push(quote_spanned!(var.span()=>
        #private::gathers(&#var);
        // The shape first (and the refusal of an array not in standard layout, with the fix),
        // before the elements are borrowed to be written.
        let #shape = #private::nd_shape(&#var);
        #exchanging
        let #target = {
            use #private::ScatterTarget as _;
            #var.scatter_elements()
        };
        let #place = #private::nd_block_place(
            #make_place, #shape, &__dls_range, ::core::stringify!(#var), #name);
    ));
    // Plain elements travel as bytes (`gather_of`'s autoref choice).
    p.witnesses.push(quote_spanned!(var.span()=> {
        #[allow(unused_imports)]
        use #private::GatherOfPlain as _;
        #[allow(unused_imports)]
        use #private::GatherOfAny as _;
        (&&#private::nd_gather_of_place(&#place)).__dls_gather_slot()
    }));
    p.slots.push(quote_spanned!(var.span()=>
        #[allow(unused_mut)]
        let mut #var = #private::NdBlockAccess::new(
            &#place, &mut #acc.#idx, #private::block_iterate(__dls_index), __dls_copy);
    ));
    exchange
}
