//! `gather(v: rows(w))` sweeps of a flat grid under mpirun at P = 1, 2, 3 give the serial grid
//! (issue 42). Runs `test-programs/src/bin/mpi_rows.rs`.

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

fn run(p: usize) {
    let job = mpi_common::mpirun(p, &[], "mpi_rows", &[], Duration::from_secs(60));
    assert!(!job.timed_out, "P={p}: timed out\n{}", job.stderr);
    assert!(
        job.success,
        "P={p}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        job.code, job.stdout, job.stderr
    );
    assert!(
        job.stdout.contains(&format!("rows OK: P={p}")),
        "P={p}: {}",
        job.stdout
    );
}

#[test]
fn rows_p1() {
    run(1);
}

#[test]
fn rows_p2() {
    run(2);
}

#[test]
fn rows_p3() {
    run(3);
}
