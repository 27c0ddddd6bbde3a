//! The contract between the runtime and the code that `#[dls::main]`, `#[dls::parallel]` and
//! `#[par_doall]` generate: generated code names only items of this module (through the facade,
//! `::dls::__private::…`) and of `core`. **Not public API**: anything here may change in any
//! release; programs use the explicit API ([`crate::Runtime`], [`crate::reduce`],
//! [`crate::gather`], [`crate::collection`], [`crate::group`]) instead.
//!
//! This follows pin-project's `__private` module: one hidden module, so that the helpers the macro
//! needs (`type_of`, `view`, `borrowed`, …) are not part of the documented modules, and so that
//! the expansion (pinned by `dls-macros/tests/expand/`) has one list of paths to keep stable.
//!
//! A `#[par_doall(schedule = "fac2", reduction = "tree", reduce(+: total))]` loop is one builder
//! chain, [`Loop`], with the witness that the partial results travel (`(type_of(&total),)`, see
//! [`crate::partials`]):
//!
//! ```
//! use dls_runtime::__private::{type_of, Loop};
//! let total = 0_u64;
//! let (total,) = Loop::new("sum", "fac2").reduction("tree")
//!     .run((type_of(&total),), 1..=100_u64, || (0,), |i, acc| acc.0 += i, |a, b| (a.0 + b.0,));
//! assert_eq!(total, 5050);
//! ```
//!
//! A two-level loop is one [`Loop::run_2d`] whose body calls [`Loop::run_inner`].

use std::marker::PhantomData;

use crate::clause_types::{CheckedValue, GatherItem, StartValue};
use crate::collection::Indexable;
use crate::group::{GroupSpec, InnerLoops};
use crate::partials::{Coded, Partials};
pub use crate::partials::{Keyed, KeyedMap, Log, Marker, Plain, Whole};
use crate::runtime::combine::wire::ReadInto;
use crate::runtime::engine::checked::{Check, Observation};
use crate::runtime::engine::plan::{Plan, ShardMerge};
use crate::runtime::loops::options::{IterateValue, LoopOptions};
use crate::runtime::loops::reduction::Reduction;
pub use crate::runtime::Iterates;
use crate::{DlsError, LoopRange, Runtime, Technique, Wire};

pub use crate::captured::{
    with_captured_1, with_captured_2, with_captured_3, with_captured_4, with_captured_5,
    with_captured_6, with_captured_7, with_captured_8, CaptureOfAny, CaptureOfRef, Captured,
};
pub use crate::default_start::default_start_note;
pub use crate::gather::{
    with_row, BlockAccess, BlockPlace, BlockRest, BlockRow, BlockSet, GatherAccess, GatherBuf,
    GatherSlot, GatherTarget, GatherWriter, Place, Rows,
};
pub use crate::gather_view::{gather_slot, ViewOf, ViewOfFlat, ViewOfShaped};
pub use crate::lanes::{outer_of, rows_of, Lanes};
pub use crate::reduce::{
    AddDefault, AppendBuf, AppendSlot, AppendTarget, BuiltIn, Max, Merge, MergeFrom, Min, Operator,
    Product, Reducible, Sum,
};

/// The schedule text meaning "read `DLS_SCHEDULE`" (as OpenMP's `schedule(runtime)`). The macro
/// validates schedule texts at expansion time with its own copy of this text; a unit test of
/// `dls-macros` checks that the two are equal.
pub const RUNTIME_SCHEDULE: &str = "runtime";

/// The technique a loop with `schedule = "runtime"` uses when `DLS_SCHEDULE` is unset:
/// factoring with x = 2, which needs no parameters and is robust to irregular iterates.
pub const DEFAULT_SCHEDULE: &str = "fac2";

/// The technique named by a loop's schedule text; `"runtime"` gives [`DEFAULT_SCHEDULE`]. The
/// runtime replaces the technique of every loop by `DLS_SCHEDULE` when that is set
/// ([`Runtime::effective_technique`]), so `"runtime"` reads `DLS_SCHEDULE`.
///
/// ```
/// use dls_runtime::__private::technique;
/// assert_eq!(technique("runtime").unwrap().to_string(), "fac2");
/// assert_eq!(technique("GSS,min=2").unwrap().to_string(), "gss,min=2");
/// assert!(technique("fast").is_err());
/// ```
pub fn technique(schedule: &str) -> Result<Technique, DlsError> {
    let text = schedule.trim();
    let text = if text.eq_ignore_ascii_case(RUNTIME_SCHEDULE) {
        DEFAULT_SCHEDULE
    } else {
        text
    };
    text.parse::<Technique>().map_err(DlsError::Technique)
}

/// The most schedule texts a thread keeps parsed.
const PARSED_MAX: usize = 8;

thread_local! {
    /// The schedule texts this thread parsed last, with their techniques: a loop inside a time
    /// loop parses its schedule once, not at every run (a parse and its validation cost about
    /// a tenth of a small loop's fixed cost).
    static PARSED: std::cell::RefCell<Vec<(String, Technique)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// [`technique`], remembered per thread for the last [`PARSED_MAX`] texts (errors are not kept).
fn parsed(schedule: &str) -> Result<Technique, DlsError> {
    let known = PARSED.with(|p| {
        p.borrow()
            .iter()
            .find(|(text, _)| text == schedule)
            .map(|(_, t)| t.clone())
    });
    if let Some(t) = known {
        return Ok(t);
    }
    let t = technique(schedule)?;
    PARSED.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() >= PARSED_MAX {
            p.remove(0);
        }
        p.push((schedule.to_string(), t.clone()));
    });
    Ok(t)
}

/// Prints `error: <reason>` to stderr and exits with status 1: how every error of generated code
/// ends the program.
pub use crate::interior::{interior, FoundInterior, NoInterior, Probe};

fn fail(reason: &dyn std::fmt::Display) -> ! {
    // Under a launcher most errors are every rank's (the same loop, the same settings): rank 0
    // says why, once, and the launcher ends the other ranks when it exits. A rank other than 0
    // waits for that first; still running 2 s later, its error is its own, and it says it.
    let rank = crate::runtime::launch::launcher_rank(|k| std::env::var(k).ok());
    let line = match rank {
        Some(r) if r != 0 => {
            std::thread::sleep(std::time::Duration::from_secs(2));
            format!("error: rank {r}: {reason}")
        }
        _ => format!("error: {reason}"),
    };
    // One write, so that the lines of several ranks do not interleave.
    crate::runtime::loops::panic_ctx::say_line(&line);
    std::process::exit(1)
}

/// The value of a loop, or the end of the program with `error: loop <name>: <reason>`.
fn or_exit<T>(name: &str, result: Result<T, DlsError>) -> T {
    result.unwrap_or_else(|e| fail(&format!("loop {name}: {e}")))
}

/// Writes a loop's gather log into the gathered variable `var` (`gather(var)` of the loop
/// `name`), or ends the program with `error: loop <name>: <why>` when the log has an element
/// written by two iterates or read by one and written by another (issue 17 cases 1 and 2): the
/// result would then depend on the schedule. Every rank holds the same log, so every rank stops
/// alike.
///
/// ```
/// use dls_runtime::__private::{scatter, GatherBuf, GatherSlot};
/// let mut out = vec![0_u8; 2];
/// let mut log = GatherBuf::new();
/// GatherSlot::new(&out, &mut log)[1] = 3;
/// scatter(log, &mut out[..], "out", "example");
/// assert_eq!(out, [0, 3]);
/// ```
pub fn scatter<G: GatherTarget + ?Sized>(
    log: GatherBuf<G::Item>,
    target: &mut G,
    var: &str,
    name: &str,
) {
    if let Err(conflict) = log.scatter_into(target) {
        fail(&format!("loop {name}: {}", conflict.explain(var)));
    }
}

