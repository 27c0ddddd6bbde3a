//! Running the `two_level_check` example under `mpirun` for the `mpi_groups_*` tests: each run
//! under `mpirun --timeout` and a wall-clock deadline here, so a hang fails the test instead of
//! stalling the suite.
//!
//! The examples are built by a plain `cargo test --all-features` (the suite's command). A run
//! filtered with `--test <name>` does not rebuild them: run
//! `cargo build --features mpi --examples` first.

// Each test file uses only part of this shared helper.
#![allow(dead_code)]

#[path = "../mpi_common/mod.rs"]
mod mpi_common;

use std::time::Duration;

/// What one `mpirun` run gave.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub seconds: f64,
}

/// Runs `mpirun -n p two_level_check args` with `DLS_RACKS=racks` (unset when `None`), killing
/// it after `limit`.
pub fn mpirun(p: usize, racks: Option<&str>, args: &[&str], limit: Duration) -> Run {
    mpirun_example("two_level_check", p, racks, args, limit)
}

/// Runs `mpirun -n p <example> args` with `DLS_RACKS=racks` (unset when `None`), killing it after
/// `limit`.
pub fn mpirun_example(
    name: &str,
    p: usize,
    racks: Option<&str>,
    args: &[&str],
    limit: Duration,
) -> Run {
    let envs: Vec<(&str, &str)> = racks.map(|r| ("DLS_RACKS", r)).into_iter().collect();
    mpirun_with(name, p, &envs, args, limit)
}

/// Runs `mpirun -n p <example> args` with the given environment variables (`DLS_RACKS`,
/// `DLS_SCHEDULE` and `DLS_REPORT` are unset unless given) under `mpirun --timeout limit`, and
/// kills it here 10 s after that if mpirun itself hangs.
pub fn mpirun_with(
    name: &str,
    p: usize,
    envs: &[(&str, &str)],
    args: &[&str],
    limit: Duration,
) -> Run {
    let seconds = limit.as_secs().max(1).to_string();
    let job = mpi_common::mpirun_env(
        p,
        &["--timeout", &seconds],
        envs,
        name,
        args,
        limit + Duration::from_secs(10),
    );
    // mpirun's own --timeout ends the job with status 110 and a "time limit" message.
    let timed_out = job.timed_out
        || job
            .stderr
            .contains("time limit for job execution has been reached");
    Run {
        code: if job.timed_out { None } else { job.code },
        stdout: job.stdout,
        stderr: job.stderr,
        timed_out,
        seconds: job.elapsed.as_secs_f64(),
    }
}

impl Run {
    /// Panics with the run's output unless it exited 0 in time.
    pub fn assert_ok(&self, what: &str) {
        assert!(
            !self.timed_out && self.code == Some(0),
            "{what}: exit {:?}, timed out {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code,
            self.timed_out,
            self.stdout,
            self.stderr
        );
    }
}
