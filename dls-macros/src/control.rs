//! Control flow in a parallel loop body. Each iterate runs as its own call on some worker, so the
//! body may not leave the loop: `break`, `return`, `?` and `continue 'outer` are compile errors.
//! An unlabelled `continue` aimed at the parallel loop (or `continue 'label` naming it) ends the
//! iterate; it is rewritten to `break '__dls_iterate`, a labelled block around the body.
//!
//! Closures, async blocks and nested items in the body have their own control flow and are not
//! inspected; nested loops and labelled blocks are tracked so that their own `break`/`continue`
//! stay valid.

use proc_macro2::Span;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Item, Label, Lifetime};

use crate::errors::Errors;

/// The label of the block wrapped around the body; `continue` becomes `break` to it.
pub(crate) fn iterate_label() -> Lifetime {
    Lifetime::new("'__dls_iterate", Span::call_site())
}

/// Checks `body` and rewrites its `continue`s in place. Returns whether a `continue` was rewritten
/// (so the caller wraps the body in the labelled block), or every error found.
pub(crate) fn check_and_rewrite(body: &mut Block, loop_label: Option<&Label>) -> syn::Result<bool> {
    let mut v = ControlFlow {
        loop_label: loop_label.map(|l| l.name.ident.to_string()),
        depth: 0,
        inner_labels: Vec::new(),
        rewrote: false,
        errors: Errors::default(),
    };
    v.visit_block_mut(body);
    v.errors.finish(v.rewrote)
}

struct ControlFlow {
    loop_label: Option<String>,
    /// Number of loops of the body enclosing the current expression.
    depth: usize,
    /// Labels defined inside the body and enclosing the current expression.
    inner_labels: Vec<String>,
    rewrote: bool,
    errors: Errors,
}

impl ControlFlow {
    fn is_inner(&self, label: &Lifetime) -> bool {
        let name = label.ident.to_string();
        self.inner_labels.contains(&name)
    }

    fn in_loop(&mut self, label: &Option<Label>, f: impl FnOnce(&mut Self)) {
        if let Some(l) = label {
            self.inner_labels.push(l.name.ident.to_string());
        }
        self.depth += 1;
        f(self);
        self.depth -= 1;
        if label.is_some() {
            self.inner_labels.pop();
        }
    }
}

impl VisitMut for ControlFlow {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        match expr {
            Expr::Closure(_) | Expr::Async(_) | Expr::Const(_) => {}
            Expr::Return(r) => self.errors.push(syn::Error::new_spanned(
                r.return_token,
                "`return` cannot leave a #[par_doall] loop: each iterate runs separately on some \
                 worker. End the iterate with `continue`, or compute a value and combine it with \
                 reduce(...)",
            )),
            Expr::Try(t) => {
                self.visit_expr_mut(&mut t.expr);
                self.errors.push(syn::Error::new_spanned(
                    t.question_token,
                    "`?` cannot leave a #[par_doall] loop: each iterate runs separately on some \
                     worker. Handle the error inside the iterate (match, unwrap_or, ...) or record \
                     it with reduce(...) or gather(...)",
                ))
            }
            Expr::Break(b) => {
                let ok = match &b.label {
                    Some(l) => self.is_inner(l),
                    None => self.depth > 0,
                };
                if let Some(e) = &mut b.expr {
                    self.visit_expr_mut(e);
                }
                if !ok {
                    self.errors.push(syn::Error::new_spanned(
                        &*b,
                        "`break` cannot end a #[par_doall] loop early: its iterates run in any \
                         order on different workers. Skip the rest of an iterate with `continue`, \
                         or shrink the range before the loop",
                    ));
                }
            }
            Expr::Continue(c) => match &c.label {
                Some(l) if self.is_inner(l) => {}
                None if self.depth > 0 => {}
                Some(l) if self.loop_label.as_deref() != Some(&*l.ident.to_string()) => {
                    self.errors.push(syn::Error::new_spanned(
                        &*c,
                        format!(
                            "`continue {}` jumps to a loop outside the #[par_doall] loop, which \
                             its iterates cannot do; only `continue` of the parallel loop itself \
                             is allowed",
                            l
                        ),
                    ))
                }
                _ => {
                    let span = c.continue_token.span;
                    let label = iterate_label();
                    *expr = syn::parse_quote_spanned!(span=> break #label);
                    self.rewrote = true;
                }
            },
            Expr::ForLoop(f) => {
                self.visit_expr_mut(&mut f.expr);
                let label = f.label.clone();
                self.in_loop(&label, |s| s.visit_block_mut(&mut f.body));
            }
            Expr::While(w) => {
                let label = w.label.clone();
                self.in_loop(&label, |s| {
                    s.visit_expr_mut(&mut w.cond);
                    s.visit_block_mut(&mut w.body)
                });
            }
            Expr::Loop(l) => {
                let label = l.label.clone();
                self.in_loop(&label, |s| s.visit_block_mut(&mut l.body));
            }
            Expr::Block(b) if b.label.is_some() => {
                let name = b.label.as_ref().map(|l| l.name.ident.to_string());
                self.inner_labels.extend(name);
                self.visit_block_mut(&mut b.block);
                self.inner_labels.pop();
            }
            _ => visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_item_mut(&mut self, _item: &mut Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn run(body: Block, label: Option<Label>) -> (syn::Result<bool>, String) {
        let mut body = body;
        let r = check_and_rewrite(&mut body, label.as_ref());
        (r, body.to_token_stream().to_string())
    }

    #[test]
    fn continue_of_the_loop_becomes_a_break_of_the_iterate_block() {
        let (r, text) = run(
            syn::parse_quote!({
                if a {
                    continue;
                }
                for j in 0..3 {
                    if j == 1 {
                        continue;
                    }
                    if j == 2 {
                        break;
                    }
                }
                let f = |x: u32| -> Option<u32> {
                    if x > 1 {
                        return None;
                    }
                    Some(x?)
                };
                'blk: {
                    break 'blk;
                }
            }),
            None,
        );
        assert!(r.unwrap());
        assert_eq!(text.matches("break '__dls_iterate").count(), 1);
        // The inner loop's continue and break, and the closure's return, are untouched.
        assert!(text.contains("continue ;") && text.contains("return None"));
    }

    #[test]
    fn continue_naming_the_parallel_loop_is_rewritten_even_inside_inner_loops() {
        let label: Label = syn::parse_quote!('rows:);
        let (r, text) = run(
            syn::parse_quote!({
                for j in 0..3 {
                    if j == 1 {
                        continue 'rows;
                    }
                }
            }),
            Some(label),
        );
        assert!(r.unwrap());
        assert!(text.contains("break '__dls_iterate"));
    }

    #[test]
    fn leaving_the_loop_is_an_error_for_each_place() {
        let (r, _) = run(
            syn::parse_quote!({
                if a {
                    break;
                }
                if b {
                    return;
                }
                let x = g()?;
                'inner: loop {
                    continue 'outer;
                }
            }),
            None,
        );
        let messages: Vec<String> = r.unwrap_err().into_iter().map(|e| e.to_string()).collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert!(messages[0].starts_with("`break`"));
        assert!(messages[1].starts_with("`return`"));
        assert!(messages[2].starts_with("`?`"));
        assert!(messages[3].starts_with("`continue 'outer`"));
    }

    #[test]
    fn body_without_continue_is_not_wrapped() {
        let (r, _) = run(
            syn::parse_quote!({
                total += 1;
            }),
            None,
        );
        assert!(!r.unwrap());
    }
}
