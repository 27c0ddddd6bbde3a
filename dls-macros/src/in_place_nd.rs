//! Whether a gathered ndarray array is written only in the loop's own row of axis 0, so that
//! each iterate writes its row in place with no clause argument (issue 45): `gather(v)` on a
//! loop `for i in 1..n - 1 { for j in … { v[[i, j]] = …; } }`. Decided on the syntax,
//! conservatively, as for a vector written at the loop's index (`crate::in_place`): the loop runs
//! over a range, its pattern is a plain name `i` (not `mut i`), and in the body
//!
//! - every use of the array's name is an element at an index whose first component is the
//!   loop's name, `v[[i, …]]` or `v[(i, …)]` (`i as usize` and parentheses allowed), or a
//!   question about its shape that reads no element (`v.shape()`, `v.dim()`, `v.nrows()`,
//!   `v.ncols()`, `v.ndim()`, `v.len()`, `v.is_empty()`, `v.len_of(…)`);
//! - neither name is bound again (by `let`, a pattern, a closure parameter or an inner `for`);
//! - the array's name appears in no macro's tokens, and the index's only in the standard
//!   formatting and assertion macros.
//!
//! Distinct iterates then touch distinct rows, each its own (the runtime checks each index axis
//! by axis, so `v[[i, j]]` with `j` past its axis panics as ndarray does and never reaches the
//! next row). The runtime writes in place where the loop runs each iterate once on this
//! process's threads, and logs elsewhere (`dls-runtime/src/nd/rows.rs`). Any other body keeps
//! the logged view of every write (`dls-runtime/src/nd/slot.rs`), so a body that also writes
//! outside its row still gets the serial result, through the log and its checks.
//!
//! Where every use of an element is a plain assignment `v[[i, …]] = …` whose value does not read
//! the array, the assignments are rewritten to `NdBlockSet::set`, and the first execution of
//! each iterate writes in place under re-execution too (a copy logs without reading its row).

use syn::visit::{self, Visit};
use syn::{Block, Expr, Ident, Pat};

use crate::in_place::macro_touches;
use crate::source::LoopSource;

/// Methods of an ndarray array that read its shape alone (the runtime's `NdBlockAccess` has
/// each).
const SHAPE_METHODS: &[&str] = &[
    "shape", "dim", "nrows", "ncols", "ndim", "len", "is_empty", "len_of",
];

/// How the loop `pat in source { body }` uses the gathered `var`, where it writes only its own
/// rows: `Some(assigned)`, `assigned` where every element use is a plain assignment whose value
/// does not read `var`; `None` where the body does anything else with `var` (or uses it not at
/// all).
pub(crate) fn writes_own_rows(
    source: &LoopSource,
    pat: &Pat,
    body: &Block,
    var: &Ident,
) -> Option<bool> {
    let LoopSource::Range(_) = source else {
        return None;
    };
    let Pat::Ident(p) = pat else {
        return None;
    };
    if p.by_ref.is_some() || p.mutability.is_some() || p.subpat.is_some() {
        return None;
    }
    let mut rows = RowUses {
        var,
        index: &p.ident,
        ok: true,
        elements: 0,
        read: false,
    };
    rows.visit_block(body);
    (rows.ok && rows.elements > 0).then_some(!rows.read)
}

struct RowUses<'a> {
    var: &'a Ident,
    index: &'a Ident,
    ok: bool,
    /// How many element uses, `v[[i, …]]`.
    elements: usize,
    /// Whether some element use is not the left side of a plain assignment.
    read: bool,
}

impl RowUses<'_> {
    fn is_var(&self, e: &Expr) -> bool {
        matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.var))
    }

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

    /// An element's index `[i, …]` or `(i, …)` (two components at least for a tuple: `(i)` is
    /// the loop's index itself, the vector form): whether its first component is the loop's
    /// index. Visits the other components.
    fn own_row(&mut self, index: &Expr) -> bool {
        let elems = match index {
            Expr::Array(a) => &a.elems,
            Expr::Tuple(t) if t.elems.len() >= 2 => &t.elems,
            _ => return false,
        };
        let mut parts = elems.iter();
        let Some(first) = parts.next() else {
            return false;
        };
        if !self.is_the_index(first) {
            return false;
        }
        for e in parts {
            self.visit_expr(e);
        }
        true
    }
}

