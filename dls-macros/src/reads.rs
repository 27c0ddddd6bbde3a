//! Which captured variables a `#[par_doall]` body visibly only reads (issue 43 R4-2).
//!
//! Generated code refuses, under MPI, a loop whose body uses without a clause a variable whose
//! type has interior mutability (`expand::interior_probe`, `dls_runtime::interior`): a change
//! through it would stay on one rank. A variable the body only reads is fine (every rank starts
//! from the same value), and the text shows some reads: a method chain on the variable whose
//! methods only read (`flag.load(..)`, `lock.read().unwrap().len()`, `cell.get()`,
//! `log.lock().unwrap()[i]`) and whose value is either plain (`load`, `len`, `contains`, ...) or
//! used up where it stands (an operand of an arithmetic or comparison operator, an `if` or
//! `while` condition, a statement of its own, an argument of `println!` and the other reading
//! macros). Such a variable is left out of the probe. Anything else (the variable passed to a
//! function, borrowed, bound by `let`, a method not in [`READS`], a chain assigned to) keeps it
//! in: the decision is conservative, by method names, since the attribute cannot see types.

use std::collections::HashSet;

use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{BinOp, Block, Expr, Ident, Stmt, Token, UnOp};

use crate::in_place::{is_reading_macro, mentions};

/// Methods that change nothing through a shared reference on std's interior-mutable types,
/// their guards and the collections holding them (what a chain may call).
pub(crate) const READS: &[&str] = &[
    "load",
    "read",
    "try_read",
    "lock",
    "try_lock",
    "borrow",
    "try_borrow",
    "get",
    "unwrap",
    "expect",
    "unwrap_or",
    "unwrap_or_default",
    "as_ref",
    "as_deref",
    "as_slice",
    "as_str",
    "iter",
    "len",
    "is_empty",
    "contains",
    "contains_key",
    "is_some",
    "is_none",
    "is_ok",
    "is_err",
    "is_poisoned",
    "first",
    "last",
    "copied",
    "cloned",
    "sum",
    "count",
    "to_vec",
    "to_owned",
    "to_string",
    "keys",
    "values",
];

/// Methods of [`READS`] whose result holds no reference into the variable (a number, a `bool`,
/// a new `String`): a chain ending in one may go anywhere.
const PLAIN: &[&str] = &[
    "load",
    "len",
    "is_empty",
    "contains",
    "contains_key",
    "is_some",
    "is_none",
    "is_ok",
    "is_err",
    "is_poisoned",
    "count",
    "sum",
    "to_string",
];

/// Whether every use of `var` in `body` is a read the text shows (module documentation).
pub(crate) fn only_read(body: &Block, var: &Ident) -> bool {
    let mut r = Reads {
        var,
        consumed: HashSet::new(),
        ok: true,
    };
    r.visit_block(body);
    r.ok
}

struct Reads<'a> {
    var: &'a Ident,
    /// Expressions (by address) whose value is used up where they stand.
    consumed: HashSet<*const Expr>,
    ok: bool,
}

impl Reads<'_> {
    fn consume(&mut self, e: &Expr) {
        self.consumed.insert(e as *const Expr);
    }

    /// `e` as a chain of method calls, fields, indices and `?` on `var`: whether every method in
    /// it reads and it ends in a method of [`PLAIN`]; `None` when `e` is not such a chain.
    fn chain<'e>(&self, e: &'e Expr, args: &mut Vec<&'e Expr>) -> Option<(bool, bool)> {
        match e {
            Expr::Path(p) => p
                .path
                .get_ident()
                .filter(|i| *i == self.var && p.qself.is_none())
                .map(|_| (true, false)),
            Expr::MethodCall(m) => {
                let (reads, _) = self.chain(&m.receiver, args)?;
                args.extend(m.args.iter());
                let name = m.method.to_string();
                Some((
                    reads && READS.contains(&name.as_str()),
                    PLAIN.contains(&name.as_str()),
                ))
            }
            Expr::Field(f) => self.chain(&f.base, args).map(|(r, _)| (r, false)),
            Expr::Index(i) => {
                let (reads, _) = self.chain(&i.expr, args)?;
                args.push(&i.index);
                Some((reads, false))
            }
            Expr::Try(t) => self.chain(&t.expr, args).map(|(r, _)| (r, false)),
            _ => None,
        }
    }
}

