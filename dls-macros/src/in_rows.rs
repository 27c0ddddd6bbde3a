//! The body of an iterate that writes its row in place under `gather(v: rows(W))` (issue 42),
//! or under `gather(a)` of an ndarray array written in its own rows (issue 45,
//! [`rewrite_nd_columns`]: `a[[i, e]]` becomes `a.row2()[e]`).
//! Where the iterate's access writes in place, the generated code runs the body inside
//! `__private::with_row`, which hands it the row as a `&mut [T]` parameter (`noalias` to the
//! compiler, as rayon's `par_chunks_mut` row is), and `v` names a `__private::BlockRow`.
//!
//! In that copy of the body, [`rewrite_columns`] turns the elements of the own row that the
//! syntax proves to be in it into elements of the row slice: `v[i * W + j]` (or `W * i + j`,
//! `j + i * W`, `j + W * i`) becomes `v.row()[j]` where
//!
//! - `i` is the loop's index (a plain name, not `mut`) and `W` the width of `rows(W)`, a plain
//!   name;
//! - `j` is the name of an inner `for j in A..B` (or `A..=B`) of the body that encloses the use,
//!   `A` an integer literal and `B` either `W` or `W - c` (`c` an integer literal, at least 1 for
//!   `..=`): so `0 <= j < W`, and `i * W + j` is in row `i`;
//! - none of these names is bound again in the body (but by that `for`), nor given to a macro
//!   other than the formatting and assertion ones.
//!
//! The slice's element is then reached as the serial loop reaches its own (`row[j]`, a bounds
//! check the compiler hoists out of the `j` loop), so the row's loop vectorises as the serial
//! one does. Any other use of `v` stays an index into the `BlockRow` (the row where the index is
//! in it, else logged or refused as `BlockAccess` does). The rewrite changes no behaviour:
//! `v.row()[j]` is the element `v[i * W + j]` names, and a row shorter than `W` (the vector's
//! last, cut short) panics on a column past its end, as the serial program's index does.

use syn::visit::{self, Visit};
use syn::visit_mut::{self, VisitMut};
use syn::{BinOp, Block, Expr, Ident, Pat};

/// Rewrites, in `body` (a copy of the loop's body that runs with `var` a `BlockRow`), each
/// element of the own row that the syntax proves to be in it to `var.row()[j]` (see the module
/// documentation), both as an index `var[…]` and as the assignment `BlockSet::set(&mut var, …,
/// value)` the macro made of `var[…] = value`. Rewrites nothing where the loop's pattern or the
/// width is not a plain name, or where one of the names is bound again.
pub(crate) fn rewrite_columns(body: &mut Block, pat: &Pat, var: &Ident, width: &Expr) {
    let Pat::Ident(p) = pat else {
        return;
    };
    if p.by_ref.is_some() || p.mutability.is_some() || p.subpat.is_some() {
        return;
    }
    let Some(width) = plain_name(width) else {
        return;
    };
    let index = &p.ident;
    let mut names = Names {
        index,
        width: &width,
        bound: Vec::new(),
        ok: true,
    };
    names.visit_block(body);
    if !names.ok {
        return;
    }
    Columns {
        var,
        index,
        width: &width,
        // Column names bound once in the body: by their `for` alone.
        once: names.bound_once(),
        enclosing: Vec::new(),
    }
    .visit_block_mut(body);
}

/// `e` as a plain name (`n`, `(n)`), if it is one.
fn plain_name(e: &Expr) -> Option<Ident> {
    match e {
        Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            p.path.get_ident().cloned()
        }
        Expr::Paren(p) => plain_name(&p.expr),
        Expr::Group(g) => plain_name(&g.expr),
        _ => None,
    }
}

/// The names bound in the body: the loop's index and the width must not be, and a column's
/// name only once (by its `for`). A macro other than the reading ones that names any of them
/// (it could bind it) stops the rewrite.
struct Names<'a> {
    index: &'a Ident,
    width: &'a Ident,
    bound: Vec<Ident>,
    ok: bool,
}

