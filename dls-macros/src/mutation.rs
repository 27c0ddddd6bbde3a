//! Outer variables changed by a parallel loop body. Iterates run concurrently on different workers,
//! so a variable declared before the loop and changed in the body must be named in `reduce(...)`
//! (an accumulated result) or `gather(...)` (a vector written at the loop index), or be declared
//! inside the loop (scratch space, a random generator, ...). This is checked on the syntax:
//!
//! - assignments `x = …`, compound assignments `x += …`, and those through fields and indices
//!   (`x.f = …`, `x[k] = …`);
//! - mutable borrows `&mut x`;
//! - method calls `x.m(…)` on a variable declared `mut` in the enclosing function: such a method
//!   may take `&mut self` (as `rng.gen()` does). A method that only reads is accepted after
//!   rebinding the variable without `mut` before the loop.
//!
//! - method calls that change a value through shared mutability (`fetch_add`, `store`, `set`,
//!   `borrow_mut`, `lock`, `send`, … of atomics, `Cell`, `RefCell`, `Mutex`, channels) on any
//!   outer variable: on threads every worker sees the change, but under mpirun each rank changes
//!   its own copy and the others' changes are lost (issue 17 case 4). The advice names
//!   `reduce(...)`; `shared(x)` says the per-process state is intended;
//! - writes to a gathered vector at the variable of a `for` loop inside the body
//!   (`for j in .. { forces[j] -= f }`): every iterate writes those elements, which gather
//!   cannot combine (issue 17 case 1); the advice names `reduce(+: forces)`.
//!
//! A name bound anywhere in the body (by `let`, a pattern or a closure parameter) is local to the
//! iterate and never reported.

use std::collections::{HashMap, HashSet};

use syn::visit::{self, Visit};
use syn::{BinOp, Block, Expr, Ident, Pat};

use crate::clauses::Clauses;
use crate::errors::Errors;

/// Names bound by patterns inside a body (or a loop pattern).
#[derive(Default)]
pub(crate) struct Bindings {
    /// Every bound name.
    pub names: HashSet<String>,
    /// The names bound with `mut`.
    pub mutable: HashSet<String>,
}

impl<'ast> Visit<'ast> for Bindings {
    fn visit_pat(&mut self, pat: &'ast Pat) {
        if let Pat::Ident(p) = pat {
            self.names.insert(p.ident.to_string());
            if p.mutability.is_some() {
                self.mutable.insert(p.ident.to_string());
            }
        }
        visit::visit_pat(self, pat);
    }

    fn visit_fn_arg(&mut self, arg: &'ast syn::FnArg) {
        if let syn::FnArg::Receiver(r) = arg {
            if r.mutability.is_some() && r.reference.is_none() {
                self.mutable.insert("self".to_string());
            }
        }
        visit::visit_fn_arg(self, arg);
    }
}

/// Reports every outer variable changed in `body` that no clause names. `mutable_outer` holds the
/// names declared `mut` in the enclosing function; `loop_pat` is the loop's pattern.
pub(crate) fn check(
    body: &Block,
    loop_pat: &Pat,
    clauses: &Clauses,
    mutable_outer: &HashSet<String>,
) -> syn::Result<()> {
    let mut locals = Bindings::default();
    locals.visit_block(body);
    locals.visit_pat(loop_pat);
    let mut inner = InnerLoopVars::default();
    inner.visit_block(body);
    let outer_index = match loop_pat {
        Pat::Ident(p) => p.ident.to_string(),
        _ => "j".to_string(),
    };
    let mut v = Mutations {
        body,
        outer_index,
        locals: &locals.names,
        inner_loop_vars: &inner.names,
        mutable_outer,
        clauses,
        reported: HashSet::new(),
        errors: Errors::default(),
    };
    v.visit_block(body);
    v.errors.finish(())
}

/// Names bound by the pattern of a `for` loop inside the body.
#[derive(Default)]
struct InnerLoopVars {
    names: HashSet<String>,
}

impl<'ast> Visit<'ast> for InnerLoopVars {
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        if let Pat::Ident(p) = &*f.pat {
            self.names.insert(p.ident.to_string());
        }
        visit::visit_expr_for_loop(self, f);
    }

    fn visit_item(&mut self, _item: &'ast syn::Item) {}
}

