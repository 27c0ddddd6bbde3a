//! Compile errors of two-level `#[par_doall]` loops (a `#[par_doall]` loop nested in another),
//! pinned by the `.stderr` files in tests/trybuild_two_level/. Regenerate after an intended change
//! of a message with `TRYBUILD=overwrite cargo test --test macro_two_level_errors` and review the
//! diff.

#[test]
fn two_level_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/trybuild_two_level/*.rs");
}
