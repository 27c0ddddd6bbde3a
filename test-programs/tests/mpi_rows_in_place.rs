//! Gathered rows written in place on each rank and exchanged between the ranks after the loop
//! (issues 42 and 45: `gather(v: rows(w))` and an ndarray array's own rows), against the serial
//! results under mpirun at P = 1, 2, 4, with re-execution off (a rows loop's default), on
//! (`DLS_REEXECUTE=on`, with a stalled rank whose rows another rank runs again) and with two
//! threads inside each rank; and the loop reports, which must count no logged write for the rows
//! written in place (a rows loop that logs again under MPI fails here) and one for the write
//! outside every row. Runs `test-programs/src/bin/mpi_rows_in_place.rs` (its ndarray loops
//! with the feature `ndarray`).

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

/// Runs the program on `p` ranks with `env`: it must say OK.
fn run(p: usize, env: &[(&str, &str)]) {
    let job = mpi_common::mpirun_env(
        p,
        &[],
        env,
        "mpi_rows_in_place",
        &[],
        Duration::from_secs(240),
    );
    assert!(
        job.success,
        "P={p} {env:?}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        job.code, job.stdout, job.stderr
    );
    assert!(
        job.stdout.contains(&format!("rows-in-place OK: P={p}")),
        "P={p} {env:?}: {}",
        job.stdout
    );
}

/// One loop's report: its name, its logged writes and its re-executed copies.
type Report = (String, u64, u64);

/// Runs the program on `p` ranks with `env` and a report file: every loop's report.
fn reports(p: usize, env: &[(&str, &str)]) -> Vec<Report> {
    let path = std::env::temp_dir().join(format!(
        "dls-rows-{}-{p}-{}.jsonl",
        std::process::id(),
        env.len()
    ));
    let _ = std::fs::remove_file(&path);
    let file = path.to_string_lossy().into_owned();
    let mut with_report = env.to_vec();
    with_report.push(("DLS_REPORT", &file));
    run(p, &with_report);
    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    text.lines()
        .map(|line| {
            let r: serde_json::Value = serde_json::from_str(line).unwrap();
            let name = r["name"].as_str().unwrap_or_default().to_string();
            // A report leaves out a count of 0.
            let logged = r["logged_writes"].as_u64().unwrap_or(0);
            let copies = r["reexecution"]["copies"].as_u64().unwrap_or(0);
            (name, logged, copies)
        })
        .collect()
}

/// The logged writes of every report of loop `name`, which must be there.
fn of(reports: &[Report], name: &str) -> Vec<u64> {
    let found: Vec<u64> = reports
        .iter()
        .filter(|(n, ..)| n == name)
        .map(|&(_, l, _)| l)
        .collect();
    assert!(!found.is_empty(), "no report of {name}: {reports:?}");
    found
}

/// The rows written in place are logged by no rank; the one write outside every row is.
/// Returns the reports.
fn rows_are_not_logged(p: usize, env: &[(&str, &str)]) -> Vec<Report> {
    let reports = reports(p, env);
    let mut in_place = vec!["rows_flat", "rows_slow"];
    if cfg!(feature = "ndarray") {
        in_place.extend(["rows_nd", "rows_nd3"]);
    }
    for name in in_place {
        assert!(
            of(&reports, name).iter().all(|&l| l == 0),
            "P={p} {env:?}: {name} logged its rows: {reports:?}"
        );
    }
    assert_eq!(
        of(&reports, "rows_boundary"),
        [1],
        "P={p} {env:?}: {reports:?}"
    );
    reports
}

#[test]
fn one_rank() {
    run(1, &[]);
}

#[test]
fn two_ranks() {
    run(2, &[]);
}

#[test]
fn four_ranks() {
    run(4, &[]);
}

#[test]
fn one_rank_with_reexecution() {
    run(1, &[("DLS_REEXECUTE", "on")]);
}

#[test]
fn two_ranks_with_reexecution() {
    run(2, &[("DLS_REEXECUTE", "on")]);
}

#[test]
fn four_ranks_with_reexecution() {
    run(4, &[("DLS_REEXECUTE", "on")]);
}

#[test]
fn two_ranks_of_two_threads_with_reexecution() {
    run(2, &[("DLS_THREADS", "2"), ("DLS_REEXECUTE", "on")]);
}

#[test]
fn two_ranks_log_no_row() {
    rows_are_not_logged(2, &[]);
}

#[test]
fn four_ranks_with_reexecution_log_no_row() {
    let reports = rows_are_not_logged(4, &[("DLS_REEXECUTE", "on")]);
    // The stalled rank's rows ran again elsewhere, written in place there too.
    let copies: u64 = reports
        .iter()
        .filter(|(n, ..)| n == "rows_slow")
        .map(|&(.., c)| c)
        .sum();
    assert!(copies >= 1, "no copy of the stalled rows: {reports:?}");
}

/// With checkpoints the rows are logged (each write kept with the worker's confirmed result),
/// and the report counts them: the count the tests above find 0 is not 0 when rows log.
#[test]
fn two_ranks_with_checkpoints_log_their_rows() {
    let dir = std::env::temp_dir().join(format!("dls-rows-ckpt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let folder = dir.to_string_lossy().into_owned();
    let reports = reports(2, &[("DLS_CHECKPOINT", &folder)]);
    let _ = std::fs::remove_dir_all(&dir);
    // 94 rows of 94 interior elements per sweep.
    assert!(
        of(&reports, "rows_flat").iter().all(|&l| l == 94 * 94),
        "{reports:?}"
    );
}