/// Methods of the standard library's types that take `&self` and change nothing: a call of one on
/// a variable declared `mut` is a read (issue 42: `u[i].clone()` was refused as a possible
/// change). A type of the program's own with a `&mut self` method of one of these names is still
/// refused, by rustc (the body cannot borrow an outer variable mutably).
const READING_METHODS: &[&str] = &[
    "clone",
    "cloned",
    "copied",
    "len",
    "is_empty",
    "iter",
    "get",
    "first",
    "last",
    "contains",
    "contains_key",
    "to_vec",
    "to_owned",
    "to_string",
    "as_slice",
    "as_str",
    "as_ref",
    "chunks",
    "windows",
    "keys",
    "values",
    "starts_with",
    "ends_with",
    "abs",
    "sqrt",
    "powi",
    "powf",
    "exp",
    "ln",
    "sin",
    "cos",
    "min",
    "max",
    "eq",
    "ne",
    "cmp",
    "partial_cmp",
    "dot",
    "norm",
    "sum",
    "binary_search",
    "capacity",
    "split_at",
    "borrow",
];

/// Methods that change a value through `&self` (shared mutability): atomics, `Cell`, `RefCell`,
/// `Mutex`, `RwLock`, channels.
const SHARED_MUTATORS: &[&str] = &[
    "fetch_add",
    "fetch_sub",
    "fetch_and",
    "fetch_nand",
    "fetch_or",
    "fetch_xor",
    "fetch_max",
    "fetch_min",
    "fetch_update",
    "store",
    "swap",
    "compare_exchange",
    "compare_exchange_weak",
    "set",
    "replace",
    "borrow_mut",
    "lock",
    "try_lock",
    "write",
    "try_write",
    "send",
];

struct Mutations<'a> {
    /// The loop's body, for the reads it shows (`reads::only_read`).
    body: &'a Block,
    /// The name of the loop's index (`j` when its pattern is no plain name), for advice.
    outer_index: String,
    locals: &'a HashSet<String>,
    inner_loop_vars: &'a HashSet<String>,
    mutable_outer: &'a HashSet<String>,
    clauses: &'a Clauses,
    reported: HashSet<String>,
    errors: Errors,
}

