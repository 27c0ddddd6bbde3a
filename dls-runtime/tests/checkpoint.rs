//! Checkpoint and restart on the threads backend (`DLS_CHECKPOINT`): a loop that dies part-way
//! restarts from its checkpoints and gives the serial result, executing only the iterates they do
//! not hold; a finished loop of a run that did not end restarts without executing anything; a run
//! that ended (its runtime dropped) retires its checkpoints; another run's checkpoints (another
//! technique, first index or result type) are refused saying what differs; a corrupt checkpoint
//! is never used. Each "run" is a runtime: kept alive, it stands for a process that was killed
//! before its end.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use dls_runtime::runtime::settings::Settings;
use dls_runtime::Runtime;

fn folder(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dls-ckpt-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn runtime(dir: &Path, every_ms: u64) -> Runtime {
    let settings = Settings {
        checkpoint: Some(dir.to_path_buf()),
        checkpoint_every: Some(Duration::from_millis(every_ms)),
        ..Settings::default()
    };
    Runtime::threads(3, settings).unwrap().with_statistics(true)
}

const N: u64 = 4_000;

fn value(i: u64) -> u64 {
    i * i % 10_007
}

/// The loop: a sum of `value(i)` and a count; iterate `die_at` panics (a crash) when given.
fn run(
    rt: &Runtime,
    die_at: Option<u64>,
    executed: &AtomicU64,
) -> ((u64, u64), dls_runtime::LoopReport) {
    let (v, stats) = rt
        .doall_reduce(
            "checkpointed",
            0..N,
            "fac2".parse().unwrap(),
            || (0u64, 0u64),
            |i, acc| {
                executed.fetch_add(1, Ordering::Relaxed);
                if Some(i) == die_at {
                    panic!("the node died");
                }
                std::thread::sleep(Duration::from_micros(50));
                acc.0 += value(i);
                acc.1 += 1;
            },
            |a, b| (a.0 + b.0, a.1 + b.1),
        )
        .unwrap();
    (v, stats.report)
}

fn serial() -> (u64, u64) {
    ((0..N).map(value).sum(), N)
}

#[test]
fn a_crashed_loop_restarts_from_its_checkpoints() {
    let dir = folder("crash");
    let executed = AtomicU64::new(0);
    let crashed = catch_unwind(AssertUnwindSafe(|| {
        run(&runtime(&dir, 5), Some(N * 3 / 4), &executed)
    }));
    assert!(crashed.is_err());
    let first = executed.load(Ordering::Relaxed);
    // The restart (a new runtime: a new process) executes only what no checkpoint holds.
    let executed = AtomicU64::new(0);
    let (v, report) = run(&runtime(&dir, 5), None, &executed);
    assert_eq!(v, serial());
    let c = report.checkpoint.clone().expect("a checkpoint entry");
    assert_eq!(c.restored_from, Some(0));
    assert_eq!(c.generation, 1);
    assert!(c.restored_iterates > 0, "{c:?}");
    let again = executed.load(Ordering::Relaxed);
    assert_eq!(
        report.ranks.iter().map(|r| r.iterates).sum::<u64>() + c.restored_iterates,
        N
    );
    // Executed twice: what the crashed run did beyond its last checkpoints (chunks in progress
    // and since the last write), plus copies that re-execution discarded.
    let twice = (first + again).saturating_sub(N);
    eprintln!(
        "crash after {first} iterates; restored {}; {again} executed on restart ({twice} twice)",
        c.restored_iterates
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_finished_loop_restarts_without_executing_anything() {
    let dir = folder("finished");
    let executed = AtomicU64::new(0);
    // The first run's loop finished, but the run did not end (its runtime lives on: a job killed
    // after this loop, in a later one). Its checkpoints were due at its end (an interval of 0).
    let first = runtime(&dir, 0);
    let (v, report) = run(&first, None, &executed);
    assert_eq!(v, serial());
    assert_eq!(report.checkpoint.unwrap().restored_from, None);
    let executed = AtomicU64::new(0);
    let (v, report) = run(&runtime(&dir, 0), None, &executed);
    assert_eq!(v, serial());
    assert_eq!(executed.load(Ordering::Relaxed), 0);
    assert_eq!(report.checkpoint.unwrap().restored_iterates, N);
    drop(first);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 27 case 1: a run that ended leaves no checkpoint for a later run to restore.
#[test]
fn a_run_that_ended_retires_its_checkpoints() {
    let dir = folder("retired");
    let executed = AtomicU64::new(0);
    run(&runtime(&dir, 0), None, &executed);
    // The runtime was dropped: the run ended, and its loop's folder is gone.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    let executed = AtomicU64::new(0);
    let (v, report) = run(&runtime(&dir, 60_000), None, &executed);
    assert_eq!(v, serial());
    assert_eq!(executed.load(Ordering::Relaxed), N);
    assert_eq!(report.checkpoint.unwrap().restored_from, None);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn another_runs_checkpoints_are_refused_saying_what_differs() {
    let dir = folder("differs");
    let executed = AtomicU64::new(0);
    let interrupted = runtime(&dir, 0);
    run(&interrupted, None, &executed);
    let rt = runtime(&dir, 60_000);
    let e = rt
        .doall_reduce(
            "checkpointed",
            0..N,
            "gss".parse().unwrap(),
            || (0u64, 0u64),
            |i, s| s.0 += i,
            |a, b| (a.0 + b.0, a.1 + b.1),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("technique `fac2` (now `gss`)"), "{e}");
    // Issue 27 case 5's range start: the same N from another first index.
    let rt = runtime(&dir, 60_000);
    let e = rt
        .doall_reduce(
            "checkpointed",
            10..N + 10,
            "fac2".parse().unwrap(),
            || (0u64, 0u64),
            |i, s| s.0 += i,
            |a, b| (a.0 + b.0, a.1 + b.1),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("first index 0 (now 10)"), "{e}");
    // Issue 27 case 2: another result type is refused, never decoded as garbage.
    let rt = runtime(&dir, 60_000);
    let e = rt
        .doall_reduce(
            "checkpointed",
            0..N,
            "fac2".parse().unwrap(),
            Vec::<u64>::new,
            |i, s| s.push(i),
            |mut a, mut b| {
                a.append(&mut b);
                a
            },
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("result type `(u64, u64)` (now `alloc::vec::Vec<u64>`)"),
        "{e}"
    );
    drop(interrupted);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_corrupt_checkpoint_is_never_used() {
    let dir = folder("corrupt");
    let executed = AtomicU64::new(0);
    let interrupted = runtime(&dir, 0);
    run(&interrupted, None, &executed);
    // Corrupt every file of the only generation: the restart starts over.
    let mut corrupted = 0;
    for loop_dir in std::fs::read_dir(&dir).unwrap() {
        for f in std::fs::read_dir(loop_dir.unwrap().path()).unwrap() {
            let path = f.unwrap().path();
            let mut bytes = std::fs::read(&path).unwrap();
            let mid = bytes.len() / 2;
            bytes[mid] ^= 0x20;
            std::fs::write(&path, bytes).unwrap();
            corrupted += 1;
        }
    }
    assert!(corrupted > 0);
    let executed = AtomicU64::new(0);
    let (v, report) = run(&runtime(&dir, 60_000), None, &executed);
    assert_eq!(v, serial());
    assert_eq!(executed.load(Ordering::Relaxed), N);
    let c = report.checkpoint.unwrap();
    assert_eq!(c.restored_from, None);
    assert!(c.refused[0].contains("checksum"), "{:?}", c.refused);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// SIGUSR1 (what Slurm sends before a time limit) makes every worker write a checkpoint at its
/// next chunk, whatever the interval; a restart may have another number of workers.
#[test]
fn sigusr1_checkpoints_at_once_and_a_restart_may_have_other_workers() {
    let dir = folder("signal");
    let runtime = |threads: usize| {
        let s = Settings {
            checkpoint: Some(dir.clone()),
            checkpoint_every: Some(Duration::from_secs(3600)),
            ..Settings::default()
        };
        Runtime::threads(threads, s).unwrap().with_statistics(true)
    };
    let signalled = std::sync::atomic::AtomicBool::new(false);
    // Kept alive: a run killed after its loop (one that ended would retire its checkpoints).
    let interrupted = runtime(3);
    let (v, stats) = interrupted
        .doall_reduce(
            "signalled",
            0..N,
            "ss".parse().unwrap(),
            || 0u64,
            |i, s| {
                if i == N / 2 && !signalled.swap(true, Ordering::Relaxed) {
                    let me = std::process::id().to_string();
                    std::process::Command::new("kill")
                        .args(["-USR1", &me])
                        .status()
                        .unwrap();
                }
                std::thread::sleep(Duration::from_micros(20));
                *s += value(i);
            },
            |a, b| a + b,
        )
        .unwrap();
    assert_eq!(v, serial().0);
    // The interval is an hour and the loop short: only the signal made the workers write (at
    // their next chunk; not at the loop's end, which is not due).
    let c = stats.report.checkpoint.unwrap();
    assert!((1..=3).contains(&c.writes), "{c:?}");
    // A restart on 2 workers restores what the signal's writes held.
    let (v, stats) = runtime(2)
        .doall_reduce(
            "signalled",
            0..N,
            "ss".parse().unwrap(),
            || 0u64,
            |i, s| *s += value(i),
            |a, b| a + b,
        )
        .unwrap();
    assert_eq!(v, serial().0);
    let restored = stats.report.checkpoint.unwrap().restored_iterates;
    assert!((1..N).contains(&restored), "{restored}");
    drop(interrupted);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue 27: a checkpoint write that fails (here: the folder is deleted in the middle of the
/// loop; a full disk or a folder that became unwritable alike) is a warning counted in the
/// report, never a panic blamed on an iterate; the loop goes on to the serial result.
#[test]
fn a_failing_checkpoint_write_is_a_warning_not_a_panic() {
    let dir = folder("failing");
    let rt = runtime(&dir, 1);
    let removed = std::sync::atomic::AtomicBool::new(false);
    let (v, stats) = rt
        .doall_reduce(
            "failing",
            0..N,
            "fac2".parse().unwrap(),
            || 0u64,
            |i, s| {
                if i >= N / 2 && !removed.swap(true, Ordering::Relaxed) {
                    // Another worker may write a checkpoint into the folder while it is being
                    // removed ("directory not empty"): remove it again until it is gone.
                    for attempt in 0.. {
                        match std::fs::remove_dir_all(&dir) {
                            // A file where the folder was: the runtime, which creates a
                            // step's folder at its first write, cannot write there again.
                            Ok(()) => {
                                std::fs::write(&dir, b"not a folder").unwrap();
                                break;
                            }
                            Err(e) if attempt < 100 && dir.exists() => {
                                let _ = e;
                                std::thread::sleep(Duration::from_millis(1));
                            }
                            Err(e) => panic!("cannot remove {}: {e}", dir.display()),
                        }
                    }
                }
                std::thread::sleep(Duration::from_micros(50));
                *s += value(i);
            },
            |a, b| a + b,
        )
        .unwrap();
    assert_eq!(v, serial().0);
    let c = stats.report.checkpoint.unwrap();
    assert!(c.failed_writes > 0, "{c:?}");
    // Nothing was written where the folder was: the file put there is left as it was.
    assert_eq!(std::fs::read(&dir).unwrap(), b"not a folder");
    std::fs::remove_file(&dir).unwrap();
}

/// Issue 42 part 5: a time loop of short loops writes as `DLS_CHECKPOINT_EVERY` says, not at
/// every loop's end (an interval of a minute: no write at all), and keeps the files of one run of
/// its loop on disk (an interval of 0: every run writes).
#[test]
fn a_time_loop_writes_when_due_and_keeps_two_runs() {
    let dir = folder("time-loop");
    let steps = 12;
    let step = |rt: &Runtime, t: u64| {
        let (v, stats) = rt
            .doall_reduce(
                "step",
                0..1000u64,
                "fac2".parse().unwrap(),
                || 0u64,
                |i, s| *s += value(i + t),
                |a, b| a + b,
            )
            .unwrap();
        assert_eq!(v, (0..1000).map(|i| value(i + t)).sum::<u64>());
        stats.report.checkpoint.unwrap()
    };
    let minute = runtime(&dir, 60_000);
    for t in 0..steps {
        assert_eq!(step(&minute, t).writes, 0, "step {t}");
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "no folder");
    drop(minute);
    let always = runtime(&dir, 0);
    for t in 0..steps {
        assert!(step(&always, t).writes > 0, "step {t}");
        let runs = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(runs, 1, "step {t}: {runs} runs on disk");
    }
    drop(always);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A time loop whose state goes from step to step, crashed part-way (a panic in step 7) and run
/// again from the start with the same folder: the earlier steps run again (their checkpoints
/// are gone, or restore their own run's results), the crashed step resumes, and every step's
/// result, so the final state, is the serial one.
#[test]
fn a_crashed_time_loop_restarts_to_the_serial_result() {
    let dir = folder("time-crash");
    let steps = 10u64;
    let n = 2000u64;
    let serial = (0..steps).fold(1u64, |state, t| {
        (0..n).map(|i| value(i + t + state % 97)).sum::<u64>() % 1_000_003
    });
    let time_loop = |rt: &Runtime, crash: Option<(u64, u64)>| {
        let mut state = 1u64;
        for t in 0..steps {
            let (v, _) = rt
                .doall_reduce(
                    "time step",
                    0..n,
                    "fac2".parse().unwrap(),
                    || 0u64,
                    |i, s| {
                        if crash == Some((t, i)) {
                            panic!("the node died");
                        }
                        std::thread::sleep(Duration::from_micros(20));
                        *s += value(i + t + state % 97);
                    },
                    |a, b| a + b,
                )
                .unwrap();
            state = v % 1_000_003;
        }
        state
    };
    let crashed = catch_unwind(AssertUnwindSafe(|| {
        time_loop(&runtime(&dir, 1), Some((7, n * 3 / 4)))
    }));
    assert!(crashed.is_err());
    let runs = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(runs, 1, "{runs} runs on disk");
    assert_eq!(time_loop(&runtime(&dir, 1), None), serial);
    std::fs::remove_dir_all(&dir).unwrap();
}
