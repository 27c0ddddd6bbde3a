//! Issue 11 (first part): a checked loop tests across workers that their values agree. Clean runs
//! do not reject; a worker whose values are biased by `DLS_INJECT` (3 standard deviations of a
//! value, or half of one) is named; a NaN is reported as a fault on its worker. On threads (4
//! workers) and under mpirun at P = 4 (`test-programs/src/bin/checked_loop.rs`).

mod mpi_common;

use std::process::Command;

/// The program's lines: (rejected, suspect) per loop.
fn verdicts(stdout: &str) -> Vec<(bool, String)> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("check: "))
        .map(|l| {
            let field = |k: &str| {
                l.split(' ')
                    .find_map(|f| f.strip_prefix(k))
                    .unwrap_or_default()
                    .to_string()
            };
            (field("rejected=") == "true", field("suspect="))
        })
        .collect()
}

fn on_threads(inject: Option<&str>) -> Vec<(bool, String)> {
    let mut cmd = Command::new(mpi_common::program("checked_loop"));
    cmd.env("DLS_THREADS", "4").env_remove("DLS_INJECT");
    if let Some(i) = inject {
        cmd.env("DLS_INJECT", i);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    verdicts(&String::from_utf8_lossy(&out.stdout))
}

#[test]
fn a_faulty_thread_is_named() {
    assert_eq!(on_threads(None), vec![(false, "none".into()); 3]);
    assert_eq!(
        on_threads(Some("worker=2,bias=3")),
        vec![(true, "2".into()); 3]
    );
    assert_eq!(
        on_threads(Some("worker=1,nan")),
        vec![(true, "1".into()); 3]
    );
}

#[cfg(feature = "mpi")]
#[test]
fn a_faulty_rank_is_named() {
    use std::time::Duration;
    let clean = mpi_common::mpirun(4, &[], "checked_loop", &[], Duration::from_secs(120));
    assert!(clean.success, "{}", clean.stderr);
    assert_eq!(verdicts(&clean.stdout), vec![(false, "none".into()); 3]);
    let faulty = mpi_common::mpirun_env(
        4,
        &["-x", "DLS_INJECT"],
        &[("DLS_INJECT", "worker=3,bias=0.5")],
        "checked_loop",
        &[],
        Duration::from_secs(120),
    );
    assert!(faulty.success, "{}", faulty.stderr);
    assert_eq!(verdicts(&faulty.stdout), vec![(true, "3".into()); 3]);
    assert!(
        faulty.stderr.contains("suspect: worker 3"),
        "{}",
        faulty.stderr
    );
}
