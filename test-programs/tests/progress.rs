//! The progress display of long loops (`DLS_PROGRESS`, `dls-runtime/src/runtime/observe/progress.rs`),
//! with `test-programs/src/bin/progress_loop.rs` (SS over sleeping iterates): lines with
//! increasing percentages on threads, none with `off` or for a short loop in `auto` mode without
//! a terminal, the `indicatif` bar in a pseudo-terminal (util-linux `script`), a bad value named,
//! and (with the mpi feature) lines once per second from rank 0 only under mpirun.

mod mpi_common;

use std::process::{Command, Output};

/// Runs the program on 2 threads with `DLS_PROGRESS=<mode>` (unset if `None`): `n` iterates of
/// `ms` milliseconds.
fn run(mode: Option<&str>, n: u64, ms: u64) -> Output {
    let mut cmd = Command::new(mpi_common::program("progress_loop"));
    cmd.env("DLS_THREADS", "2")
        .env_remove("DLS_REPORT")
        .env_remove("DLS_SCHEDULE")
        .env_remove("DLS_PROGRESS")
        .args([n.to_string(), ms.to_string()]);
    if let Some(m) = mode {
        cmd.env("DLS_PROGRESS", m);
    }
    cmd.output().unwrap()
}

/// The percentages of the progress lines of loop `sleepy` in `stderr`.
fn percentages(stderr: &str) -> Vec<u64> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("dls: loop `sleepy`: "))
        .map(|l| l.split('%').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn lines_mode_prints_increasing_percentages_and_off_nothing() {
    // 100 iterates of 50 ms on 2 threads: 2.5 s, a line each second and a last one at 100%.
    let out = run(Some("lines"), 100, 50);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "sum=4950\n");
    let p = percentages(&stderr);
    assert!(p.len() >= 3, "a line a second and the last one:\n{stderr}");
    assert!(
        p.windows(2).all(|w| w[0] < w[1]),
        "increasing: {p:?}\n{stderr}"
    );
    assert_eq!(*p.last().unwrap(), 100, "{stderr}");
    assert!(p[0] > 0 && p[0] < 100, "{stderr}");
    assert!(stderr.contains("it/s, ETA "), "{stderr}");
    assert!(stderr.contains("done in "), "{stderr}");

    let out = run(Some("off"), 60, 50);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn auto_mode_without_a_terminal_is_silent_for_a_short_loop() {
    // 1.5 s: shorter than the first line of `auto` without a terminal (5 s).
    let out = run(None, 60, 50);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn a_bad_value_names_the_setting() {
    let out = run(Some("sometimes"), 1, 0);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("DLS_PROGRESS=`sometimes`") && stderr.contains("auto, bar, lines or off"),
        "{stderr}"
    );
}

/// Whether util-linux `script` (a pseudo-terminal for a command) is on this machine.
fn script_available() -> bool {
    Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_terminal_gets_the_bar() {
    if !script_available() {
        eprintln!(
            "SKIPPED a_terminal_gets_the_bar: util-linux `script` is not installed, so no \
             pseudo-terminal to draw the bar in"
        );
        return;
    }
    // `auto` on a terminal: the bar once the loop has run 1 s; 60 iterates of 50 ms on 2 threads.
    for mode in ["auto", "bar"] {
        let cmd = format!(
            "env DLS_THREADS=2 DLS_PROGRESS={mode} {} 60 50",
            mpi_common::program("progress_loop")
        );
        let out = Command::new("script")
            .args(["-qec", &cmd, "/dev/null"])
            .env_remove("DLS_REPORT")
            .env_remove("DLS_SCHEDULE")
            .output()
            .unwrap();
        let all = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{mode}: {all}");
        assert!(all.contains("sum=1770"), "{mode}: {all}");
        assert!(
            all.contains("dls: loop `sleepy` [") && all.contains("/60 it), "),
            "{mode}: no bar in the pseudo-terminal's output:\n{all:?}"
        );
        assert!(all.contains("it/s, ETA "), "{mode}: {all:?}");
        assert!(
            !all.contains("iterates), "),
            "{mode}: lines on a terminal: {all}"
        );
    }
}

#[cfg(feature = "mpi")]
#[test]
fn under_mpirun_rank_0_prints_a_line_a_second() {
    use std::time::Duration;
    // 3 ranks, 60 iterates of 100 ms: about 2 s, so 2 lines and the last one, from rank 0 only.
    let job = mpi_common::mpirun_env(
        3,
        &[],
        &[("DLS_PROGRESS", "lines")],
        "progress_loop",
        &["60", "100"],
        Duration::from_secs(60),
    );
    assert_eq!(job.stdout, "sum=1770\n", "{}", job.stderr);
    let p = percentages(&job.stderr);
    let lines = job
        .stderr
        .lines()
        .filter(|l| l.starts_with("dls: loop"))
        .count();
    assert_eq!(lines, p.len(), "{}", job.stderr);
    // One line per second of the loop (1 or 2 for ~2 s, as start-up varies) and the last one: a
    // line from every rank would give at least 3 per period.
    assert!(
        (2..=4).contains(&p.len()),
        "once per period, rank 0 only: {p:?}\n{}",
        job.stderr
    );
    assert!(p.windows(2).all(|w| w[0] < w[1]), "{p:?}\n{}", job.stderr);
    assert_eq!(*p.last().unwrap(), 100, "{}", job.stderr);

    let job = mpi_common::mpirun_env(
        3,
        &[],
        &[("DLS_PROGRESS", "off")],
        "progress_loop",
        &["20", "50"],
        Duration::from_secs(60),
    );
    assert!(!job.stderr.contains("dls: loop"), "{}", job.stderr);
}

/// Issue 27: `lines` printed nothing for a loop shorter than its 1 s period, unlike what the
/// settings table says ("a line every second for any loop"): such a loop now ends with its line.
#[test]
fn lines_mode_ends_even_a_short_loop_with_its_line() {
    let out = run(Some("lines"), 10, 10);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(percentages(&stderr), vec![100], "{stderr}");
    assert!(stderr.contains("done in"), "{stderr}");
}
