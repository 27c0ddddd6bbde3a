//! Whether a gathered vector is written only at the loop's own index, so that on threads each
//! iterate may write its element in place (issue 29: a `gather(out)` element then costs what a
//! plain write costs). Decided on the syntax, conservatively: the loop runs over a range, its
//! pattern is a plain name `i` (not `mut i`), and in the body
//!
//! - every use of the vector's name is `out[i]` or `out[i as usize]` (then anything on the
//!   element: `out[i][j] = …`, `out[i].push(…)`, `&mut out[i]`);
//! - neither name is bound again (by `let`, a pattern, a closure parameter or an inner `for`);
//! - the vector's name appears in no macro's tokens, and the index's only in the standard
//!   formatting and assertion macros (whose arguments are expressions that cannot rebind it).
//!
//! Distinct iterates then touch distinct elements, each its own; an iterate runs once where the
//! runtime writes in place (threads, without re-execution, checkpoints or a check: see
//! `Loop::writes_in_place` in the runtime), so no element is touched by two threads. Anything
//! else keeps the log of writes and its checks.
//!
//! Where every use is a plain assignment `out[i] = …` ([`only_assigned`]), the assignments are
//! rewritten to `GatherWriter::set`, and the first execution of each iterate writes in place
//! under re-execution too: a copy (which may run beside it) logs without reading the element.

use proc_macro2::TokenTree;
use syn::visit::{self, Visit};
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Ident, Pat};

use crate::source::LoopSource;

/// Macros whose arguments are expressions and format strings only: the index's name in them is
/// a read, never a new binding.
pub(crate) const READING_MACROS: &[&str] = &[
    "println",
    "print",
    "eprintln",
    "eprint",
    "format",
    "format_args",
    "write",
    "writeln",
    "panic",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "unreachable",
    "todo",
    "unimplemented",
];

/// Whether `var` (a gathered vector) is written in place by the loop `pat in source { body }`.
pub(crate) fn writes_at_the_index(
    source: &LoopSource,
    pat: &Pat,
    body: &Block,
    var: &Ident,
) -> bool {
    let LoopSource::Range(_) = source else {
        return false;
    };
    let Pat::Ident(p) = pat else {
        return false;
    };
    if p.by_ref.is_some() || p.mutability.is_some() || p.subpat.is_some() {
        return false;
    }
    let mut uses = Uses {
        var,
        index: &p.ident,
        ok: true,
    };
    uses.visit_block(body);
    uses.ok
}

/// Whether every use of `var` in `body` is a plain assignment to its element at the loop's
/// index, `out[i] = …` (given [`writes_at_the_index`]): the body never reads the element, so a
/// copy of the iterate (re-execution) may log its write while the first execution writes in
/// place. Each such assignment is rewritten to `GatherWriter::set` ([`rewrite_assignments`]).
pub(crate) fn only_assigned(pat: &Pat, body: &Block, var: &Ident) -> bool {
    if !matches!(pat, Pat::Ident(_)) {
        return false;
    }
    let mut a = Assigned {
        var,
        ok: true,
        any: false,
    };
    a.visit_block(body);
    a.ok && a.any
}

/// Rewrites every `var[index] = value` of `body` to
/// `::dls::__private::GatherWriter::set(&mut var, index, value)` (see [`only_assigned`]).
pub(crate) fn rewrite_assignments(body: &mut Block, var: &Ident) {
    rewrite_assignments_to(
        body,
        var,
        &syn::parse_quote!(::dls::__private::GatherWriter::set),
    );
}

/// Rewrites every `var[index] = value` of `body` to `set(&mut var, index, value)`.
pub(crate) fn rewrite_assignments_to(body: &mut Block, var: &Ident, set: &syn::Path) {
    struct Rewrite<'a> {
        var: &'a Ident,
        set: &'a syn::Path,
    }
    impl VisitMut for Rewrite<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            if let Expr::Assign(a) = e {
                if let Expr::Index(ix) = &*a.left {
                    if matches!(&*ix.expr, Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.var))
                    {
                        let (var, set) = (self.var, self.set);
                        let index = &ix.index;
                        let mut value = (*a.right).clone();
                        self.visit_expr_mut(&mut value);
                        let span = a.eq_token.span;
                        *e = syn::parse_quote_spanned!(span=>
                            #set(&mut #var, #index, #value)
                        );
                        return;
                    }
                }
            }
            visit_mut::visit_expr_mut(self, e);
        }
    }
    Rewrite { var, set }.visit_block_mut(body);
}

