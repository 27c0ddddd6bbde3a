//! Snapshot tests of the expansion: every `tests/expand/<case>.rs` holds functions under
//! `#[dls::main]` or `#[dls::parallel]`; the expansion of the whole file, formatted with
//! prettyplease, must equal `tests/expand/<case>.expanded.rs`. Any change of the generated code
//! fails here; after an intended change, regenerate with
//! `DLS_BLESS=1 cargo test -p dls-macros snapshots` and review the diff.
//!
//! The same idea as macrotest (pin-project's `tests/expand/`), without its need for
//! `cargo expand`: the expansion function is called directly on the tokens.
//!
//! A second test checks the contract with the runtime: generated code names only paths under
//! `::dls::__private`, `::core` and `::std`.

use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::Item;

fn cases() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.ends_with(".rs") && !name.ends_with(".expanded.rs")
        })
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases in {}", dir.display());
    cases
}

/// The file with every `#[dls::main]` / `#[dls::parallel]` function replaced by its expansion.
fn expand_file(source: &str) -> syn::File {
    let mut file: syn::File = syn::parse_str(source).expect("a case parses as a Rust file");
    for item in &mut file.items {
        let Item::Fn(func) = item else { continue };
        let Some(pos) = func.attrs.iter().position(|a| {
            let path = a.path().to_token_stream().to_string().replace(' ', "");
            path == "dls::main" || path == "dls::parallel"
        }) else {
            continue;
        };
        let attr = func.attrs.remove(pos);
        let is_main = attr.path().segments.last().unwrap().ident == "main";
        let which = if is_main { "main" } else { "parallel" };
        let args = match &attr.meta {
            syn::Meta::List(list) => list.tokens.clone(),
            _ => TokenStream::new(),
        };
        let expanded = crate::expand_function(args, func.to_token_stream(), which, is_main);
        *item = Item::Verbatim(expanded);
    }
    // Re-parse so that prettyplease formats the generated items too.
    syn::parse2(file.to_token_stream()).expect("the expansion parses as a Rust file")
}

#[test]
fn expansion_of_every_clause_form_is_pinned() {
    let bless = std::env::var_os("DLS_BLESS").is_some();
    let mut failed = Vec::new();
    for case in cases() {
        let source = std::fs::read_to_string(&case).unwrap();
        let got = prettyplease::unparse(&expand_file(&source));
        let snapshot = case.with_extension("expanded.rs");
        if bless {
            std::fs::write(&snapshot, &got).unwrap();
            continue;
        }
        match std::fs::read_to_string(&snapshot) {
            Ok(want) if want == got => {}
            Ok(want) => {
                let line = want
                    .lines()
                    .zip(got.lines())
                    .position(|(a, b)| a != b)
                    .map_or(want.lines().count().min(got.lines().count()), |l| l)
                    + 1;
                failed.push(format!(
                    "{}: the expansion changed (first difference at line {line}):\n{got}",
                    snapshot.display()
                ));
            }
            Err(_) => failed.push(format!("{}: missing", snapshot.display())),
        }
    }
    assert!(
        failed.is_empty(),
        "{}\n\nIf the change is intended, run `DLS_BLESS=1 cargo test -p dls-macros snapshots` \
         and review the diff",
        failed.join("\n\n")
    );
}

/// Every path starting with `::` in `tokens`, as text (`::dls::__private::Loop::new`).
fn absolute_paths(tokens: TokenStream, out: &mut Vec<String>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        if let TokenTree::Group(g) = &tokens[i] {
            absolute_paths(g.stream(), out);
        }
        // A path `::a::b` starts with `::` not preceded by an identifier or `>`.
        let starts = is_colon(&tokens, i)
            && is_colon(&tokens, i + 1)
            && (i == 0
                || !matches!(&tokens[i - 1], TokenTree::Ident(id) if id != "use")
                    && !matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '>'
                        || p.as_char() == ':'));
        if starts {
            let mut path = String::new();
            let mut j = i;
            while is_colon(&tokens, j) && is_colon(&tokens, j + 1) {
                match tokens.get(j + 2) {
                    Some(TokenTree::Ident(id)) => {
                        path.push_str("::");
                        path.push_str(&id.to_string());
                        j += 3;
                    }
                    _ => break,
                }
            }
            out.push(path);
            i = j;
            continue;
        }
        i += 1;
    }
}

fn is_colon(tokens: &[TokenTree], i: usize) -> bool {
    matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ':')
}

#[test]
fn generated_code_names_only_the_hidden_module_core_and_std() {
    let mut paths = Vec::new();
    for case in cases() {
        let source = std::fs::read_to_string(&case).unwrap();
        absolute_paths(expand_file(&source).to_token_stream(), &mut paths);
    }
    let outside: Vec<&String> = paths
        .iter()
        .filter(|p| {
            !p.starts_with("::dls::__private::")
                && !p.starts_with("::core::")
                && !p.starts_with("::std::")
        })
        .collect();
    assert!(
        outside.is_empty(),
        "paths outside the contract: {outside:?}"
    );
    assert!(paths.iter().any(|p| p == "::dls::__private::Loop::new"));
}

#[test]
fn the_macro_and_the_runtime_agree_on_the_runtime_schedule_text() {
    // The macro checks schedule texts at expansion time with its own copy of the constant (a
    // proc-macro cannot use a constant of the crate its output calls without depending on it).
    assert_eq!(
        crate::clauses::RUNTIME_SCHEDULE,
        dls::__private::RUNTIME_SCHEDULE
    );
}
