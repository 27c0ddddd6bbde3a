//! The pieces of a `reduce(...)` clause, one slot per variable: its operator and the checks of
//! its type (setup), the worker's starting value (identity), the partial result taken out of the
//! accumulator for a run and put back after it (or, for `append`, a slot per iterate), the
//! combination of two partial results, the witness that they travel, and the total combined
//! into the variable after the loop.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

use super::pieces::Pieces;
use crate::clauses::{ReduceOp, Reduction};

/// One reduction variable's names in the generated code.
struct Slot<'a> {
    /// The variable.
    var: &'a Ident,
    /// `::dls::__private` at the variable: errors about its type (not reducible, not
    /// serialisable) point at it.
    private: TokenStream,
    /// The slot's position in the accumulator tuple.
    idx: syn::Index,
    /// The operator's local.
    op: Ident,
    /// The local holding the variable's type marker.
    ty: Ident,
    /// The combined partial results after the loop.
    res: Ident,
    /// The worker's accumulator.
    acc: &'a Ident,
}

/// Adds the pieces of reduction `r` to `p`, in the next slot of the accumulator `acc`.
pub(super) fn reduction(p: &mut Pieces, r: &Reduction, acc: &Ident) {
    let var = &r.var;
    let slot = p.next_slot();
    let s = Slot {
        var,
        private: quote_spanned!(var.span()=> ::dls::__private),
        idx: syn::Index::from(slot),
        op: Ident::new(&format!("__dls_op_{slot}"), var.span()),
        ty: Ident::new(&format!("__dls_ty_{slot}"), var.span()),
        res: format_ident!("__dls_result_{}", slot),
        acc,
    };
    p.results.push(s.res.clone());
    match &r.op {
        ReduceOp::Append(append) => append_items(p, &s, *append),
        ReduceOp::MergeFrom(..) => merge_from(p, &s, &r.op),
        op => built_in_or_merge(p, &s, op),
    }
}