/// The uses of `var` under `gather(var: rows(W))` (iterate `i` owns row `i`, checked at run
/// time by `__private::BlockAccess`): every use must be an element, `var[k]`, with any index;
/// the error of another use, at it. `Ok(true)`: every use is a plain assignment `var[k] = …`
/// whose value does not read `var` (the body never reads the vector: a copy of an iterate
/// under re-execution may log while the first execution writes in place).
pub(crate) fn block_uses(body: &Block, var: &Ident) -> syn::Result<bool> {
    struct Blocked<'a> {
        var: &'a Ident,
        error: Option<syn::Error>,
        read: bool,
    }
    impl Blocked<'_> {
        fn is_var(&self, e: &Expr) -> bool {
            matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.var))
        }
        fn refuse(&mut self, span: proc_macro2::Span, what: &str) {
            if self.error.is_none() {
                let var = self.var;
                self.error = Some(syn::Error::new(
                    span,
                    format!(
                        "gather({var}: rows(..)) writes each iterate's row of `{var}` in place, \
                         so the body may use `{var}` only as elements, `{var}[i * n + j]`; \
                         {what}. Compute what you need from `{var}` before the loop, or use \
                         gather({var}), which logs every write"
                    ),
                ));
            }
        }
    }
    impl<'ast> Visit<'ast> for Blocked<'_> {
        fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
            if let Expr::Index(ix) = &*e.left {
                if self.is_var(&ix.expr) {
                    self.visit_expr(&ix.index);
                    self.visit_expr(&e.right);
                    return;
                }
            }
            visit::visit_expr_assign(self, e);
        }
        fn visit_expr_index(&mut self, e: &'ast syn::ExprIndex) {
            if self.is_var(&e.expr) {
                self.read = true;
                self.visit_expr(&e.index);
                return;
            }
            visit::visit_expr_index(self, e);
        }
        fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
            if e.qself.is_none() && e.path.is_ident(self.var) {
                let span = e.path.segments[0].ident.span();
                self.refuse(span, "here it is used whole");
            }
        }
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            if p.ident == *self.var {
                self.refuse(p.ident.span(), "here its name is bound again");
            }
            visit::visit_pat_ident(self, p);
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            if mentions(m.tokens.clone(), self.var) {
                let span = m.path.segments[0].ident.span();
                self.refuse(
                    span,
                    "here it is named in a macro; bind the element to a local first",
                );
            }
        }
    }
    let mut b = Blocked {
        var,
        error: None,
        read: false,
    };
    b.visit_block(body);
    match b.error {
        Some(e) => Err(e),
        None => Ok(!b.read),
    }
}

struct Assigned<'a> {
    var: &'a Ident,
    ok: bool,
    any: bool,
}

impl<'ast> Visit<'ast> for Assigned<'_> {
    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        if let Expr::Index(ix) = &*e.left {
            if matches!(&*ix.expr, Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.var))
            {
                // `out[i] = …`: the index is the loop's ([`writes_at_the_index`]); the value may
                // not read the element either.
                self.any = true;
                self.visit_expr(&e.right);
                return;
            }
        }
        visit::visit_expr_assign(self, e);
    }

    fn visit_expr_index(&mut self, e: &'ast syn::ExprIndex) {
        // `out[…]` anywhere but as an assignment's left side: a read, or a borrow.
        if matches!(&*e.expr, Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.var)) {
            self.ok = false;
        }
        visit::visit_expr_index(self, e);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if mentions(m.tokens.clone(), self.var) {
            self.ok = false;
        }
    }
}

struct Uses<'a> {
    var: &'a Ident,
    index: &'a Ident,
    ok: bool,
}

impl Uses<'_> {
    /// `e` is the loop's index, possibly `as usize` and in parentheses.
    fn is_the_index(&self, e: &Expr) -> bool {
        match e {
            Expr::Path(p) => p.qself.is_none() && p.path.is_ident(self.index),
            Expr::Paren(p) => self.is_the_index(&p.expr),
            Expr::Cast(c) => {
                matches!(&*c.ty, syn::Type::Path(t) if t.qself.is_none() && t.path.is_ident("usize"))
                    && self.is_the_index(&c.expr)
            }
            _ => false,
        }
    }

    fn is_the_var(&self, e: &Expr) -> bool {
        matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.var))
    }
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_expr_index(&mut self, e: &'ast syn::ExprIndex) {
        if self.is_the_var(&e.expr) {
            if !self.is_the_index(&e.index) {
                self.ok = false;
            }
            // The index expression is the loop's name: nothing more to look at.
            return;
        }
        visit::visit_expr_index(self, e);
    }

    fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
        // The vector's name anywhere but as the base of `out[i]`.
        if e.qself.is_none() && e.path.is_ident(self.var) {
            self.ok = false;
        }
        visit::visit_expr_path(self, e);
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        if p.ident == *self.var || p.ident == *self.index {
            self.ok = false;
        }
        visit::visit_pat_ident(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if macro_touches(m, self.var, self.index) {
            self.ok = false;
        }
    }
}

/// Whether `name` appears among `tokens`, at any depth.
/// Whether `m` is one of [`READING_MACROS`] (its arguments only read the names they hold).
pub(crate) fn is_reading_macro(m: &syn::Macro) -> bool {
    m.path
        .segments
        .last()
        .is_some_and(|s| READING_MACROS.contains(&s.ident.to_string().as_str()))
}

