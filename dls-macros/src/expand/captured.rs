//! The variables a loop body captures, handed to a run of iterates as parameters
//! (`dls_runtime::captured`): in the body, each captured variable `x` becomes
//! `(*__dls_cap_K.get())`, an expression of `x`'s own type that reaches it through a parameter of
//! the closure that runs the run of iterates. The compiler then knows the memory behind it is
//! readable for the whole run (`dereferenceable`), and keeps a vector's pointer and length in
//! registers in an inner loop, as in the serial program, instead of loading them again at every
//! element after each bounds check (the CSR SpMV loop of issue 42).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Ident};

/// The most variables handed as parameters (`__private::with_captured_1` … `_8`); a body that
/// captures more runs as before.
pub(super) const MOST: usize = 8;

/// The parameter that holds captured variable `k`.
pub(super) fn param(k: usize) -> Ident {
    format_ident!("__dls_cap_{}", k)
}

/// Rewrites every use of a `captured` variable in `body` (the uses `mutation::captured` found:
/// plain one-segment paths that are not a call's callee, outside nested items and macros' tokens,
/// which keep naming the variable itself).
pub(super) fn rewrite(body: &mut Block, captured: &[Ident]) {
    let names: Vec<String> = captured.iter().map(|v| v.to_string()).collect();
    Rewrite { names: &names }.visit_block_mut(body);
}

/// `body` (a run of iterates, as statements) inside `with_captured_N(args…, |params…| { body })`.
pub(super) fn wrap(private: &TokenStream, captured: &[Ident], body: TokenStream) -> TokenStream {
    let with = format_ident!("with_captured_{}", captured.len());
    let params = (0..captured.len()).map(param);
    let args = captured.iter().map(|v| {
        quote_spanned!(v.span()=> {
            #[allow(unused_imports)]
            use #private::CaptureOfRef as _;
            #[allow(unused_imports)]
            use #private::CaptureOfAny as _;
            (&&#private::Captured(&#v)).__dls_capture()
        })
    });
    quote!(#private::#with(#(#args,)* |#(#params),*| { #body }))
}

struct Rewrite<'a> {
    names: &'a [String],
}

impl Rewrite<'_> {
    /// The parameter index of `e` where it names a captured variable.
    fn captured(&self, e: &Expr) -> Option<(usize, Span)> {
        let Expr::Path(p) = e else { return None };
        if p.qself.is_some() || p.path.leading_colon.is_some() || p.path.segments.len() != 1 {
            return None;
        }
        let seg = &p.path.segments[0];
        if !seg.arguments.is_none() {
            return None;
        }
        let name = seg.ident.to_string();
        let k = self.names.iter().position(|n| *n == name)?;
        Some((k, seg.ident.span()))
    }
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Some((k, span)) = self.captured(e) {
            let mut cap = param(k);
            cap.set_span(span);
            *e = syn::parse_quote_spanned!(span=> (*#cap.get()));
            return;
        }
        if let Expr::Call(call) = e {
            // A callee named by a plain path stays (as `mutation::captured` leaves it out).
            if !matches!(&*call.func, Expr::Path(_)) {
                self.visit_expr_mut(&mut call.func);
            }
            for arg in &mut call.args {
                self.visit_expr_mut(arg);
            }
            return;
        }
        visit_mut::visit_expr_mut(self, e);
    }

    fn visit_field_value_mut(&mut self, f: &mut syn::FieldValue) {
        // `S { x }` names the field and the variable: the variable is rewritten, so the field
        // is named apart (`S { x: (*__dls_cap_0.get()) }`).
        if f.colon_token.is_none() && self.captured(&f.expr).is_some() {
            f.colon_token = Some(Default::default());
        }
        visit_mut::visit_field_value_mut(self, f);
    }

    fn visit_item_mut(&mut self, _item: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(body: Block, captured: &[&str]) -> String {
        let captured: Vec<Ident> = captured
            .iter()
            .map(|n| Ident::new(n, Span::call_site()))
            .collect();
        let mut body = body;
        rewrite(&mut body, &captured);
        quote!(#body).to_string()
    }

    #[test]
    fn captured_uses_become_parameters() {
        let body: Block = syn::parse_quote!({
            let mut s = 0.0;
            for k in a.ptr[i]..a.ptr[i + 1] {
                s += a.val[k] * x[a.col[k]];
            }
            f(x.len());
            let p = P { x, y: n };
            println!("{}", x[0]);
            y[i] = s;
        });
        let out = rewritten(body, &["a", "x", "n", "f"]);
        #[rustfmt::skip]
        let expected = quote!({
            let mut s = 0.0;
            for k in (*__dls_cap_0.get()).ptr[i]..(*__dls_cap_0.get()).ptr[i + 1] {
                s += (*__dls_cap_0.get()).val[k] * (*__dls_cap_1.get())[(*__dls_cap_0.get()).col[k]];
            }
            f((*__dls_cap_1.get()).len());
            let p = P { x: (*__dls_cap_1.get()), y: (*__dls_cap_2.get()) };
            println!("{}", x[0]);
            y[i] = s;
        })
        .to_string();
        assert_eq!(out, expected);
    }
}
