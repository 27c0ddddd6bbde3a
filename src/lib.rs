//! **dls**: turn a serial loop into a dynamically load-balanced parallel loop, on threads or on a
//! cluster under `mpirun`.
//!
//! # Quick start
//!
//! In `Cargo.toml` (dls is not on crates.io: depend on a clone of its repository by `path`, or
//! by `git`):
//!
//! ```toml
//! [dependencies]
//! dls = { path = "../dls" }
//!
//! [features]
//! mpi = ["dls/mpi"]   # `cargo build --features mpi`: the version that runs under mpirun
//! ```
//!
//! Mark the function with [`main`] (or [`parallel`] for any other function) and the loop with
//! `#[par_doall(...)]`; the body stays as it was:
//!
//! ```
//! #[dls::main]
//! fn main() {
//!     let n = 100_000_u64;
//!     let mut total = 0_u64;
//!     #[par_doall(schedule = "af", reduce(+: total))]
//!     for i in 0..n {
//!         total += i % 7;
//!     }
//!     assert_eq!(total, (0..n).map(|i| i % 7).sum::<u64>());
//! }
//! ```
//!
//! The iterates are shared among the workers in chunks sized by the technique (`af` here); each
//! worker adds into its own copy of `total`, and the copies are added after the loop. Several
//! clauses together, and a type of your own that travels between ranks:
//!
//! ```
//! #[derive(Debug, Default, Clone, PartialEq, dls::Serialize, dls::Deserialize)]
//! #[serde(crate = "dls::serde")] // your own types travel between ranks through dls's serde
//! struct Longest {
//!     len: u64,
//!     at: u64,
//! }
//!
//! fn longer(a: Longest, b: Longest) -> Longest {
//!     if (b.len, a.at) > (a.len, b.at) { b } else { a }
//! }
//!
//! fn collatz(mut x: u64) -> u64 {
//!     let mut steps = 0;
//!     while x > 1 {
//!         x = if x % 2 == 0 { x / 2 } else { 3 * x + 1 };
//!         steps += 1;
//!     }
//!     steps
//! }
//!
//! #[dls::main]
//! fn main() {
//!     let n = 10_000_u64;
//!     let mut total = 0_u64;
//!     let mut steps = vec![0_u64; n as usize];
//!     let mut longest = Longest::default();
//!     #[par_doall(schedule = "af", reduce(+: total), reduce(longer: longest), gather(steps))]
//!     for i in 0..n {
//!         let s = collatz(i + 1);
//!         steps[i as usize] = s;
//!         total += s;
//!         longest = longer(longest, Longest { len: s, at: i + 1 });
//!     }
//!     // Every rank runs `main` and holds the whole result: print and write files on one.
//!     if dls::is_root() {
//!         println!("{total} steps in all; the longest: {} from {}", longest.len, longest.at);
//!     }
//!     assert_eq!(total, steps.iter().sum::<u64>());
//!     assert_eq!((longest.len, longest.at), (261, 6171));
//! }
//! ```
//!
//! `cargo run` runs it on the threads of the machine; `cargo build --features mpi` and
//! `mpirun -n 8 target/debug/<program>` runs it on 8 ranks. A program built without the
//! feature and started by a launcher stops with an error instead of running 8 copies.
//!
//! # The clauses
//!
//! All are optional, in any order:
//!
//! | clause | what it does |
//! |--------|--------------|
//! | `schedule = "af"` | the technique that sizes the chunks (`ss`, `gss`, `tss`, `fac2`, `awf-b`, `af`, … with parameters: `"fsc,h=200us,sigma=50us"`); `"runtime"` reads `DLS_SCHEDULE`. Default `fac2` |
//! | `reduce(+: a, b)` | each worker accumulates its own copy; the copies are combined after the loop: `+`, `*`, `max`, `min` on numbers and, element by element, on vectors and maps of numbers |
//! | `reduce(merge: x)` | combines the copies with your function `fn(T, T) -> T`, in iteration order; `reduce(merge, unordered: x)` when order does not matter, `identity = expr` when the start is not `T::default()` |
//! | `reduce(append: v)` | the items the iterates push into a `Vec`, in iteration order |
//! | `gather(v)` | the iterates write `v[i] = …`; after the loop every rank holds every element |
//! | `shared(x)` | a variable the iterates update through `&self` methods (atomics, `Mutex`), on their own rank |
//! | `reduction = "tree"` | how partial results travel between ranks: `auto`, `allgather`, `master`, `tree`, `pipeline` |
//! | `name = "text"` | the loop's name in reports (default: file and line) |
//! | `group(min = 2, max = 4)` | on the outer loop of a nested pair: a two-level loop on groups of ranks |
//! | `check(anova: y)` | tests that the workers' values `y` agree (fault checks) |
//!
//! A mistake (an unknown technique, `break` in the body, an outer variable changed without a
//! clause, a type that cannot travel) is a compile error at your token.
//!
//! # Settings
//!
//! Read from the environment when the runtime starts; a bad value is an error naming the
//! variable and the allowed values (the full table: [`runtime::settings`]):
//!
//! | variable | effect |
//! |----------|--------|
//! | `DLS_SCHEDULE` | replaces the technique of every loop (`gss`, `"fac2"`, `"fsc,h=200us,sigma=50us"`) |
//! | `DLS_THREADS` | worker threads without mpirun (default: one per core); an error under mpirun |
//! | `DLS_REPORT` | `1`: a summary of every loop on stderr from rank 0; `run.jsonl`: one JSON line per loop |
//! | `DLS_PROGRESS` | `auto`, `bar`, `lines`, `off`: progress of long loops on stderr |
//! | `DLS_REDUCTION` | replaces every loop's `reduction = "..."` |
//! | `DLS_CHECK`, `DLS_CHECK_ALPHA` | what checked loops do (`off`, `warn`, `repair`) and their significance level |
//! | `DLS_STACK` | stack size of the pool threads (default 8 MiB) |
//! | `DLS_PIN` | `cores`: each pool thread pinned to one core of the process's CPU mask (default `off`) |
//! | `DLS_CHUNK_MAP` | the most chunks a report lists |
//! | `DLS_RACKS` | which rack each rank is in, for two-level loops |
//! | `DLS_INJECT` | wrong values on one worker, to test fault checks |
//!
//! # Learn more
//!
//! The book in the repository (`mdbook serve book`): `book/src/first_loop.md` (converting a
//! program step by step, threads and MPI), `book/src/clauses.md` (every clause and error),
//! `book/src/big_results.md` (reduction strategies), `book/src/fine_grained.md` (cheap loops
//! run many times: the k-means example), `book/src/fault_checks.md`,
//! `book/src/two_level.md` and `book/src/own_project.md` (your own project, clusters, Slurm).
//! The explicit API, for full control: [`init`], [`Runtime::start_loop`], [`Loop::next_chunk`],
//! [`Runtime::doall`], [`Runtime::doall_reduce`]; the `dls` command-line tool (`dls simulate`,
//! `dls compare`, `dls plot`) is the package `dls-cli` of the repository: it installs with
//! `cargo install --path <your clone of dls>/dls-cli`, and a program that depends on the `dls`
//! library compiles none of its dependencies (clap, plotters).

