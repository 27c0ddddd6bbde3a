//! Finds the `#[par_doall(...)]` loops of a function body and replaces each by its expansion.
//! Errors of all loops are collected, so one build reports every problem.

use std::collections::HashSet;

use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Attribute, Block, Expr, Stmt};

use crate::clauses::{is_par_doall, Clauses};
use crate::errors::Errors;
use crate::{expand, mutation, source};

/// Rewrites every annotated loop in `block`. `names` holds the names bound in the function
/// (parameters and locals); those declared `mut` flag method calls that may mutate them, and the
/// others are the variables a loop body may capture (`mutation::captured`).
pub(crate) fn rewrite_block(block: &mut Block, names: mutation::Bindings) -> syn::Result<()> {
    let mut r = Rewriter {
        mutable_outer: names.mutable,
        bound: names.names,
        errors: Errors::default(),
        inside_outer: false,
        closures: mutation::Closures::new(),
    };
    r.visit_block_mut(block);
    r.errors.finish(())
}

struct Rewriter {
    mutable_outer: HashSet<String>,
    /// Every name bound in the function.
    bound: HashSet<String>,
    errors: Errors,
    /// True while rewriting the body of a two-level outer loop (see `nested.rs`).
    inside_outer: bool,
    /// The closures bound so far, with what they capture (`mutation::closure_captures`).
    closures: mutation::Closures,
}

impl Rewriter {
    /// Removes a misplaced `#[par_doall]` from `attrs`, reporting it.
    fn reject_misplaced(&mut self, attrs: &mut Vec<Attribute>) {
        attrs.retain(|a| {
            if is_par_doall(a) {
                self.errors.push(syn::Error::new_spanned(
                    a,
                    "#[par_doall] must be placed on a `for` loop",
                ));
                false
            } else {
                true
            }
        });
    }

    /// Expands the loop; returns true when it became the outer loop of a two-level loop.
    fn expand_loop(&mut self, expr: &mut Expr) -> bool {
        let Expr::ForLoop(for_loop) = expr else {
            return false;
        };
        let Some(pos) = for_loop.attrs.iter().position(is_par_doall) else {
            return false;
        };
        let inside_outer = self.inside_outer;
        let mut outer = false;
        let attr = for_loop.attrs.remove(pos);
        let result = (|| {
            let clauses = Clauses::from_attribute(&attr)?;
            let mut nested = NestedFinder(None);
            nested.visit_block(&for_loop.body);
            let kind = crate::nested::kind(inside_outer, clauses.group.as_ref(), nested.0)?;
            outer = matches!(kind, crate::nested::LoopKind::Outer { .. });
            let source = source::classify(&for_loop.expr);
            let checked =
                mutation::check(&for_loop.body, &for_loop.pat, &clauses, &self.mutable_outer);
            let mut errors = Errors::default();
            if let Err(e) = &source {
                errors.push(e.clone());
            }
            errors.check(checked);
            if let Err(mut e) = errors.finish(()) {
                // Also report control-flow errors of the same body.
                let mut body = for_loop.body.clone();
                if let Err(c) = crate::control::check_and_rewrite(&mut body, None) {
                    e.combine(c);
                }
                return Err(e);
            }
            let attrs = std::mem::take(&mut for_loop.attrs);
            let captured = mutation::captured(
                &for_loop.body,
                &for_loop.pat,
                &clauses,
                &self.bound,
                &self.closures,
            );
            expand::expand(for_loop.clone(), &clauses, source?, attrs, kind, &captured)
        })();
        match result.and_then(syn::parse2::<Expr>) {
            Ok(new) => {
                *expr = new;
                outer
            }
            Err(e) => {
                self.errors.push(e);
                false
            }
        }
    }
}

impl VisitMut for Rewriter {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::ForLoop(f) = expr {
            if f.attrs.iter().any(is_par_doall) {
                // The outer loop first, so that a nested #[par_doall] is still visible to it; the
                // inner loops of a two-level loop are then expanded inside its expansion.
                if self.expand_loop(expr) {
                    self.inside_outer = true;
                    visit_mut::visit_expr_mut(self, expr);
                    self.inside_outer = false;
                }
                return;
            }
        }
        visit_mut::visit_expr_mut(self, expr);
        match expr {
            Expr::While(w) => self.reject_misplaced(&mut w.attrs),
            Expr::Loop(l) => self.reject_misplaced(&mut l.attrs),
            Expr::Block(b) => self.reject_misplaced(&mut b.attrs),
            Expr::Call(c) => self.reject_misplaced(&mut c.attrs),
            Expr::MethodCall(m) => self.reject_misplaced(&mut m.attrs),
            _ => {}
        }
    }

    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        if let Stmt::Local(local) = stmt {
            self.reject_misplaced(&mut local.attrs);
        }
        visit_mut::visit_stmt_mut(self, stmt);
        if let Stmt::Local(local) = stmt {
            // A name bound again from here on is `mut` or not as this binding says (`let u = u;`
            // before a loop makes `u`'s method calls reads), until the block ends.
            let mut names = mutation::Bindings::default();
            names.visit_pat(&local.pat);
            let closure = match (&local.pat, local.init.as_ref().map(|i| &*i.expr)) {
                (syn::Pat::Ident(p), Some(Expr::Closure(c))) => Some((
                    p.ident.to_string(),
                    mutation::closure_captures(c, &self.bound, &self.closures),
                )),
                _ => None,
            };
            for name in &names.names {
                self.closures.remove(name);
            }
            if let Some((name, vars)) = closure {
                self.closures.insert(name, vars);
            }
            for name in names.names {
                if names.mutable.contains(&name) {
                    self.mutable_outer.insert(name);
                } else {
                    self.mutable_outer.remove(&name);
                }
            }
        }
    }

    fn visit_block_mut(&mut self, block: &mut Block) {
        let before = self.mutable_outer.clone();
        let closures = self.closures.clone();
        visit_mut::visit_block_mut(self, block);
        self.mutable_outer = before;
        self.closures = closures;
    }
}

/// Finds a `#[par_doall]` inside a parallel loop's body.
struct NestedFinder<'a>(Option<&'a Attribute>);

impl<'ast> Visit<'ast> for NestedFinder<'ast> {
    fn visit_attribute(&mut self, attr: &'ast Attribute) {
        if self.0.is_none() && is_par_doall(attr) {
            self.0 = Some(attr);
        }
    }
}
