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

/// Issue 27: `reduction = "pipeline"` under MPI has no re-execution and no checkpoints; when they
/// are asked for, rank 0 says so at the loop's start (before, they were dropped silently), and
/// the result is still the serial one.
#[test]
fn a_pipelined_loop_says_it_has_no_checkpoints() {
    let dir = std::env::temp_dir().join(format!("dls-pipeline-ckpt-{}", std::process::id()));
    let d = dir.display().to_string();
    let job = mpi_common::mpirun_env(
        2,
        &["-x", "DLS_REDUCTION", "-x", "DLS_CHECKPOINT"],
        &[("DLS_REDUCTION", "pipeline"), ("DLS_CHECKPOINT", &d)],
        "mpi_strategies",
        &[],
        Duration::from_secs(120),
    );
    assert!(job.success, "{}", job.stderr);
    assert!(
        job.stdout.contains("strategies OK: P=2 pipeline"),
        "{}",
        job.stdout
    );
    assert!(
        job.stderr
            .contains("reduction = \"pipeline\", which has no checkpoints (DLS_CHECKPOINT)"),
        "{}",
        job.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}
