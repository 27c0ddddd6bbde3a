//! Exactly-once under mpirun: P in {1, 2, 3, 4, 8} (oversubscribed) × every technique × N in
//! {0, 1, P-1, P, P+1, 1000, 4099}, closure and explicit API, plus index types at their limits
//! (see `examples/mpi_exactly_once.rs`, which checks counts, sums, sums of squares, per-rank
//! counts and the chunk map on every rank). Also: every run exits 0 (MPI finalised cleanly).

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

fn run(p: usize) {
    let job = mpi_common::mpirun(p, &[], "mpi_exactly_once", &[], Duration::from_secs(120));
    assert!(!job.timed_out, "P={p}: timed out\n{}", job.stderr);
    assert!(
        job.success,
        "P={p}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        job.code, job.stdout, job.stderr
    );
    assert!(
        job.stdout.contains(&format!("exactly-once OK: P={p},")),
        "P={p}: {}",
        job.stdout
    );
    eprintln!("P={p}: {} in {:.2?}", job.stdout.trim(), job.elapsed);
}

#[test]
fn exactly_once_p1() {
    run(1);
}

#[test]
fn exactly_once_p2() {
    run(2);
}

#[test]
fn exactly_once_p3() {
    run(3);
}

#[test]
fn exactly_once_p4() {
    run(4);
}

#[test]
fn exactly_once_p8() {
    run(8);
}