impl Names<'_> {
    fn bound_once(&self) -> Vec<Ident> {
        self.bound
            .iter()
            .filter(|n| self.bound.iter().filter(|m| m == n).count() == 1)
            .cloned()
            .collect()
    }
}

impl<'ast> Visit<'ast> for Names<'_> {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        if p.ident == *self.index || p.ident == *self.width {
            self.ok = false;
        }
        self.bound.push(p.ident.clone());
        visit::visit_pat_ident(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if !crate::in_place::is_reading_macro(m) {
            // Any name the macro is given might be bound by it: no column is proven then.
            self.ok = false;
        }
    }
}

/// The rewrite of the proven columns.
struct Columns<'a> {
    var: &'a Ident,
    index: &'a Ident,
    width: &'a Ident,
    once: Vec<Ident>,
    /// The columns of the enclosing inner `for`s whose range is within `0..W`.
    enclosing: Vec<Ident>,
}

impl Columns<'_> {
    fn is_name(e: &Expr, name: &Ident) -> bool {
        plain_name(e).is_some_and(|n| n == *name)
    }

    fn is_int(e: &Expr) -> Option<u128> {
        match e {
            Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) => i.base10_parse::<u128>().ok(),
                _ => None,
            },
            Expr::Paren(p) => Self::is_int(&p.expr),
            _ => None,
        }
    }

    /// A `for` over `A..B` or `A..=B` whose values are all in `0..W`.
    fn within_the_row(&self, range: &Expr) -> bool {
        let Expr::Range(r) = range else {
            return false;
        };
        let (Some(start), Some(end)) = (&r.start, &r.end) else {
            return false;
        };
        if Self::is_int(start).is_none() {
            return false;
        }
        let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
        // The end: `W`, or `W - c`.
        let less = if Self::is_name(end, self.width) {
            0
        } else {
            match unparen(end) {
                Expr::Binary(b)
                    if matches!(b.op, BinOp::Sub(_)) && Self::is_name(&b.left, self.width) =>
                {
                    match Self::is_int(&b.right) {
                        Some(c) => c,
                        None => return false,
                    }
                }
                _ => return false,
            }
        };
        if inclusive {
            less >= 1
        } else {
            true
        }
    }

    /// `i * W` or `W * i`.
    fn is_row_start(&self, e: &Expr) -> bool {
        match unparen(e) {
            Expr::Binary(b) if matches!(b.op, BinOp::Mul(_)) => {
                (Self::is_name(&b.left, self.index) && Self::is_name(&b.right, self.width))
                    || (Self::is_name(&b.left, self.width) && Self::is_name(&b.right, self.index))
            }
            _ => false,
        }
    }

    /// The column `j` of an index `i * W + j` (or its other orders), if it is proven.
    fn column(&self, index: &Expr) -> Option<Ident> {
        let Expr::Binary(b) = unparen(index) else {
            return None;
        };
        if !matches!(b.op, BinOp::Add(_)) {
            return None;
        }
        let j = if self.is_row_start(&b.left) {
            plain_name(&b.right)?
        } else if self.is_row_start(&b.right) {
            plain_name(&b.left)?
        } else {
            return None;
        };
        (self.enclosing.contains(&j) && self.once.contains(&j)).then_some(j)
    }

    fn is_var(&self, e: &Expr) -> bool {
        Self::is_name(e, self.var)
    }

    /// `BlockSet::set(&mut var, index, value)`: its index and value.
    fn set_call<'e>(&self, e: &'e Expr) -> Option<(&'e Expr, &'e Expr)> {
        set_call(e, "BlockSet", self.var)
    }
}

/// `…::Trait::set(&mut var, index, value)` (the assignment the macro made of `var[…] = value`,
/// with `trait_name` `BlockSet` or `NdBlockSet`): its index and value.
fn set_call<'e>(e: &'e Expr, trait_name: &str, var: &Ident) -> Option<(&'e Expr, &'e Expr)> {
    let Expr::Call(c) = e else {
        return None;
    };
    let Expr::Path(f) = &*c.func else {
        return None;
    };
    let mut segs = f.path.segments.iter().rev();
    let is_set = segs.next().is_some_and(|s| s.ident == "set")
        && segs.next().is_some_and(|s| s.ident == trait_name);
    if !is_set || c.args.len() != 3 {
        return None;
    }
    match &c.args[0] {
        Expr::Reference(r)
            if r.mutability.is_some() && plain_name(&r.expr).is_some_and(|n| n == *var) =>
        {
            Some((&c.args[1], &c.args[2]))
        }
        _ => None,
    }
}

