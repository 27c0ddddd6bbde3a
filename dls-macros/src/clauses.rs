//! The clauses of `#[par_doall(...)]`: `schedule = "<spec>"`, `name = "<text>"`,
//! `reduce(<op>: <vars>)` and `gather(<vars>)`, parsed and validated.
//!
//! The schedule text is checked here, at compile time, with the technique crate's own parser
//! (`dls_technique::Technique::from_str`), so the list of valid names in the error message comes from
//! the single source of truth and the error points at the string literal.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Ident, LitStr, Meta, Path, Token};

/// The schedule value that defers the choice to the `DLS_SCHEDULE` environment variable.
pub const RUNTIME_SCHEDULE: &str = "runtime";

/// A reduction operator as written in `reduce(<op>: ...)`.
#[derive(Clone)]
pub enum ReduceOp {
    /// `+`
    Sum(Span),
    /// `*`
    Product(Span),
    /// `max`
    Max(Span),
    /// `min`
    Min(Span),
    /// `path::to::merge_fn`
    Merge(Path),
}

/// One variable of a `reduce` clause with its operator.
pub struct Reduction {
    /// The operator.
    pub op: ReduceOp,
    /// The variable.
    pub var: Ident,
}

/// Everything written inside `#[par_doall(...)]`.
#[derive(Default)]
pub struct Clauses {
    /// `schedule = "..."`; `None` means `"runtime"`.
    pub schedule: Option<LitStr>,
    /// `name = "..."`; `None` means `file:line`.
    pub name: Option<LitStr>,
    /// Reduction variables, in the order written.
    pub reductions: Vec<Reduction>,
    /// Gathered variables, in the order written.
    pub gathers: Vec<Ident>,
    /// `group(min = ..., max = ...)`: the group sizes of a two-level loop (see `nested.rs`).
    pub group: Option<crate::nested::GroupClause>,
}

const VALID_CLAUSES: &str = "schedule = \"<technique>\", reduce(<op>: <vars>), gather(<vars>), \
                             name = \"<text>\", group(min = <ranks>, max = <ranks>)";

impl Clauses {
    /// Parses the attribute (`#[par_doall]` or `#[par_doall(...)]`) and validates the clauses.
    pub fn from_attribute(attr: &Attribute) -> syn::Result<Clauses> {
        match &attr.meta {
            Meta::Path(_) => Ok(Clauses::default()),
            Meta::List(list) => list.parse_args::<Clauses>(),
            Meta::NameValue(nv) => Err(syn::Error::new_spanned(
                nv.eq_token,
                format!("write the clauses in parentheses: #[par_doall({VALID_CLAUSES})]"),
            )),
        }
    }

    /// Which clause names `name`, if any.
    pub fn clause_of(&self, name: &Ident) -> Option<&'static str> {
        if self.reductions.iter().any(|r| r.var == *name) {
            Some("reduce")
        } else if self.gathers.iter().any(|g| g == name) {
            Some("gather")
        } else {
            None
        }
    }
}

