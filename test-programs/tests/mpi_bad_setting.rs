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

/// `DLS_THREADS` under mpirun is rejected with an explanation, not silently ignored (every rank
/// is one worker), in one message from rank 0.
#[test]
fn threads_under_mpirun_are_rejected() {
    let job = mpi_common::mpirun_env(
        2,
        &["-x", "DLS_THREADS"],
        &[("DLS_THREADS", "4")],
        "two_level_macro",
        &[],
        Duration::from_secs(60),
    );
    assert!(!job.success, "exited 0\n{}", job.stderr);
    let errors: Vec<&str> = job
        .stderr
        .lines()
        .filter(|l| l.contains("DLS_THREADS"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", job.stderr);
    assert!(
        errors[0].starts_with("error: DLS_THREADS=`4`") && errors[0].contains("mpirun -n"),
        "{}",
        errors[0]
    );
}
