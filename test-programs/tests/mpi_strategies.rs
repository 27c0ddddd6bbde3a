//! Every reduction strategy (`DLS_REDUCTION`) gives the serial result under mpirun at
//! P = 1, 2, 3, 4, 5, 8, for N = 0, 1, P − 1, 2P + 1, 997, one-level and two-level loops, the
//! explicit API and the macro's clauses (`test-programs/src/bin/mpi_strategies.rs`); an unknown
//! strategy is an error naming `DLS_REDUCTION` and the allowed values.

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

#[test]
fn every_strategy_gives_the_serial_result() {
    for p in [1, 2, 3, 4, 5, 8] {
        for s in ["auto", "allgather", "master", "tree", "pipeline"] {
            let job = mpi_common::mpirun_env(
                p,
                &["-x", "DLS_REDUCTION"],
                &[("DLS_REDUCTION", s)],
                "mpi_strategies",
                &[],
                Duration::from_secs(120),
            );
            assert!(
                job.success,
                "P={p} {s}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
                job.code, job.stdout, job.stderr
            );
            assert!(
                job.stdout.contains(&format!("strategies OK: P={p} {s}")),
                "P={p} {s}: {}",
                job.stdout
            );
        }
    }
}

/// One rank: with two, both print the error and their stderr lines may interleave byte by byte.
#[test]
fn an_unknown_strategy_names_the_setting() {
    let job = mpi_common::mpirun_env(
        1,
        &["-x", "DLS_REDUCTION"],
        &[("DLS_REDUCTION", "fastest")],
        "mpi_strategies",
        &[],
        Duration::from_secs(60),
    );
    assert!(!job.success);
    assert!(
        job.stderr.contains("DLS_REDUCTION=`fastest`")
            && job
                .stderr
                .contains("auto, allgather, master, tree, pipeline"),
        "{}",
        job.stderr
    );
}
