//! Issue 27 cases 1 and 2: a restart after the inputs changed never returns the old result, and a
//! finished run leaves no checkpoint that a later run restores. With
//! `test-programs/src/bin/checkpoint_inputs.rs` (a sum of `SCALE * i`), on 2 threads and (with the
//! mpi feature) under `mpirun -n 2`: a run killed part-way (`DIE_AT`), then a run with another
//! argument, another result type or another `dls::checkpoint_key` with the same
//! `DLS_CHECKPOINT` is refused naming what differs, before it prints a result; the same
//! program and arguments resume and give the serial sum; after that finished run the folder holds
//! no checkpoint, so a run with another argument computes its own result.

mod mpi_common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

const N: &str = "2000";

fn folder(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dls-inputs-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// What a run printed and how it ended.
struct Run {
    ok: bool,
    stdout: String,
    stderr: String,
}

/// How the program is launched: on 2 threads, or under `mpirun -n 2`.
#[derive(Clone, Copy)]
enum Launch {
    Threads,
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    Mpi,
}

fn run(how: Launch, dir: &Path, scale: &str, env: &[(&str, &str)]) -> Run {
    let d = dir.display().to_string();
    let mut all = vec![
        ("DLS_CHECKPOINT", d.as_str()),
        ("DLS_CHECKPOINT_EVERY", "1ms"),
    ];
    all.extend_from_slice(env);
    match how {
        Launch::Threads => {
            let mut cmd = Command::new(mpi_common::program("checkpoint_inputs"));
            for k in [
                "DLS_SCHEDULE",
                "DLS_REPORT",
                "DIE_AT",
                "RESULT",
                "INPUT_KEY",
            ] {
                cmd.env_remove(k);
            }
            cmd.env("DLS_THREADS", "2").args([N, scale]);
            for (k, v) in &all {
                cmd.env(k, v);
            }
            let out: Output = cmd.output().unwrap();
            Run {
                ok: out.status.success(),
                stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            }
        }
        Launch::Mpi => {
            let mut forward = Vec::new();
            for (k, _) in &all {
                forward.extend(["-x", k]);
            }
            let job = mpi_common::mpirun_env(
                2,
                &forward,
                &all,
                "checkpoint_inputs",
                &[N, scale],
                Duration::from_secs(60),
            );
            Run {
                ok: job.success,
                stdout: job.stdout,
                stderr: job.stderr,
            }
        }
    }
}

/// `key=` of the `sum=` line.
fn field(out: &str, key: &str) -> u64 {
    let line = out
        .lines()
        .find(|l| l.starts_with("sum="))
        .unwrap_or_else(|| panic!("no result line in {out}"));
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .unwrap()
        .parse()
        .unwrap()
}

/// The loop folders left in `dir`.
fn loop_folders(dir: &Path) -> usize {
    std::fs::read_dir(dir).unwrap().flatten().count()
}

/// A run that dies part-way, leaving checkpoints (`extra` added to its environment).
fn killed(how: Launch, dir: &Path, extra: &[(&str, &str)]) {
    let mut env = vec![("DIE_AT", "1500")];
    env.extend_from_slice(extra);
    let r = run(how, dir, "1", &env);
    assert!(!r.ok, "the killed run succeeded: {}", r.stdout);
    assert!(loop_folders(dir) > 0, "no checkpoint written: {}", r.stderr);
}

/// A run that must be refused: no result printed, an error naming `what`.
fn refused(r: &Run, what: &str) {
    assert!(!r.ok, "not refused: {}\n{}", r.stdout, r.stderr);
    assert!(
        !r.stdout.contains("sum="),
        "printed a result although refused: {}",
        r.stdout
    );
    assert!(
        r.stderr.contains(what) && r.stderr.contains("to start fresh, delete"),
        "the error does not name {what} and how to start fresh: {}",
        r.stderr
    );
}

fn inputs_changed(how: Launch, tag: &str) {
    let dir = folder(tag);
    // Case 1: another argument.
    killed(how, &dir, &[]);
    refused(&run(how, &dir, "2", &[]), "program arguments");
    // Case 2: another result type (same arguments).
    refused(&run(how, &dir, "1", &[("RESULT", "f64")]), "result type");
    // Another input, given to dls::checkpoint_key.
    refused(
        &run(how, &dir, "1", &[("INPUT_KEY", "data v2")]),
        "dls::checkpoint_key",
    );
    // The same program, arguments and inputs resume: the serial sum, part of it restored.
    let resumed = run(how, &dir, "1", &[]);
    assert!(resumed.ok, "{}\n{}", resumed.stdout, resumed.stderr);
    assert_eq!(
        field(&resumed.stdout, "sum"),
        field(&resumed.stdout, "serial")
    );
    assert!(field(&resumed.stdout, "restored") > 0, "{}", resumed.stdout);
    // A finished run retires its checkpoints: nothing left for a later run to restore.
    assert_eq!(loop_folders(&dir), 0, "a finished run left checkpoints");
    let other = run(how, &dir, "2", &[]);
    assert!(other.ok, "{}\n{}", other.stdout, other.stderr);
    assert_eq!(field(&other.stdout, "sum"), field(&other.stdout, "serial"));
    assert_eq!(field(&other.stdout, "restored"), 0);
    // The key: a killed run with a checkpoint_key resumes with the same key only.
    killed(how, &dir, &[("INPUT_KEY", "data v1")]);
    refused(&run(how, &dir, "1", &[]), "dls::checkpoint_key");
    let same = run(how, &dir, "1", &[("INPUT_KEY", "data v1")]);
    assert!(same.ok, "{}\n{}", same.stdout, same.stderr);
    assert!(field(&same.stdout, "restored") > 0, "{}", same.stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_restart_after_the_inputs_changed_is_refused_on_threads() {
    inputs_changed(Launch::Threads, "threads");
}

#[cfg(feature = "mpi")]
#[test]
fn a_restart_after_the_inputs_changed_is_refused_under_mpirun() {
    inputs_changed(Launch::Mpi, "mpi");
}