// The public surface, item by item (as rayon's src/lib.rs re-exports rayon-core, and crossbeam's
// its sub-crates): a new item of dls-runtime becomes part of dls only when it is listed here.
// `tests/subcrates.rs` checks the list.

/// `#[dls::main]` and `#[dls::parallel]`: convert serial loops marked `#[par_doall(...)]`.
#[doc(inline)]
pub use dls_macros::{main, parallel};

#[doc(inline)]
pub use dls_runtime::{
    checkpoint_key, current, init, init_with_threads, inject, is_root, region, Backend, Chunk,
    ChunkRange, ChunkScheduler, ChunkTiming, DlsError, Loop, LoopIndex, LoopRange, LoopReport,
    LoopStats, RankReport, Runtime, Strategy, Technique, TechniqueError, Wire,
};

#[doc(inline)]
pub use dls_runtime::runtime::checked::Check;
#[doc(inline)]
pub use dls_runtime::runtime::options::{IterateValue, LoopOptions};

/// How the runtime is configured and what configures one loop: the items a program names.
pub mod runtime {
    /// The settings (`DLS_*` variables) a program may build itself
    /// ([`Runtime::threads`](crate::Runtime::threads)); the parsers of their text stay in
    /// `dls-runtime`.
    pub mod settings {
        #[doc(inline)]
        pub use dls_runtime::runtime::settings::{ReportMode, Settings};
    }
    /// What configures one loop ([`Runtime::run`](crate::Runtime::run)).
    pub mod options {
        #[doc(inline)]
        pub use dls_runtime::runtime::options::{IterateValue, LoopOptions};
    }
    /// Fault checks of a loop's workers (Wegman c. 2000).
    pub mod checked {
        #[doc(inline)]
        pub use dls_runtime::runtime::checked::{
            Check, CheckMode, CheckTest, Observation, DEFAULT_ALPHA, MAX_PREDICTORS,
        };
    }
    /// Wrong values on one worker, to test fault checks (`DLS_INJECT`).
    pub mod inject {
        #[doc(inline)]
        pub use dls_runtime::runtime::inject::{current_worker, inject};
    }
    /// Synthetic delays (`DLS_DELAY`) for the scalability test.
    pub mod delay {
        #[doc(inline)]
        pub use dls_runtime::runtime::delay::{region, DelayKind, Delays, BUILT_IN_REGIONS};
    }
    /// A loop's statistics and their summary.
    pub mod stats {
        #[doc(inline)]
        pub use dls_runtime::runtime::stats::{summary, LoopStats};
    }
}