impl Parse for Clauses {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut clauses = Clauses::default();
        // Where each variable was first named, to reject a second mention.
        let mut named: HashMap<String, &'static str> = HashMap::new();
        while !input.is_empty() {
            let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
            match key.to_string().as_str() {
                "schedule" => {
                    input.parse::<Token![=]>()?;
                    let lit: LitStr = input.parse()?;
                    if clauses.schedule.is_some() {
                        return Err(syn::Error::new_spanned(
                            &key,
                            "`schedule` is given twice; keep one",
                        ));
                    }
                    validate_schedule(&lit)?;
                    clauses.schedule = Some(lit);
                }
                "name" => {
                    input.parse::<Token![=]>()?;
                    let lit: LitStr = input.parse()?;
                    if clauses.name.is_some() {
                        return Err(syn::Error::new_spanned(
                            &key,
                            "`name` is given twice; keep one",
                        ));
                    }
                    clauses.name = Some(lit);
                }
                "reduce" => {
                    let content;
                    syn::parenthesized!(content in input);
                    let op = parse_op(&content)?;
                    content.parse::<Token![:]>().map_err(|e| {
                        syn::Error::new(
                            e.span(),
                            "expected `:` after the operator, as in reduce(+: total)",
                        )
                    })?;
                    let vars = parse_vars(&content, "reduce")?;
                    for var in vars {
                        note_name(&mut named, &var, "reduce")?;
                        clauses.reductions.push(Reduction {
                            op: op.clone(),
                            var,
                        });
                    }
                }
                "gather" => {
                    let content;
                    syn::parenthesized!(content in input);
                    for var in parse_vars(&content, "gather")? {
                        note_name(&mut named, &var, "gather")?;
                        clauses.gathers.push(var);
                    }
                }
                "group" => {
                    if clauses.group.is_some() {
                        return Err(syn::Error::new_spanned(
                            &key,
                            "`group` is given twice; keep one",
                        ));
                    }
                    clauses.group = Some(crate::nested::parse_group(key.clone(), input)?);
                }
                other => {
                    return Err(syn::Error::new_spanned(
                        &key,
                        format!(
                        "unknown clause `{other}` in #[par_doall]; valid clauses: {VALID_CLAUSES}"
                    ),
                    ))
                }
            }
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(clauses)
    }
}

fn parse_op(input: ParseStream) -> syn::Result<ReduceOp> {
    if input.peek(Token![+]) {
        let t: Token![+] = input.parse()?;
        return Ok(ReduceOp::Sum(t.span));
    }
    if input.peek(Token![*]) {
        let t: Token![*] = input.parse()?;
        return Ok(ReduceOp::Product(t.span));
    }
    let path: Path = input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            "unknown reduction operator; use +, *, max, min, or the path of a merge function \
             fn(T, T) -> T, as in reduce(+: total) or reduce(merge_counts: counts)",
        )
    })?;
    if let Some(ident) = path.get_ident() {
        match ident.to_string().as_str() {
            "max" => return Ok(ReduceOp::Max(ident.span())),
            "min" => return Ok(ReduceOp::Min(ident.span())),
            _ => {}
        }
    }
    Ok(ReduceOp::Merge(path))
}

fn parse_vars(input: ParseStream, clause: &str) -> syn::Result<Vec<Ident>> {
    let vars = Punctuated::<Ident, Token![,]>::parse_terminated(input).map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("{clause}(...) takes local variable names separated by commas"),
        )
    })?;
    if vars.is_empty() {
        return Err(syn::Error::new(
            input.span(),
            format!("{clause}(...) needs at least one variable"),
        ));
    }
    Ok(vars.into_iter().collect())
}

fn note_name(
    named: &mut HashMap<String, &'static str>,
    var: &Ident,
    clause: &'static str,
) -> syn::Result<()> {
    if let Some(first) = named.insert(var.to_string(), clause) {
        return Err(syn::Error::new_spanned(
            var,
            format!(
                "`{var}` is named twice (already in {first}(...)); name each variable in one clause only"
            ),
        ));
    }
    Ok(())
}

/// Checks the schedule text with the runtime's parser; `"runtime"` is always valid.
fn validate_schedule(lit: &LitStr) -> syn::Result<()> {
    let text = lit.value();
    if text.trim().eq_ignore_ascii_case(RUNTIME_SCHEDULE) {
        return Ok(());
    }
    // Parsing also checks each parameter's value and that the technique takes it. Checks that
    // need the number of ranks (one weight per rank, required parameters) happen at run time.
    text.parse::<dls_technique::Technique>().map_err(|e| {
        syn::Error::new(
            lit.span(),
            format!("invalid schedule: {e}; or \"runtime\" to read DLS_SCHEDULE"),
        )
    })?;
    Ok(())
}