/// [`scatter`] for a vector the body only assigns to at the loop's index, whose elements MPI
/// ranks may have written in place ([`Place::exchanged`]): the logged values are written, then
/// the ranges written in place travel between the ranks' vectors as `exchange` says
/// (collective: every rank holds the same log). Ends the program as [`scatter`] does on a
/// conflict, or when the exchange fails.
///
/// ```
/// use dls_runtime::__private::{gather_of, scatter_exchanged, GatherBuf, GatherOfAny,
///     GatherOfPlain, GatherSlot};
/// let mut out = vec![0_u8; 2];
/// let exchange = (&&gather_of(&out)).__dls_exchange();
/// let mut log = GatherBuf::new();
/// GatherSlot::new(&out, &mut log)[1] = 3;
/// scatter_exchanged(log, &mut out[..], exchange, "out", "example");
/// assert_eq!(out, [0, 3]);
/// ```
pub fn scatter_exchanged<G: GatherTarget + ?Sized>(
    log: GatherBuf<G::Item>,
    target: &mut G,
    exchange: Exchanger<G::Item>,
    var: &str,
    name: &str,
) {
    let elements = target.elements_mut();
    let placed = match log.scatter_values(elements) {
        Ok(placed) => placed,
        Err(conflict) => fail(&format!("loop {name}: {}", conflict.explain(var))),
    };
    if placed.is_empty() {
        return;
    }
    let Some(exchange) = exchange.0 else {
        fail(&format!(
            "loop {name}: gather({var}) holds ranges written in place on MPI ranks, but its \
             elements are not plain and cannot travel as bytes (a bug in dls: please report it)"
        ))
    };
    if let Err(e) = exchange(elements, &placed) {
        fail(&format!("loop {name}: gather({var}): {e}"));
    }
}

/// [`scatter`] for a gathered vector whose writes the body makes at elements other than the
/// loop's index (the macro could not show that each iterate writes its own element), so that
/// every write was logged: on threads, where the forms that write in place would, the first run
/// of each such loop says so once on stderr, with the number of writes logged and those forms.
///
/// `nd_array`: the gathered variable is an ndarray array ([`is_nd_array`]), whose form that
/// writes in place the message names.
///
/// ```
/// use dls_runtime::__private::{is_nd_array, scatter_logged, GatherBuf, GatherSlot};
/// let mut out = vec![0_u8; 4];
/// let mut log = GatherBuf::new();
/// GatherSlot::new(&out, &mut log)[3] = 1;
/// scatter_logged(log, is_nd_array(&out), &mut out[..], "out", "example");
/// assert_eq!(out, [0, 0, 0, 1]);
/// ```
pub fn scatter_logged<G: GatherTarget + ?Sized>(
    log: GatherBuf<G::Item>,
    nd_array: bool,
    target: &mut G,
    var: &str,
    name: &str,
) {
    let writes = log.len();
    if writes > 0 {
        note_logged(writes, var, name, nd_array);
    }
    scatter(log, target, var, name);
}

/// The loops (name, variable) whose logged writes were reported.
static NOTED: crate::runtime::annotate::sync::Mutex<Vec<(String, String)>> =
    crate::runtime::annotate::sync::Mutex::new(Vec::new());

/// Whether the gather target `target` is an ndarray array ([`GatherTarget::IS_ND_ARRAY`]).
///
/// ```
/// use dls_runtime::__private::is_nd_array;
/// assert!(!is_nd_array(&vec![1.0_f64]));
/// ```
pub fn is_nd_array<G: GatherTarget + ?Sized>(_target: &G) -> bool {
    G::IS_ND_ARRAY
}

/// Says once per loop and variable, on threads, that `writes` writes of `var` were logged;
/// `nd_array`: `var` is an ndarray array (the forms that write in place are its own).
#[cold]
fn note_logged(writes: usize, var: &str, name: &str, nd_array: bool) {
    let threads =
        crate::current().is_ok_and(|rt| matches!(rt.backend(), crate::Backend::Threads { .. }));
    if !threads {
        return;
    }
    let mut noted = NOTED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if noted.iter().any(|(n, v)| n == name && v == var) {
        return;
    }
    noted.push((name.to_string(), var.to_string()));
    drop(noted);
    crate::runtime::loops::panic_ctx::say_line(&logged_note(writes, var, name, nd_array));
}

/// The message of [`note_logged`].
fn logged_note(writes: usize, var: &str, name: &str, nd_array: bool) -> String {
    let (where_, forms) = if nd_array {
        (
            "outside the row of axis 0 that the loop's index names",
            format!(
                "An iterate i that uses `{var}` only in its own row, `{var}[[i, ..]]` (the first \
                 index the loop's name, as `{var}[[i, j]]` or `{var}[(i, j, k)]`), writes it in \
                 place with gather({var})"
            ),
        )
    } else {
        (
            "at elements other than the loop's index",
            format!(
                "An iterate that writes only row i of a grid w wide (`{var}[i * w + j]`) writes \
                 in place with gather({var}: rows(w)); one that writes only `{var}[i]` does with \
                 gather({var})"
            ),
        )
    };
    format!(
        "dls: loop {name}: gather({var}) logged {writes} writes (once for this loop): the body \
         writes `{var}` {where_}, so each write is kept in a log and copied into `{var}` after \
         the loop, which costs about {LOGGED_WRITE_COST} per write more than a write in place \
         (BENCHMARKS.md, jacobi_flat). {forms}"
    )
}

/// What a logged write costs more than one in place (the Jacobi sweep's `gather(v)` against
/// `gather(v: rows(n))`, `JACOBI_LOGGED=1 jacobi_flat`, BENCHMARKS.md: 0.12-0.34 µs of wall
/// time per write on a 2-core machine 90-95 % busy with other work).
const LOGGED_WRITE_COST: &str = "0.1-0.35 µs";

/// The writable elements of a gather target after the loop, as a method on every type so that
/// `out.scatter_elements()` reborrows an `out: &mut [T]` parameter without `mut` on it (as
/// `GatherTarget::elements_mut` would) and a target that is no [`GatherTarget`] is reported by
/// that trait's message at the variable, like [`gathers`] reports it, rather than as a missing
/// method.
///
/// ```
/// use dls_runtime::__private::ScatterTarget as _;
/// let mut v = vec![1, 2];
/// v.scatter_elements()[0] = 5;
/// assert_eq!(v, [5, 2]);
/// ```
pub trait ScatterTarget {
    /// [`GatherTarget::elements_mut`], for the types that are gather targets.
    fn scatter_elements(&mut self) -> &mut [<Self as Indexable>::Item]
    where
        Self: GatherTarget;
}

impl<T: ?Sized> ScatterTarget for T {
    fn scatter_elements(&mut self) -> &mut [<Self as Indexable>::Item]
    where
        Self: GatherTarget,
    {
        self.elements_mut()
    }
}

/// Starts the runtime for `#[dls::main]`: on error (bad `DLS_SCHEDULE`, `mpirun` without the
/// `mpi` feature, …) prints the reason and exits with status 1.
///
/// ```no_run
/// let _runtime = dls_runtime::__private::init_or_exit();
/// ```
pub fn init_or_exit() -> Runtime {
    match crate::init() {
        Ok(rt) => rt,
        Err(e) => {
            // Every rank reads the same settings and fails alike: under a launcher, rank 0 alone
            // says why (one readable message instead of P interleaved copies).
            // (`fail`: the other ranks wait for rank 0 to end the job.)
            fail(&e)
        }
    }
}

