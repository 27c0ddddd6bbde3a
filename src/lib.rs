//! **dls**: turn a serial loop into a dynamically load-balanced parallel loop, on threads or on a
//! cluster under `mpirun`.

pub use dls_runtime::*;

/// `#[dls::main]` and `#[dls::parallel]`: convert serial loops marked `#[par_doall(...)]`.
pub use dls_macros::{main, parallel};
