//! Running this package's programs under `mpirun` from its integration tests, every job under a
//! timeout.
//!
//! **Finding the programs.** Each program is a `[[bin]]` of this package; cargo builds a package's
//! binaries before its integration tests and tells them where through
//! `env!("CARGO_BIN_EXE_<name>")`, so `cargo test --workspace --all-features` (or
//! `cargo test -p test-programs --features mpi --test mpi_panic`) needs no prior build step and
//! never runs a stale binary.
//!
//! **Nothing can hang.** `mpirun` is started as the leader of a new session. Open MPI puts each
//! rank in a process group of its own (so killing mpirun's process group would miss them), but
//! every rank stays in mpirun's session. When a job outlives its timeout, mpirun gets SIGTERM
//! (it forwards it to its ranks) and, 2 s later, every process still in the session (and every
//! other process of the job, see "Another launcher") gets SIGKILL; the test then fails with a
//! message naming the program, the rank count and the timeout. After every job, hung or not, no
//! process of it may be left: one that is (a rank outliving its mpirun) is killed and fails the
//! test too. `tests/mpi_no_hang.rs` proves both with a program that never ends.
//!
//! Jobs are serialised within a test binary, so that several jobs of 8 ranks never share the
//! 2 cores at once (cargo runs the test binaries one after the other).
//!
//! **Another launcher.** Jobs start with Open MPI's `mpirun` unless `DLS_TEST_LAUNCHER` names
//! another one: `DLS_TEST_LAUNCHER=mpiexec.hydra` runs them under MPICH's Hydra (on programs
//! built against MPICH: `scripts/mpich.sh`). The launcher's kind comes from its `--version`
//! ([`launcher`]), and the Open MPI options the tests pass are translated for it
//! ([`launcher_args`]). Hydra starts every rank in a session of its own, so a job's processes
//! are found by a marker as well: each job's launcher gets `DLS_TEST_JOB=<test pid>-<job>` in
//! its environment, which every process of the job inherits (Hydra passes the launcher's whole
//! environment to its ranks), and the processes of the launcher's session or with that marker
//! are the job's ([`job_processes`]). The timeout and the checks above hold for either launcher.

#![allow(dead_code)]

use std::fmt;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Mutex, OnceLock};
use std::time::{Duration, Instant};

static ONE_JOB_AT_A_TIME: Mutex<()> = Mutex::new(());

/// How long a hung job's mpirun has, after SIGTERM, to end its ranks before every process of the
/// job gets SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(2);

/// The variable that marks every process of a job (see the module's documentation).
const JOB_MARKER: &str = "DLS_TEST_JOB";

/// The kind of MPI launcher the jobs start with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LauncherKind {
    /// Open MPI's `mpirun` (the default).
    OpenMpi,
    /// MPICH's (or Intel MPI's) Hydra `mpiexec`.
    Hydra,
}

/// The launcher every job of these tests starts with.
#[derive(Debug)]
pub(crate) struct Launcher {
    /// The command (`mpirun`, or `DLS_TEST_LAUNCHER`).
    pub program: String,
    pub kind: LauncherKind,
}

/// Open MPI's `mpirun`, or the launcher `DLS_TEST_LAUNCHER` names, whose kind its `--version`
/// tells (`HYDRA build details` or `Open MPI`); panics on a launcher of another kind.
pub(crate) fn launcher() -> &'static Launcher {
    static LAUNCHER: OnceLock<Launcher> = OnceLock::new();
    LAUNCHER.get_or_init(|| {
        let program = match std::env::var("DLS_TEST_LAUNCHER") {
            Ok(p) if !p.trim().is_empty() => p.trim().to_string(),
            _ => {
                return Launcher {
                    program: "mpirun".into(),
                    kind: LauncherKind::OpenMpi,
                }
            }
        };
        let out = Command::new(&program)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("DLS_TEST_LAUNCHER=`{program}`: cannot run it: {e}"));
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let kind = if text.contains("HYDRA") {
            LauncherKind::Hydra
        } else if text.contains("Open MPI") || text.contains("OpenRTE") {
            LauncherKind::OpenMpi
        } else {
            panic!(
                "DLS_TEST_LAUNCHER=`{program}`: neither Open MPI's mpirun nor Hydra's mpiexec \
                 (its --version printed: {text})"
            )
        };
        Launcher { program, kind }
    })
}