/// How the body changes a variable; decides the advice in the message.
enum Change<'e> {
    Compound(&'e BinOp),
    /// `x[k] += …`: an element changed by an operator (any iterate may add to any element).
    CompoundIndex(&'e BinOp),
    Assign,
    AssignPart,
    AssignIndex,
    BorrowMut,
    Method(&'e Ident),
}

impl Mutations<'_> {
    fn root<'e>(&self, place: &'e Expr) -> Option<(&'e Ident, bool)> {
        // Returns the variable a place expression starts from, and whether the place is the whole
        // variable (not a field, element or pointee of it).
        let mut e = place;
        let mut whole = true;
        loop {
            match e {
                Expr::Path(p) if p.qself.is_none() => {
                    return p.path.get_ident().map(|i| (i, whole))
                }
                Expr::Field(f) => e = &f.base,
                Expr::Index(i) => e = &i.expr,
                Expr::Paren(p) => {
                    e = &p.expr;
                    continue;
                }
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => e = &u.expr,
                _ => return None,
            }
            whole = false;
        }
    }

    /// A write to a cell of a gathered vector of rows, `v[a][b] = …`, whose row index `a` is not
    /// the loop's own index: the row index expression.
    fn cell_of_another_row<'e>(&self, place: &'e Expr) -> Option<&'e Expr> {
        let Expr::Index(cell) = place else {
            return None;
        };
        let Expr::Index(row) = &*cell.expr else {
            return None;
        };
        let own = matches!(&*row.index, Expr::Path(p) if p.path.is_ident(&self.outer_index));
        (!own).then_some(&*row.index)
    }

    /// A write to a gathered vector whose element is the variable of a `for` loop inside the
    /// body: the index expression, and the variable's name.
    fn inner_loop_index<'e>(&self, place: &'e Expr) -> Option<(&'e Expr, String)> {
        let mut e = place;
        let mut index = None;
        loop {
            match e {
                Expr::Field(f) => e = &f.base,
                Expr::Index(i) => {
                    index = Some(&*i.index);
                    e = &i.expr;
                }
                Expr::Paren(p) => e = &p.expr,
                Expr::Path(_) => break,
                _ => return None,
            }
        }
        let index = index?;
        match index {
            Expr::Path(p) => {
                let name = p.path.get_ident()?.to_string();
                self.inner_loop_vars
                    .contains(&name)
                    .then_some((index, name))
            }
            _ => None,
        }
    }

    fn report(&mut self, place: &Expr, change: Change) {
        let Some((var, whole)) = self.root(place) else {
            return;
        };
        let name = var.to_string();
        if self.locals.contains(&name) || self.reported.contains(&name) {
            return;
        }
        let shared_mutator = matches!(&change, Change::Method(m)
            if SHARED_MUTATORS.contains(&m.to_string().as_str()));
        // `lock()` also reads (`log.lock().unwrap().len()`): not a change when every use of the
        // variable in the body is a read the text shows (issue 43 R4-2).
        let reading_lock = matches!(&change, Change::Method(m)
            if crate::reads::READS.contains(&m.to_string().as_str()));
        if shared_mutator && reading_lock && whole && crate::reads::only_read(self.body, var) {
            return;
        }
        let gathered = match self.clauses.clause_of(var) {
            Some("reduce") | Some("shared") => return,
            Some("gather") if !whole && !matches!(change, Change::Method(_)) => {
                if let Some((index, j)) = self.inner_loop_index(place) {
                    self.reported.insert(name.clone());
                    self.errors.push(syn::Error::new_spanned(
                        index,
                        format!(
                            "`{name}[{j}]` is written for every `{j}` of a loop inside the body, \
                             so several iterates write the same elements of `{name}`, and \
                             gather({name}) keeps one write per element; if iterates add into \
                             shared elements (`{name}[{j}] -= f`), accumulate with \
                             reduce(+: {name}) instead of gather({name})"
                        ),
                    ));
                } else if let Some(row) = self.cell_of_another_row(place) {
                    // `table[k / cols][k % cols] = …`: gather's element is a whole row.
                    self.reported.insert(name.clone());
                    self.errors.push(syn::Error::new_spanned(
                        row,
                        format!(
                            "gather({name}) gathers the elements of `{name}`, and an element of a \
                             vector of rows is a whole row: this writes one cell of a row that \
                             other iterates write too, so all but one write would be lost. Let \
                             each iterate write its own row, `{name}[{i}][j] = ...` (an inner \
                             `for j` loop over the columns), or gather a flat vector written as \
                             `flat[r * cols + c] = ...`",
                            i = self.outer_index
                        ),
                    ));
                }
                return;
            }
            Some("gather") if !shared_mutator && matches!(change, Change::Method(_)) => return,
            Some("gather") => true,
            _ => false,
        };
        if let Change::Method(m) = &change {
            if shared_mutator {
                self.reported.insert(name.clone());
                let advice = if gathered {
                    format!("write its elements instead, as `{name}[i] = ...`")
                } else {
                    format!(
                        "to count or collect a result, keep it in a plain variable and add \
                         reduce(+: {name}) (or another reduce or gather clause); if state per \
                         process is what you want (a progress counter), name it in \
                         shared({name})"
                    )
                };
                self.errors.push(syn::Error::new_spanned(
                    var,
                    format!(
                        "`{name}.{m}(...)` changes `{name}` through shared mutability (an atomic, \
                         Cell, RefCell, Mutex or channel), which is not combined across workers: \
                         on threads every worker sees the change, but under mpirun each rank \
                         changes its own copy and the other ranks' changes are lost; {advice}"
                    ),
                ));
                return;
            }
            if !self.mutable_outer.contains(&name)
                || READING_METHODS.contains(&m.to_string().as_str())
            {
                return;
            }
        }
        self.reported.insert(name.clone());
        let lead = format!(
            "`{name}` is declared outside the #[par_doall] loop and changed in its body, but \
             iterates run in parallel on different workers"
        );
        let advice = advice(&name, change, gathered);
        self.errors
            .push(syn::Error::new_spanned(var, format!("{lead}; {advice}")));
    }
}

