//! The text-mining example `examples/term_frequency.rs` (term counts and an inverted index of a
//! generated corpus, merged by user functions along a tree reduction) gives the serial result on
//! threads and under mpirun at P = 1, 2, 4 and 8: it exits 0, prints its "parallel == serial"
//! line, prints its summary once (rank 0 only), and the summary (documents, size, words,
//! distinct terms, postings, top 10 terms) is the same for every P.

#![cfg(feature = "mpi")]

mod mpi_common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A smaller corpus than the example's default, so that a debug build runs in about a second at
/// P = 8 on two cores.
const DOCUMENTS: &str = "1500";
/// The line the example prints when the parallel result equals the serial one.
const EQUAL: &str = "counts, index and size: parallel == serial";
const TIMEOUT: Duration = Duration::from_secs(120);

/// The summary lines of a successful run (without the timing line, which varies), after checking
/// that it exited 0 and printed everything once.
fn summary(what: &str, success: bool, stdout: &str, stderr: &str) -> Vec<String> {
    let context = format!("{what}\n--- stdout\n{stdout}\n--- stderr\n{stderr}");
    assert!(success, "{what} failed\n{context}");
    let count = |prefix: &str| stdout.lines().filter(|l| l.starts_with(prefix)).count();
    assert_eq!(count(EQUAL), 1, "{what}: no single equal line\n{context}");
    assert_eq!(
        count(&format!("term_frequency: {DOCUMENTS} documents,")),
        1,
        "{what}: the summary must be printed once, by rank 0\n{context}"
    );
    assert!(
        stdout.contains("\ntop 10: the "),
        "{what}: `the` must be the most frequent term\n{context}"
    );
    stdout
        .lines()
        .filter(|l| !l.starts_with("serial "))
        .map(str::to_string)
        .collect()
}

/// Runs the example without mpirun (threads backend, `threads` workers), killed after `TIMEOUT`.
fn run_threads(threads: &str) -> Vec<String> {
    let mut child = Command::new(mpi_common::program("term_frequency"))
        .arg(DOCUMENTS)
        .env("DLS_THREADS", threads)
        .env_remove("DLS_SCHEDULE")
        .env_remove("DLS_REPORT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start term_frequency");
    let start = Instant::now();
    while child.try_wait().expect("wait for term_frequency").is_none() {
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            panic!("term_frequency on {threads} threads did not finish within {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("term_frequency output");
    summary(
        &format!("term_frequency on {threads} threads"),
        out.status.success(),
        &String::from_utf8_lossy(&out.stdout),
        &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn term_frequency_equals_serial_on_threads_and_under_mpirun() {
    let reference = run_threads("2");
    assert_eq!(run_threads("3"), reference, "2 and 3 threads differ");
    for p in [1, 2, 4, 8] {
        let job = mpi_common::mpirun(p, &[], "term_frequency", &[DOCUMENTS], TIMEOUT);
        let what = format!("term_frequency on {p} ranks (exit {:?})", job.code);
        let lines = summary(&what, job.success, &job.stdout, &job.stderr);
        assert_eq!(lines, reference, "{what}: another summary than on threads");
    }
}
