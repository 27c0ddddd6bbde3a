//! The built-in merges of `reduce` under mpirun at P = 1, 2, 3, 4: element-wise `+` on the N-body
//! forces, `+` on word counts in a `HashMap`, `append` in iteration order, and a user merge with
//! `identity = …`, each equal to the serial loop on every rank. Runs
//! `test-programs/src/bin/mpi_merges.rs`.

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

fn run(p: usize) {
    let job = mpi_common::mpirun(p, &[], "mpi_merges", &[], Duration::from_secs(120));
    assert!(!job.timed_out, "P={p}: timed out\n{}", job.stderr);
    assert!(
        job.success,
        "P={p}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        job.code, job.stdout, job.stderr
    );
    assert!(
        job.stdout.contains(&format!("merges OK: P={p}")),
        "P={p}: {}",
        job.stdout
    );
}

#[test]
fn merges_p1() {
    run(1);
}

#[test]
fn merges_p2() {
    run(2);
}

#[test]
fn merges_p3() {
    run(3);
}

#[test]
fn merges_p4() {
    run(4);
}