/// What a change of `name` (declared outside the loop) should become, for the error that
/// reports it; `gathered` when `name` is in a `gather` clause.
fn advice(name: &str, change: Change, gathered: bool) -> String {
    match change {
        _ if gathered => {
            format!("`{name}` is gathered: write only its elements, as `{name}[i] = ...`")
        }
        Change::Compound(op) => match op {
            BinOp::AddAssign(_) | BinOp::SubAssign(_) => {
                format!("if it accumulates a result, add the clause reduce(+: {name})")
            }
            BinOp::MulAssign(_) => {
                format!("if it accumulates a result, add the clause reduce(*: {name})")
            }
            _ => format!(
                "if it accumulates a result, add reduce(path::to::merge_fn: {name}) with an \
                 associative fn(T, T) -> T"
            ),
        },
        Change::Assign => format!(
            "if it keeps a best value, add reduce(max: {name}) or reduce(min: {name}); if it \
             is scratch space for one iterate, declare it inside the loop"
        ),
        Change::AssignIndex => format!(
            "if each iterate writes its own elements (`{name}[i] = ...`), add the clause \
             gather({name})"
        ),
        Change::CompoundIndex(op) => {
            let op = match op {
                BinOp::MulAssign(_) => "*",
                _ => "+",
            };
            format!(
                "if the iterates add into its elements (a histogram, counts per class), add \
                 the clause reduce({op}: {name}): every worker adds into its own copy and \
                 the copies are combined element by element (gather({name}) keeps one \
                 write per element and would refuse this)"
            )
        }
        Change::AssignPart | Change::BorrowMut => format!(
            "declare it inside the loop, or name it in reduce(path::to::merge_fn: {name}) or \
             gather({name})"
        ),
        Change::Method(m)
            if matches!(
                m.to_string().as_str(),
                "push" | "push_back" | "push_str" | "extend" | "extend_from_slice" | "append"
            ) =>
        {
            format!(
                "if it collects items, add the clause reduce(append: {name}): each iterate's \
                 items are appended in the iterates' order, as in the serial loop"
            )
        }
        Change::Method(m) if matches!(m.to_string().as_str(), "insert" | "entry" | "remove") => {
            format!(
                "if it collects a map or set, add reduce(path::to::merge_fn: {name}) with a \
                 function that merges two of them (fn(T, T) -> T); each worker fills its own"
            )
        }
        Change::Method(m) => format!(
            "`{name}.{m}(...)` may change it (a shared random generator, for example): declare \
             it inside the loop, e.g. a generator seeded from the loop index; if `{m}` only \
             reads, borrow it before the loop and call it through the borrow (`let \
             {name}_ref = &{name};` before the loop, `{name}_ref.{m}(...)` in it)"
        ),
    }
}

impl Mutations<'_> {
    /// An inner `#[par_doall]` loop of this (outer) loop whose `reduce` or `gather` clause names a
    /// variable declared outside the outer loop: its partial results would be combined over the
    /// ranks of one group only, so the clause is rejected at the variable with what to write.
    fn inner_clauses(&mut self, for_loop: &syn::ExprForLoop) {
        let Some(attr) = for_loop
            .attrs
            .iter()
            .find(|a| crate::clauses::is_par_doall(a))
        else {
            return;
        };
        // A clause that does not parse is reported when the inner loop itself is expanded.
        let Ok(inner) = Clauses::from_attribute(attr) else {
            return;
        };
        let named = inner
            .reductions
            .iter()
            .map(|r| (&r.var, "reduce"))
            .chain(inner.gathers.iter().map(|v| (v, "gather")));
        for (var, clause) in named {
            let name = var.to_string();
            // A variable of the outer loop's own clauses is the outer worker's copy in the body
            // (an inner reduction into the outer one's partial result is fine).
            if self.locals.contains(&name)
                || self.reported.contains(&name)
                || self.clauses.clause_of(var).is_some()
            {
                continue;
            }
            self.reported.insert(name.clone());
            let j = &self.outer_index;
            let instead = if clause == "gather" {
                format!(
                    "gather into a vector declared in the outer loop's body and hand it to the \
                     outer loop: `let mut part = vec![…; len];` before the inner loop, \
                     gather(part) on the inner loop (writing `part[i] = …`), then `{name}[{j}] = \
                     part;` after it ({j} the outer loop's index), with gather({name}) on the outer loop (`{name}` then holds \
                     one part per outer iterate)"
                )
            } else {
                format!(
                    "reduce into a variable declared in the outer loop's body and combine that \
                     on the outer loop: `let mut part = …;` before the inner loop, \
                     reduce(…: part) on the inner loop, then `{name} += part;` (or your merge) \
                     after it, with reduce(…: {name}) on the outer loop"
                )
            };
            self.errors.push(syn::Error::new_spanned(
                var,
                format!(
                    "`{name}` is declared outside the two-level loop, so the inner loop cannot \
                     {clause} into it: the inner loop runs on the ranks of one group, and its \
                     {clause} would reach those ranks only; {instead}"
                ),
            ));
        }
    }
}