fn unparen(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => unparen(&p.expr),
        Expr::Group(g) => unparen(&g.expr),
        e => e,
    }
}

impl VisitMut for Columns<'_> {
    fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
        self.visit_expr_mut(&mut f.expr);
        let column = match &*f.pat {
            Pat::Ident(p)
                if p.by_ref.is_none()
                    && p.mutability.is_none()
                    && p.subpat.is_none()
                    && self.within_the_row(&f.expr) =>
            {
                Some(p.ident.clone())
            }
            _ => None,
        };
        let pushed = column.is_some();
        if let Some(j) = column {
            self.enclosing.push(j);
        }
        self.visit_block_mut(&mut f.body);
        if pushed {
            self.enclosing.pop();
        }
    }

    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        // A closure may run later, or more than once: its uses stay as they are.
        let saved = std::mem::take(&mut self.enclosing);
        visit_mut::visit_expr_closure_mut(self, c);
        self.enclosing = saved;
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Some((index, value)) = self.set_call(e) {
            if let Some(j) = self.column(index) {
                let mut value = value.clone();
                self.visit_expr_mut(&mut value);
                let var = self.var;
                *e = syn::parse_quote!(#var.row()[#j] = #value);
                return;
            }
        }
        if let Expr::Index(ix) = e {
            if self.is_var(&ix.expr) {
                if let Some(j) = self.column(&ix.index) {
                    let var = self.var;
                    *e = syn::parse_quote!(#var.row()[#j]);
                    return;
                }
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }
}

/// Rewrites, in `body` (a copy of the loop's body that runs with the gathered ndarray array
/// `var` an `NdBlockRow`, `crate::in_place_nd` having shown that every use of `var` is in the
/// loop's own row and that the loop's index is never bound again), each element `var[[i, e]]`
/// or `var[(i, e)]` of the own row to `var.row2()[e]`, both as an index and as the assignment
/// `NdBlockSet::set(&mut var, [i, e], value)` the macro made of `var[[i, e]] = value`. Only
/// indices of exactly two components whose first is the loop's index `i` (`i as usize` and
/// parentheses allowed) and whose column `e` has no side effect ([`side_effect_free`]: the
/// rewritten assignment evaluates the value before the column, the call the column first).
/// `row2()` panics on an array of another number of axes, as ndarray's index does, and a
/// column past the row panics as the slice's index.
pub(crate) fn rewrite_nd_columns(body: &mut Block, pat: &Pat, var: &Ident) {
    let Pat::Ident(p) = pat else {
        return;
    };
    if p.by_ref.is_some() || p.mutability.is_some() || p.subpat.is_some() {
        return;
    }
    NdColumns {
        var,
        index: &p.ident,
    }
    .visit_block_mut(body);
}

/// Whether evaluating `e` has no side effect (but a panic on overflow): names, integer
/// literals, `+ - * / %`, casts and parentheses. `var` is none of the names (an index that
/// names the array itself would borrow it beside its row).
fn side_effect_free(e: &Expr, var: &Ident) -> bool {
    match e {
        Expr::Path(p) => p.qself.is_none() && !p.path.is_ident(var),
        Expr::Lit(l) => matches!(l.lit, syn::Lit::Int(_)),
        Expr::Binary(b) => {
            matches!(
                b.op,
                BinOp::Add(_) | BinOp::Sub(_) | BinOp::Mul(_) | BinOp::Div(_) | BinOp::Rem(_)
            ) && side_effect_free(&b.left, var)
                && side_effect_free(&b.right, var)
        }
        Expr::Cast(c) => side_effect_free(&c.expr, var),
        Expr::Paren(p) => side_effect_free(&p.expr, var),
        Expr::Group(g) => side_effect_free(&g.expr, var),
        _ => false,
    }
}

/// The rewrite of the own row's elements of an ndarray array.
struct NdColumns<'a> {
    var: &'a Ident,
    index: &'a Ident,
}

impl NdColumns<'_> {
    /// `e` is the loop's index, possibly `as usize` and in parentheses.
    fn is_the_index(&self, e: &Expr) -> bool {
        match e {
            Expr::Path(p) => p.qself.is_none() && p.path.is_ident(self.index),
            Expr::Paren(p) => self.is_the_index(&p.expr),
            Expr::Group(g) => self.is_the_index(&g.expr),
            Expr::Cast(c) => {
                matches!(&*c.ty, syn::Type::Path(t) if t.qself.is_none() && t.path.is_ident("usize"))
                    && self.is_the_index(&c.expr)
            }
            _ => false,
        }
    }

    /// The column `e` of an index `[i, e]` or `(i, e)`, if the rewrite applies to it.
    fn column<'e>(&self, index: &'e Expr) -> Option<&'e Expr> {
        let elems = match unparen(index) {
            Expr::Array(a) => &a.elems,
            Expr::Tuple(t) => &t.elems,
            _ => return None,
        };
        if elems.len() != 2 || !self.is_the_index(&elems[0]) {
            return None;
        }
        side_effect_free(&elems[1], self.var).then_some(&elems[1])
    }

    fn is_var(&self, e: &Expr) -> bool {
        plain_name(e).is_some_and(|n| n == *self.var)
    }

    /// `NdBlockSet::set(&mut var, index, value)`: its index and value.
    fn set_call<'e>(&self, e: &'e Expr) -> Option<(&'e Expr, &'e Expr)> {
        set_call(e, "NdBlockSet", self.var)
    }
}

