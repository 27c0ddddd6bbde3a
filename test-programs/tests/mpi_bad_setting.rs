//! A bad setting under mpirun gives one readable message, from rank 0, not one interleaved copy
//! per rank (issue 17 case 13).

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

#[test]
fn a_bad_setting_is_reported_once() {
    let job = mpi_common::mpirun_env(
        4,
        &["-x", "DLS_SCHEDULE"],
        &[("DLS_SCHEDULE", "fac3")],
        "two_level_macro",
        &[],
        Duration::from_secs(60),
    );
    assert!(!job.success, "exited 0\n{}", job.stderr);
    let errors: Vec<&str> = job
        .stderr
        .lines()
        .filter(|l| l.contains("DLS_SCHEDULE"))
        .collect();
    assert_eq!(
        errors.len(),
        1,
        "expected one message, got:\n{}",
        job.stderr
    );
    assert!(
        errors[0].starts_with("error: DLS_SCHEDULE=`fac3`") && errors[0].contains("fac2"),
        "{}",
        errors[0]
    );
}