impl<'ast> Visit<'ast> for Mutations<'_> {
    fn visit_expr_for_loop(&mut self, for_loop: &'ast syn::ExprForLoop) {
        self.inner_clauses(for_loop);
        visit::visit_expr_for_loop(self, for_loop);
    }

    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Assign(a) => {
                let change = if matches!(&*a.left, Expr::Index(_)) {
                    Change::AssignIndex
                } else if matches!(&*a.left, Expr::Path(_)) {
                    Change::Assign
                } else {
                    Change::AssignPart
                };
                self.report(&a.left, change);
            }
            Expr::Binary(b) if crate::reads::is_compound(&b.op) => {
                let change = if matches!(&*b.left, Expr::Index(_)) {
                    Change::CompoundIndex(&b.op)
                } else {
                    Change::Compound(&b.op)
                };
                self.report(&b.left, change);
            }
            Expr::Reference(r) if r.mutability.is_some() => self.report(&r.expr, Change::BorrowMut),
            Expr::MethodCall(m) => self.report(&m.receiver, Change::Method(&m.method)),
            _ => {}
        }
        visit::visit_expr(self, expr);
    }

    fn visit_item(&mut self, _item: &'ast syn::Item) {}
}

/// A variable a loop's body captures: `via` names the closure (defined before the loop) through
/// which the body reaches it, if it does not use it itself; `direct`: the body names it itself;
/// `only_read`: the body visibly only reads it (`reads::only_read`). Probed for interior
/// mutability unless it is only read and reached through no closure
/// ([`Captured::probed`]); handed to the body's runs as a parameter where `direct`
/// (`expand/captured.rs`).
pub(crate) struct Captured {
    pub var: Ident,
    pub via: Option<String>,
    pub direct: bool,
    pub only_read: bool,
}

impl Captured {
    /// Whether the interior-mutability probe asks about it: not where the body visibly only
    /// reads it and reaches it through no closure (issue 43 R4-2).
    pub(crate) fn probed(&self) -> bool {
        self.via.is_some() || !self.only_read
    }
}

/// Closures bound by `let` in the enclosing function before a loop: each name with the variables
/// of the function its body uses other than by a read the text shows (`reads.rs`).
pub(crate) type Closures = HashMap<String, Vec<Ident>>;

/// The variables of the enclosing function (`bound`) that `body` uses by name without a clause:
/// the loop captures them by shared reference. Generated code asks at run time whether their
/// types have interior mutability (`__private::interior`), which under MPI would make changes
/// through them per rank, even from a helper function the macro cannot see into (issue 27 case
/// 7). Names bound inside the body, the loop's pattern, clause variables and callees are left out,
/// and so are the variables the body visibly only reads (`reads::only_read`, issue 43 R4-2). A
/// closure of `closures` the body calls or names brings the variables it captures (issue 43
/// R4-1).
pub(crate) fn captured(
    body: &Block,
    loop_pat: &Pat,
    clauses: &Clauses,
    bound: &HashSet<String>,
    closures: &Closures,
) -> Vec<Captured> {
    let mut locals = Bindings::default();
    locals.visit_block(body);
    locals.visit_pat(loop_pat);
    let mut v = Captures {
        locals: &locals.names,
        bound,
        clauses,
        closures,
        found: Vec::new(),
    };
    v.visit_block(body);
    for c in &mut v.found {
        c.only_read = crate::reads::only_read(body, &c.var);
    }
    v.found
}

