//! Issue 43 R4-1 and R4-2 (`src/bin/mpi_interior_r4.rs`). R4-1: a closure defined before the
//! loop that bumps an atomic, a tuple `(AtomicU64, u64)`, a `HashMap<_, AtomicU64>` and a
//! `BTreeMap<_, Vec<AtomicU64>>` changed by a helper gave per-rank counts under `mpirun -np 2`
//! (exit 0, no message); now the job ends naming the variable. R4-2: an `Arc<Mutex<Vec>>`
//! indexed, an `RwLock` read, an `AtomicBool` only loaded, a `OnceLock` `get` and a closure that
//! only loads made the job exit 1 at the loop (and `lock()` in the body did not compile); now
//! they run and give the serial result. A helper function that only reads is still refused (the
//! macro cannot see into it). On threads every form runs.

mod mpi_common;

use std::process::Command;

const CHANGES: [(&str, &str, &str); 4] = [
    ("closure", "counter", " through the closure `tick`"),
    ("tuple", "pair", ""),
    ("map", "map", ""),
    ("btree", "tree", ""),
];

const READS: [&str; 5] = [
    "read_mutex",
    "read_rwlock",
    "read_flag",
    "read_once",
    "read_closure",
];

fn threads(mode: &str, n: &str) -> String {
    let out = Command::new(mpi_common::program("mpi_interior_r4"))
        .arg(mode)
        .env("DLS_THREADS", n)
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
fn on_threads_every_form_runs() {
    for (mode, _, _) in CHANGES {
        assert!(threads(mode, "2").contains("count=1000 "), "{mode}");
    }
    for (mode, sum) in [
        ("read_mutex", 999),
        ("read_rwlock", 1_002_000),
        ("read_flag", 499_500),
        ("read_once", 999_000),
        ("read_closure", 499_500),
    ] {
        assert_eq!(threads(mode, "2").trim(), format!("count=0 sum={sum}"));
    }
}

#[cfg(feature = "mpi")]
#[test]
fn under_mpi_changes_are_named_and_reads_run() {
    use std::time::Duration;
    let limit = Duration::from_secs(30);
    for (mode, var, via) in CHANGES {
        let job = mpi_common::mpirun(2, &[], "mpi_interior_r4", &[mode], limit);
        assert!(!job.success, "{mode}: exited 0: {}", job.stdout);
        assert!(
            job.stderr
                .contains(&format!("its body uses `{var}`{via} (of type"))
                && job.stderr.contains(&format!("shared({var})")),
            "{mode}: {}",
            job.stderr
        );
    }
    for mode in READS {
        let job = mpi_common::mpirun(2, &[], "mpi_interior_r4", &[mode], limit);
        assert!(job.success, "{mode}: {}", job.stderr);
        assert_eq!(job.stdout.trim(), threads(mode, "1").trim(), "{mode}");
    }
    let job = mpi_common::mpirun(2, &[], "mpi_interior_r4", &["helper_read"], limit);
    assert!(!job.success, "helper_read: exited 0: {}", job.stdout);
    assert!(
        job.stderr.contains("its body uses `weights`")
            && job.stderr.contains("If the iterates only read it"),
        "{}",
        job.stderr
    );
}
