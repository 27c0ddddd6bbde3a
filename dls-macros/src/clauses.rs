//! The clauses of `#[par_doall(...)]`: `schedule = "<spec>"`, `name = "<text>"`,
//! `reduce(<op>: <vars>)` and `gather(<vars>)`, parsed and validated.
//!
//! The schedule text is checked here, at compile time, with the technique crate's own parser
//! (`dls_technique::Technique::from_str`), so the list of valid names in the error message comes from
//! the single source of truth and the error points at the string literal.
//!
//! The `group(min = …, max = …)` clause of a two-level outer loop is parsed here too, so that every
//! clause is parsed in this one file (`nested.rs` decides what a group clause means for the loop).

use std::collections::HashMap;

use proc_macro2::Span;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Ident, LitInt, LitStr, Meta, Path, Token};

/// True for `#[par_doall]`, `#[par_doall(...)]` and `#[dls::par_doall(...)]`.
pub(crate) fn is_par_doall(attr: &Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "par_doall")
}

/// The schedule value that defers the choice to the `DLS_SCHEDULE` environment variable.
pub(crate) const RUNTIME_SCHEDULE: &str = "runtime";

/// A reduction operator as written in `reduce(<op>: ...)`.
#[derive(Clone)]
pub(crate) enum ReduceOp {
    /// `+`
    Sum(Span),
    /// `*`
    Product(Span),
    /// `max`
    Max(Span),
    /// `min`
    Min(Span),
    /// `append`: the items iterates push, in iteration order
    Append(Span),
    /// `path::to::merge_fn`
    Merge(Path),
    /// `path::to::merge_fn, identity = <expr>`
    MergeFrom(Path, Box<Expr>),
}

/// One variable of a `reduce` clause with its operator.
pub(crate) struct Reduction {
    /// The operator.
    pub op: ReduceOp,
    /// The variable.
    pub var: Ident,
    /// `unordered` after a merge function: the merge does not depend on order, so the partial
    /// results may be combined in any order (by default a merge function's are combined in the
    /// iterates' order).
    pub unordered: bool,
}

/// `check(anova: y)` or `check(anova, exchangeable: y)`: a one-way ANOVA across workers of the
/// values of the body's local `y` at the end of each iterate (Wegman, c. 2000).
pub(crate) struct CheckClause {
    /// The body's variable whose value each iterate yields.
    pub var: Ident,
    /// `check(regression(x1, x2): y)`: the body's predictor variables (none for `anova`).
    pub predictors: Vec<Ident>,
    /// The iterates may run in their own order (their values do not depend on the index).
    pub exchangeable: bool,
}

/// Everything written inside `#[par_doall(...)]`.
#[derive(Default)]
pub(crate) struct Clauses {
    /// `schedule = "..."`; `None` means `"runtime"`.
    pub schedule: Option<LitStr>,
    /// `name = "..."`; `None` means `file:line`.
    pub name: Option<LitStr>,
    /// `reduction = "..."`: how the partial results travel between ranks; `None` means `"auto"`.
    pub reduction: Option<LitStr>,
    /// `check(anova: y)`: the loop checks itself on the values of the body's `y`.
    pub check: Option<CheckClause>,
    /// Reduction variables, in the order written.
    pub reductions: Vec<Reduction>,
    /// Gathered variables, in the order written.
    pub gathers: Vec<Ident>,
    /// `gather(v: rows(W))`: the gathered variables whose iterate `i` owns row `i` of a grid
    /// `W` wide (elements `i*W .. (i+1)*W`), with `W`.
    pub gather_rows: Vec<(Ident, syn::Expr)>,
    /// `shared(...)`: variables changed through shared mutability (atomics, `Mutex`, …) on
    /// purpose, per process: nothing is generated for them; they only silence the check.
    pub shared: Vec<Ident>,
    /// `group(min = ..., max = ...)`: the group sizes of a two-level loop (see `nested.rs`).
    pub group: Option<GroupClause>,
}

const VALID_CLAUSES: &str = "schedule = \"<technique>\", reduce(<op>: <vars>), \
                             reduce(<merge>, identity = <expr>, unordered: <vars>), gather(<vars>), \
                             shared(<vars>), reduction = \"<strategy>\", check(anova: <var>), \
                             check(regression(<vars>): <var>), name = \"<text>\", \
                             group(min = <ranks>, max = <ranks>)";

/// The forms of `reduce`, for its error messages.
const VALID_REDUCE: &str = "reduce(+: <vars>), reduce(*: <vars>), reduce(max: <vars>), \
                            reduce(min: <vars>), reduce(append: <vars>), \
                            reduce(path::to::merge: <vars>) with a function fn(T, T) -> T, \
                            reduce(path::to::merge, identity = <expr>: <vars>), and either with \
                            `, unordered` before the `:` when the merge does not depend on order";