impl VisitMut for NdColumns<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Some((index, value)) = self.set_call(e) {
            if let Some(j) = self.column(index) {
                let j = j.clone();
                let mut value = value.clone();
                self.visit_expr_mut(&mut value);
                let var = self.var;
                *e = syn::parse_quote!(#var.row2()[#j] = #value);
                return;
            }
        }
        if let Expr::Index(ix) = e {
            if self.is_var(&ix.expr) {
                if let Some(j) = self.column(&ix.index) {
                    let j = j.clone();
                    let var = self.var;
                    *e = syn::parse_quote!(#var.row2()[#j]);
                    return;
                }
            }
        }
        visit_mut::visit_expr_mut(self, e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn rewritten(for_loop: syn::ExprForLoop) -> String {
        let mut body = for_loop.body;
        let v: Ident = parse_quote!(v);
        rewrite_columns(&mut body, &for_loop.pat, &v, &parse_quote!(n));
        quote::quote!(#body).to_string()
    }

    #[test]
    fn proven_columns_become_the_rows_elements() {
        let text = rewritten(parse_quote!(for i in 1..m {
            for j in 1..n - 1 {
                v[i * n + j] = u[i * n + j] + v[j + n * i];
                ::dls::__private::BlockSet::set(&mut v, i * n + j, 2.0);
            }
            for k in 0..=n - 1 {
                v[(i * n) + k] += 1.0;
            }
        }));
        assert_eq!(text.matches("v . row () [j]").count(), 3, "{text}");
        assert_eq!(text.matches("v . row () [k]").count(), 1, "{text}");
        assert!(text.contains("u [i * n + j]"), "{text}");
        assert!(!text.contains("BlockSet"), "{text}");
    }

    fn nd_rewritten(for_loop: syn::ExprForLoop) -> String {
        let mut body = for_loop.body;
        let v: Ident = parse_quote!(v);
        rewrite_nd_columns(&mut body, &for_loop.pat, &v);
        quote::quote!(#body).to_string()
    }

    #[test]
    fn nd_elements_of_the_own_row_become_the_rows_elements() {
        let text = nd_rewritten(parse_quote!(for i in 1..m {
            for j in 1..n - 1 {
                ::dls::__private::NdBlockSet::set(
                    &mut v,
                    [i, j],
                    0.25 * (u[[i - 1, j]] + v[[i, j - 1]]),
                );
                v[(i as usize, (j + 1) / 2)] += v[[(i), 0]];
                let r = &mut v[[i, n - 1 - j]];
                *r = 1.0;
                v[[i, k as usize % 3]] = 2.0;
            }
        }));
        assert_eq!(text.matches("v . row2 ()").count(), 6, "{text}");
        assert!(
            text.contains("v . row2 () [j] = 0.25 * (u [[i - 1 , j]] + v . row2 () [j - 1])"),
            "{text}"
        );
        assert!(text.contains("v . row2 () [(j + 1) / 2] +="), "{text}");
        assert!(text.contains("v . row2 () [n - 1 - j]"), "{text}");
        assert!(text.contains("u [[i - 1 , j]]"), "{text}");
        assert!(!text.contains("NdBlockSet"), "{text}");
    }

    #[test]
    fn nd_elements_that_are_not_proven_stay_indices() {
        for l in [
            // Another row, three components, one component, the flat form.
            parse_quote!(for i in 0..m {
                v[[i + 1, 0]] = 1.0;
            }),
            parse_quote!(for i in 0..m {
                v[[i, 0, 1]] = 1.0;
                ::dls::__private::NdBlockSet::set(&mut v, [i, 0, 1], 1.0);
            }),
            parse_quote!(for i in 0..m {
                v[[i]] = 1.0;
            }),
            parse_quote!(for i in 0..m {
                v[i] = 1.0;
            }),
            // A column with side effects or that names the array.
            parse_quote!(for i in 0..m {
                v[[i, f(i)]] = 1.0;
                v[[i, v.ncols() - 1]] = 1.0;
                v[[i, {
                    k += 1;
                    k
                }]] = 1.0;
                ::dls::__private::NdBlockSet::set(&mut v, [i, next()], 1.0);
            }),
            parse_quote!(for i in 0..m {
                v[[i, v]] = 1.0;
            }),
            // An index cast to another type, a `mut` index, a pattern.
            parse_quote!(for i in 0..m {
                v[[i as u32, 0]] = 1.0;
            }),
            parse_quote!(for mut i in 0..m {
                v[[i, 0]] = 1.0;
            }),
            parse_quote!(for (i, x) in w {
                v[[i, 0]] = x;
            }),
        ] {
            let text = nd_rewritten(l);
            assert!(!text.contains("row2"), "{text}");
        }
    }

    #[test]
    fn anything_unproven_stays_an_index() {
        for l in [
            // Past the row, an unbounded range, `..=n`, another index.
            parse_quote!(for i in 0..m {
                for j in 0..n + 1 {
                    v[i * n + j] = 1.0;
                }
            }),
            parse_quote!(for i in 0..m {
                for j in 0..=n {
                    v[i * n + j] = 1.0;
                }
            }),
            parse_quote!(for i in 0..m {
                for j in 0..k {
                    v[i * n + j] = 1.0;
                }
            }),
            parse_quote!(for i in 0..m {
                for j in 0..n {
                    v[(i + 1) * n + j] = 1.0;
                }
            }),
            // Names bound again, a macro that may bind, a column outside its `for`.
            parse_quote!(for i in 0..m {
                for j in 0..n {
                    let j = j + 1;
                    v[i * n + j] = 1.0;
                }
            }),
            parse_quote!(for i in 0..m {
                let n = 3;
                for j in 0..n {
                    v[i * n + j] = 1.0;
                }
            }),
            parse_quote!(for i in 0..m {
                for j in 0..n {
                    shift!(j);
                    v[i * n + j] = 1.0;
                }
            }),
            parse_quote!(for i in 0..m {
                let j = 2;
                v[i * n + j] = 1.0;
            }),
            parse_quote!(for mut i in 0..m {
                for j in 0..n {
                    v[i * n + j] = 1.0;
                }
            }),
        ] {
            let text = rewritten(l);
            assert!(!text.contains("row ()"), "{text}");
        }
    }
}
