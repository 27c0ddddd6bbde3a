//! Running the `two_level_check` example under `mpirun` for the `mpi_groups_*` tests: each run
//! under `mpirun --timeout` and a wall-clock deadline here, so a hang fails the test instead of
//! stalling the suite.
//!
//! The examples are built by a plain `cargo test --all-features` (the suite's command). A run
//! filtered with `--test <name>` does not rebuild them: run
//! `cargo build --features mpi --examples` first.

// Each test file uses only part of this shared helper.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one `mpirun` run gave.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub seconds: f64,
}

/// Path of an example binary built next to this test binary (`target/<profile>/examples/<name>`).
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps");
    let path = profile_dir.join("examples").join(name);
    assert!(
        path.exists(),
        "{} is missing: run `cargo build --features mpi --examples` (or the whole `cargo test`)",
        path.display()
    );
    path
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
/// `DLS_SCHEDULE` and `DLS_REPORT` are unset unless given), killing it after `limit`.
pub fn mpirun_with(
    name: &str,
    p: usize,
    envs: &[(&str, &str)],
    args: &[&str],
    limit: Duration,
) -> Run {
    let mut cmd = Command::new("mpirun");
    cmd.args(["--oversubscribe", "--timeout"])
        .arg(limit.as_secs().max(1).to_string())
        .args(["-n", &p.to_string()])
        .arg(example(name))
        .args(args)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .env_remove("DLS_SCHEDULE")
        .env_remove("DLS_REPORT")
        .env_remove("DLS_RACKS")
        .envs(envs.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .expect("mpirun must be installed (scripts/deps.sh installs OpenMPI)");
    // Read the pipes on threads so a chatty run cannot block on a full pipe.
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).ok();
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).ok();
        s
    });
    let deadline = limit + Duration::from_secs(10);
    let mut timed_out = false;
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait for mpirun") {
            break Some(st);
        }
        if start.elapsed() > deadline {
            timed_out = true;
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    let code = status.and_then(|s| s.code());
    // mpirun's own --timeout ends the job with status 110 and a "time limit" message.
    timed_out |= stderr.contains("time limit for job execution has been reached");
    Run {
        code,
        stdout,
        stderr,
        timed_out,
        seconds: start.elapsed().as_secs_f64(),
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
