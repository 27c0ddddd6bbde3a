//! **dls**: turn a serial loop into a dynamically load-balanced parallel loop, on threads or on a
//! cluster under `mpirun`.

pub use dls_runtime::*;
