//! What a `#[par_doall]` loop iterates over: an integer range (`a..b`, `a..=b`) or an indexable
//! collection (`&v`, `v.iter()`, `v.iter().enumerate()`). Anything else is a compile error
//! pointing at the expression.

use syn::{Expr, ExprMethodCall, RangeLimits};

/// The iteration space of a parallel loop.
pub(crate) enum LoopSource {
    /// `a..b` or `a..=b`: handed to the runtime as is (any primitive integer type).
    Range(Expr),
    /// A collection iterated by reference; `enumerate` when the pattern receives `(index, &item)`.
    Collection { collection: Expr, enumerate: bool },
    /// A variable or field that holds a reference to a collection (`for x in v`, `v: &[T]`).
    Reference(Expr),
    /// The lanes of an array with a shape (ndarray's `a.rows()`, `a.outer_iter()`), read by the
    /// lane's index; `enumerate` when the pattern receives `(index, lane)`.
    Lanes {
        collection: Expr,
        kind: LaneKind,
        enumerate: bool,
    },
}

/// Which lanes a [`LoopSource::Lanes`] loop iterates over.
#[derive(Clone, Copy)]
pub(crate) enum LaneKind {
    /// `a.rows()`: the lanes along the last axis.
    Rows,
    /// `a.outer_iter()`: the subviews along the first axis.
    Outer,
}

/// The lanes `call` asks for, if it is `a.rows()` or `a.outer_iter()`.
fn lanes(call: &ExprMethodCall, enumerate: bool) -> Option<LoopSource> {
    let kind = if is_call(call, "rows") {
        LaneKind::Rows
    } else if is_call(call, "outer_iter") {
        LaneKind::Outer
    } else {
        return None;
    };
    Some(LoopSource::Lanes {
        collection: (*call.receiver).clone(),
        kind,
        enumerate,
    })
}

const EXPECTED: &str =
    "#[par_doall] loops over a range (`a..b`, `a..=b`) or an indexable collection \
                        (`&v`, `v.iter()`, `v.iter().enumerate()` on a Vec, array or slice; `a.rows()`, \
                        `a.outer_iter()` on an ndarray array)";

/// Classifies the expression after `in`.
pub(crate) fn classify(expr: &Expr) -> syn::Result<LoopSource> {
    match strip(expr) {
        Expr::Range(range) => {
            let closed = matches!(range.limits, RangeLimits::Closed(_));
            match (&range.start, &range.end) {
                (Some(_), Some(_)) => Ok(LoopSource::Range(Expr::Range(range.clone()))),
                (None, _) => Err(syn::Error::new_spanned(
                    range,
                    format!("{EXPECTED}; this range has no start"),
                )),
                (Some(_), None) => Err(syn::Error::new_spanned(
                    range,
                    if closed {
                        format!("{EXPECTED}; this range has no end")
                    } else {
                        format!("{EXPECTED}; this range has no end (an endless loop cannot be split among workers)")
                    },
                )),
            }
        }
        Expr::Reference(r) if r.mutability.is_some() => Err(mutable_iteration(expr)),
        Expr::Reference(r) => Ok(LoopSource::Collection {
            collection: (*r.expr).clone(),
            enumerate: false,
        }),
        Expr::MethodCall(call) if is_call(call, "iter") => Ok(LoopSource::Collection {
            collection: (*call.receiver).clone(),
            enumerate: false,
        }),
        Expr::MethodCall(call) if is_call(call, "iter_mut") => Err(mutable_iteration(expr)),
        Expr::MethodCall(call) if lanes(call, false).is_some() => {
            Ok(lanes(call, false).expect("checked by the guard"))
        }
        Expr::MethodCall(call) if is_call(call, "enumerate") => match strip(&call.receiver) {
            Expr::MethodCall(inner) if lanes(inner, true).is_some() => {
                Ok(lanes(inner, true).expect("checked by the guard"))
            }
            Expr::MethodCall(inner) if is_call(inner, "iter") => Ok(LoopSource::Collection {
                collection: (*inner.receiver).clone(),
                enumerate: true,
            }),
            Expr::MethodCall(inner) if is_call(inner, "iter_mut") => Err(mutable_iteration(expr)),
            _ => Err(not_indexable(expr)),
        },
        e @ (Expr::Path(_) | Expr::Field(_)) => Ok(LoopSource::Reference(e.clone())),
        _ => Err(not_indexable(expr)),
    }
}

fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

fn is_call(call: &ExprMethodCall, name: &str) -> bool {
    call.method == name && call.args.is_empty() && call.turbofish.is_none()
}

fn not_indexable(expr: &Expr) -> syn::Error {
    syn::Error::new_spanned(
        expr,
        format!(
            "{EXPECTED}; an iterator like this one cannot be split among workers. Collect it into \
             a Vec first, or loop over `0..n` and compute the item from the index"
        ),
    )
}

fn mutable_iteration(expr: &Expr) -> syn::Error {
    syn::Error::new_spanned(
        expr,
        "#[par_doall] cannot hand out `&mut` elements to workers; loop over `0..v.len()`, write \
         `v[i] = ...` in the body and add the clause gather(v)",
    )
}
