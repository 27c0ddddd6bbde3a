//! ndarray's arrays in the clauses (issue 45): `gather` into `Array1`, `Array2`, `Array3` and
//! `ArrayD` (in-place rows of an `Array2` and an `Array3`, and an `Array2` written outside its
//! rows through the checked path), `reduce(+)` and `reduce(max)` of `Array1` and `Array2`, and the loops over
//! `a.iter()`, `&a`, `a.rows()` and `a.outer_iter().enumerate()`, each equal to its serial loop,
//! on 1 and 3 threads and under mpirun at P = 1, 2, 4; and a column-major array refused by
//! `gather` at the start of its loop with the fix. Runs `test-programs/src/bin/nd_clauses.rs`.

#![cfg(feature = "ndarray")]

mod mpi_common;

use std::process::Command;

fn threads(n: &str, args: &[&str]) -> std::process::Output {
    Command::new(mpi_common::program("nd_clauses"))
        .args(args)
        .env("DLS_THREADS", n)
        .output()
        .unwrap()
}

fn equal_to_serial_on_threads(n: &str) {
    let out = threads(n, &[]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("ndarray OK: P=1"),
        "{n} threads: {:?}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // The array written outside its rows took the checked path (its writes were logged), and
    // the arrays written in their own rows did not say so.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("gather(w) logged"), "{stderr}");
    for row_only in ["v", "p", "q", "c"] {
        assert!(
            !stderr.contains(&format!("gather({row_only}) logged")),
            "{row_only}: {stderr}"
        );
    }
}

#[test]
fn equal_to_serial_on_1_thread() {
    equal_to_serial_on_threads("1");
}

#[test]
fn equal_to_serial_on_3_threads() {
    equal_to_serial_on_threads("3");
}

#[test]
fn a_column_major_array_is_refused_with_the_fix() {
    let out = threads("2", &["fortran"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "ran: {stderr}");
    assert!(
        stderr.contains("must be in standard layout")
            && stderr.contains(".as_standard_layout().into_owned()"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("unexpectedly ran"));
}

/// A type dls knows no shape of, in `reduce(+)`: its workers start from `T::default()`, and the
/// iterate's panic says so, with the fix.
#[test]
fn a_panic_after_a_default_start_says_so() {
    let out = threads("2", &["default_start"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "ran: {stderr}");
    assert!(
        stderr.contains("started each worker's copy of `g` from `nd_clauses::Grid::default()`")
            && stderr.contains("reduce(path::to::merge, identity = "),
        "{stderr}"
    );
}

#[cfg(feature = "mpi")]
mod mpi {
    use super::mpi_common;
    use std::time::Duration;

    fn run(p: usize) {
        let job = mpi_common::mpirun(p, &[], "nd_clauses", &[], Duration::from_secs(180));
        assert!(!job.timed_out, "P={p}: timed out\n{}", job.stderr);
        assert!(
            job.success,
            "P={p}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
            job.code, job.stdout, job.stderr
        );
        assert!(
            job.stdout.contains(&format!("ndarray OK: P={p}")),
            "P={p}: {}",
            job.stdout
        );
    }

    #[test]
    fn equal_to_serial_p1() {
        run(1);
    }

    #[test]
    fn equal_to_serial_p2() {
        run(2);
    }

    #[test]
    fn equal_to_serial_p4() {
        run(4);
    }

    #[test]
    fn a_column_major_array_is_refused_on_every_rank() {
        let job = mpi_common::mpirun(2, &[], "nd_clauses", &["fortran"], Duration::from_secs(120));
        assert!(!job.timed_out, "timed out\n{}", job.stderr);
        assert!(!job.success, "ran:\n{}", job.stdout);
        assert!(
            job.stderr.contains("must be in standard layout"),
            "{}",
            job.stderr
        );
    }
}