/// One `#[par_doall]` loop, as the macro describes it: a builder with one method per clause
/// given (`reduction = "..."`, `shared(...)`, an order-keeping merge, `check(...)`,
/// `group(...)`) and one of four runs, one per closure shape: [`Loop::run_iterates`] (a one-level
/// loop: the body goes through a run of consecutive iterates), [`Loop::run`] (a checked
/// one-level loop: one iterate per call, which returns its observation), [`Loop::run_2d`] (the
/// outer loop of a two-level loop) and [`Loop::run_inner`] (an inner loop).
/// The builder turns into the runtime's one [`LoopOptions`](crate::runtime::loops::options::LoopOptions);
/// any error of the runtime (a technique it refuses, a range too long) ends the program with
/// status 1 and a message naming the loop.
///
/// ```
/// use dls_runtime::__private::{observe_value, type_of, Loop};
/// let (v,) = Loop::new("count", "ss").run((type_of(&0_u32),), -5_i8..5, || (0_u32,),
///     |_, n| n.0 += 1, |a, b| (a.0 + b.0,));
/// assert_eq!(v, 10);
/// // An order-keeping merge that is also checked: the body returns the iterate's value.
/// let (s,) = Loop::new("words", "fac2").ordered().check(false)
///     .run((type_of(&String::new()),), 0..3u8, || (String::new(),),
///          |i, acc| { acc.0.push_str(["a", "b", "c"][i as usize]); Some(observe_value(i)) },
///          |a, b| (a.0 + &b.0,));
/// assert_eq!(s, "abc");
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Loop<'a> {
    name: &'a str,
    schedule: &'a str,
    reduction: Option<&'a str>,
    side_effects: bool,
    reads_in_place: bool,
    ordered: bool,
    check: Option<bool>,
    group: (usize, usize),
}

