//! The scheduler side of a loop: the technique's engine with the chunk map, the chunk times and
//! the tallies a report needs; the holes of a restarted loop.

pub(crate) mod claim;
// Fed blocks are built without MPI too (the simulator plans with their target; their tests).
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) mod feed;
pub(crate) mod holes;
pub(crate) mod reporting;
