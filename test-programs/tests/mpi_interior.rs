//! Issue 27 case 7: shared mutability one step away from the body (a helper function, a local
//! alias, a helper that locks a `Mutex`) compiles, and under MPI each rank would count its own
//! iterates only (562 + 438 of 1000 before). Now a loop whose body uses, without a clause, a
//! variable whose type has interior mutability ends the job naming it and the clauses that work;
//! with `shared(counter)` (per-process state on purpose) and for plain variables it runs. On
//! threads every form runs and counts every iterate.

mod mpi_common;

use std::process::Command;

fn threads(mode: &str) -> String {
    let out = Command::new(mpi_common::program("mpi_interior"))
        .arg(mode)
        .env("DLS_THREADS", "2")
        .env_remove("DLS_SCHEDULE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{mode}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn on_threads_every_form_counts_every_iterate() {
    assert!(threads("helper").contains("count=1000 "));
    assert!(threads("alias").contains("count=1000 "));
    assert!(threads("mutex").contains("logged=1000"));
    assert!(threads("shared").contains("count=1000 "));
    assert!(threads("plain").contains("sum=999 "));
}

#[cfg(feature = "mpi")]
#[test]
fn under_mpi_a_captured_interior_mutable_variable_is_named() {
    use std::time::Duration;
    for (mode, var) in [
        ("helper", "counter"),
        ("alias", "counter"),
        ("mutex", "log"),
    ] {
        let job = mpi_common::mpirun(2, &[], "mpi_interior", &[mode], Duration::from_secs(30));
        assert!(!job.success, "{mode}: exited 0: {}", job.stdout);
        assert!(
            job.stderr.contains(&format!("its body uses `{var}`"))
                && job.stderr.contains(&format!("shared({var})"))
                && job.stderr.contains("reduce(+: n)"),
            "{mode}: {}",
            job.stderr
        );
    }
    for mode in ["shared", "plain"] {
        let job = mpi_common::mpirun(2, &[], "mpi_interior", &[mode], Duration::from_secs(30));
        assert!(job.success, "{mode}: {}", job.stderr);
    }
}