impl<'a> Loop<'a> {
    /// The loop `name` (its source location, or its `name = "..."`) with its schedule text.
    pub fn new(name: &'a str, schedule: &'a str) -> Loop<'a> {
        Loop {
            name,
            schedule,
            reduction: None,
            side_effects: false,
            reads_in_place: false,
            ordered: false,
            check: None,
            group: (1, usize::MAX),
        }
    }

    /// `reduction = "..."`: the strategy its partial results travel by (checked by the macro).
    pub fn reduction(self, strategy: &'a str) -> Loop<'a> {
        Loop {
            reduction: Some(strategy),
            ..self
        }
    }

    /// `shared(...)`: its iterates' side effects on the shared variables must happen once, so it
    /// does not re-execute iterates (unless the user sets `DLS_REEXECUTE=on`).
    pub fn shared(self) -> Loop<'a> {
        Loop {
            side_effects: true,
            ..self
        }
    }

    /// Some gathered vector is read and written in place (`gather(v)` used as `v[i]` and read),
    /// or written by rows (`gather(v: rows(W))`): under re-execution, where a copy of an
    /// iterate may run beside its first execution, a vector read in place is logged instead,
    /// every element copied into the log and scattered after the loop (issue 42: the k-means
    /// loop ran 1.3× slower with it on 2 threads), and a rows loop ran 1.5× slower (the Jacobi
    /// sweep). So the loop does not re-execute iterates by default; `DLS_REEXECUTE=on` turns
    /// re-execution back on.
    ///
    /// ```
    /// use dls_runtime::__private::Loop;
    /// let in_place = Loop::new("reads", "fac2").reads_in_place().writes_in_place();
    /// let threads = matches!(dls_runtime::current().unwrap().backend(),
    ///     dls_runtime::Backend::Threads { .. });
    /// let env = std::env::var_os("DLS_REEXECUTE").is_some()
    ///     || std::env::var_os("DLS_CHECKPOINT").is_some();
    /// assert!(in_place || !threads || env);
    /// ```
    pub fn reads_in_place(self) -> Loop<'a> {
        Loop {
            reads_in_place: true,
            ..self
        }
    }

    /// A merge function without `, unordered`: the partial results are combined in the
    /// iterates' order.
    pub fn ordered(self) -> Loop<'a> {
        Loop {
            ordered: true,
            ..self
        }
    }

    /// `check(...)`: the loop checks itself (in the iterates' own order when `exchangeable`);
    /// the body returns the iterate's observation.
    pub fn check(self, exchangeable: bool) -> Loop<'a> {
        Loop {
            check: Some(exchangeable),
            ..self
        }
    }

    /// `group(min = .., max = ..)`: the outer loop's groups of ranks.
    pub fn groups(self, min: usize, max: usize) -> Loop<'a> {
        Loop {
            group: (min, max),
            ..self
        }
    }

    /// Whether this loop's gathered vectors that its body uses only at the loop's own index
    /// (the macro checks that) are written in place ([`Place`]): the loop runs each iterate
    /// exactly once, on this process's threads: the threads backend, no `check`, no checkpoints
    /// (`DLS_CHECKPOINT`) and no re-execution (`DLS_REEXECUTE=off`, the runtime's, or a loop with
    /// `shared(...)` variables). Otherwise their writes are logged and scattered after the loop.
    ///
    /// ```
    /// use dls_runtime::__private::Loop;
    /// assert!(!Loop::new("checked", "ss").check(false).writes_in_place());
    /// ```
    pub fn writes_in_place(&self) -> bool {
        if self.check.is_some() {
            return false;
        }
        let Ok(rt) = crate::current() else {
            return false;
        };
        rt.runs_each_iterate_once((self.side_effects || self.reads_in_place).then_some(false))
    }

    /// Whether this loop's gathered vectors that its body only assigns to at the loop's index
    /// (`out[i] = …`, the macro checks that) are written in place by the first execution of each
    /// iterate: on this process's threads (the threads backend), without checkpoints
    /// (`DLS_CHECKPOINT`) or a check. Under re-execution a copy of unfinished iterates then logs
    /// its writes ([`GatherWriter::of_run`]), scattered over the first execution's after the
    /// loop if the copy is the one that counts; a body that also reads the element needs
    /// [`Loop::writes_in_place`] instead.
    ///
    /// ```
    /// use dls_runtime::__private::Loop;
    /// assert!(!Loop::new("checked", "ss").check(false).writes_assigned_in_place());
    /// ```
    pub fn writes_assigned_in_place(&self) -> bool {
        if self.check.is_some() {
            return false;
        }
        crate::current().is_ok_and(|rt| rt.runs_originals_here())
    }

    /// Where this loop's gathered vectors of plain elements that its body only assigns to at the
    /// loop's index (`out[i] = …`, or in the iterate's row: `gather(v: rows(w))`'s
    /// `v[i * w + j] = …`, an ndarray array's `a[[i, j]] = …`) are written in place by each MPI
    /// rank and exchanged between the ranks after the loop ([`Place::exchanged`],
    /// [`scatter_exchanged`]; a row travels whole): this process's
    /// rank. That is under MPI, for a loop over every rank (not nested in an iterate), without
    /// checkpoints (`DLS_CHECKPOINT`) or a check; a copy of unfinished iterates (re-execution)
    /// logs its writes, as on threads ([`Loop::writes_assigned_in_place`]).
    ///
    /// ```
    /// use dls_runtime::__private::Loop;
    /// assert_eq!(Loop::new("checked", "ss").check(false).exchanges_assigned_in_place(), None);
    /// let threads = matches!(dls_runtime::current().unwrap().backend(),
    ///     dls_runtime::Backend::Threads { .. });
    /// assert!(!threads || Loop::new("l", "ss").exchanges_assigned_in_place().is_none());
    /// ```
    pub fn exchanges_assigned_in_place(&self) -> Option<u32> {
        if self.check.is_some() {
            return None;
        }
        crate::current().ok()?.exchanges_originals()
    }

    /// The runtime's options of this loop.
    fn options(&self) -> Result<LoopOptions, DlsError> {
        // A `#[par_doall]` loop's statistics are dropped: none are built, and no CPU clocks are
        // read for them (a report, `DLS_REPORT`, still reads them).
        let mut options = LoopOptions::new(self.name, parsed(self.schedule)?).statistics_unread();
        if let Some(s) = self.reduction {
            options = options.reduction(s.parse()?);
        }
        if self.side_effects || self.reads_in_place {
            options = options.reexecute(false);
        }
        if self.ordered {
            options = options.ordered();
        }
        if let Some(exchangeable) = self.check {
            options = options.check(Check {
                exchangeable,
                seed: seed_of(self.name),
                ..Check::default()
            });
        }
        Ok(options)
    }

    /// Runs a one-level loop on the current runtime (the one `init` made, or a threads runtime):
    /// returns the combined accumulator, the same on every rank and thread. `identity` makes a
    /// worker's empty accumulator, `body` runs one iterate (returning its observation in a
    /// checked loop), `combine` merges two accumulators; `_partials` is the witness that the
    /// accumulator travels ([`crate::partials`]).
    pub fn run<R, T, W, Y, Id, B, C>(
        self,
        _partials: W,
        range: R,
        identity: Id,
        body: B,
        combine: C,
    ) -> T
    where
        R: LoopRange,
        T: Send,
        W: Partials<T>,
        Y: IterateValue,
        Id: Fn() -> T + Sync,
        B: Fn(R::Index, &mut T) -> Y + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        let run = || {
            let options = self.options()?;
            let (identity, combine) = coded::<T, W, _, _>(identity, combine);
            let body = move |i, acc: &mut Coded<T, W>| body(i, &mut acc.value);
            crate::current()?.run(&options, range, identity, body, combine)
        };
        or_exit(self.name, run()).0.into_inner()
    }

    /// [`Loop::run`] with a body that goes through a run of consecutive iterates itself
    /// ([`Iterates`]): what a one-level `#[par_doall]` loop that is not checked expands to
    /// (the user's body inside a `for` over the run, its reduction variables taken out of the
    /// accumulator once per run).
    ///
    /// ```
    /// use dls_runtime::__private::{type_of, Loop};
    /// // #[par_doall(schedule = "gss", reduce(+: s))] for i in 0..100u64 { s += i; }
    /// let (s,) = Loop::new("sum", "gss").run_iterates((type_of(&0_u64),), 0..100u64, || (0u64,),
    ///     |run, acc| {
    ///         let mut s = core::mem::take(&mut acc.0);
    ///         for i in run {
    ///             s += i;
    ///         }
    ///         acc.0 = s;
    ///     }, |a, b| (a.0 + b.0,));
    /// assert_eq!(s, 4950);
    /// ```
    pub fn run_iterates<R, T, W, Id, B, C>(
        self,
        _partials: W,
        range: R,
        identity: Id,
        body: B,
        combine: C,
    ) -> T
    where
        R: LoopRange,
        T: Send,
        W: Partials<T>,
        Id: Fn() -> T + Sync,
        B: Fn(Iterates<R::Index>, &mut T) + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        let run = || {
            let options = self.options()?;
            // Another process's partial results are read into this one's where one of them is
            // a map merged as it is read (`Partials::read_into`); otherwise they are decoded and
            // merged, as the explicit API does.
            let read = crate::partials::read_coded::<T, W>(&combine);
            let read = W::MERGES_AS_READ.then_some(&read as ReadInto<'_, _>);
            // A process's workers merge such maps as key shards where a tree of merges would
            // grow with them (`partials::shard_coded`; the engine decides when).
            let shard = crate::partials::shard_coded::<T, W>(&combine);
            let shard = W::SHARDS.then_some(&shard as ShardMerge<'_, _>);
            let (identity, combine) = coded::<T, W, _, _>(identity, &combine);
            let body =
                move |run: Iterates<R::Index>, acc: &mut Coded<T, W>| body(run, &mut acc.value);
            let plan = Plan {
                read,
                shard,
                logged: Some(|total: &Coded<T, W>| W::logged_writes(&total.value)),
                ..Plan::default()
            };
            let red = Reduction {
                identity,
                body,
                combine,
            };
            crate::current()?.run_iterates_planned(&options, range, red, plan)
        };
        or_exit(self.name, run()).0.into_inner()
    }

    /// Runs the outer loop of a two-level loop on the current runtime: groups of `min..=max`
    /// ranks ([`Loop::groups`], `DLS_RACKS`), the outer iterates of `range` scheduled among the
    /// groups, `body(j, inner, acc)` run in lock step by the ranks of a group (its inner loops
    /// use `inner`). Returns the combined accumulator on every rank.
    ///
    /// ```
    /// use dls_runtime::__private::{type_of, Loop};
    /// // #[par_doall(schedule = "af", group(min = 2, max = 4), reduce(+: total))]
    /// // for j in 0..10u64 { let n = j; #[par_doall(schedule = "fac2", reduce(+: s))] for i in 0..n { s += i; } total += s; }
    /// let w = (type_of(&0_u64),);
    /// let (total,) = Loop::new("2d", "af").groups(2, 4).run_2d(w, 0..10u64, || (0u64,),
    ///     |j, inner, acc| {
    ///         let n = j;
    ///         let (s,) = Loop::new("inner", "fac2").run_inner(inner, w, 0..n, || (0u64,),
    ///             |i, a| a.0 += i, |a, b| (a.0 + b.0,));
    ///         acc.0 += s;
    ///     }, |a, b| (a.0 + b.0,));
    /// assert_eq!(total, (0..10u64).map(|j| j * j.saturating_sub(1) / 2).sum::<u64>());
    /// ```
    pub fn run_2d<R, T, W, Id, B, C>(
        self,
        _partials: W,
        range: R,
        identity: Id,
        body: B,
        combine: C,
    ) -> T
    where
        R: LoopRange,
        T: Send,
        W: Partials<T>,
        Id: Fn() -> T + Sync,
        B: Fn(R::Index, &mut InnerLoops<'_>, &mut T) + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        let run = || {
            let options = self.options()?;
            let (identity, combine) = coded::<T, W, _, _>(identity, combine);
            let rt = crate::current()?;
            let mut groups = rt.group_setup(GroupSpec::new(self.group.0, self.group.1))?;
            let body = |j, inner: &mut InnerLoops<'_>, acc: &mut Coded<T, W>| {
                body(j, inner, &mut acc.value);
                Ok(())
            };
            groups.run(&options, range, identity, body, combine)
        };
        or_exit(self.name, run()).0.into_inner()
    }

    /// Runs an inner loop of a two-level loop over the ranks of `inner`'s group (its partial
    /// results travel as the outer loop's: no `reduction`). Returns the combined accumulator on
    /// every rank of the group.
    ///
    /// ```
    /// use dls_runtime::__private::{type_of, Loop};
    /// let mut inner = dls_runtime::group::InnerLoops::solo();
    /// let (n,) = Loop::new("count", "gss").run_inner(&mut inner, (type_of(&0_u32),), 0..7u8,
    ///     || (0_u32,), |_, n| n.0 += 1, |a, b| (a.0 + b.0,));
    /// assert_eq!(n, 7);
    /// ```
    pub fn run_inner<R, T, W, Y, Id, B, C>(
        self,
        inner: &mut InnerLoops<'_>,
        _partials: W,
        range: R,
        identity: Id,
        mut body: B,
        combine: C,
    ) -> T
    where
        R: LoopRange,
        W: Partials<T>,
        Y: IterateValue,
        Id: Fn() -> T,
        B: FnMut(R::Index, &mut T) -> Y,
        C: Fn(T, T) -> T,
    {
        let run = || {
            let options = self.options()?;
            let identity = move || Coded::<T, W>::new(identity());
            let combine =
                move |a: Coded<T, W>, b: Coded<T, W>| Coded::new(combine(a.value, b.value));
            let body = move |i, acc: &mut Coded<T, W>| body(i, &mut acc.value);
            inner.run(&options, range, identity, combine, body)
        };
        or_exit(self.name, run()).into_inner()
    }
}

