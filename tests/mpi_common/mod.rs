//! Running the `mpi_*` example programs under `mpirun` from integration tests.
//!
//! `cargo test --all-features` builds the examples (with the `mpi` feature) next to the test
//! binaries, in `target/<profile>/examples/`. Each run has a timeout: a hung job is killed (by the
//! pid of the `mpirun` we started) and reported. Runs are serialised within a test binary, so that
//! several jobs of 8 ranks never share the 2 cores at once.

#![allow(dead_code)]

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

static ONE_JOB_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The path of example `name`, built by `cargo test --all-features`.
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("test binary in target/<profile>/deps");
    let path = profile_dir.join("examples").join(name);
    assert!(
        path.exists(),
        "{} is missing: build it with `cargo test --all-features` (or `cargo build --features mpi \
         --examples`)",
        path.display()
    );
    path
}

/// The result of one `mpirun` job.
#[derive(Debug)]
pub struct Job {
    pub success: bool,
    pub code: Option<i32>,
    pub timed_out: bool,
    pub elapsed: Duration,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `mpirun [mpirun_args] -np <np> <example> [args]` with a timeout.
pub fn mpirun(
    np: usize,
    mpirun_args: &[&str],
    name: &str,
    args: &[&str],
    timeout: Duration,
) -> Job {
    mpirun_env(np, mpirun_args, &[], name, args, timeout)
}

/// [`mpirun`] with environment variables `env` set for the job (`DLS_SCHEDULE`, `DLS_REPORT` and
/// `DLS_RACKS` are unset unless given; Open MPI passes the launcher's environment to local ranks).
pub fn mpirun_env(
    np: usize,
    mpirun_args: &[&str],
    env: &[(&str, &str)],
    name: &str,
    args: &[&str],
    timeout: Duration,
) -> Job {
    let _one = ONE_JOB_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let exe = example(name);
    let mut cmd = Command::new("mpirun");
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        // Hermetic runs: the caller's own dls settings never leak into a test job.
        .env_remove("DLS_SCHEDULE")
        .env_remove("DLS_REPORT")
        .env_remove("DLS_RACKS")
        .envs(env.iter().copied())
        .arg("--oversubscribe")
        .args(mpirun_args)
        .arg("-np")
        .arg(np.to_string())
        .arg(&exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .expect("mpirun must be installed (scripts/deps.sh)");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for mpirun") {
            break status;
        }
        if start.elapsed() > timeout {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("wait for killed mpirun");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Job {
        success: status.success(),
        code: status.code(),
        timed_out,
        elapsed: start.elapsed(),
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    }
}
