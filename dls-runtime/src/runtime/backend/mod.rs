//! The backends: the `Platform` seam, the threads backend and MPI (`mpi/`).

#[cfg(feature = "mpi")]
pub mod mpi;
pub(crate) mod platform;
pub(crate) mod pool;
pub(crate) mod threads;
