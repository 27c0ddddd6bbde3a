//! Procedural macros of dls: `#[dls::main]`, `#[dls::parallel]` and the loop attribute
//! `#[par_doall(...)]` they rewrite. Use them through the facade crate `dls`.
//!
//! Stable Rust does not accept an attribute macro on a `for` expression (E0658,
//! rust-lang/rust#15701 and #54727). So the attribute goes on the enclosing function, which finds
//! the `#[par_doall(...)]` loops inside it and rewrites them:
//!
//! - `#[dls::main]` on `fn main`: also initialises the runtime first and finalises it (MPI
//!   included) when `main` returns;
//! - `#[dls::parallel]` on any other function or method.
//!
//! A loop
//!
//! ```text
//! #[par_doall(schedule = "af", reduce(+: total), gather(out))]
//! for i in 0..n { BODY }
//! ```
//!
//! becomes, in outline,
//!
//! ```text
//! let (r0, g1) = dls::__private::Loop::new("file.rs:12", "af")  // + one method per clause:
//!     .run_iterates((type_of(&total), gather_partial(&out)),   // .reduction("tree"), .ordered(),
//!     0..n,                                                     // .shared(), …
//!     || (identity of + shaped like total, empty gather log),
//!     |run, acc| { let mut total = take(acc.0);                 // once per run of iterates
//!                  for i in run {
//!                      let mut out = GatherSlot(&out, &mut acc.1);
//!                      '__dls_iterate: { BODY }  // `continue` -> `break '__dls_iterate`
//!                  }
//!                  acc.0 = total; },
//!     |a, b| (a.0 + b.0, merge(a.1, b.1)));
//! total = total + r0;           // the value from before the loop, combined with the result
//! scatter(g1, &mut out, "out", "file.rs:12"); // every rank's writes, checked, on every rank
//! ```
//!
//! The engine hands the body whole runs of a chunk's iterates, so the compiler sees the user's
//! loop as a loop. A checked loop (`check(...)`) calls `.run` with a body of one iterate
//! (`|i, acc| { … }`) instead, which returns the iterate's value. A gathered vector the body uses
//! only at the loop's index is written in place where the runtime allows it (`Place`,
//! `GatherAccess`); one it only assigns to (`out[i] = …`) has those assignments rewritten to
//! `GatherWriter::set`, made once per run.
//!
//! Everything that is not parsing, checking or this code generation lives in the runtime, and the
//! generated code reaches it only through the hidden module `dls::__private` (the contract between
//! the two crates, pinned by the snapshot tests of `tests/expand/`), so the explicit API and the
//! macro share the same functions and the documented modules carry no macro-only helpers.

use proc_macro::TokenStream;
use proc_macro2::{Delimiter, Group, TokenTree};
use quote::quote;
use syn::visit::Visit;
use syn::ItemFn;

mod clauses;
mod control;
mod errors;
mod expand;
mod in_place;
mod in_place_nd;
mod in_rows;
mod mutation;
mod nested;
mod reads;
mod rewrite;
#[cfg(test)]
mod snapshots;
mod source;

/// Marks `main` of a dls program: initialises the runtime (threads, or MPI under `mpirun`) before
/// the body, finalises it when `main` returns, and rewrites the `#[par_doall(...)]` loops of the
/// body. `main` may return `()` or a `Result`; if the runtime cannot start (for example a bad
/// `DLS_SCHEDULE`), the program prints the reason and exits with status 1.
///
/// ```
/// #[dls::main]
/// fn main() {
///     let n = 1000_u64;
///     let mut total = 0_u64;
///     #[par_doall(schedule = "fac2", reduce(+: total))]
///     for i in 0..n {
///         total += i;
///     }
///     assert_eq!(total, n * (n - 1) / 2);
/// }
/// ```
#[proc_macro_attribute]
pub fn main(args: TokenStream, item: TokenStream) -> TokenStream {
    entry(args, item, "main", true)
}

/// Rewrites the `#[par_doall(...)]` loops of a function or method other than `main`. The loops use
/// the runtime that `#[dls::main]` started, or a threads runtime created on first use.
///
/// ```
/// #[dls::parallel]
/// fn squares(v: &[f64]) -> Vec<f64> {
///     let mut out = vec![0.0; v.len()];
///     #[par_doall(schedule = "gss", gather(out))]
///     for (i, x) in v.iter().enumerate() {
///         out[i] = x * x;
///     }
///     out
/// }
/// assert_eq!(squares(&[1.0, 2.0, 3.0]), [1.0, 4.0, 9.0]);
/// ```
#[proc_macro_attribute]
pub fn parallel(args: TokenStream, item: TokenStream) -> TokenStream {
    entry(args, item, "parallel", false)
}

fn entry(args: TokenStream, item: TokenStream, which: &str, is_main: bool) -> TokenStream {
    expand_function(args.into(), item.into(), which, is_main).into()
}

/// The expansion of `#[dls::<which>(args)] item` (`is_main` for `#[dls::main]`): the function with
/// its `#[par_doall]` loops rewritten, or the errors followed by the function without them. On
/// `proc_macro2` tokens, so that the snapshot tests (`snapshots.rs`) can call it.
fn expand_function(
    args: proc_macro2::TokenStream,
    item: proc_macro2::TokenStream,
    which: &str,
    is_main: bool,
) -> proc_macro2::TokenStream {
    let mut func = match syn::parse2::<ItemFn>(item) {
        Ok(f) => f,
        Err(e) => {
            let msg = format!("#[dls::{which}] goes on a function with a body");
            return syn::Error::new(e.span(), msg).to_compile_error();
        }
    };
    let mut errors = errors::Errors::default();
    if !args.is_empty() {
        errors.push(syn::Error::new_spanned(
            &args,
            format!("#[dls::{which}] takes no arguments"),
        ));
    }
    if let Some(a) = &func.sig.asyncness {
        errors.push(syn::Error::new_spanned(
            a,
            format!("#[dls::{which}] cannot be used on an async fn"),
        ));
    }
    let original = func.clone();
    let mut names = mutation::Bindings::default();
    names.visit_item_fn(&func);
    errors.check(rewrite::rewrite_block(&mut func.block, names));
    if let Err(e) = errors.finish(()) {
        // Report the errors and keep the function (without the loop attributes) so that no
        // unrelated error, like a missing `main`, follows.
        let plain = strip_par_doall(quote!(#original));
        let e = e.to_compile_error();
        return quote!(#e #plain);
    }
    if is_main {
        let init: syn::Stmt = syn::parse_quote! {
            let __dls_runtime = ::dls::__private::init_or_exit();
        };
        func.block.stmts.insert(0, init);
    }
    quote!(#func)
}

/// Removes every `#[par_doall...]` attribute from the tokens (used when reporting errors).
fn strip_par_doall(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let mut out = Vec::new();
    let mut iter = tokens.into_iter().peekable();
    while let Some(tt) = iter.next() {
        match tt {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                if let Some(TokenTree::Group(g)) = iter.peek() {
                    let first = g.stream().into_iter().find(|t| {
                        !matches!(t, TokenTree::Punct(p) if p.as_char() == ':')
                            && !matches!(t, TokenTree::Ident(i) if i == "dls")
                    });
                    if g.delimiter() == Delimiter::Bracket
                        && matches!(first, Some(TokenTree::Ident(i)) if i == "par_doall")
                    {
                        iter.next();
                        continue;
                    }
                }
                out.push(TokenTree::Punct(p));
            }
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), strip_par_doall(g.stream()));
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            other => out.push(other),
        }
    }
    out.into_iter().collect()
}
