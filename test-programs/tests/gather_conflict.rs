//! Issue 17 cases 1 and 2: a gathered element written by two iterates, or read by one and written
//! by another, stops the program with an error naming the element (never a silent wrong result),
//! on threads and under mpirun; several writes and reads of its own elements in one iterate give
//! the serial result.

mod mpi_common;

use std::process::Command;

/// Runs the program on threads: (exit status, stdout, stderr).
fn on_threads(case: &str) -> (Option<i32>, String, String) {
    let out = Command::new(mpi_common::program("gather_conflict"))
        .arg(case)
        .env_remove("DLS_SCHEDULE")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn conflicts_are_errors_on_threads() {
    let (code, stdout, _) = on_threads("interleaved");
    assert_eq!(code, Some(0));
    assert!(stdout.contains("gather: OK"), "{stdout}");

    let (code, stdout, stderr) = on_threads("written-twice");
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains("of `out` is written by two iterates"),
        "{stderr}"
    );
    assert!(stderr.contains("reduce(+: out)"), "{stderr}");
    assert!(stdout.is_empty(), "no result is printed: {stdout}");

    let (code, stdout, stderr) = on_threads("read-written");
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains("of `out` is read by one iterate and written by another"),
        "{stderr}"
    );
}

#[cfg(feature = "mpi")]
#[test]
fn conflicts_are_errors_under_mpirun() {
    use std::time::Duration;
    for np in [1, 2, 4] {
        let ok = mpi_common::mpirun(
            np,
            &[],
            "gather_conflict",
            &["interleaved"],
            Duration::from_secs(60),
        );
        assert!(ok.success, "P={np}\n{}", ok.stderr);
        assert!(ok.stdout.contains("gather: OK"), "P={np}: {}", ok.stdout);
        for (case, says) in [
            ("written-twice", "is written by two iterates"),
            (
                "read-written",
                "is read by one iterate and written by another",
            ),
        ] {
            let job =
                mpi_common::mpirun(np, &[], "gather_conflict", &[case], Duration::from_secs(60));
            assert!(!job.success, "P={np} {case}: {}", job.stdout);
            assert!(job.stderr.contains(says), "P={np} {case}: {}", job.stderr);
            // Issue 27: every rank fails alike, and the error is printed once, not per rank.
            assert_eq!(
                job.stderr.matches(says).count(),
                1,
                "P={np} {case}: {}",
                job.stderr
            );
            assert!(
                !job.stdout.contains('['),
                "P={np} {case}: no result: {}",
                job.stdout
            );
        }
    }
}
