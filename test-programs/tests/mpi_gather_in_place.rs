//! Gathered plain elements written in place on each rank and exchanged between the ranks after
//! the loop (issue 42 part 4), against the serial results under mpirun at P = 1, 2, 3, one
//! worker per rank (re-execution on, as by default, and off) and two threads inside each rank.
//! Runs `test-programs/src/bin/mpi_gather_in_place.rs`.

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

fn run(p: usize, env: &[(&str, &str)]) {
    let job = mpi_common::mpirun_env(
        p,
        &[],
        env,
        "mpi_gather_in_place",
        &[],
        Duration::from_secs(180),
    );
    assert!(
        job.success,
        "P={p} {env:?}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        job.code, job.stdout, job.stderr
    );
    assert!(
        job.stdout.contains(&format!("gather-in-place OK: P={p}")),
        "P={p} {env:?}: {}",
        job.stdout
    );
}

#[test]
fn one_rank() {
    run(1, &[]);
}

#[test]
fn two_ranks() {
    run(2, &[]);
}

#[test]
fn three_ranks() {
    run(3, &[]);
}

#[test]
fn two_ranks_without_reexecution() {
    run(2, &[("DLS_REEXECUTE", "off")]);
}

#[test]
fn two_ranks_of_two_threads() {
    run(2, &[("DLS_THREADS", "2")]);
}