/// Whether the jobs run under Hydra (`DLS_TEST_LAUNCHER=mpiexec.hydra`).
pub(crate) fn under_hydra() -> bool {
    launcher().kind == LauncherKind::Hydra
}

/// Skips a test that cannot run under the launcher in use for a reason of the launcher: prints
/// the reason and returns `true` when the jobs run under Hydra.
pub(crate) fn skip_under_hydra(test: &str, reason: &str) -> bool {
    if under_hydra() {
        eprintln!("SKIPPED under Hydra: {test}: {reason}");
        true
    } else {
        false
    }
}

/// The launcher's options before `-np`: Open MPI's `--oversubscribe` and the test's
/// `mpirun_args` (Open MPI's options), or their Hydra forms. Hydra starts as many ranks on this
/// machine as asked (no `--oversubscribe`) and passes the launcher's whole environment to the
/// ranks, where the job's variables are set, so `-x NAME` needs nothing; `-x NAME=VALUE`
/// becomes `-genv NAME VALUE`, and `--mca KEY VALUE` becomes `-genv OMPI_MCA_KEY VALUE` (what
/// Open MPI would read; MPICH ignores it). An option with no Hydra form panics, naming it.
pub(crate) fn launcher_args(kind: LauncherKind, mpirun_args: &[&str]) -> Vec<String> {
    if kind == LauncherKind::OpenMpi {
        return std::iter::once("--oversubscribe")
            .chain(mpirun_args.iter().copied())
            .map(str::to_string)
            .collect();
    }
    let mut out = Vec::new();
    let mut args = mpirun_args.iter();
    while let Some(&arg) = args.next() {
        let mut value = |option: &str| -> String {
            args.next()
                .unwrap_or_else(|| panic!("mpirun option `{option}` without its value"))
                .to_string()
        };
        match arg {
            "--oversubscribe" => {}
            "-x" => {
                let var = value(arg);
                if let Some((name, v)) = var.split_once('=') {
                    out.extend(["-genv".to_string(), name.to_string(), v.to_string()]);
                }
            }
            "--mca" | "-mca" => {
                let key = value(arg);
                let v = value(arg);
                out.extend(["-genv".to_string(), format!("OMPI_MCA_{key}"), v]);
            }
            other => panic!(
                "the Open MPI option `{other}` has no Hydra form in launcher_args \
                 (test-programs/tests/mpi_common/mod.rs): add one there"
            ),
        }
    }
    out
}

/// The path of program `name` of this package (a `[[bin]]` of `test-programs/Cargo.toml`).
pub(crate) fn program(name: &str) -> &'static str {
    if let Some(path) = gated_program(name) {
        return path;
    }
    match name {
        "mpi_exactly_once" => env!("CARGO_BIN_EXE_mpi_exactly_once"),
        "mpi_strategies" => env!("CARGO_BIN_EXE_mpi_strategies"),
        "mpi_panic" => env!("CARGO_BIN_EXE_mpi_panic"),
        "two_level_check" => env!("CARGO_BIN_EXE_two_level_check"),
        "two_level_macro" => env!("CARGO_BIN_EXE_two_level_macro"),
        "explicit_api" => env!("CARGO_BIN_EXE_explicit_api"),
        "hang" => env!("CARGO_BIN_EXE_hang"),
        "mpi_restart" => env!("CARGO_BIN_EXE_mpi_restart"),
        "launch_probe" => env!("CARGO_BIN_EXE_launch_probe"),
        // A program outside this package, by its absolute path (`/bin/sh` running a wrapper).
        other if other.starts_with('/') => Box::leak(other.to_string().into_boxed_str()),
        // A [[bin]] not listed above: cargo has built it all the same.
        other => built_next_to_tests(other)
            .map(|path| &*Box::leak(path.display().to_string().into_boxed_str()))
            .unwrap_or_else(|| {
                panic!(
                    "no test program `{other}`: add a [[bin]] to test-programs/Cargo.toml (and a \
                     line to `program` in test-programs/tests/mpi_common/mod.rs)"
                )
            }),
    }
}

