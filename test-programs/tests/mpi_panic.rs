//! A panic in an iterate ends the whole MPI job promptly, non-zero, with stderr naming the rank,
//! the iterate and the panic message; never a hang. Covers a worker (rank 1) and the scheduler
//! (rank 0), each with a 60 s timeout (a job that hangs is killed and the test fails).

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

fn check(victim: &str, rank: usize) {
    let job = mpi_common::mpirun(3, &[], "mpi_panic", &[victim], Duration::from_secs(60));
    assert!(!job.success, "{victim}: the job exited 0\n{}", job.stderr);
    let prefix = format!("dls: rank {rank} panicked in iterate ");
    let line = job
        .stderr
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("{victim}: no `{prefix}` line in stderr:\n{}", job.stderr));
    // "dls: rank R panicked in iterate K of loop `panicky`: boom at K"
    let rest = &line[prefix.len()..];
    let (k, tail) = rest.split_once(' ').expect("iterate index");
    assert_eq!(tail, format!("of loop `panicky`: boom at {k}"), "{line}");
    eprintln!(
        "{victim}: `{line}`, exit {:?}, after {:.2?}",
        job.code, job.elapsed
    );
}

#[test]
fn panic_on_a_worker_aborts_the_job() {
    check("worker", 1);
}

#[test]
fn panic_on_the_scheduler_aborts_the_job() {
    check("scheduler", 0);
}
