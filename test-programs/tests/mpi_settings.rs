//! Issue 27 case 4: a setting that reaches only some ranks (an environment variable exported
//! without `mpirun -x`, or set differently on one node) ends the job within seconds, rank 0
//! naming the setting and each rank's value; before, `DLS_CHECK=off` on one rank gave a wrong sum
//! on every rank, `DLS_REDUCTION=pipeline` on rank 1 or `DLS_CHECKPOINT` on rank 0 hung, and a
//! bad `DLS_SCHEDULE` on rank 1 ended the job without a word. Every setting dls reads
//! (`dls_runtime::runtime::settings::SETTINGS`) is tried, set on one rank by a wrapper script.

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

/// Runs `mpi_disagree agree` on 2 ranks with `name=value` set on rank `rank` only.
fn on_one_rank(name: &str, value: &str, rank: usize) -> mpi_common::Job {
    let program = mpi_common::program("mpi_disagree");
    let script = format!(
        "if [ \"$OMPI_COMM_WORLD_RANK\" = {rank} ]; then export {name}='{value}'; fi; exec \"$0\" agree"
    );
    mpi_common::mpirun(
        2,
        &[],
        "/bin/sh",
        &["-c", &script, program],
        Duration::from_secs(30),
    )
}

#[test]
fn every_setting_on_one_rank_only_is_named_with_each_ranks_value() {
    let dir = std::env::temp_dir().join(format!("dls-one-rank-{}", std::process::id()));
    let dir = dir.display().to_string();
    let cases: Vec<(&str, &str, usize)> = vec![
        ("DLS_CHECK", "off", 1),
        ("DLS_REDUCTION", "pipeline", 1),
        ("DLS_CHECKPOINT", &dir, 0),
        ("DLS_SCHEDULE", "fac3", 1),
        ("DLS_SCHEDULE", "gss", 0),
        ("DLS_REEXECUTE", "off", 1),
        ("DLS_SPLIT", "off", 1),
        ("DLS_CHECK_ALPHA", "0.01", 1),
        ("DLS_INJECT", "worker=1,bias=3", 1),
        ("DLS_PROGRESS", "lines", 1),
        ("DLS_CHECKPOINT_EVERY", "5s", 1),
        ("DLS_DELAY", "body:1us", 1),
        ("DLS_THREADS", "2", 1),
        ("DLS_CHUNK_MAP", "10", 1),
        ("DLS_STACK", "1M", 1),
        ("DLS_PIN", "cores", 1),
        ("DLS_REPORT", "1", 1),
        ("DLS_RACKS", "ranks:0-1=rack1", 1),
    ];
    // Every setting dls reads is among the cases.
    for name in dls_runtime::runtime::settings::SETTINGS {
        assert!(
            cases.iter().any(|c| c.0 == *name),
            "{name} is not tried on one rank"
        );
    }
    for (name, value, rank) in cases {
        let job = on_one_rank(name, value, rank);
        let what = format!("{name}={value} on rank {rank} only");
        assert!(!job.success, "{what}: the job exited 0\n{}", job.stderr);
        assert!(
            job.elapsed < Duration::from_secs(30),
            "{what}: took {:?}",
            job.elapsed
        );
        let line = format!("dls:   {name}: ");
        let said = job
            .stderr
            .lines()
            .find(|l| l.starts_with(&line))
            .unwrap_or_else(|| panic!("{what}: the setting is not named\n{}", job.stderr));
        assert!(
            said.contains(&format!("rank {rank} `{value}`"))
                && said.contains(&format!("rank {} unset", 1 - rank)),
            "{what}: `{said}` does not give each rank's value"
        );
        assert!(
            job.stderr.contains("mpirun -x"),
            "{what}: no advice\n{}",
            job.stderr
        );
        eprintln!("{what}: `{said}` after {:.2?}", job.elapsed);
    }
}

/// The same settings on every rank run normally.
#[test]
fn settings_on_every_rank_run_normally() {
    let job = mpi_common::mpirun_env(
        2,
        &["-x", "DLS_CHECK", "-x", "DLS_SPLIT"],
        &[("DLS_CHECK", "off"), ("DLS_SPLIT", "off")],
        "mpi_disagree",
        &["agree"],
        Duration::from_secs(30),
    );
    assert!(job.success, "{}", job.stderr);
}