/// Whether a macro call in a body written in place defeats the analysis: it names the target
/// `var`, or it is not a reading macro and names the loop's `index` (it might bind it again).
pub(crate) fn macro_touches(m: &syn::Macro, var: &Ident, index: &Ident) -> bool {
    mentions(m.tokens.clone(), var) || (!is_reading_macro(m) && mentions(m.tokens.clone(), index))
}

pub(crate) fn mentions(tokens: proc_macro2::TokenStream, name: &Ident) -> bool {
    tokens.into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == *name,
        TokenTree::Group(g) => mentions(g.stream(), name),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn in_place(for_loop: syn::ExprForLoop) -> bool {
        let source = crate::source::classify(&for_loop.expr).unwrap();
        let out: Ident = parse_quote!(out);
        writes_at_the_index(&source, &for_loop.pat, &for_loop.body, &out)
    }

    #[test]
    fn writes_at_the_loops_index_are_in_place() {
        assert!(in_place(parse_quote!(for i in 0..n {
            out[i] = 2 * i;
        })));
        assert!(in_place(parse_quote!(for i in 0..n {
            out[i as usize] += f(i);
        })));
        assert!(in_place(parse_quote!(for i in 0..n {
            out[i][0] = 1.0;
            out[(i)].push(3);
        })));
        assert!(in_place(parse_quote!(for i in 0..n {
            let x = out[i] * 2.0;
            println!("{i} {x}");
            out[i] = x;
        })));
    }

    fn assigned(for_loop: syn::ExprForLoop) -> bool {
        let out: Ident = parse_quote!(out);
        in_place(for_loop.clone()) && only_assigned(&for_loop.pat, &for_loop.body, &out)
    }

    #[test]
    fn plain_assignments_alone_are_write_only() {
        assert!(assigned(parse_quote!(for i in 0..n {
            out[i] = 2 * i;
        })));
        assert!(assigned(parse_quote!(for i in 0..n {
            let k = f(i);
            if k > 0 {
                out[i as usize] = k;
            } else {
                out[i] = 0;
            }
        })));
        // A read, a compound assignment, an element's field or method, a borrow, a value
        // that reads the element, no assignment at all.
        for l in [
            parse_quote!(for i in 0..n {
                out[i] += 1;
            }),
            parse_quote!(for i in 0..n {
                out[i] = out[i] * 2;
            }),
            parse_quote!(for i in 0..n {
                out[i][0] = 1.0;
            }),
            parse_quote!(for i in 0..n {
                out[i].push(3);
            }),
            parse_quote!(for i in 0..n {
                let r = &mut out[i];
                *r = 1;
            }),
            parse_quote!(for i in 0..n {
                let x = out[i];
            }),
        ] {
            assert!(!assigned(l));
        }
    }

    #[test]
    fn assignments_are_rewritten_to_set() {
        let mut body: Block = parse_quote!({
            out[i] = g(i);
            if c {
                out[i as usize] = 3;
            }
        });
        let out: Ident = parse_quote!(out);
        rewrite_assignments(&mut body, &out);
        let text = quote::quote!(#body).to_string();
        assert_eq!(
            text.matches("GatherWriter :: set (& mut out").count(),
            2,
            "{text}"
        );
        assert!(!text.contains("out [i] ="), "{text}");
    }

    #[test]
    fn anything_else_keeps_the_log() {
        // Another element, a whole-vector use, a rebinding, a macro, a collection loop.
        assert!(!in_place(parse_quote!(for i in 0..n {
            out[i + 1] = 1;
        })));
        assert!(!in_place(parse_quote!(for i in 0..n {
            out[i] = out.len();
        })));
        assert!(!in_place(parse_quote!(for i in 0..n {
            let s = &out;
        })));
        assert!(!in_place(parse_quote!(for i in 0..n {
            let i = i / 2;
            out[i] = 1;
        })));
        assert!(!in_place(parse_quote!(for i in 0..n {
            for i in 0..3 {
                out[i] = 1;
            }
        })));
        assert!(!in_place(parse_quote!(for i in 0..n {
            if let Some(i) = g() {
                out[i] = 1;
            }
        })));
        assert!(!in_place(parse_quote!(for i in 0..n {
            (0..3).for_each(|i| out[i] = 1);
        })));
        assert!(!in_place(parse_quote!(for i in 0..n {
            println!("{:?}", out);
            out[i] = 1;
        })));
        assert!(!in_place(parse_quote!(for i in 0..n {
            my_macro!(i);
            out[i] = 1;
        })));
        assert!(!in_place(parse_quote!(for mut i in 0..n {
            out[i] = 1;
        })));
        assert!(!in_place(parse_quote!(
            for (i, x) in v.iter().enumerate() {
                out[i] = *x;
            }
        )));
        assert!(!in_place(parse_quote!(for i in 0..n {
            out[i as u32] = 1;
        })));
    }
}
