//! Reductions over values that serialise to no bytes (`()`, a clause-less `#[par_doall]` loop)
//! under mpirun at P = 1, 2, 4 (issue 17 case 0: `MPI_ERR_ARG` in `MPI_Allgatherv`). Runs
//! `test-programs/src/bin/mpi_empty_values.rs`.

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

fn run(p: usize) {
    let job = mpi_common::mpirun(p, &[], "mpi_empty_values", &[], Duration::from_secs(60));
    assert!(!job.timed_out, "P={p}: timed out\n{}", job.stderr);
    assert!(
        job.success,
        "P={p}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        job.code, job.stdout, job.stderr
    );
    assert!(
        job.stdout.contains(&format!("empty-values OK: P={p}")),
        "P={p}: {}",
        job.stdout
    );
}

#[test]
fn unit_reductions_p1() {
    run(1);
}

#[test]
fn unit_reductions_p2() {
    run(2);
}

#[test]
fn unit_reductions_p4() {
    run(4);
}