impl<'ast> Visit<'ast> for RowUses<'_> {
    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        if let Expr::Index(ix) = &*e.left {
            if self.is_var(&ix.expr) {
                if self.own_row(&ix.index) {
                    self.elements += 1;
                } else {
                    self.ok = false;
                }
                self.visit_expr(&e.right);
                return;
            }
        }
        visit::visit_expr_assign(self, e);
    }

    fn visit_expr_index(&mut self, e: &'ast syn::ExprIndex) {
        if self.is_var(&e.expr) {
            if self.own_row(&e.index) {
                self.elements += 1;
                self.read = true;
            } else {
                self.ok = false;
            }
            return;
        }
        visit::visit_expr_index(self, e);
    }

    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        if self.is_var(&e.receiver) {
            let name = e.method.to_string();
            if !SHAPE_METHODS.contains(&name.as_str()) || e.turbofish.is_some() {
                self.ok = false;
                return;
            }
            for a in &e.args {
                self.visit_expr(a);
            }
            return;
        }
        visit::visit_expr_method_call(self, e);
    }

    fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
        // The array's name anywhere but as the base of an element or a shape question.
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

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn rows(for_loop: syn::ExprForLoop) -> Option<bool> {
        let source = crate::source::classify(&for_loop.expr).unwrap();
        let v: Ident = parse_quote!(v);
        writes_own_rows(&source, &for_loop.pat, &for_loop.body, &v)
    }

    #[test]
    fn elements_of_the_own_row_are_in_place() {
        // Assigned only: the copies of re-execution may log beside the first execution.
        assert_eq!(
            rows(parse_quote!(for i in 1..n - 1 {
                for j in 1..m - 1 {
                    v[[i, j]] = 0.25 * (u[[i - 1, j]] + u[[i + 1, j]]);
                }
            })),
            Some(true)
        );
        assert_eq!(
            rows(parse_quote!(for i in 0..n {
                for j in 0..v.ncols() {
                    for k in 0..v.len_of(Axis(2)) {
                        v[(i as usize, j, k)] = f(i, j, k);
                    }
                }
                println!("{i}");
            })),
            Some(true)
        );
        // Reads of the own row.
        assert_eq!(
            rows(parse_quote!(for i in 0..n {
                for j in 0..m {
                    v[[i, j]] += v[[(i), 0]] * 2.0;
                }
            })),
            Some(false)
        );
        assert_eq!(
            rows(parse_quote!(for i in 0..n {
                let r = &mut v[[i, 3]];
                *r = 1.0;
            })),
            Some(false)
        );
    }

    #[test]
    fn anything_else_keeps_the_log() {
        for l in [
            // Another row, a row from a computed index, the flat vector form, no use at all.
            parse_quote!(for i in 0..n {
                v[[i + 1, 0]] = 1.0;
            }),
            parse_quote!(for i in 0..n {
                v[[i, 0]] = v[[i - 1, 0]];
            }),
            parse_quote!(for i in 0..n {
                v[[0, i]] = 1.0;
            }),
            parse_quote!(for i in 0..n {
                v[i] = 1.0;
            }),
            parse_quote!(for i in 0..n {
                v[(i)] = 1.0;
            }),
            parse_quote!(for i in 0..n {
                u[[i, 0]] = 1.0;
            }),
            // The whole array, a method that reads elements, a rebinding, a macro.
            parse_quote!(for i in 0..n {
                v[[i, 0]] = v.sum();
            }),
            parse_quote!(for i in 0..n {
                v[[i, 0]] = 1.0;
                let w = &v;
            }),
            parse_quote!(for i in 0..n {
                v.row_mut(i).fill(0.0);
            }),
            parse_quote!(for i in 0..n {
                let i = i / 2;
                v[[i, 0]] = 1.0;
            }),
            parse_quote!(for i in 0..n {
                (0..3).for_each(|i| v[[i, 0]] = 1.0);
            }),
            parse_quote!(for i in 0..n {
                v[[i, 0]] = 1.0;
                println!("{:?}", v);
            }),
            parse_quote!(for i in 0..n {
                v[[i, 0]] = 1.0;
                my_macro!(i);
            }),
            parse_quote!(for mut i in 0..n {
                v[[i, 0]] = 1.0;
            }),
            parse_quote!(for (i, x) in w.iter().enumerate() {
                v[[i, 0]] = *x;
            }),
            parse_quote!(for i in 0..n {
                v[[i as u32, 0]] = 1.0;
            }),
        ] {
            assert_eq!(rows(l), None);
        }
    }
}