/// The identity and merge of a loop over [`Coded`] partial results, from those over the plain
/// tuple (what travels is encoded by the witness `W`).
#[allow(clippy::type_complexity)]
fn coded<T, W, Id, C>(
    identity: Id,
    combine: C,
) -> (
    impl Fn() -> Coded<T, W> + Sync,
    impl Fn(Coded<T, W>, Coded<T, W>) -> Coded<T, W> + Sync,
)
where
    Id: Fn() -> T + Sync,
    C: Fn(T, T) -> T + Sync,
{
    (
        move || Coded::new(identity()),
        move |a: Coded<T, W>, b: Coded<T, W>| Coded::new(combine(a.value, b.value)),
    )
}

/// A checked loop's permutation seed, from its name (the same on every rank and every run).
fn seed_of(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// The observation of a `check(anova: y)` clause.
///
/// ```
/// assert_eq!(dls_runtime::__private::observe_value(2_u8).predictors(), 0);
/// ```
pub fn observe_value<V: CheckedValue>(y: V) -> Observation {
    Observation::value(y.to_f64())
}

/// The observation of a `check(regression(x1, …): y)` clause.
///
/// ```
/// let o = dls_runtime::__private::observe_row([1.0, 2.0], 3_i32);
/// assert_eq!(o.predictors(), 2);
/// ```
pub fn observe_row<const N: usize, V: CheckedValue>(x: [f64; N], y: V) -> Observation {
    Observation::row(&x, y.to_f64())
}

/// The value a `check(...)` clause tests, as `f64`.
///
/// ```
/// assert_eq!(dls_runtime::__private::checked_value(3_u32), 3.0);
/// ```
pub fn checked_value<V: CheckedValue>(value: V) -> f64 {
    value.to_f64()
}

/// A zero-sized token of the type of `value`: lets generated code name the type of a reduction
/// variable without spelling it.
///
/// ```
/// use dls_runtime::__private::{identity, type_of, Max};
/// let e: u8 = identity(&Max, type_of(&0_u8));
/// assert_eq!(e, 0);
/// ```
pub fn type_of<T>(_value: &T) -> PhantomData<fn(Whole) -> T> {
    PhantomData
}

/// The identity of `op` for the type named by `ty` (see [`type_of`]).
///
/// ```
/// use dls_runtime::__private::{identity, type_of, Min};
/// assert_eq!(identity(&Min, type_of(&1.0_f64)), f64::INFINITY);
/// ```
pub fn identity<T, O: Operator<T>>(op: &O, _ty: PhantomData<fn(Whole) -> T>) -> T {
    op.identity()
}

/// The identity of `op` shaped like the reduction variable `like` ([`Operator::identity_like`]):
/// what each worker's private copy of a `reduce(+: v)` (`*`, `max`, `min`) variable starts from.
///
/// ```
/// use dls_runtime::__private::{identity_like, Sum};
/// assert_eq!(identity_like(&Sum, &vec![2.0_f64; 3]), [0.0; 3]);
/// ```
pub fn identity_like<T, O: Operator<T>>(op: &O, like: &T) -> T {
    op.identity_like(like)
}

/// The operator of `reduce(+: x)` for the type named by `ty`, chosen at compile time by autoref
/// (the method of the impl with the most references that applies wins):
///
/// 1. [`PickBuiltIn`]: a [`Reducible`] type (numbers, the element-wise containers and maps): the
///    operator itself ([`Sum`]), element by element;
/// 2. [`PickAdd`]: a type with `Add<Output = T>` and `Default` (only for `Sum`): [`AddDefault`];
/// 3. [`PickAny`]: anything else: the operator itself again, whose `Operator<T>` bound then fails
///    with the message of [`Reducible`] (which lists what works and the merge form).
///
/// Generated code calls `(&&&pick(Sum, type_of(&x))).__dls_operator()` with the three traits in
/// scope. Coherence forbids expressing this with impls of [`Operator`] alone (a blanket impl
/// over `Add` types would overlap the one over `Vec`).
///
/// ```
/// use dls_runtime::__private::{pick, type_of, Operator, PickAdd, PickAny, PickBuiltIn, Sum};
/// #[derive(Default, Debug, PartialEq)]
/// struct Meters(u32);
/// impl std::ops::Add for Meters {
///     type Output = Meters;
///     fn add(self, o: Meters) -> Meters { Meters(self.0 + o.0) }
/// }
/// let v = vec![1_u8, 2];
/// let op = (&&&pick(Sum, type_of(&v))).__dls_operator();
/// assert_eq!(op.combine(v, vec![1, 1]), [2, 3]);
/// let m = Meters(1);
/// let op = (&&&pick(Sum, type_of(&m))).__dls_operator();
/// assert_eq!(op.combine(m, Meters(2)), Meters(3));
/// ```
pub fn pick<O, T>(op: O, _ty: PhantomData<fn(Whole) -> T>) -> Pick<O, T> {
    Pick(op, PhantomData)
}

/// An operator and the type it is for; see [`pick`].
#[derive(Debug)]
pub struct Pick<O, T>(O, PhantomData<fn() -> T>);

/// First choice of [`pick`]: the built-in element-wise operator, for [`Reducible`] types.
pub trait PickBuiltIn<O> {
    /// The operator.
    fn __dls_operator(&self) -> O;
}

impl<O: Copy, T: Reducible<O>> PickBuiltIn<O> for &&Pick<O, T> {
    fn __dls_operator(&self) -> O {
        self.0
    }
}

/// Second choice of [`pick`]: [`AddDefault`] for `+` on a type with `Add` and `Default`.
pub trait PickAdd {
    /// The operator.
    fn __dls_operator(&self) -> AddDefault;
}

impl<T: Default + std::ops::Add<Output = T>> PickAdd for &Pick<Sum, T> {
    fn __dls_operator(&self) -> AddDefault {
        AddDefault
    }
}

/// Last choice of [`pick`]: the operator, whose use then reports what the type lacks.
pub trait PickAny<O> {
    /// The operator.
    fn __dls_operator(&self) -> O;
}

impl<O: Copy, T> PickAny<O> for Pick<O, T> {
    fn __dls_operator(&self) -> O {
        self.0
    }
}

/// The slot marker of a `reduce` variable with the built-in operator `op` (see
/// [`crate::partials`]), chosen at compile time by autoref as [`pick`] chooses the operator:
///
/// 1. [`SlotOfMap`]: a `HashMap` or `BTreeMap` that a built-in operator combines key by key, of
///    keys and values that travel: `PhantomData<fn(Keyed<O>) -> T>` ([`Keyed`]), which merges
///    another process's map into this one's as its bytes are read;
/// 2. [`SlotOfAny`]: anything else: `PhantomData<fn(Whole) -> T>` (the value is read, then
///    merged).
///
/// Generated code calls `(&&slot_of(&op, type_of(&x))).__dls_slot()` with both traits in scope.
///
/// ```
/// use std::collections::HashMap;
/// use std::marker::PhantomData;
/// use dls_runtime::__private::{slot_of, type_of, Keyed, SlotOfAny, SlotOfMap, Sum, Whole};
/// let counts: HashMap<String, u64> = HashMap::new();
/// let _map: PhantomData<fn(Keyed<Sum>) -> HashMap<String, u64>> =
///     (&&slot_of(&Sum, type_of(&counts))).__dls_slot();
/// let _whole: PhantomData<fn(Whole) -> f64> = (&&slot_of(&Sum, type_of(&0.0_f64))).__dls_slot();
/// ```
pub fn slot_of<O, T>(_op: &O, _ty: PhantomData<fn(Whole) -> T>) -> SlotOf<O, T> {
    SlotOf(PhantomData)
}

/// An operator's type and the variable's type; see [`slot_of`].
#[derive(Debug)]
pub struct SlotOf<O, T>(PhantomData<fn() -> (O, T)>);

/// First choice of [`slot_of`]: a map combined key by key.
pub trait SlotOfMap<O, T> {
    /// The slot marker.
    fn __dls_slot(&self) -> PhantomData<fn(Keyed<O>) -> T>;
}

impl<O, T> SlotOfMap<O, T> for &SlotOf<O, T>
where
    O: BuiltIn + Default,
    T: KeyedMap<O> + Wire,
    T::Key: Wire + Send,
    T::Value: Wire + Send,
{
    fn __dls_slot(&self) -> PhantomData<fn(Keyed<O>) -> T> {
        PhantomData
    }
}

/// Last choice of [`slot_of`]: the marker of a value read whole.
pub trait SlotOfAny<T> {
    /// The slot marker.
    fn __dls_slot(&self) -> PhantomData<fn(Whole) -> T>;
}

impl<O, T> SlotOfAny<T> for SlotOf<O, T> {
    fn __dls_slot(&self) -> PhantomData<fn(Whole) -> T> {
        PhantomData
    }
}

/// An empty `reduce(append: v)` log for the element type of `v` (named by `ty`, see
/// [`type_of`]).
///
/// ```
/// use dls_runtime::__private::{append_identity, type_of};
/// let v: Vec<char> = Vec::new();
/// assert!(append_identity(type_of(&v)).is_empty());
/// ```
pub fn append_identity<V: AppendTarget>(_ty: PhantomData<fn(Whole) -> V>) -> AppendBuf<V::Item> {
    AppendBuf::new()
}

/// After a `reduce(append: v)` loop: appends the iterates' items to `v` in iteration order.
///
/// ```
/// use dls_runtime::__private::{append, AppendBuf, AppendSlot};
/// let mut v = vec![0];
/// let mut log = AppendBuf::new();
/// AppendSlot::new(&mut log, 1_usize).push(2);
/// AppendSlot::new(&mut log, 0_usize).push(1);
/// append(log, &mut v);
/// assert_eq!(v, [0, 1, 2]);
/// ```
pub fn append<V: AppendTarget + ?Sized>(log: AppendBuf<V::Item>, target: &mut V) {
    target.append_log(log);
}

/// Checks at compile time, at the variable's token, that a reduction variable can travel between
/// workers (serde's `Serialize` and `Deserialize`, [`Wire`]) and threads (`Send`).
///
/// ```
/// dls_runtime::__private::travels(&vec![1.0_f64]);
/// ```
pub fn travels<T: Wire + Send>(_value: &T) {}

/// A worker's copy of a `reduce(merge, identity = …: x)` variable, taken out of its slot for one
/// iterate (the type need not be `Default`, so the slot is an `Option`; the iterate puts the copy
/// back).
///
/// ```
/// let mut slot = Some(vec![0.0_f64; 2]);
/// let mine = dls_runtime::__private::take_partial(&mut slot);
/// assert_eq!((mine.len(), slot), (2, None));
/// ```
pub fn take_partial<T>(slot: &mut Option<T>) -> T {
    match slot.take() {
        Some(value) => value,
        None => unreachable!("a worker's partial result is put back after each iterate"),
    }
}

/// Two partial results of a `reduce(merge, identity = …: x)` variable, combined.
///
/// ```
/// use dls_runtime::__private::{combine_partials, MergeFrom};
/// let op = MergeFrom(|a: u8, b: u8| a.max(b), 0);
/// assert_eq!(combine_partials(&op, Some(3), Some(5)), Some(5));
/// assert_eq!(combine_partials(&op, None, Some(5)), Some(5));
/// ```
pub fn combine_partials<T, O: Operator<T>>(op: &O, a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(op.combine(a, b)),
        (a, b) => a.or(b),
    }
}

