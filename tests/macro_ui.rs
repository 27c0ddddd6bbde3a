//! The compile-time behaviour of `#[dls::main]`, `#[dls::parallel]` and `#[par_doall]`, in one
//! tree (as tokio's `tests-build` and tracing's `tests/ui.rs`):
//!
//! - `tests/ui/fail/*.rs` must not compile; the messages are pinned by the `.stderr` file next to
//!   each case (the book includes some of them);
//! - `tests/ui/pass/*.rs` must compile and run to a zero exit status.
//!
//! Three messages list the types that implement a clause's trait, and the feature `ndarray` adds
//! its arrays to those lists: with that feature (as `scripts/test.sh` runs the suite, with every
//! feature), those cases are checked from `tests/ui/fail_nd/` (the same programs, their
//! messages with the arrays) instead of `tests/ui/fail/`.
//!
//! After an intended change of a message, regenerate with
//! `TRYBUILD=overwrite cargo test --test macro_ui` (and with `--all-features` for
//! `tests/ui/fail_nd/`) and review the diff.

/// The cases whose messages list implementors, which the feature `ndarray` lengthens.
#[cfg(feature = "ndarray")]
const LISTING: [&str; 3] = [
    "gather_not_a_vector.rs",
    "not_indexable.rs",
    "reduce_unsupported_type.rs",
];

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    #[cfg(not(feature = "ndarray"))]
    t.compile_fail("tests/ui/fail/*.rs");
    #[cfg(feature = "ndarray")]
    {
        let mut cases: Vec<_> = std::fs::read_dir("tests/ui/fail")
            .expect("tests/ui/fail")
            .map(|e| e.expect("an entry of tests/ui/fail").path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .filter(|p| !LISTING.iter().any(|l| p.ends_with(l)))
            .collect();
        cases.sort();
        for case in cases {
            t.compile_fail(case);
        }
        for listing in LISTING {
            t.compile_fail(format!("tests/ui/fail_nd/{listing}"));
        }
    }
    t.pass("tests/ui/pass/*.rs");
}
