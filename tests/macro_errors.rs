//! Compile errors of `#[par_doall]`, pinned by the `.stderr` files next to each case in
//! tests/trybuild/. Regenerate after an intended change of a message with
//! `TRYBUILD=overwrite cargo test --test macro_errors` and review the diff.

#[test]
fn par_doall_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/trybuild/*.rs");
}