/// The value of a `reduce(merge, identity = …: x)` variable after the loop: its value before the
/// loop combined with the total.
///
/// ```
/// use dls_runtime::__private::{combine_total, MergeFrom};
/// let op = MergeFrom(|a: u8, b: u8| a + b, 0);
/// assert_eq!(combine_total(&op, 1, Some(2)), 3);
/// ```
pub fn combine_total<T, O: Operator<T>>(op: &O, before: T, total: Option<T>) -> T {
    match total {
        Some(total) => op.combine(before, total),
        None => before,
    }
}

/// Checks at compile time, at the variable's token, that the items of a `reduce(append: v)`
/// variable can travel between workers (serde, [`Wire`]) and threads (`Send`), and that `v` is a
/// `Vec` ([`AppendTarget`]).
///
/// ```
/// dls_runtime::__private::items_travel(&vec![(1_u8, 'x')]);
/// ```
pub fn items_travel<V>(_target: &V)
where
    V: AppendTarget + ?Sized,
    V::Item: Wire + Send,
{
}

/// The marker of a `reduce(append: v)` variable's partial result (its items' log), for the
/// witness of [`Partials`]; `ty` is [`type_of`] the variable.
///
/// ```
/// let w = dls_runtime::__private::append_partial(dls_runtime::__private::type_of(&vec![1_u8]));
/// let _: std::marker::PhantomData<fn(dls_runtime::__private::Whole) -> dls_runtime::__private::AppendBuf<u8>> = w;
/// ```
pub fn append_partial<V: AppendTarget + ?Sized>(
    _ty: PhantomData<fn(Whole) -> V>,
) -> Marker<AppendBuf<V::Item>> {
    PhantomData
}

/// The marker of a `reduce(f, identity = …: x)` variable's partial result (kept in an `Option`),
/// for the witness of [`Partials`]; `ty` is [`type_of`] the variable.
///
/// ```
/// let w = dls_runtime::__private::option_partial(dls_runtime::__private::type_of(&1_u8));
/// let _: std::marker::PhantomData<fn(dls_runtime::__private::Whole) -> Option<u8>> = w;
/// ```
pub fn option_partial<T>(_ty: PhantomData<fn(Whole) -> T>) -> PhantomData<fn(Whole) -> Option<T>> {
    PhantomData
}

/// The marker of a `gather(v)` variable's partial result (its write log), for the witness of
/// [`Partials`].
///
/// ```
/// let w = dls_runtime::__private::gather_partial(&vec![1.0_f64]);
/// let _: std::marker::PhantomData<fn(dls_runtime::__private::Whole) -> dls_runtime::__private::GatherBuf<f64>> = w;
/// ```
pub fn gather_partial<G: GatherTarget + ?Sized>(_target: &G) -> Marker<GatherBuf<G::Item>> {
    PhantomData
}