/// [`program`]'s programs behind the feature `all-programs` (a default one): none without it (`scripts/mpich.sh`
/// builds only the others).
fn gated_program(name: &str) -> Option<&'static str> {
    #[cfg(feature = "all-programs")]
    return Some(match name {
        "mpi_split" => env!("CARGO_BIN_EXE_mpi_split"),
        "mpi_empty_values" => env!("CARGO_BIN_EXE_mpi_empty_values"),
        "mpi_big_values" => env!("CARGO_BIN_EXE_mpi_big_values"),
        "checked_loop" => env!("CARGO_BIN_EXE_checked_loop"),
        "fault_check" => env!("CARGO_BIN_EXE_fault_check"),
        "mpi_disagree" => env!("CARGO_BIN_EXE_mpi_disagree"),
        "mpi_merges" => env!("CARGO_BIN_EXE_mpi_merges"),
        "mpi_user_hook" => env!("CARGO_BIN_EXE_mpi_user_hook"),
        "mpi_idle_cpu" => env!("CARGO_BIN_EXE_mpi_idle_cpu"),
        "mpi_panic_sites" => env!("CARGO_BIN_EXE_mpi_panic_sites"),
        "mpi_nested" => env!("CARGO_BIN_EXE_mpi_nested"),
        "mpi_latency" => env!("CARGO_BIN_EXE_mpi_latency"),
        "two_level_latency" => env!("CARGO_BIN_EXE_two_level_latency"),
        "term_frequency" => env!("CARGO_BIN_EXE_term_frequency"),
        "mandelbrot" => env!("CARGO_BIN_EXE_mandelbrot"),
        "progress_loop" => env!("CARGO_BIN_EXE_progress_loop"),
        "mpi_stall" => env!("CARGO_BIN_EXE_mpi_stall"),
        "mpi_auto" => env!("CARGO_BIN_EXE_mpi_auto"),
        _ => return None,
    });
    #[cfg(not(feature = "all-programs"))]
    {
        let _ = name;
        None
    }
}

/// Binary `name` of this package as cargo lays it out: in the directory above `deps/`, which
/// holds this test binary (`None` if it is not there).
pub(crate) fn built_next_to_tests(name: &str) -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let path = exe.parent()?.parent()?.join(name);
    path.exists().then_some(path)
}

/// The result of one `mpirun` job that ended by itself.
#[derive(Debug)]
pub(crate) struct Job {
    pub success: bool,
    pub code: Option<i32>,
    /// Always `false`: a job that outlives its timeout fails the test instead of returning
    /// (kept so that tests written as `assert!(!job.timed_out)` still compile).
    pub timed_out: bool,
    pub elapsed: Duration,
    pub stdout: String,
    pub stderr: String,
}

/// A job that did not end by itself: it outlived its timeout, or left processes behind.
#[derive(Debug)]
pub(crate) struct Hang {
    /// `name` on `np` ranks, the mpirun command line and the timeout.
    pub what: String,
    /// The launcher's command (`mpirun`, or `DLS_TEST_LAUNCHER`).
    pub launcher: String,
    /// The job outlived its timeout and was killed.
    pub timed_out: bool,
    /// The processes of the job (its launcher's session, or marked, see [`job_processes`]) still
    /// running when the launcher had ended (`pid cmdline`); they have been killed.
    pub left_behind: Vec<String>,
    /// The processes of the job still running after the kill (none, unless even SIGKILL
    /// failed).
    pub survivors: Vec<String>,
    /// From the start to the end of the kill.
    pub elapsed: Duration,
    pub stdout: String,
    pub stderr: String,
}

impl fmt::Display for Hang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.timed_out {
            write!(
                f,
                "{}: hung; killed {} and its ranks (every process of the job) after {:.1?}",
                self.what, self.launcher, self.elapsed
            )?;
        } else {
            write!(f, "{}: {} ended", self.what, self.launcher)?;
        }
        if !self.left_behind.is_empty() {
            write!(
                f,
                "; {} process(es) outlived {} and were killed: {:?}",
                self.left_behind.len(),
                self.launcher,
                self.left_behind
            )?;
        }
        if !self.survivors.is_empty() {
            write!(f, "; STILL RUNNING after SIGKILL: {:?}", self.survivors)?;
        }
        write!(
            f,
            "\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        )
    }
}

