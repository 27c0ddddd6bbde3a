//! **dls**: turn a serial loop into a dynamically load-balanced parallel loop, on threads or on a
//! cluster under `mpirun`.

pub use dls_runtime::*;

/// `#[dls::main]` and `#[dls::parallel]`: convert serial loops marked `#[par_doall(...)]`.
pub use dls_macros::{main, parallel};

// The book's Rust code blocks compile (and run) as doc tests; code included from examples/ is
// compiled as examples.
#[cfg(doctest)]
#[doc = include_str!("../book/src/introduction.md")]
mod book_introduction {}
#[cfg(doctest)]
#[doc = include_str!("../book/src/first_loop.md")]
mod book_first_loop {}
#[cfg(doctest)]
#[doc = include_str!("../book/src/clauses.md")]
mod book_clauses {}
#[cfg(doctest)]
#[doc = include_str!("../book/src/two_level.md")]
mod book_two_level {}