/// The witness that a gathered vector written through a [`Place`] travels, as
/// [`gather_partial`] for the vector itself.
///
/// ```
/// let mut v = vec![1.0_f64];
/// let place = dls_runtime::__private::Place::logged(&mut v);
/// let _ = dls_runtime::__private::place_partial(&place);
/// ```
pub fn place_partial<T>(_place: &Place<'_, T>) -> PhantomData<fn(Log) -> GatherBuf<T>> {
    PhantomData
}

/// The witness that a gathered vector written through a [`BlockPlace`] travels, as
/// [`gather_partial`] for the vector itself.
///
/// ```
/// use dls_runtime::__private::{block_partial, BlockPlace, Place, Rows};
/// let mut v = vec![1.0_f64; 4];
/// let rows = BlockPlace::new(Place::logged(&mut v), Rows::new(2), 0..2, "v");
/// let _ = block_partial(&rows);
/// ```
pub fn block_partial<T, B>(_place: &BlockPlace<'_, T, B>) -> PhantomData<fn(Log) -> GatherBuf<T>> {
    PhantomData
}

/// The vector of `gather(var: rows(width))` during the loop over `range`: `place` with the
/// blocks [`Rows`] of the loop's iterates. A loop whose first index is negative ends the
/// program (a row's number is an index of the vector).
///
/// ```
/// use dls_runtime::__private::{block_place, Place};
/// let mut v = vec![0_u8; 6];
/// let rows = block_place(Place::logged(&mut v), 3, &(1..2_u32), "v", "example");
/// assert_eq!(rows.iterates(), 1..2);
/// ```
pub fn block_place<'a, T, R>(
    place: Place<'a, T>,
    width: usize,
    range: &R,
    var: &'a str,
    name: &str,
) -> BlockPlace<'a, T, Rows>
where
    R: LoopRange,
    R::Index: TryInto<usize>,
{
    let (first, len) = or_exit(name, range.first_and_len());
    let iterates = if len == 0 {
        0..0
    } else {
        let Ok(first) = first.try_into() else {
            fail(&format!(
                "loop {name}: gather({var}: rows({width})) numbers the rows by the loop's index,                  which starts below 0 here; loop over 0.. or the rows' own numbers"
            ))
        };
        first..usize::try_from(len).map_or(usize::MAX, |l| first.saturating_add(l))
    };
    BlockPlace::new(place, Rows::new(width), iterates, var)
}

/// The row number of iterate `index` of a loop with `gather(v: rows(W))` (the loop's index as
/// a `usize`; [`block_place`] refused negative ones before the loop).
///
/// ```
/// assert_eq!(dls_runtime::__private::block_iterate(7_i32), 7);
/// ```
#[inline]
pub fn block_iterate<I: TryInto<usize>>(index: I) -> usize {
    index.try_into().unwrap_or(usize::MAX)
}

#[cfg(feature = "ndarray")]
pub use crate::nd::rows::{
    nd_with_row, standard_shape as nd_shape, NdBlockAccess, NdBlockPlace, NdBlockRow, NdBlockSet,
};

/// The array of `gather(a)` during the loop over `range`, where every use of `a` in the body is
/// an element whose first index is the loop's (`a[[i, j]]`): `place` (its elements in row-major
/// order) with its shape `shape`, each iterate `i` owning row `i` of axis 0 (issue 45,
/// `dls-runtime/src/nd/rows.rs`). A loop whose first index is negative ends the program (a
/// row's number is an index of the array).
///
/// ```
/// use dls_runtime::__private::{nd_block_place, nd_shape, Place};
/// let mut a = ndarray::Array2::<u8>::zeros((3, 2));
/// let shape = nd_shape(&a);
/// let rows = nd_block_place(Place::logged(a.as_slice_mut().unwrap()), shape, &(1..3_i64), "a", "example");
/// assert_eq!((rows.iterates(), rows.row_len()), (1..3, 2));
/// ```
#[cfg(feature = "ndarray")]
pub fn nd_block_place<'a, T, D, R>(
    place: Place<'a, T>,
    shape: D,
    range: &R,
    var: &'a str,
    name: &str,
) -> NdBlockPlace<'a, T, D>
where
    D: ndarray::Dimension,
    R: LoopRange,
    R::Index: TryInto<usize>,
{
    let (first, len) = or_exit(name, range.first_and_len());
    let iterates = if len == 0 {
        0..0
    } else {
        let Ok(first) = first.try_into() else {
            fail(&format!(
                "loop {name}: gather({var}) writes row i of `{var}` (`{var}[[i, ..]]`) in place, \
                 numbering the rows by the loop's index, which starts below 0 here; loop over 0.. \
                 or the rows' own numbers"
            ))
        };
        first..usize::try_from(len).map_or(usize::MAX, |l| first.saturating_add(l))
    };
    NdBlockPlace::new(place, shape, iterates, var)
}

/// [`gather_of`] for a gathered ndarray array written through an [`NdBlockPlace`]: plain elements
/// travel as bytes.
///
/// ```
/// use std::marker::PhantomData;
/// use dls_runtime::__private::{nd_block_place, nd_gather_of_place, GatherBuf, GatherOfAny, GatherOfPlain, Place, Plain};
/// let mut v = vec![0.0_f64; 4];
/// let rows = nd_block_place(Place::logged(&mut v), ndarray::Ix2(2, 2), &(0..2_usize), "a", "example");
/// let _bytes: PhantomData<fn(Plain) -> GatherBuf<f64>> =
///     (&&nd_gather_of_place(&rows)).__dls_gather_slot();
/// ```
#[cfg(feature = "ndarray")]
pub fn nd_gather_of_place<T, D>(_place: &NdBlockPlace<'_, T, D>) -> GatherOf<T> {
    GatherOf(PhantomData)
}

/// The slot marker of a `gather(v)` variable's log, chosen at compile time by autoref as
/// [`slot_of`] chooses a `reduce` variable's:
///
/// 1. [`GatherOfPlain`]: plain elements ([`crate::plain::Pod`]: numbers, arrays and `#[repr(C)]`
///    structs of them): `PhantomData<fn(Plain) -> GatherBuf<T>>` ([`Plain`]), whose runs travel
///    between processes as their bytes;
/// 2. [`GatherOfAny`]: any other element: `PhantomData<fn(Log) -> GatherBuf<T>>` ([`Log`]),
///    serialised element by element.
///
/// Generated code calls `(&&gather_of(&v)).__dls_gather_slot()` (or [`gather_of_place`] for a
/// vector written through a [`Place`]) with both traits in scope.
///
/// ```
/// use std::marker::PhantomData;
/// use dls_runtime::__private::{gather_of, GatherBuf, GatherOfAny, GatherOfPlain, Log, Plain};
/// let _bytes: PhantomData<fn(Plain) -> GatherBuf<[f32; 3]>> =
///     (&&gather_of(&vec![[0.0_f32; 3]])).__dls_gather_slot();
/// let _serialised: PhantomData<fn(Log) -> GatherBuf<String>> =
///     (&&gather_of(&vec![String::new()])).__dls_gather_slot();
/// ```
pub fn gather_of<G: GatherTarget + ?Sized>(_target: &G) -> GatherOf<G::Item> {
    GatherOf(PhantomData)
}

/// [`gather_of`] for a gathered vector written through a [`Place`].
///
/// ```
/// use dls_runtime::__private::{gather_of_place, GatherOfAny, GatherOfPlain, Place};
/// let mut v = vec![1.0_f64];
/// let place = Place::logged(&mut v);
/// let _ = (&&gather_of_place(&place)).__dls_gather_slot();
/// ```
pub fn gather_of_place<T>(_place: &Place<'_, T>) -> GatherOf<T> {
    GatherOf(PhantomData)
}