/// Runs `mpirun [mpirun_args] -np <np> <program> [args]` (or the launcher `DLS_TEST_LAUNCHER`
/// names, with `mpirun_args` translated: [`launcher_args`]); panics (fails the test) if it
/// outlives `timeout` or leaves a process behind, with a message naming the program, `np` and
/// `timeout`.
pub(crate) fn mpirun(
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
pub(crate) fn mpirun_env(
    np: usize,
    mpirun_args: &[&str],
    env: &[(&str, &str)],
    name: &str,
    args: &[&str],
    timeout: Duration,
) -> Job {
    try_mpirun_env(np, mpirun_args, env, name, args, timeout)
        .unwrap_or_else(|hang| panic!("{hang}"))
}

/// [`mpirun_env`] that returns a hang instead of panicking (for the tests of the harness itself).
pub(crate) fn try_mpirun_env(
    np: usize,
    mpirun_args: &[&str],
    env: &[(&str, &str)],
    name: &str,
    args: &[&str],
    timeout: Duration,
) -> Result<Job, Box<Hang>> {
    let _one = ONE_JOB_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    static JOBS: AtomicU64 = AtomicU64::new(0);
    let marker = format!(
        "{}-{}",
        std::process::id(),
        JOBS.fetch_add(1, Ordering::Relaxed)
    );
    let exe = program(name);
    let launcher = launcher();
    let options = launcher_args(launcher.kind, mpirun_args);
    let command: Vec<String> = std::iter::once(launcher.program.clone())
        .chain(options.iter().cloned())
        .chain(["-np".to_string(), np.to_string(), exe.to_string()])
        .chain(args.iter().map(|a| a.to_string()))
        .collect();
    let what = format!(
        "`{name}` on {np} ranks ({}) with a timeout of {} s",
        command.join(" "),
        timeout.as_secs_f64()
    );
    let mut cmd = Command::new(&launcher.program);
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        // Hermetic runs: the caller's own dls settings never leak into a test job.
        .env_remove("DLS_SCHEDULE")
        .env_remove("DLS_REPORT")
        .env_remove("DLS_RACKS")
        .env_remove("DLS_THREADS")
        .envs(env.iter().copied())
        .env(JOB_MARKER, &marker)
        .args(&options)
        .arg("-np")
        .arg(np.to_string())
        .arg(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setsid is async-signal-safe; the child only calls it between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let start = Instant::now();
    let mut child = cmd.spawn().unwrap_or_else(|e| {
        panic!(
            "cannot start `{}` (Open MPI's mpirun: scripts/deps.sh; MPICH's mpiexec.hydra: \
             scripts/mpich.sh): {e}",
            launcher.program
        )
    });
    // The session id of Open MPI's processes of the job: mpirun's pid (Hydra's ranks are found
    // by the marker).
    let session = child.id() as i32;
    let job = || job_processes(session, &marker);
    let (out_tx, out_rx) = mpsc::channel();
    let (err_tx, err_rx) = mpsc::channel();
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        let _ = out_tx.send(s);
    });
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        let _ = err_tx.send(s);
    });

    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for mpirun") {
            break status;
        }
        if start.elapsed() > timeout {
            timed_out = true;
            // SAFETY: kill(2) on the pid of the mpirun we started (not yet reaped).
            unsafe { libc::kill(session, libc::SIGTERM) };
            let term = Instant::now();
            while child.try_wait().expect("wait for mpirun").is_none()
                && term.elapsed() < TERM_GRACE
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            kill_job(&job());
            break child.wait().expect("wait for killed mpirun");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // mpirun has ended: nothing of its job may still run (a rank that outlived it) once
    // three seconds have passed (when mpirun itself is killed, Open MPI's ranks notice it and end
    // within one or two seconds).
    let left_behind = if timed_out {
        Vec::new()
    } else {
        let ended = Instant::now();
        loop {
            let left = job();
            if left.is_empty() || ended.elapsed() > Duration::from_secs(3) {
                break left;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let survivors = if timed_out || !left_behind.is_empty() {
        kill_job(&job());
        wait_until_gone(job, Duration::from_secs(5))
    } else {
        Vec::new()
    };
    let elapsed = start.elapsed();
    // The pipes close when the last process of the job has gone; do not wait forever for a
    // survivor.
    let read_limit = if survivors.is_empty() {
        Duration::from_secs(30)
    } else {
        Duration::from_millis(100)
    };
    let stdout = out_rx.recv_timeout(read_limit).unwrap_or_default();
    let stderr = err_rx.recv_timeout(read_limit).unwrap_or_default();
    if timed_out || !left_behind.is_empty() || !survivors.is_empty() {
        return Err(Box::new(Hang {
            what,
            launcher: launcher.program.clone(),
            timed_out,
            left_behind,
            survivors,
            elapsed,
            stdout,
            stderr,
        }));
    }
    Ok(Job {
        success: status.success(),
        code: status.code(),
        timed_out: false,
        elapsed,
        stdout,
        stderr,
    })
}

/// The live (not zombie) processes of session `session`, as `pid cmdline`.
pub(crate) fn session_processes(session: i32) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp session ...`; comm may hold spaces and parentheses.
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        if fields.len() < 4 || matches!(fields[0], "Z" | "X") {
            continue;
        }
        if fields[3].parse::<i32>().ok() == Some(session) {
            found.push(format!("{pid} {}", cmdline(&entry.path())));
        }
    }
    found
}

/// The live processes whose command line contains `needle` (what `pgrep -af <needle>` lists), as
/// `pid cmdline`, this test process excluded.
pub(crate) fn processes_running(needle: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.bytes().all(|b| b.is_ascii_digit()) && name != me.as_str()
        })
        .filter_map(|e| {
            let line = cmdline(&e.path());
            line.contains(needle)
                .then(|| format!("{} {line}", e.file_name().to_string_lossy()))
        })
        .collect()
}

fn cmdline(proc_dir: &Path) -> String {
    std::fs::read(proc_dir.join("cmdline"))
        .map(|b| {
            b.split(|&c| c == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

/// The live processes of a job, as `pid cmdline`: those of session `session` (the launcher's,
/// which holds Open MPI's ranks) and those whose environment holds `DLS_TEST_JOB=marker` (every
/// process the launcher started, also in sessions of their own as Hydra's ranks are, or
/// re-parented after their parent died).
pub(crate) fn job_processes(session: i32, marker: &str) -> Vec<String> {
    let mut found = session_processes(session);
    let entry = format!("{JOB_MARKER}={marker}");
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return found;
    };
    for e in dir.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if found
            .iter()
            .any(|p| p.split(' ').next() == Some(&pid.to_string()))
        {
            continue;
        }
        // Unreadable (another user's process, or gone): not ours.
        let Ok(environ) = std::fs::read(e.path().join("environ")) else {
            continue;
        };
        if !environ.split(|&b| b == 0).any(|v| v == entry.as_bytes()) {
            continue;
        }
        let live = std::fs::read_to_string(e.path().join("stat"))
            .ok()
            .and_then(|stat| {
                let after = &stat[stat.rfind(')')? + 1..];
                let state = after.split_whitespace().next()?;
                Some(!matches!(state, "Z" | "X"))
            })
            .unwrap_or(false);
        if live {
            found.push(format!("{pid} {}", cmdline(&e.path())));
        }
    }
    found
}

/// SIGKILL to every process of `processes` (`pid cmdline`, from [`job_processes`]).
fn kill_job(processes: &[String]) {
    for p in processes {
        if let Some(pid) = p.split(' ').next().and_then(|s| s.parse::<i32>().ok()) {
            // SAFETY: kill(2) on a process of the job we started (its launcher's session, or
            // carrying this job's marker).
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Waits up to `limit` for the job (`processes` lists it) to have no live process, killing what
/// is left; returns those left.
fn wait_until_gone(processes: impl Fn() -> Vec<String>, limit: Duration) -> Vec<String> {
    let start = Instant::now();
    loop {
        let left = processes();
        if left.is_empty() || start.elapsed() > limit {
            return left;
        }
        kill_job(&left);
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The chunk map `map=[[start, size, worker], ...]` that a test program prints (in the order of
/// the starts) covers [0, n) once: no gap, no overlap.
pub(crate) fn assert_partition(out: &str, n: u64) {
    let map = out
        .lines()
        .find_map(|l| l.split_once("map=").map(|(_, m)| m))
        .expect("the program prints the chunk map");
    let nums: Vec<u64> = map
        .split(|c: char| !c.is_ascii_digit())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().unwrap())
        .collect();
    let mut next = 0;
    for c in nums.chunks(3) {
        assert_eq!(c[0], next, "gap or overlap at {next}: {map}");
        next = c[0] + c[1];
    }
    assert_eq!(next, n, "{map}");
}
