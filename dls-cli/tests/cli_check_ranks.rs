//! `dls check-ranks`: a program whose output depends on a `thread_local!` counter bumped in its
//! loop (issue 43 R4-1's shape: each worker counts only its own iterates) is caught, and a
//! correct program passes (both are this test binary, re-run as the program); a failing and a
//! hanging program are reported. Threads only (dls-cli is built without MPI); the MPI runs are
//! the same comparison under `mpirun -np r`.

use std::cell::Cell;
use std::process::{Command, Output};

/// `dls check-ranks --no-mpi OPTIONS -- <this test binary> --exact TEST --nocapture`, the
/// probe selected by its variable.
fn check(options: &[&str], test: &str) -> Output {
    let me = std::env::current_exe().unwrap();
    Command::new(env!("CARGO_BIN_EXE_dls"))
        .arg("check-ranks")
        .arg("--no-mpi")
        .args(options)
        .args([
            "--",
            me.to_str().unwrap(),
            "--exact",
            test,
            "--nocapture",
            "--test-threads=1",
        ])
        .env("DLS_CHECK_RANKS_PROBE", "1")
        .env_remove("DLS_THREADS")
        .env_remove("DLS_DELAY")
        .env_remove("DLS_SCHEDULE")
        .env_remove("DLS_REPORT")
        .output()
        .expect("run dls")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

thread_local! {
    static BUMPS: Cell<u64> = const { Cell::new(0) };
}

/// R4-1's shape on threads: a loop bumps a thread-local counter, and the program prints the
/// main thread's count (each thread counts only the iterates it ran). The iterates sleep 1 ms
/// so that every thread takes part.
#[test]
fn thread_local_probe() {
    if std::env::var_os("DLS_CHECK_RANKS_PROBE").is_none() {
        return;
    }
    let rt = dls::init().unwrap();
    rt.doall_named("count", 0..60u64, "ss".parse().unwrap(), |_| {
        std::thread::sleep(std::time::Duration::from_millis(1));
        BUMPS.with(|b| b.set(b.get() + 1));
    })
    .unwrap();
    println!("iterates counted: {}", BUMPS.with(Cell::get));
    // End here: libtest's summary line carries a time, which differs from run to run.
    std::process::exit(0);
}

/// A correct program: the same loop with its count as a reduction.
#[test]
fn reduction_probe() {
    if std::env::var_os("DLS_CHECK_RANKS_PROBE").is_none() {
        return;
    }
    let rt = dls::init().unwrap();
    let (count, _) = rt
        .doall_reduce(
            "count",
            0..60u64,
            "ss".parse().unwrap(),
            || 0u64,
            |_, c| {
                std::thread::sleep(std::time::Duration::from_millis(1));
                *c += 1;
            },
            |a, b| a + b,
        )
        .unwrap();
    println!("iterates counted: {count}");
    std::process::exit(0);
}

#[test]
fn a_thread_local_count_is_caught() {
    let o = check(&[], "thread_local_probe");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("1 worker (DLS_THREADS=1): 3 lines compared (the reference)"),
        "{out}"
    );
    assert!(out.contains("2 threads (DLS_THREADS=2): DIFFERS"), "{out}");
    assert!(out.contains("3 threads (DLS_THREADS=3): DIFFERS"), "{out}");
    // libtest prints `test thread_local_probe ... ` before the probe's line.
    let line = |label: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("    {label}: `")))
            .unwrap_or_else(|| panic!("no line of {label}: {out}"))
            .to_string()
    };
    assert!(
        line("1 worker (DLS_THREADS=1)").ends_with("iterates counted: 60`"),
        "{out}"
    );
    // Each thread counts only its own iterates: fewer than 60 on the calling thread.
    for label in ["2 threads (DLS_THREADS=2)", "3 threads (DLS_THREADS=3)"] {
        let l = line(label);
        let n: u64 = l
            .rsplit(": ")
            .next()
            .unwrap()
            .trim_end_matches('`')
            .parse()
            .unwrap();
        assert!(n < 60, "{l}");
    }
    assert!(
        out.contains("note: not run under mpirun (--no-mpi)"),
        "{out}"
    );
    assert!(
        err.contains("error: the runs differ (above): the program's output depends on how many workers ran it"),
        "{err}"
    );
}

#[test]
fn a_correct_program_passes() {
    let o = check(&["--threads", "2,4"], "reduction_probe");
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}\n{err}");
    assert!(
        out.contains("2 threads (DLS_THREADS=2): same output"),
        "{out}"
    );
    assert!(
        out.contains("4 threads (DLS_THREADS=4): same output"),
        "{out}"
    );
    assert!(!out.contains("DIFFERS"), "{out}");
}

#[test]
fn failing_and_hanging_programs_are_reported() {
    let o = Command::new(env!("CARGO_BIN_EXE_dls"))
        .args([
            "check-ranks",
            "--no-mpi",
            "--threads",
            "2",
            "--",
            "/bin/false",
        ])
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("1 worker (DLS_THREADS=1): failed (exit status: 1)"),
        "{out}"
    );
    assert!(out.contains("the reference run failed"), "{out}");
    let started = std::time::Instant::now();
    let o = Command::new(env!("CARGO_BIN_EXE_dls"))
        .args([
            "check-ranks",
            "--no-mpi",
            "--threads",
            "2",
            "--timeout",
            "1",
            "--",
            "/bin/sleep",
            "60",
        ])
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(
        out.contains("1 worker (DLS_THREADS=1): did not finish within 1 s (--timeout)"),
        "{out}"
    );
    assert!(
        started.elapsed().as_secs() < 30,
        "two 1-s runs took {:?}",
        started.elapsed()
    );
    let o = Command::new(env!("CARGO_BIN_EXE_dls"))
        .args(["check-ranks", "--timeout", "0", "--", "/bin/true"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(text(&o).1.contains("is not a number of seconds > 0"));
}
