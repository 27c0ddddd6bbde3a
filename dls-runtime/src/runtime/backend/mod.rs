//! The backends: the `Platform` seam, the threads backend and MPI (`mpi/`).

pub(crate) mod cores;
#[cfg(all(test, loom))]
mod loom_models;
#[cfg(feature = "mpi")]
pub mod mpi;
pub(crate) mod platform;
pub(crate) mod pool;
pub(crate) mod threads;