/// Two-level loops: groups of ranks share the inner loops of an outer iterate.
pub mod group {
    #[doc(inline)]
    pub use dls_runtime::group::{
        BodyResult, Group, GroupLayout, GroupReport, GroupSpec, Groups, InnerLoops, Role,
    };
}

/// The operators of `reduce(...)` for the explicit API.
pub mod reduce {
    #[doc(inline)]
    pub use dls_runtime::reduce::{Max, Merge, MergeFrom, Min, Operator, Product, Reducible, Sum};
}

/// What a loop report holds (`DLS_REPORT`).
pub mod report {
    #[doc(inline)]
    pub use dls_runtime::report::{
        AutoReport, CheckReport, CheckpointReport, GroupReport, LoopReport, Oversubscribed,
        RankReport, ReductionReport, ReexecutionReport, SchedulerReport,
    };
}

/// What a clause variable's type needs: the traits a compile error about a clause names (each
/// with the message that says what to change), and the gather log's types.
pub mod clauses {
    #[doc(inline)]
    pub use dls_runtime::clause_types::{CheckedValue, GatherItem, StartValue};
    #[doc(inline)]
    pub use dls_runtime::collection::Indexable;
    #[doc(inline)]
    pub use dls_runtime::gather::{GatherConflict, GatherSlot, GatherTarget};
    #[doc(inline)]
    pub use dls_runtime::reduce::{AppendBuf, AppendTarget};
}

/// Reading a program's input with a bound on its size.
pub mod input {
    #[doc(inline)]
    pub use dls_runtime::input::{read_text, MAX_INPUT};
}

/// Loop scheduling techniques as pure chunk calculators (the `dls-technique` crate).
#[doc(inline)]
pub use dls_runtime::technique;

/// The models (feature `model`): the `dls-model` crate with its analysis, a pure library of each
/// concept that the `dls` tool and the book use. The modules are here under their own names too:
/// the simulator ([`sim`]), the Markov model of iterative algorithms ([`markov`]), the
/// pipelined-reduction model ([`pipeline_model`]), the scalability test ([`scaltest`]) and the
/// fault checks' statistics ([`fault_check`]). Without the feature, a program compiles only the
/// part of `dls-model` that its loops run.
///
/// ```
/// use dls::model::sim::{simulate, SimConfig};
/// let out = simulate(&SimConfig::new("fac2".parse().unwrap(), 100, 2)).unwrap();
/// assert_eq!(out.report.ranks.iter().map(|r| r.iterates).sum::<u64>(), 100);
/// ```
#[cfg(feature = "model")]
pub use dls_model as model;

#[cfg(feature = "model")]
#[doc(inline)]
pub use dls_model::{fault_check, markov, pipeline_model, scaltest, sim};

/// serde, which values that cross ranks need (`#[derive(dls::serde::Serialize,
/// dls::serde::Deserialize)]` with `#[serde(crate = "dls::serde")]`), so that `dls` is the only
/// dependency a program needs.
pub use serde;

/// serde's `Serialize` and `Deserialize` (traits and derives), for your own types:
/// `#[derive(dls::Serialize, dls::Deserialize)]` with `#[serde(crate = "dls::serde")]`.
///
/// ```
/// #[derive(Debug, Default, Clone, PartialEq, dls::Serialize, dls::Deserialize)]
/// #[serde(crate = "dls::serde")]
/// struct Cell {
///     hits: u64,
/// }
///
/// fn add(a: Cell, b: Cell) -> Cell {
///     Cell { hits: a.hits + b.hits }
/// }
///
/// #[dls::parallel]
/// fn count(n: u64) -> Cell {
///     let mut c = Cell::default();
///     #[par_doall(reduce(add: c))]
///     for i in 0..n {
///         c = add(c, Cell { hits: i % 2 });
///     }
///     c
/// }
///
/// assert_eq!(count(100), Cell { hits: 50 });
/// ```
pub use serde::{Deserialize, Serialize};

/// The MPI bindings (rsmpi) dls is built with, for programs that pass their own communicators
/// (feature `mpi`).
#[cfg(feature = "mpi")]
pub use dls_runtime::mpi;