/// `reduce(append: var)`: the items of each iterate are logged with its index (`AppendSlot`,
/// which `var` means inside the body) and appended in iteration order after the loop.
fn append_items(p: &mut Pieces, s: &Slot, append: Span) {
    let Slot {
        var,
        private,
        idx,
        ty,
        res,
        acc,
        ..
    } = s;
    p.setup.push(quote_spanned!(var.span()=>
        let #ty = #private::type_of(&#var);
        #private::items_travel(&#var);
    ));
    p.identities
        .push(quote_spanned!(var.span()=> #private::append_identity(#ty)));
    p.witnesses
        .push(quote_spanned!(var.span()=> #private::append_partial(#ty)));
    p.slots.push(quote_spanned!(var.span()=>
        #[allow(unused_mut)]
        let mut #var = #private::AppendSlot::new(&mut #acc.#idx, __dls_index);
    ));
    p.combine.push(quote_spanned!(append=>
        #private::AppendBuf::merge(__dls_a.#idx, __dls_b.#idx)
    ));
    p.finish.push(quote_spanned!(var.span()=>
        #private::append(#res, &mut #var);
    ));
}

/// The operator's value for `op` (not `append`), and whether it is a built-in operator, which
/// starts each worker from the identity shaped like the variable (a vector of its length),
/// where a merge function starts it from its identity value.
fn operator(s: &Slot, op: &ReduceOp) -> (TokenStream, bool) {
    let Slot { var, private, .. } = s;
    match op {
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
        ReduceOp::Append(_) => unreachable!("`append` has no operator"),
    }
}

/// `reduce(merge, identity = value: var)`. The type need not be `Default`, so the worker's copy
/// is kept in an `Option` that each run takes it out of; every worker starts from a clone of
/// the identity.
fn merge_from(p: &mut Pieces, s: &Slot, op: &ReduceOp) {
    let (op_value, _) = operator(s, op);
    let Slot {
        var,
        private,
        idx,
        op,
        ty,
        res,
        acc,
    } = s;
    // Checked first: what the type lacks (Clone, or serde) is said once, in this clause's
    // words, and `travels` (implied) is not reported again.
    p.setup.push(quote_spanned!(var.span()=>
        let #ty = #private::type_of(&#var);
        #private::starts_each_worker(#ty);
    ));
    p.setup.push(quote_spanned!(var.span()=>
        #private::travels(&#var);
        let #op = #op_value;
    ));
    p.identities.push(quote_spanned!(var.span()=>
        ::core::option::Option::Some(#private::identity(&#op, #ty))
    ));
    p.witnesses
        .push(quote_spanned!(var.span()=> #private::option_partial(#ty)));
    p.take.push(quote_spanned!(var.span()=>
        #[allow(unused_mut)]
        let mut #var = #private::take_partial(&mut #acc.#idx);
    ));
    p.put_back
        .push(quote!(#acc.#idx = ::core::option::Option::Some(#var);));
    p.combine.push(quote_spanned!(var.span()=>
        #private::combine_partials(&#op, __dls_a.#idx, __dls_b.#idx)
    ));
    p.finish.push(quote_spanned!(var.span()=>
        #var = #private::combine_total(&#op, #var, #res);
    ));
}

/// `+` (which may be `AddDefault`) or a merge function without an identity: the operators whose
/// worker may start from `T::default()`.
fn may_start_from_default(op: &ReduceOp) -> bool {
    matches!(op, ReduceOp::Sum(_) | ReduceOp::Merge(_))
}

/// A built-in operator (`+`, `*`, `max`, `min`) or a merge function without an identity: the
/// worker's partial result, a `Default` value, is taken out of the accumulator for a run.
fn built_in_or_merge(p: &mut Pieces, s: &Slot, op: &ReduceOp) {
    let (op_value, shaped) = operator(s, op);
    let from_default = may_start_from_default(op);
    let Slot {
        var,
        private,
        idx,
        op,
        ty,
        res,
        acc,
    } = s;
    p.setup.push(quote_spanned!(var.span()=>
        #private::travels(&#var);
        let #op = #op_value;
    ));
    if shaped {
        // A map that the built-in operator combines key by key is merged into this process's
        // as another's bytes are read (`slot_of`).
        p.witnesses.push(quote_spanned!(var.span()=> {
            #[allow(unused_imports)]
            use #private::SlotOfMap as _;
            #[allow(unused_imports)]
            use #private::SlotOfAny as _;
            (&&#private::slot_of(&#op, #private::type_of(&#var))).__dls_slot()
        }));
        p.identities
            .push(quote_spanned!(var.span()=> #private::identity_like(&#op, &#var)));
    } else {
        p.witnesses
            .push(quote_spanned!(var.span()=> #private::type_of(&#var)));
        p.setup.push(quote_spanned!(var.span()=>
            let #ty = #private::type_of(&#var);
        ));
        p.identities
            .push(quote_spanned!(var.span()=> #private::identity(&#op, #ty)));
    }
    p.take.push(quote_spanned!(var.span()=>
        #[allow(unused_mut)]
        let mut #var = ::core::mem::take(&mut #acc.#idx);
    ));
    if from_default {
        // `+` on a type with `Add` and `Default`, or a merge function without an identity: the
        // worker started from `T::default()`, which a panic of the run then says
        // (`dls-runtime/src/default_start.rs`; the built-in operators' guard is `()`).
        let note = format_ident!("__dls_note_{}", idx.index);
        p.take.push(quote_spanned!(var.span()=>
            let #note = #private::default_start_note(&#op, &#var, ::core::stringify!(#var));
        ));
    }
    p.put_back.push(quote!(#acc.#idx = #var;));
    p.combine.push(quote_spanned!(var.span()=>
        #private::Operator::combine(&#op, __dls_a.#idx, __dls_b.#idx)
    ));
    p.finish.push(quote_spanned!(var.span()=>
        #var = #private::Operator::combine(&#op, #var, #res);
    ));
}