impl Clauses {
    /// The first merge function whose results must be combined in the iterates' order (a merge
    /// function without `unordered`): then the loop keeps a partial result per run of
    /// consecutive iterates and combines them in index order.
    pub(crate) fn ordered_merge(&self) -> Option<&Path> {
        self.reductions.iter().find_map(|r| match &r.op {
            ReduceOp::Merge(p) | ReduceOp::MergeFrom(p, _) if !r.unordered => Some(p),
            _ => None,
        })
    }

    /// Parses the attribute (`#[par_doall]` or `#[par_doall(...)]`) and validates the clauses.
    pub(crate) fn from_attribute(attr: &Attribute) -> syn::Result<Clauses> {
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
    pub(crate) fn clause_of(&self, name: &Ident) -> Option<&'static str> {
        if self.reductions.iter().any(|r| r.var == *name) {
            Some("reduce")
        } else if self.gathers.iter().any(|g| g == name) {
            Some("gather")
        } else if self.shared.iter().any(|g| g == name) {
            Some("shared")
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
            clauses.parse_clause(key, input, &mut named)?;
            if input.is_empty() {
                break;
            }
            input.parse::<Token![,]>()?;
        }
        Ok(clauses)
    }
}

impl Clauses {
    /// Parses the rest of the clause that starts with `key` into `self`; `named` holds where
    /// each variable was first named.
    fn parse_clause(
        &mut self,
        key: Ident,
        input: ParseStream,
        named: &mut HashMap<String, &'static str>,
    ) -> syn::Result<()> {
        match key.to_string().as_str() {
            "schedule" => {
                let lit = parse_once(&key, self.schedule.is_some(), input)?;
                validate_schedule(&lit)?;
                self.schedule = Some(lit);
            }
            "reduction" => {
                let lit = parse_once(&key, self.reduction.is_some(), input)?;
                if let Err(e) = lit.value().parse::<dls_technique::Strategy>() {
                    return Err(syn::Error::new_spanned(&lit, e.to_string()));
                }
                self.reduction = Some(lit);
            }
            "name" => self.name = Some(parse_once(&key, self.name.is_some(), input)?),
            "reduce" => self.reductions.extend(parse_reduce(input, named)?),
            "gather" => {
                let content;
                syn::parenthesized!(content in input);
                for (var, rows) in parse_gathered(&content)? {
                    note_name(named, &var, "gather")?;
                    if let Some(width) = rows {
                        self.gather_rows.push((var.clone(), width));
                    }
                    self.gathers.push(var);
                }
            }
            "check" => {
                let content;
                syn::parenthesized!(content in input);
                if self.check.is_some() {
                    return Err(syn::Error::new_spanned(&key, "`check` is given twice"));
                }
                self.check = Some(parse_check(&content)?);
            }
            "shared" => self
                .shared
                .extend(parse_noted_vars(input, "shared", named)?),
            "group" => {
                if self.group.is_some() {
                    return Err(syn::Error::new_spanned(
                        &key,
                        "`group` is given twice; keep one",
                    ));
                }
                self.group = Some(parse_group(key.clone(), input)?);
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
        Ok(())
    }
}

/// `= "<text>"` of clause `key`, which may be given once (`given`: it was already).
fn parse_once(key: &Ident, given: bool, input: ParseStream) -> syn::Result<LitStr> {
    input.parse::<Token![=]>()?;
    let lit: LitStr = input.parse()?;
    if given {
        return Err(syn::Error::new_spanned(
            key,
            format!("`{key}` is given twice; keep one"),
        ));
    }
    Ok(lit)
}

/// `(<vars>)` of clause `clause` (`gather`, `shared`), each variable noted in `named`.
fn parse_noted_vars(
    input: ParseStream,
    clause: &'static str,
    named: &mut HashMap<String, &'static str>,
) -> syn::Result<Vec<Ident>> {
    let content;
    syn::parenthesized!(content in input);
    let vars = parse_vars(&content, clause)?;
    for var in &vars {
        note_name(named, var, clause)?;
    }
    Ok(vars)
}

/// The inside of `gather(...)`: variables separated by commas, each with `: rows(<width>)` where
/// its iterates own rows of a flat grid.
fn parse_gathered(input: ParseStream) -> syn::Result<Vec<(Ident, Option<syn::Expr>)>> {
    const FORMS: &str = "gather(...) takes local variable names separated by commas, each \
                         optionally with the rows its iterates own: gather(v), gather(v: rows(n))";
    let mut vars = Vec::new();
    while !input.is_empty() {
        let var: Ident = input
            .parse()
            .map_err(|e| syn::Error::new(e.span(), FORMS))?;
        let mut rows = None;
        if input.peek(Token![:]) {
            input.parse::<Token![:]>()?;
            let kind: Ident = input
                .parse()
                .map_err(|e| syn::Error::new(e.span(), FORMS))?;
            if kind != "rows" {
                return Err(syn::Error::new_spanned(
                    &kind,
                    format!(
                        "unknown form `{kind}` of gather({var}: ...): write gather({var}: \
                         rows(n)) when iterate i writes row i of a flat grid n wide \
                         (`{var}[i * n + j]`), or gather({var})"
                    ),
                ));
            }
            let width;
            syn::parenthesized!(width in input);
            rows = Some(width.parse::<syn::Expr>()?);
            if !width.is_empty() {
                return Err(width.error("rows(...) takes one expression, the width of a row"));
            }
        }
        vars.push((var, rows));
        if input.is_empty() {
            break;
        }
        input
            .parse::<Token![,]>()
            .map_err(|e| syn::Error::new(e.span(), FORMS))?;
    }
    if vars.is_empty() {
        return Err(syn::Error::new(
            input.span(),
            "gather(...) needs at least one variable",
        ));
    }
    Ok(vars)
}

/// `(<op>[, options]: <vars>)` of a `reduce` clause: one reduction per variable, each noted in
/// `named`.
fn parse_reduce(
    input: ParseStream,
    named: &mut HashMap<String, &'static str>,
) -> syn::Result<Vec<Reduction>> {
    let content;
    syn::parenthesized!(content in input);
    let op = parse_op(&content)?;
    let (op, unordered) = parse_options(&content, op)?;
    content.parse::<Token![:]>().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!(
                "expected `:` after the operator, as in reduce(+: total); \
                 valid forms: {VALID_REDUCE}"
            ),
        )
    })?;
    let vars = parse_vars(&content, "reduce")?;
    let mut reductions = Vec::new();
    for var in vars {
        note_name(named, &var, "reduce")?;
        reductions.push(Reduction {
            op: op.clone(),
            unordered,
            var,
        });
    }
    Ok(reductions)
}

