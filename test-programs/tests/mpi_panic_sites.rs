//! A panic anywhere (iterate body, the scheduler rank's iterate, a merge function, a gather write,
//! a thread spawned in an iterate whose panic the iterate passes on) ends the job at P = 2 and P = 8 in under 5 s, naming the rank
//! and the message (issue 17 "Must show"). Run with `--nocapture` for the table of times.

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

fn ends(site: &str, np: usize, expect: &[&str]) {
    let job = mpi_common::mpirun(np, &[], "mpi_panic_sites", &[site], Duration::from_secs(60));
    assert!(!job.success, "{site} P={np}: exited 0\n{}", job.stderr);
    let line = job
        .stderr
        .lines()
        .find(|l| l.starts_with("dls: rank ") && l.contains(" panicked"))
        .unwrap_or_else(|| panic!("{site} P={np}: no dls line\n{}", job.stderr));
    for e in expect {
        assert!(line.contains(e), "{site} P={np}: `{line}` lacks `{e}`");
    }
    assert!(
        job.elapsed < Duration::from_secs(5),
        "{site} P={np}: {:?}",
        job.elapsed
    );
    eprintln!(
        "| {site} | {np} | {:.2} s | `{line}` |",
        job.elapsed.as_secs_f64()
    );
}

#[test]
fn a_panic_anywhere_ends_the_job_in_seconds() {
    for np in [2, 8] {
        ends("iterate", np, &["rank 1 panicked in iterate", "boom at"]);
        ends("scheduler", np, &["rank 0 panicked in iterate", "boom at"]);
        ends(
            "merge",
            np,
            &[
                "rank 1 panicked while combining the results of loop `merging`",
                "merge failed on rank 1",
            ],
        );
        ends(
            "gather",
            np,
            &["panicked in iterate 7", "index out of bounds"],
        );
        ends(
            "thread",
            np,
            &[
                "rank 1 panicked in iterate",
                "helper thread failed, so iterate",
            ],
        );
    }
}

/// Issue 17 case 5 under MPI: a panic an iterate catches itself neither aborts the job nor loses
/// an iterate (the same as on threads).
#[test]
fn a_panic_caught_inside_an_iterate_is_no_failure() {
    for np in [1, 2, 4] {
        let job = mpi_common::mpirun(
            np,
            &[],
            "mpi_panic_sites",
            &["caught"],
            Duration::from_secs(60),
        );
        assert!(job.success, "P={np}\n{}", job.stderr);
        assert!(
            job.stdout.contains("caught: OK, sum 79800"),
            "P={np}: {}",
            job.stdout
        );
    }
}

/// Issue 43 F3: a panic of a helper thread that an iterate joins and handles (the join fails, the
/// iterate goes on) aborted the MPI job; only a panic that escapes the iterate ends it now, the
/// same as on threads: the job exits 0 and loses no iterate.
#[test]
fn a_panic_caught_through_a_joined_helper_thread_is_no_failure() {
    for np in [1, 2] {
        let job = mpi_common::mpirun(
            np,
            &[],
            "mpi_panic_sites",
            &["thread-caught"],
            Duration::from_secs(60),
        );
        assert!(job.success, "P={np}\n{}", job.stderr);
        assert!(
            job.stdout.contains("thread-caught: OK, sum 79800"),
            "P={np}: {}",
            job.stdout
        );
        assert!(
            !job.stderr.contains("aborts the MPI job"),
            "P={np}: {}",
            job.stderr
        );
    }
}
