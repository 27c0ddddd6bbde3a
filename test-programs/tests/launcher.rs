//! Launcher detection by the real launcher (issue 31): `src/bin/launch_probe.rs` started by the
//! launcher the tests use (Open MPI's `mpirun`, or MPICH's Hydra `mpiexec` with
//! `DLS_TEST_LAUNCHER`, `scripts/mpich.sh`) sees that launcher's variables, and the runtime
//! (`Launch::detect`, `dls-runtime/src/runtime/launch.rs`) names the right launcher and rank
//! count on every rank, on 3 ranks and on 1 (Hydra's `-n 1` sets `PMI_SIZE=1`); the loop's
//! report (`DLS_REPORT=1`) says `p=`. Without a launcher the same MPI build runs on threads.
//! A build without the `mpi` feature (its path in `DLS_TEST_NO_MPI_PROBE`, which
//! `scripts/mpich.sh` sets) refuses to run under the launcher with 2 ranks, naming it, and runs
//! on threads under `-n 1`.

#![cfg(feature = "mpi")]

mod mpi_common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mpi_common::LauncherKind;

/// The size variable the runtime reads for the launcher in use, and words of its description.
fn expected() -> (&'static str, &'static str) {
    match mpi_common::launcher().kind {
        LauncherKind::OpenMpi => ("OMPI_COMM_WORLD_SIZE", "Open MPI's mpirun"),
        LauncherKind::Hydra => ("PMI_SIZE", "a PMI launcher (MPICH's"),
    }
}

fn probe_line(stdout: &str, rank: usize, p: usize) -> &str {
    let prefix = format!("launch_probe: rank {rank} of {p}: ");
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with(&prefix)).collect();
    assert_eq!(lines.len(), 1, "one line of rank {rank}:\n{stdout}");
    lines[0]
}

fn launched_on(p: usize) {
    let job = mpi_common::mpirun_env(
        p,
        &["-x", "DLS_REPORT"],
        &[("DLS_REPORT", "1")],
        "launch_probe",
        &[],
        Duration::from_secs(60),
    );
    assert!(
        job.success,
        "P={p}: exit {:?}\n{}\n{}",
        job.code, job.stdout, job.stderr
    );
    let (variable, words) = expected();
    for rank in 0..p {
        let line = probe_line(&job.stdout, rank, p);
        assert!(
            line.contains(&format!("variable={variable} launcher={words}"))
                && line.contains(&format!(" rank={rank} size={p};")),
            "rank {rank}: {line}"
        );
        assert!(
            line.ends_with(&format!(
                "backend=Mpi {{ rank: {rank}, size: {p}, threads: 1 }}"
            )),
            "rank {rank}: {line}"
        );
        if mpi_common::under_hydra() {
            assert!(
                line.contains(&format!("PMI_RANK={rank} PMI_SIZE={p}")),
                "Hydra's variables: {line}"
            );
        }
        eprintln!("{line}");
    }
    assert!(
        job.stdout
            .contains(&format!("launch_probe: loop n=100 p={p}")),
        "{}",
        job.stdout
    );
    let summary = format!("dls: loop `probe` technique=fac2 n=100 p={p}:");
    assert!(job.stderr.contains(&summary), "{}", job.stderr);
}

#[test]
fn every_rank_sees_the_launcher_and_the_rank_count() {
    launched_on(3);
}

/// `-n 1`: Hydra sets `PMI_SIZE=1` (and `PMI_RANK=0`), Open MPI `OMPI_COMM_WORLD_SIZE=1`; an MPI
/// build runs on MPI with one rank.
#[test]
fn one_rank_is_an_mpi_job_of_one() {
    launched_on(1);
}

/// Runs `program` without a launcher (every launcher variable removed), killed after 60 s.
fn run_alone(program: &str) -> (bool, String) {
    let mut cmd = Command::new(program);
    for k in [
        "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_RANK",
        "PMI_SIZE",
        "PMI_RANK",
        "MV2_COMM_WORLD_SIZE",
        "MV2_COMM_WORLD_RANK",
        "PMIX_RANK",
        "MPI_LOCALNRANKS",
        "MPI_LOCALRANKID",
        "SLURM_STEP_NUM_TASKS",
        "SLURM_NTASKS",
        "DLS_REPORT",
        "DLS_SCHEDULE",
    ] {
        cmd.env_remove(k);
    }
    let mut child = cmd
        .env("DLS_THREADS", "2")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the probe");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{program} alone did not end within 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// The MPI build started without a launcher: no launch, the threads backend (MPI is not
/// initialised).
#[test]
fn without_a_launcher_the_mpi_build_runs_on_threads() {
    let (ok, out) = run_alone(mpi_common::program("launch_probe"));
    assert!(ok, "{out}");
    assert!(
        out.contains(
            "launch_probe: rank 0 of 1: variable=none; env ; backend=Threads { threads: 2 }"
        ),
        "{out}"
    );
    assert!(out.contains("launch_probe: loop n=100 p=2"), "{out}");
}

/// A build without the `mpi` feature under the launcher: refused with 2 ranks, naming the
/// launcher and its variable; runs on threads with 1.
#[test]
fn built_without_mpi_it_refuses_two_ranks_naming_the_launcher() {
    let Some(no_mpi) = std::env::var("DLS_TEST_NO_MPI_PROBE")
        .ok()
        .filter(|p| !p.is_empty())
    else {
        assert!(
            !mpi_common::under_hydra(),
            "under Hydra, DLS_TEST_NO_MPI_PROBE must give launch_probe built without the mpi \
             feature (scripts/mpich.sh)"
        );
        eprintln!(
            "SKIPPED: DLS_TEST_NO_MPI_PROBE is not set (scripts/fresh_project.sh checks the \
             refusal under Open MPI's mpirun)"
        );
        return;
    };
    let (variable, words) = expected();
    let job = mpi_common::mpirun(2, &[], &no_mpi, &[], Duration::from_secs(60));
    assert!(!job.success, "a build without mpi ran 2 copies: {job:?}");
    let refusal = format!("launch_probe: INIT ERR launched by {words}");
    let line = job
        .stderr
        .lines()
        .find(|l| l.starts_with(&refusal))
        .unwrap_or_else(|| panic!("no `{refusal}` line:\n{}", job.stderr));
    assert!(
        line.contains(&format!(
            "with 2 processes ({variable}=2), but this program was built without the `mpi` feature"
        )),
        "{line}"
    );
    assert!(job.stderr.contains("mpi = [\"dls/mpi\"]"), "{}", job.stderr);
    eprintln!("2 ranks: {line}");

    let job = mpi_common::mpirun(1, &[], &no_mpi, &[], Duration::from_secs(60));
    assert!(job.success, "{job:?}");
    let line = probe_line(&job.stdout, 0, 1);
    assert!(
        line.contains(&format!("variable={variable} ")) && line.contains("backend=Threads"),
        "{line}"
    );
    eprintln!("1 rank: {line}");
}
