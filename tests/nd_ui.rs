//! The compile-time behaviour of the clauses on ndarray's arrays (feature `ndarray`): a view in
//! `gather` and `x.rows()` of a type that is no array are refused with the fix
//! (`tests/ui/nd/*.rs`, messages pinned by the `.stderr` files); the forms that work compile
//! and run in a crate that forbids unsafe code (`tests/ui/nd_pass/`).
//!
//! After an intended change of a message, regenerate with
//! `TRYBUILD=overwrite cargo test --features ndarray --test nd_ui` and review the diff.

#![cfg(feature = "ndarray")]

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/nd/*.rs");
    t.pass("tests/ui/nd_pass/*.rs");
}
