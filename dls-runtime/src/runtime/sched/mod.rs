//! The scheduler side of a loop: the technique's engine with the chunk map, the chunk times and
//! the tallies a report needs; the holes of a restarted loop.

pub(crate) mod claim;
pub(crate) mod holes;
pub(crate) mod reporting;