/// A gathered vector's element type; see [`gather_of`].
#[derive(Debug)]
pub struct GatherOf<T>(PhantomData<fn() -> T>);

/// First choice of [`gather_of`]: plain elements, whose runs travel as bytes.
pub trait GatherOfPlain<T> {
    /// The slot marker.
    fn __dls_gather_slot(&self) -> PhantomData<fn(Plain) -> GatherBuf<T>>;
    /// How elements written in place travel between MPI ranks: as their bytes.
    fn __dls_exchange(&self) -> Exchanger<T>;
}

impl<T: crate::plain::Pod> GatherOfPlain<T> for &GatherOf<T> {
    fn __dls_gather_slot(&self) -> PhantomData<fn(Plain) -> GatherBuf<T>> {
        PhantomData
    }
    fn __dls_exchange(&self) -> Exchanger<T> {
        Exchanger(Some(exchange_plain::<T>))
    }
}

/// Last choice of [`gather_of`]: elements serialised one by one.
pub trait GatherOfAny<T> {
    /// The slot marker.
    fn __dls_gather_slot(&self) -> PhantomData<fn(Log) -> GatherBuf<T>>;
    /// How elements written in place travel between MPI ranks: they do not (such elements are
    /// logged under MPI, their values serialised).
    fn __dls_exchange(&self) -> Exchanger<T>;
}

impl<T> GatherOfAny<T> for GatherOf<T> {
    fn __dls_gather_slot(&self) -> PhantomData<fn(Log) -> GatherBuf<T>> {
        PhantomData
    }
    fn __dls_exchange(&self) -> Exchanger<T> {
        Exchanger(None)
    }
}

/// How the elements of a gathered vector that MPI ranks wrote in place reach the other ranks
/// after the loop (issue 42 part 4): for plain elements ([`crate::plain::Pod`]), chosen by
/// autoref (`(&&gather_of(&v)).__dls_exchange()`, see [`gather_of`]), as their bytes, straight
/// between the ranks' vectors; for any other element, not at all: under MPI such a vector is
/// logged ([`Exchanger::owner`] is then `None`).
///
/// ```
/// use dls_runtime::__private::{gather_of, GatherOfAny, GatherOfPlain};
/// assert_eq!((&&gather_of(&vec![0.0_f64])).__dls_exchange().owner(Some(1)), Some(1));
/// assert_eq!((&&gather_of(&vec![String::new()])).__dls_exchange().owner(Some(1)), None);
/// ```
pub struct Exchanger<T>(Option<ExchangeFn<T>>);

/// The exchange of an [`Exchanger`]: the vector's elements and the ranges written in place.
type ExchangeFn<T> = fn(&mut [T], &[(u32, u64, u64)]) -> Result<(), DlsError>;

impl<T> std::fmt::Debug for Exchanger<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Exchanger").field(&self.0.is_some()).finish()
    }
}

impl<T> Exchanger<T> {
    /// The rank whose writers write this vector in place and record their ranges
    /// ([`Place::exchanged`]): `rank` ([`Loop::exchanges_assigned_in_place`]) where the
    /// elements travel as bytes, else `None`.
    ///
    /// ```
    /// use dls_runtime::__private::{gather_of, GatherOfAny, GatherOfPlain};
    /// assert_eq!((&&gather_of(&vec![1_u8])).__dls_exchange().owner(None), None);
    /// ```
    pub fn owner(&self, rank: Option<u32>) -> Option<u32> {
        rank.filter(|_| self.0.is_some())
    }
}

/// The exchange of plain elements: their bytes between the ranks' vectors.
fn exchange_plain<T: crate::plain::Pod>(
    elements: &mut [T],
    placed: &[(u32, u64, u64)],
) -> Result<(), DlsError> {
    crate::current()?.exchange_placed(
        bytemuck::cast_slice_mut(elements),
        std::mem::size_of::<T>(),
        placed,
    )
}

/// Checks at compile time, at the variable's token, that a `reduce(…, identity = …: x)`
/// variable's type gives every worker a copy of the start value ([`StartValue`]); takes the
/// variable's type as a marker ([`type_of`]), so that the compiler suggests no borrow.
///
/// ```
/// use dls_runtime::__private::{starts_each_worker, type_of};
/// starts_each_worker(type_of(&String::new()));
/// ```
pub fn starts_each_worker<T: StartValue>(_ty: PhantomData<fn(Whole) -> T>) {}

/// Checks at compile time, at the variable's token, that the elements of a `gather(v)` target
/// can be written by the workers and travel between ranks ([`GatherItem`]).
///
/// ```
/// dls_runtime::__private::gathers(&vec![1.0_f64]);
/// ```
pub fn gathers<G>(_target: &G)
where
    G: GatherTarget + ?Sized,
    G::Item: GatherItem,
{
}

/// The read-only view of a gather target during the loop (what reads of `out[k]` see).
///
/// ```
/// let v = vec![1, 2];
/// assert_eq!(dls_runtime::__private::view(&v), &[1, 2]);
/// ```
pub fn view<G: GatherTarget + ?Sized>(target: &G) -> &[G::Item] {
    target.as_elements()
}

/// The elements of `collection` as a slice (what a loop over `&v`, `v.iter()` or
/// `v.iter().enumerate()` indexes).
///
/// ```
/// let a = [1.0, 2.0];
/// let s: &[f64] = &a[..];
/// assert_eq!(dls_runtime::__private::elements(&s), &[1.0, 2.0]);
/// ```
pub fn elements<C: Indexable + ?Sized>(collection: &C) -> &[C::Item] {
    collection.as_elements()
}

/// A reference to an [`Indexable`] collection, as in `for x in v` where `v: &Vec<T>` or `v: &[T]`.
///
/// ```
/// use dls_runtime::__private::Borrowed;
/// let v = vec![1, 2];
/// let r = &v;
/// assert_eq!(r.slice(), &[1, 2]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`#[par_doall]` would iterate over `{Self}` by value; it loops over a range or a reference to an indexable collection (Vec, array, slice)",
    label = "not a range or a reference to a Vec, array or slice",
    note = "loop over `&v` (the items are then references), or over `0..n` and look the items up by index"
)]
pub trait Borrowed<'a> {
    /// Element type.
    type Item: 'a;
    /// The elements as a slice.
    fn slice(self) -> &'a [Self::Item];
}

impl<'a, C: Indexable + ?Sized> Borrowed<'a> for &'a C {
    type Item = C::Item;
    fn slice(self) -> &'a [C::Item] {
        self.as_elements()
    }
}

/// The elements behind a reference to a collection (what `for x in v` reads when `v` is a
/// reference).
///
/// ```
/// let a = [5, 6];
/// let r: &[i32] = &a;
/// assert_eq!(dls_runtime::__private::borrowed(r), &[5, 6]);
/// ```
pub fn borrowed<'a, B: Borrowed<'a>>(reference: B) -> &'a [B::Item] {
    reference.slice()
}

#[cfg(test)]
mod tests {
    /// The message of a logged loop names the form that writes in place for the target's kind.
    #[test]
    fn the_logged_note_names_the_ndarray_form_for_an_array() {
        let nd = super::logged_note(12, "a", "l", true);
        assert!(
            nd.contains("`a[[i, ..]]`") && nd.contains("with gather(a)"),
            "{nd}"
        );
        assert!(!nd.contains("rows(w)"), "{nd}");
        let flat = super::logged_note(12, "v", "l", false);
        assert!(
            flat.contains("gather(v: rows(w))") && !flat.contains("[["),
            "{flat}"
        );
    }
}