/// The variables of the enclosing function that `closure` captures and does not visibly only read
/// (see [`captured`]); those of the closures of `closures` it uses count too.
pub(crate) fn closure_captures(
    closure: &syn::ExprClosure,
    bound: &HashSet<String>,
    closures: &Closures,
) -> Vec<Ident> {
    let mut locals = Bindings::default();
    for input in &closure.inputs {
        locals.visit_pat(input);
    }
    locals.visit_expr(&closure.body);
    let clauses = Clauses::default();
    let mut v = Captures {
        locals: &locals.names,
        bound,
        clauses: &clauses,
        closures,
        found: Vec::new(),
    };
    v.visit_expr(&closure.body);
    let body: Block = syn::parse_quote!({ #closure; });
    let mut vars: Vec<Ident> = Vec::new();
    for c in v.found {
        if (c.via.is_some() || !crate::reads::only_read(&body, &c.var)) && !vars.contains(&c.var) {
            vars.push(c.var);
        }
    }
    vars
}

struct Captures<'a> {
    locals: &'a HashSet<String>,
    bound: &'a HashSet<String>,
    clauses: &'a Clauses,
    closures: &'a Closures,
    found: Vec<Captured>,
}

impl Captures<'_> {
    fn add(&mut self, var: &Ident, via: Option<String>) {
        let name = var.to_string();
        if name.starts_with("__dls")
            || !self.bound.contains(&name)
            || self.locals.contains(&name)
            || self.clauses.clause_of(var).is_some()
        {
            return;
        }
        if let Some(c) = self.found.iter_mut().find(|c| c.var == *var) {
            // Reached through a closure too: probed whatever the body itself does with it.
            if via.is_none() {
                c.direct = true;
            } else if c.via.is_none() {
                c.via = via;
            }
            return;
        }
        self.found.push(Captured {
            var: var.clone(),
            direct: via.is_none(),
            via,
            only_read: false,
        });
    }

    /// A closure defined before the loop: the variables it captures.
    fn through(&mut self, name: &Ident) {
        let key = name.to_string();
        if self.locals.contains(&key) {
            return;
        }
        if let Some(vars) = self.closures.get(&key) {
            for var in vars {
                self.add(var, Some(key.clone()));
            }
        }
    }
}

