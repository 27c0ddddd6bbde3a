//! Procedural macros of dls. Use them through the facade crate `dls`.