/// bytemuck, whose `Pod` marks the element types whose gathered runs travel between MPI ranks as
/// their bytes (numbers and arrays of them already are; a `#[repr(C)]` struct of them opts in
/// with `unsafe impl dls::bytemuck::Zeroable for P {}` and `unsafe impl dls::bytemuck::Pod for P
/// {}`, or bytemuck's derives).
pub use dls_runtime::bytemuck;
/// The ndarray crate dls is built with (feature `ndarray`), so that a program can name the same
/// version: `use dls::ndarray::Array2;` (or depend on `ndarray` 0.17 itself). Its owned arrays
/// work in `reduce(+: a)` (`*`, `max`, `min`), `gather(a)` and loops over `a.iter()`, `&a`,
/// `a.rows()` and `a.outer_iter()`; see the book's chapter "Arrays: ndarray".
///
/// ```
/// use dls::ndarray::Array1;
///
/// #[dls::parallel]
/// fn histogram(xs: &[u32]) -> Array1<u64> {
///     let mut h = Array1::<u64>::zeros(4);
///     #[par_doall(reduce(+: h))]
///     for i in 0..xs.len() {
///         h[xs[i] as usize % 4] += 1;
///     }
///     h
/// }
///
/// assert_eq!(histogram(&[0, 1, 1, 3, 7]).to_vec(), [1, 2, 0, 2]);
/// ```
#[cfg(feature = "ndarray")]
pub use dls_runtime::ndarray;

/// How ndarray's arrays are taken by the clauses (feature `ndarray`): element-wise reductions,
/// the layout a gathered array needs, the gather slot indexed as the array, and the lanes of
/// `a.rows()` and `a.outer_iter()`.
///
/// ```
/// let a = dls::ndarray::array![[1.0, 2.0], [3.0, 4.0]];
/// assert_eq!(dls::nd::layout::standard_elements(&a), &[1.0, 2.0, 3.0, 4.0]);
/// ```
#[cfg(feature = "ndarray")]
pub use dls_runtime::nd;

/// What the code generated by the macros calls; not public API (see `dls_runtime::__private`).
#[doc(hidden)]
pub use dls_runtime::__private;

// The book's Rust code blocks compile (and run) as doc tests; code included from examples/ is
// compiled as examples.
#[cfg(doctest)]
#[doc = include_str!("../book/src/introduction.md")]
mod book_introduction {}
#[cfg(doctest)]
#[doc = include_str!("../book/src/first_loop.md")]
mod book_first_loop {}
#[cfg(doctest)]
#[doc = include_str!("../book/src/reading_a_run.md")]
mod book_reading_a_run {}
#[cfg(doctest)]
#[doc = include_str!("../book/src/choosing.md")]
mod book_choosing {}
#[cfg(doctest)]
#[doc = include_str!("../book/src/clauses.md")]
mod book_clauses {}
// Its examples use the models (`dls::pipeline_model`, `dls::markov`, `dls::scaltest`), which
// need the feature `model`; scripts/test.sh runs them (`--all-features`).
#[cfg(all(doctest, feature = "model"))]
#[doc = include_str!("../book/src/big_results.md")]
mod book_big_results {}
#[cfg(doctest)]
#[doc = include_str!("../book/src/fine_grained.md")]
mod book_fine_grained {}
// Its examples use ndarray's arrays (`dls::ndarray`), which need the feature `ndarray`;
// scripts/test.sh runs them (`--all-features`).
#[cfg(all(doctest, feature = "ndarray"))]
#[doc = include_str!("../book/src/arrays.md")]
mod book_arrays {}
#[cfg(doctest)]
#[doc = include_str!("../book/src/fault_checks.md")]
mod book_fault_checks {}
#[cfg(doctest)]
#[doc = include_str!("../book/src/two_level.md")]
mod book_two_level {}
#[cfg(doctest)]
#[doc = include_str!("../book/src/long_jobs.md")]
mod book_long_jobs {}
// Its examples use the models (`dls::pipeline_model`, `dls::markov`, `dls::scaltest`), which
// need the feature `model`; scripts/test.sh runs them (`--all-features`).
#[cfg(all(doctest, feature = "model"))]
#[doc = include_str!("../book/src/markov.md")]
mod book_markov {}
// Its examples use the models (`dls::pipeline_model`, `dls::markov`, `dls::scaltest`), which
// need the feature `model`; scripts/test.sh runs them (`--all-features`).
#[cfg(all(doctest, feature = "model"))]
#[doc = include_str!("../book/src/will_it_scale.md")]
mod book_will_it_scale {}
#[cfg(doctest)]
#[doc = include_str!("../book/src/own_project.md")]
mod book_own_project {}
#[cfg(doctest)]
#[doc = include_str!("../book/src/reference.md")]
mod book_reference {}
