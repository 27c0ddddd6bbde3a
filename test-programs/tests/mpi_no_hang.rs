//! Nothing can hang: every multi-rank test runs its job through `mpi_common`, which kills a job
//! that outlives its timeout (mpirun and every rank: the whole session) and fails the test with a
//! message naming the program, the rank count and the timeout, and which fails a job that leaves
//! a process behind. Proved here with `src/bin/hang.rs`, a job that never ends by itself:
//!
//! - a rank stuck in an iterate (the others wait in the loop): the test fails (panics) within the
//!   timeout plus the kill's grace, naming `hang`, 3 ranks and the timeout, with the output the
//!   job printed before it was killed;
//! - the same with every rank ignoring SIGTERM: SIGKILL ends them all the same;
//! - a job whose mpirun exits 0 while a process it started still runs: a failure too, and that
//!   process is killed.
//!
//! After each, no process running the program is left (none whose command line holds its path,
//! as `pgrep -f` would find).

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(3);

/// The kill takes at most 2 s of grace after SIGTERM plus the SIGKILL; the rest is slack for a
/// loaded machine.
const KILL_SLACK: Duration = Duration::from_secs(8);

/// No process runs the `hang` program (nor an mpirun of it): what `pgrep -af <path of hang>`
/// would list, read from /proc.
fn assert_nothing_left(after: &str) {
    let left = mpi_common::processes_running(mpi_common::program("hang"));
    assert!(left.is_empty(), "{after}: processes left behind: {left:?}");
}

#[test]
fn a_hung_job_fails_its_test_within_the_timeout_and_leaves_nothing() {
    // 1. A rank stuck in an iterate: the harness's panicking form fails the test.
    let start = Instant::now();
    // The expected panic is checked below rather than printed.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let failure = std::panic::catch_unwind(|| {
        mpi_common::mpirun(3, &[], "hang", &["iterate"], TIMEOUT);
    });
    std::panic::set_hook(hook);
    let failure = failure.expect_err("a job that never ends must fail its test");
    let took = start.elapsed();
    let message = failure
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    eprintln!(
        "iterate: failed after {took:.1?}: {}",
        message.lines().next().unwrap_or("")
    );
    assert!(
        took >= TIMEOUT && took < TIMEOUT + KILL_SLACK,
        "took {took:?}: {message}"
    );
    // The launcher: `mpirun`, or the one DLS_TEST_LAUNCHER names (scripts/mpich.sh).
    let launcher = &mpi_common::launcher().program;
    assert!(
        message.starts_with(&format!("`hang` on 3 ranks ({launcher}"))
            && message.contains(&format!(
                "with a timeout of 3 s: hung; killed {launcher} and its ranks"
            )),
        "the failure must name the program, the rank count and the timeout: {message}"
    );
    assert!(
        message.contains("hang: iterate on 3 ranks")
            && message.contains("hang: rank 2 stuck in its first iterate"),
        "the output printed before the kill is kept: {message}"
    );
    assert!(!message.contains("STILL RUNNING"), "{message}");
    assert_nothing_left("a rank stuck in an iterate");

    // 2. Every rank ignores SIGTERM: SIGKILL ends them.
    let start = Instant::now();
    let hang = mpi_common::try_mpirun_env(3, &[], &[], "hang", &["ignore-term"], TIMEOUT)
        .expect_err("a job that never ends must be reported");
    let took = start.elapsed();
    eprintln!("ignore-term: killed after {took:.1?}");
    assert!(hang.timed_out, "{hang}");
    assert!(hang.survivors.is_empty(), "{hang}");
    assert!(took < TIMEOUT + KILL_SLACK, "took {took:?}: {hang}");
    assert_nothing_left("ranks that ignore SIGTERM");

    // 3. mpirun exits 0 while a process of the job still runs: a failure, and the process is
    // killed. Hydra's mpiexec does not exit then: the process holds the descriptors of its
    // rank's connection to Hydra's proxy (PMI_FD), so the proxy waits for it and the job hangs;
    // the harness ends it at its timeout, the process with it.
    if mpi_common::under_hydra() {
        let start = Instant::now();
        let hang = mpi_common::try_mpirun_env(2, &[], &[], "hang", &["orphan"], TIMEOUT)
            .expect_err("a job that leaves a process behind must be reported");
        let took = start.elapsed();
        eprintln!("orphan (Hydra: the job waits for it): killed after {took:.1?}");
        assert!(hang.timed_out, "{hang}");
        assert!(hang.survivors.is_empty(), "{hang}");
        assert!(took < TIMEOUT + KILL_SLACK, "took {took:?}: {hang}");
        assert_nothing_left("a process that outlived its rank (Hydra)");
        return;
    }
    let hang =
        mpi_common::try_mpirun_env(2, &[], &[], "hang", &["orphan"], Duration::from_secs(60))
            .expect_err("a job that leaves a process behind must be reported");
    eprintln!("orphan: {:?}", hang.left_behind);
    assert!(!hang.timed_out, "{hang}");
    assert!(
        hang.left_behind.len() == 1 && hang.left_behind[0].ends_with("hang sleeper"),
        "{hang}"
    );
    assert!(hang.survivors.is_empty(), "{hang}");
    assert!(
        hang.to_string().contains(&format!(
            "1 process(es) outlived {} and were killed",
            mpi_common::launcher().program
        )),
        "{hang}"
    );
    assert_nothing_left("a process that outlived mpirun");
}

/// A program not listed in `mpi_common::program` is found where cargo puts the package's
/// binaries: the same file as `env!("CARGO_BIN_EXE_hang")`.
#[test]
fn an_unlisted_program_is_found_next_to_the_tests() {
    let listed = std::path::Path::new(mpi_common::program("hang"));
    let found = mpi_common::built_next_to_tests("hang").expect("hang next to deps/");
    assert_eq!(
        found.canonicalize().unwrap(),
        listed.canonicalize().unwrap()
    );
    assert!(mpi_common::built_next_to_tests("no_such_program").is_none());
}
