//! The compile-time behaviour of `#[dls::main]`, `#[dls::parallel]` and `#[par_doall]`, in one
//! tree (as tokio's `tests-build` and tracing's `tests/ui.rs`):
//!
//! - `tests/ui/fail/*.rs` must not compile; the messages are pinned by the `.stderr` file next to
//!   each case (the book includes some of them);
//! - `tests/ui/pass/*.rs` must compile and run to a zero exit status.
//!
//! After an intended change of a message, regenerate with
//! `TRYBUILD=overwrite cargo test --test macro_ui` and review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
