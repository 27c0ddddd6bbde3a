//! Fault checks of a loop's workers (Wegman c. 2000) and the injection of wrong values that
//! tests them.

pub mod inject;
