//! Running the `two_level_check` program (and the other two-level programs) under `mpirun` for the
//! `mpi_groups_*` tests, through `mpi_common`: each run under a timeout, so a hang fails the test
//! instead of stalling the suite.

// Each test file uses only part of this shared helper.
#![allow(dead_code)]

#[path = "../mpi_common/mod.rs"]
mod mpi_common;

use std::time::Duration;

/// What one `mpirun` run gave.
pub(crate) struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub seconds: f64,
}

/// Runs `mpirun -n p two_level_check args` with `DLS_RACKS=racks` (unset when `None`), killing
/// it after `limit`.
pub(crate) fn mpirun(p: usize, racks: Option<&str>, args: &[&str], limit: Duration) -> Run {
    mpirun_program("two_level_check", p, racks, args, limit)
}

/// Runs `mpirun -n p <program> args` with `DLS_RACKS=racks` (unset when `None`), killing it after
/// `limit`.
pub(crate) fn mpirun_program(
    name: &str,
    p: usize,
    racks: Option<&str>,
    args: &[&str],
    limit: Duration,
) -> Run {
    let envs: Vec<(&str, &str)> = racks.map(|r| ("DLS_RACKS", r)).into_iter().collect();
    mpirun_with(name, p, &envs, args, limit)
}

/// Runs `mpirun -n p <program> args` with the given environment variables (`DLS_RACKS`,
/// `DLS_SCHEDULE` and `DLS_REPORT` are unset unless given); a run that outlives `limit` fails the
/// test (`mpi_common`).
pub(crate) fn mpirun_with(
    name: &str,
    p: usize,
    envs: &[(&str, &str)],
    args: &[&str],
    limit: Duration,
) -> Run {
    let job = mpi_common::mpirun_env(p, &[], envs, name, args, limit);
    Run {
        code: job.code,
        stdout: job.stdout,
        stderr: job.stderr,
        seconds: job.elapsed.as_secs_f64(),
    }
}

impl Run {
    /// Panics with the run's output unless it exited 0.
    pub(crate) fn assert_ok(&self, what: &str) {
        assert!(
            self.code == Some(0),
            "{what}: exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code,
            self.stdout,
            self.stderr
        );
    }
}
