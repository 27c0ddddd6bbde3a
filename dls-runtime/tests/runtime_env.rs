//! `init()` and `current()` read the environment: each case runs in a child process (this test
//! binary re-run with one test selected and the variables set), since the environment and the
//! runtime are per process.

use std::process::Command;

/// Runs the `child` test of this binary with `vars` set; returns its stdout + stderr.
fn run_child(vars: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env("DLS_ENV_TEST_CHILD", "1")
        .env_remove("DLS_SCHEDULE")
        .env_remove("DLS_THREADS")
        .env_remove("DLS_REPORT");
    // Whatever launched this test (mpirun, srun) must not leak into the child.
    for launcher_var in [
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
    ] {
        cmd.env_remove(launcher_var);
    }
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The child: prints what `init` and `current` give.
#[test]
fn child() {
    if std::env::var_os("DLS_ENV_TEST_CHILD").is_none() {
        return;
    }
    match dls_runtime::init() {
        Ok(rt) => {
            println!(
                "INIT OK backend={:?} workers={}",
                rt.backend(),
                rt.workers()
            );
            match rt
                .with_statistics(true)
                .doall(0..10u32, "fac2".parse().unwrap(), |_| {})
            {
                Ok(s) => println!("LOOP technique={}", s.report.technique),
                Err(e) => println!("LOOP ERR {e}"),
            }
            let cur = dls_runtime::current().unwrap();
            println!("CURRENT workers={}", cur.workers());
        }
        Err(e) => println!("INIT ERR {e}"),
    }
}

#[test]
fn threads_from_dls_threads() {
    let out = run_child(&[("DLS_THREADS", "3")]);
    assert!(
        out.contains("INIT OK backend=Threads { threads: 3 } workers=3"),
        "{out}"
    );
    assert!(out.contains("CURRENT workers=3"), "{out}");
}

#[test]
fn bad_dls_threads_names_the_variable() {
    let out = run_child(&[("DLS_THREADS", "lots")]);
    assert!(
        out.contains("INIT ERR DLS_THREADS=`lots`: expected a whole number"),
        "{out}"
    );
}

#[test]
fn dls_schedule_overrides_and_bad_values_list_the_techniques() {
    let out = run_child(&[("DLS_SCHEDULE", "gss")]);
    assert!(out.contains("LOOP technique=gss"), "{out}");
    let out = run_child(&[("DLS_SCHEDULE", "fastest")]);
    assert!(out.contains("INIT ERR DLS_SCHEDULE=`fastest`"), "{out}");
    assert!(out.contains("static, ss") && out.contains("awf-b"), "{out}");
    assert!(
        out.contains("fac2a, faca, af-a, bold, static-steal"),
        "{out}"
    );
    // LB4OMP's techniques through the setting (on three workers, so static-steal has blocks).
    for spec in [
        "fac2a",
        "faca,mu=1ms,sigma=1ms",
        "af-a,divider=4",
        "bold",
        "static-steal,min=2",
    ] {
        let out = run_child(&[("DLS_SCHEDULE", spec), ("DLS_THREADS", "3")]);
        assert!(
            out.contains(&format!("LOOP technique={spec}")),
            "{spec}: {out}"
        );
    }
}

#[test]
fn unwritable_report_file_names_the_variable() {
    let out = run_child(&[("DLS_REPORT", "/nonexistent-dir/x/report.json")]);
    assert!(
        out.contains("INIT ERR DLS_REPORT=`/nonexistent-dir/x/report.json`"),
        "{out}"
    );
}

#[test]
fn summary_on_stderr_with_dls_report_1() {
    let out = run_child(&[("DLS_REPORT", "1"), ("DLS_THREADS", "2")]);
    assert!(out.contains("dls: loop `"), "{out}");
    assert!(out.contains("efficiency"), "{out}");
    assert!(out.contains("dls:   worker    1:"), "{out}");
}

/// Without the `mpi` feature, a program launched by mpirun with several processes refuses to
/// run (instead of running N independent copies).
#[cfg(not(feature = "mpi"))]
#[test]
fn launched_by_mpirun_without_the_mpi_feature_is_an_error() {
    let out = run_child(&[("OMPI_COMM_WORLD_SIZE", "4")]);
    assert!(
        out.contains("INIT ERR launched by Open MPI's mpirun with 4 processes"),
        "{out}"
    );
    assert!(out.contains("--features mpi"), "{out}");
    // The lines a user adds to their own Cargo.toml.
    assert!(out.contains("[features]\n    mpi = [\"dls/mpi\"]"), "{out}");
    let out = run_child(&[("PMI_SIZE", "1")]);
    assert!(out.contains("INIT OK backend=Threads"), "{out}");
    // srun --mpi=pmix sets no *_SIZE variable: PMIx gives the rank, Slurm the step's size.
    let out = run_child(&[("PMIX_RANK", "0"), ("SLURM_STEP_NUM_TASKS", "2")]);
    assert!(
        out.contains("INIT ERR launched by a PMIx launcher (srun --mpi=pmix, prterun) with 2 processes (PMIX_RANK=0)"),
        "{out}"
    );
    let out = run_child(&[("PMIX_RANK", "0"), ("SLURM_STEP_NUM_TASKS", "1")]);
    assert!(out.contains("INIT OK backend=Threads"), "{out}");
}