impl<'ast> Visit<'ast> for Reads<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        if !self.ok {
            return;
        }
        let consumed = self.consumed.contains(&(e as *const Expr));
        let mut args = Vec::new();
        if let Some((reads, plain)) = self.chain(e, &mut args) {
            if !reads || !(plain || consumed) {
                self.ok = false;
                return;
            }
            for a in args {
                self.visit_expr(a);
            }
            return;
        }
        match e {
            Expr::Binary(b) => {
                if !is_compound(&b.op) {
                    self.consume(&b.left);
                }
                self.consume(&b.right);
            }
            Expr::Unary(u) if !matches!(u.op, UnOp::Deref(_)) || consumed => self.consume(&u.expr),
            Expr::Paren(p) if consumed => self.consume(&p.expr),
            Expr::Group(g) if consumed => self.consume(&g.expr),
            Expr::Cast(c) => self.consume(&c.expr),
            Expr::If(i) => self.consume(&i.cond),
            Expr::While(w) => self.consume(&w.cond),
            _ => {}
        }
        visit::visit_expr(self, e);
    }

    fn visit_stmt(&mut self, s: &'ast Stmt) {
        if let Stmt::Expr(e, Some(_)) = s {
            self.consume(e);
        }
        visit::visit_stmt(self, s);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if !self.ok || !mentions(m.tokens.clone(), self.var) {
            return;
        }
        if !is_reading_macro(m) {
            self.ok = false;
            return;
        }
        let Ok(args) = m.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated) else {
            self.ok = false;
            return;
        };
        for a in &args {
            self.consume(a);
            self.visit_expr(a);
        }
    }
}

/// The compound assignments (`a += b`; `a = b` is `Expr::Assign`).
pub(crate) fn is_compound(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn read(body: Block) -> bool {
        only_read(&body, &parse_quote!(x))
    }

    #[test]
    fn reads_the_text_shows_pass() {
        assert!(read(parse_quote!({
            if x.load(Ordering::Relaxed) {
                return;
            }
        })));
        assert!(read(parse_quote!({
            let n = x.read().unwrap().len();
            total += n;
        })));
        assert!(read(parse_quote!({
            total += x.lock().unwrap()[i as usize];
        })));
        assert!(read(parse_quote!({
            total += *x.get().unwrap() * i;
        })));
        assert!(read(parse_quote!({
            let k: u64 = x.iter().sum();
            println!("{} {}", x.load(Ordering::Relaxed), x.get().unwrap());
        })));
        assert!(read(parse_quote!({
            total += i;
        })));
    }

    #[test]
    fn anything_else_is_not_a_read() {
        // Passed on, borrowed, bound, assigned to, or a method not known to only read.
        let bodies: [Block; 15] = [
            parse_quote!({
                bump(&x);
            }),
            parse_quote!({
                let c = &x;
            }),
            parse_quote!({
                let c = x.get().unwrap();
                c.fetch_add(1, Ordering::Relaxed);
            }),
            parse_quote!({
                x.lock().unwrap().push(i);
            }),
            parse_quote!({
                *x.lock().unwrap() += 1;
            }),
            parse_quote!({
                x.lock().unwrap()[0] = i;
            }),
            parse_quote!({
                x.read().unwrap()[0].fetch_add(1, Ordering::Relaxed);
            }),
            parse_quote!({
                x.iter().for_each(|a| {
                    a.fetch_add(1, Ordering::Relaxed);
                });
            }),
            parse_quote!({
                x.clone();
            }),
            parse_quote!({
                let y = x;
            }),
            parse_quote!({
                y = x.get().unwrap();
            }),
            parse_quote!({
                if let Some(c) = x.get() {
                    c.fetch_add(1, Ordering::Relaxed);
                }
            }),
            parse_quote!({
                x.iter().map(|a| a.fetch_add(1, Ordering::Relaxed)).count();
            }),
            parse_quote!({
                my_macro!(x);
            }),
            parse_quote!({
                total += helper(x.get().unwrap());
            }),
        ];
        for body in bodies {
            assert!(!read(body.clone()), "{}", quote::quote!(#body));
        }
    }
}