/// The inside of `check(anova: y)`, `check(regression(x1, …): y)`, each optionally with
/// `, exchangeable` before the `:`.
fn parse_check(content: ParseStream) -> syn::Result<CheckClause> {
    let test: Ident = content.call(syn::ext::IdentExt::parse_any)?;
    let mut predictors = Vec::new();
    if test == "regression" {
        let inner;
        syn::parenthesized!(inner in content);
        predictors = parse_vars(&inner, "regression")?;
        if predictors.len() > 8 {
            return Err(syn::Error::new_spanned(
                &predictors[8],
                "a regression check takes at most 8 predictors",
            ));
        }
    } else if test != "anova" {
        return Err(syn::Error::new_spanned(
            &test,
            format!(
                "unknown check `{test}`; valid checks: check(anova: <var>), \
                 check(regression(<x1>, <x2>, ...): <y>), each optionally with \
                 `, exchangeable` before the `:`"
            ),
        ));
    }
    let mut exchangeable = false;
    if content.peek(Token![,]) {
        content.parse::<Token![,]>()?;
        let option: Ident = content.call(syn::ext::IdentExt::parse_any)?;
        if option != "exchangeable" {
            return Err(syn::Error::new_spanned(
                &option,
                "unknown check option; the only one is `exchangeable` (the \
                 iterates' values do not depend on the index, so they may run \
                 in their own order)",
            ));
        }
        exchangeable = true;
    }
    content.parse::<Token![:]>().map_err(|e| {
        syn::Error::new(
            e.span(),
            "expected `:` and the body's variable whose value each iterate \
             yields, as in check(anova: y)",
        )
    })?;
    let var: Ident = content.parse()?;
    Ok(CheckClause {
        var,
        predictors,
        exchangeable,
    })
}

/// `group(min = …, max = …)` of an outer loop.
#[derive(Clone)]
pub(crate) struct GroupClause {
    /// The `group` keyword (for error spans).
    pub key: Ident,
    /// Fewest ranks per group.
    pub min: usize,
    /// Most ranks per group.
    pub max: usize,
}