impl<'ast> Visit<'ast> for Captures<'_> {
    fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
        if e.qself.is_some() || e.path.leading_colon.is_some() || e.path.segments.len() != 1 {
            return;
        }
        let seg = &e.path.segments[0];
        if !seg.arguments.is_none() {
            return;
        }
        self.add(&seg.ident, None);
        self.through(&seg.ident);
    }

    fn visit_expr_call(&mut self, e: &'ast syn::ExprCall) {
        // A callee named by a plain path is a function (or a closure the body calls): not probed,
        // but a closure defined before the loop brings what it captures.
        match &*e.func {
            Expr::Path(p) => {
                if let Some(name) = p.path.get_ident() {
                    self.through(name);
                }
            }
            func => self.visit_expr(func),
        }
        for arg in &e.args {
            self.visit_expr(arg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(body: Block, clauses: &str, mutable: &[&str]) -> Vec<String> {
        let clauses: Clauses = syn::parse_str(clauses).unwrap();
        let pat: Pat = syn::parse_quote!(i);
        let mutable = mutable.iter().map(|s| s.to_string()).collect();
        match check(&body, &pat, &clauses, &mutable) {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn named_and_local_variables_are_accepted() {
        let body = syn::parse_quote!({
            let mut scratch = vec![0; 3];
            scratch[0] = i;
            let mut rng = Rng::new(i);
            total += rng.next();
            out[i] = scratch[0];
            counts.insert(i, 1);
            let n = data.len();
            let c = data[i].clone();
            let m = model.predict(i);
        });
        let e = errors(
            body,
            "reduce(+: total), reduce(merge: counts), gather(out)",
            &["data", "model"],
        );
        // `data.len()` and `data[i].clone()` on a `mut` outer variable only read (issue 42);
        // `model.predict(i)` may mutate it: reported, with a form that compiles.
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].contains("`let model_ref = &model;`"), "{e:?}");
    }

    #[test]
    fn each_kind_of_change_names_its_remedy() {
        let body = syn::parse_quote!({
            hits += 1;
            prod *= 2;
            best = i;
            out[i] = 1;
            p.x = 3;
            take(&mut buf);
            hits -= 1;
        });
        let e = errors(body, "", &[]);
        assert_eq!(e.len(), 6, "{e:?}");
        assert!(e[0].contains("reduce(+: hits)"));
        assert!(e[1].contains("reduce(*: prod)"));
        assert!(e[2].contains("reduce(max: best)"));
        assert!(e[3].contains("gather(out)"));
        assert!(e[4].contains("declare it inside the loop"));
        assert!(e[5].contains("`buf`"));
    }

    /// Issue 17 case 4: shared mutability on an outer variable is reported with the clause to
    /// use; `shared(x)` accepts it, and a local atomic is no concern.
    #[test]
    fn shared_mutability_names_reduce_or_shared() {
        let body: Block = syn::parse_quote!({
            hits.fetch_add(1, Ordering::Relaxed);
            seen.borrow_mut().push(i);
            log.lock().unwrap().push(i);
            tx.send(i).unwrap();
            let local = AtomicU64::new(0);
            local.store(1, Ordering::Relaxed);
            let n = data.len();
        });
        let e = errors(body.clone(), "", &[]);
        assert_eq!(e.len(), 4, "{e:?}");
        assert!(e[0].contains("`hits.fetch_add(...)`") && e[0].contains("reduce(+: hits)"));
        assert!(e[0].contains("shared(hits)") && e[0].contains("mpirun"));
        assert!(e[1].contains("`seen.borrow_mut(...)`"));
        assert!(e[2].contains("`log.lock(...)`"));
        assert!(e[3].contains("`tx.send(...)`"));
        assert!(errors(body, "shared(hits, seen, log, tx)", &[]).is_empty());
    }

    /// Issue 17 case 1: a gathered vector written at the variable of an inner `for` loop (the
    /// N-body loop's `forces[j] -= f`) is reported at the index, naming reduce(+: ...).
    #[test]
    fn gathered_elements_written_at_an_inner_loop_variable_are_reported() {
        let body: Block = syn::parse_quote!({
            for j in (i + 1)..n {
                forces[i] += f;
                forces[j] -= f;
            }
            for k in 0..3 {
                out[i][k] = k;
                out[2 * k] = 1;
            }
        });
        let e = errors(body, "gather(forces, out)", &[]);
        assert_eq!(e.len(), 1, "{e:?}");
        assert!(e[0].contains("`forces[j]`") && e[0].contains("reduce(+: forces)"));
    }

    /// Issue 14: an inner loop's clause naming a variable declared before the outer loop says
    /// what to write instead; one named by the outer loop's clauses (its worker's copy) is fine.
    #[test]
    fn inner_clauses_of_variables_outside_the_outer_loop_are_reported() {
        let body: Block = syn::parse_quote!({
            let mut part = vec![0; n];
            #[par_doall(gather(part, out))]
            for k in 0..n {
                part[k] = k;
                out[i * n + k] = k;
            }
            #[par_doall(reduce(+: t, total))]
            for k in 0..n {
                t += k;
                total += k;
            }
        });
        let e = errors(body, "reduce(+: total)", &["out", "t", "total"]);
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(
            e[0].starts_with("`out` is declared outside the two-level loop"),
            "{e:?}"
        );
        assert!(e[0].contains("`out[i] = part;`"), "{e:?}");
        assert!(
            e[1].starts_with("`t` is declared outside the two-level loop"),
            "{e:?}"
        );
        assert!(e[1].contains("`t += part;`"), "{e:?}");
    }

    #[test]
    fn a_gathered_vector_may_only_be_written_element_by_element() {
        let e = errors(
            syn::parse_quote!({
                out = Vec::new();
            }),
            "gather(out)",
            &[],
        );
        assert_eq!(e.len(), 1);
        assert!(e[0].contains("write only its elements"));
    }
}