/// Parses the parenthesised part of `group(min = 2, max = 4)` (either bound may be left out:
/// `min` defaults to 1, `max` to unbounded). Rejects `min < 1`, `min > max` and unknown keys.
pub(crate) fn parse_group(key: Ident, input: ParseStream) -> syn::Result<GroupClause> {
    let content;
    syn::parenthesized!(content in input);
    let (mut min, mut max) = (None::<(usize, LitInt)>, None::<(usize, LitInt)>);
    while !content.is_empty() {
        let name: Ident = content.parse()?;
        content.parse::<Token![=]>()?;
        let lit: LitInt = content.parse()?;
        let value: usize = lit.base10_parse()?;
        let slot = match name.to_string().as_str() {
            "min" => &mut min,
            "max" => &mut max,
            other => {
                return Err(syn::Error::new_spanned(
                    &name,
                    format!(
                        "unknown group bound `{other}`; write group(min = <ranks>, max = <ranks>)"
                    ),
                ))
            }
        };
        if slot.is_some() {
            return Err(syn::Error::new_spanned(
                &name,
                format!("`{name}` is given twice in group(...)"),
            ));
        }
        *slot = Some((value, lit));
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    if let Some((0, lit)) = &min {
        return Err(syn::Error::new_spanned(
            lit,
            "group(min = 0): a group needs at least 1 rank (allowed: 1 <= min <= max)",
        ));
    }
    if let (Some((lo, _)), Some((hi, lit))) = (&min, &max) {
        if lo > hi {
            return Err(syn::Error::new_spanned(
                lit,
                format!(
                    "group(min = {lo}, max = {hi}): min is above max (allowed: 1 <= min <= max)"
                ),
            ));
        }
    }
    Ok(GroupClause {
        key,
        min: min.map_or(1, |m| m.0),
        max: max.map_or(usize::MAX, |m| m.0),
    })
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
            format!("unknown reduction operator; valid forms: {VALID_REDUCE}"),
        )
    })?;
    if let Some(ident) = path.get_ident() {
        match ident.to_string().as_str() {
            "max" => return Ok(ReduceOp::Max(ident.span())),
            "min" => return Ok(ReduceOp::Min(ident.span())),
            "append" => return Ok(ReduceOp::Append(ident.span())),
            _ => {}
        }
    }
    Ok(ReduceOp::Merge(path))
}

/// After the operator: the options of a merge function, `, identity = <expr>` and `, unordered`
/// (in any order), or nothing.
fn parse_options(input: ParseStream, mut op: ReduceOp) -> syn::Result<(ReduceOp, bool)> {
    let mut unordered = false;
    while input.peek(Token![,]) {
        let next_is_unordered = {
            let fork = input.fork();
            fork.parse::<Token![,]>()?;
            fork.call(<Ident as syn::ext::IdentExt>::parse_any)
                .is_ok_and(|key| key == "unordered")
        };
        if next_is_unordered {
            input.parse::<Token![,]>()?;
            let key: Ident = input.call(syn::ext::IdentExt::parse_any)?;
            if !matches!(op, ReduceOp::Merge(_) | ReduceOp::MergeFrom(..)) {
                return Err(syn::Error::new_spanned(
                    &key,
                    format!(
                        "`unordered` goes with a merge function only: the built-in operators \
                         +, *, max, min and append say for themselves how they combine; valid \
                         forms: {VALID_REDUCE}"
                    ),
                ));
            }
            if unordered {
                return Err(syn::Error::new_spanned(&key, "`unordered` is given twice"));
            }
            unordered = true;
            continue;
        }
        op = parse_identity(input, op)?;
    }
    Ok((op, unordered))
}

/// `, identity = <expr>` (a merge function's identity).
fn parse_identity(input: ParseStream, op: ReduceOp) -> syn::Result<ReduceOp> {
    input.parse::<Token![,]>()?;
    let key: Ident = input.call(syn::ext::IdentExt::parse_any).map_err(|e| {
        syn::Error::new(
            e.span(),
            format!(
                "expected `identity = <expr>` after the merge function; valid forms: {VALID_REDUCE}"
            ),
        )
    })?;
    if key != "identity" {
        return Err(syn::Error::new_spanned(
            &key,
            format!(
                "unknown reduce option `{key}`: the options are `identity = <expr>` and \
                 `unordered`, after a merge function; valid forms: {VALID_REDUCE}"
            ),
        ));
    }
    let path = match op {
        ReduceOp::Merge(path) => path,
        ReduceOp::Sum(_)
        | ReduceOp::Product(_)
        | ReduceOp::Max(_)
        | ReduceOp::Min(_)
        | ReduceOp::Append(_)
        | ReduceOp::MergeFrom(..) => {
            return Err(syn::Error::new_spanned(
                &key,
                format!(
                    "`identity = <expr>` goes with a merge function only: the built-in \
                     operators +, *, max, min and append have their own identity; valid forms: \
                     {VALID_REDUCE}"
                ),
            ));
        }
    };
    input.parse::<Token![=]>().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!(
                "expected `=` and the identity's value after `identity`, as in \
                 reduce({}, identity = vec![0.0; n]: v); valid forms: {VALID_REDUCE}",
                quote::ToTokens::to_token_stream(&path)
            ),
        )
    })?;
    let value: Expr = input.parse().map_err(|e| {
        syn::Error::new(
            e.span(),
            format!("expected the identity's value (an expression); valid forms: {VALID_REDUCE}"),
        )
    })?;
    Ok(ReduceOp::MergeFrom(path, Box::new(value)))
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
