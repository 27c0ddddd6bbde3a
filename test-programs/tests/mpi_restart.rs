//! Checkpoint and restart under mpirun (issue 12), with `src/bin/mpi_restart.rs`: twenty runs,
//! ten killing one rank (SIGKILL) and ten killing mpirun itself, each at a pseudo-random moment
//! of the loop. Every killed job ends within 10 s (a killed rank is named) with no process left
//! (the harness checks mpirun's session); the restart, with the same `DLS_CHECKPOINT`, gives the
//! serial result. The iterates executed twice (counted by the program in both runs) are printed.
//! `DLS_TEST_RESTART_RUNS=K` makes it K runs of each kind instead of ten (`scripts/mpich.sh`
//! runs 4 of each under MPICH's Hydra, for time).

#![cfg(feature = "mpi")]

mod mpi_common;

use std::path::Path;
use std::time::Duration;

fn field(out: &str, key: &str) -> i64 {
    let line = out
        .lines()
        .find(|l| l.starts_with("restart:"))
        .unwrap_or_else(|| panic!("no `restart:` line in {out}"));
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key} in {line}"))
        .parse::<f64>()
        .unwrap() as i64
}

/// Iterates executed by the ranks of run `tag`, from their count files.
fn executed(dir: &Path, tag: &str) -> i64 {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(&format!("executed-{tag}-")) && !name.ends_with(".new")
        })
        // A count is written aside and renamed (a kill never truncates it); a missing or
        // unreadable one counts as 0.
        .map(|e| {
            std::fs::read_to_string(e.path())
                .ok()
                .and_then(|t| t.trim().parse::<i64>().ok())
                .unwrap_or(0)
        })
        .sum()
}

const N: &str = "10000";

/// A job of 4 ranks killed part-way (`kill`: `rank` or `mpirun`, at a moment that `run` picks),
/// then restarted: (iterates restored, iterates executed twice, ms from the kill to the end).
fn kill_and_restart(kill: &str, run: u64) -> (i64, i64, i64) {
    kill_and_restart_on(4, None, kill, run)
}

/// [`kill_and_restart`] on `ranks` ranks of `threads` threads each (`DLS_THREADS`, if given).
fn kill_and_restart_on(
    ranks: usize,
    threads: Option<&str>,
    kill: &str,
    run: u64,
) -> (i64, i64, i64) {
    let dir = std::env::temp_dir().join(format!(
        "dls-restart-{kill}-{run}-{ranks}-{}-{}",
        threads.unwrap_or("1"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let d = dir.display().to_string();
    let mut env = vec![
        ("DLS_CHECKPOINT", d.as_str()),
        ("DLS_CHECKPOINT_EVERY", "50ms"),
    ];
    if let Some(k) = threads {
        env.push(("DLS_THREADS", k));
    }
    // A pseudo-random moment in the loop (2.7-3.9 s on 4 ranks on 2 cores: an iterate sleeps
    // 1 ms, which takes 1.05-1.5 ms with the program's count files; Open MPI takes about 1.4 s
    // to end the job, during which the other ranks go on). Moments up to 1.6 s stay inside the
    // loop and, from about 0.5 s, let FAC2's first chunks (1,250 iterates) end and be
    // checkpointed before the job ends. Hydra's mpiexec ends a killed job within about 0.3 s,
    // before those first chunks end, so under Hydra the moments are 0.9-2.2 s: some after the
    // first checkpoints, all before the loop's end (2.6 s or more).
    let (first, span) = if mpi_common::under_hydra() {
        (0.9, 1.3)
    } else {
        (0.1, 1.5)
    };
    let after = first + span * ((run * 7919 + 13) % 101) as f64 / 100.0;
    let after_s = format!("{after:.3}");
    let mut killed_env = env.to_vec();
    killed_env.extend([
        ("RESTART_KILL", kill),
        ("RESTART_AFTER", after_s.as_str()),
        ("RESTART_TAG", "killed"),
    ]);
    let job = mpi_common::mpirun_env(
        ranks,
        &[],
        &killed_env,
        "mpi_restart",
        &[N],
        Duration::from_secs(30),
    );
    assert!(
        !job.success,
        "{kill} {run}: the killed job succeeded: {job:?}"
    );
    let ended = job.elapsed.as_secs_f64() - after;
    assert!(ended < 10.0, "{kill} {run}: ended {ended} s after the kill");
    if kill == "rank" {
        assert!(
            job.stderr.contains("rank 1"),
            "{kill} {run}: the message names the rank: {}",
            job.stderr
        );
    }
    let mut restart_env = env.to_vec();
    restart_env.extend([("RESTART_TAG", "restart")]);
    let restart = mpi_common::mpirun_env(
        ranks,
        &[],
        &restart_env,
        "mpi_restart",
        &[N],
        Duration::from_secs(60),
    );
    assert!(restart.success, "{kill} {run}: {restart:?}");
    let out = &restart.stdout;
    assert_eq!(
        field(out, "sum"),
        field(out, "serial"),
        "{kill} {run}: {out}"
    );
    let restored = field(out, "restored");
    assert_eq!(field(out, "iterates") + restored, 10_000, "{out}");
    let first = executed(&dir, "killed");
    let second = executed(&dir, "restart");
    let twice = first + second - 10_000;
    // Executed twice: what the killed run did beyond its last checkpoints (the chunks in
    // progress and the work since each worker's last write), plus discarded re-execution copies.
    eprintln!(
        "{kill} #{run}: killed at {after:.2} s, ended {ended:.2} s later; restored {restored} of \
         10000; executed {first} + {second}, {twice} twice"
    );
    std::fs::remove_dir_all(&dir).unwrap();
    (restored, twice, (ended * 1000.0) as i64)
}

#[test]
fn ten_killed_ranks_and_ten_killed_mpiruns_restart_to_the_serial_result() {
    let runs: u64 = std::env::var("DLS_TEST_RESTART_RUNS")
        .ok()
        .map(|k| k.parse().expect("DLS_TEST_RESTART_RUNS: a whole number"))
        .unwrap_or(10);
    let mut restored_any = false;
    for kill in ["rank", "mpirun"] {
        for run in 0..runs {
            let (restored, _, _) = kill_and_restart(kill, run);
            restored_any |= restored > 0;
        }
    }
    assert!(restored_any, "no restart restored anything");
}

/// Threads inside ranks write checkpoints too (one file per thread, worker `rank·k + thread`):
/// 2 ranks × 2 threads killed part-way (a rank, then mpirun) restart to the serial result, the
/// restored iterates and the ones executed adding up to N.
#[test]
fn killed_jobs_on_threads_inside_ranks_restart_to_the_serial_result() {
    let runs: u64 = std::env::var("DLS_TEST_RESTART_RUNS")
        .ok()
        .map(|k| k.parse().expect("DLS_TEST_RESTART_RUNS: a whole number"))
        .unwrap_or(10)
        .min(3);
    let mut restored_any = false;
    for kill in ["rank", "mpirun"] {
        // Moments 1.4-1.5 s into the loop (2.0-2.1 s under Hydra): after the first chunks
        // (1,250 iterates of FAC2 on 4 threads) were checkpointed, before the loop's end.
        for run in [24, 29, 34].into_iter().take(runs as usize) {
            let (restored, _, _) = kill_and_restart_on(2, Some("2"), kill, run);
            restored_any |= restored > 0;
        }
    }
    assert!(restored_any, "no restart restored anything");
}

/// Issue 42 part 5: a time loop of 20 short steps on 2 ranks, rank 1 killed in step 10, then
/// restarted with the same `DLS_CHECKPOINT`: the final state, which every step's result feeds,
/// is the serial one; the killed job left one run of the step's loop on disk, and the restart
/// had at most two at any step (the killed run's and its own).
#[test]
fn a_killed_time_loop_restarts_to_the_serial_result() {
    for (every, kill_step) in [("20ms", "10"), ("1ms", "3"), ("60s", "15")] {
        let dir = std::env::temp_dir().join(format!(
            "dls-restart-time-loop-{every}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let d = dir.display().to_string();
        let env = [
            ("DLS_CHECKPOINT", d.as_str()),
            ("DLS_CHECKPOINT_EVERY", every),
            ("RESTART_STEP", kill_step),
        ];
        let mut killed_env = env.to_vec();
        killed_env.push(("RESTART_KILL", "rank"));
        let args = ["20", "2000"];
        let job = mpi_common::mpirun_env(
            2,
            &[],
            &killed_env,
            "time_loop_restart",
            &args,
            Duration::from_secs(60),
        );
        assert!(!job.success, "{every}: the killed job succeeded: {job:?}");
        let folders = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("time_step-"))
            .count();
        assert!(folders <= 1, "{every}: {folders} runs of the loop on disk");
        let restart = mpi_common::mpirun_env(
            2,
            &[],
            &env,
            "time_loop_restart",
            &args,
            Duration::from_secs(60),
        );
        assert!(restart.success, "{every}: {restart:?}");
        let out = &restart.stdout;
        let line = out
            .lines()
            .find(|l| l.starts_with("time loop:"))
            .unwrap_or_else(|| panic!("{every}: no result in {out}"));
        let word = |k: &str| {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(k))
                .unwrap_or_else(|| panic!("no {k} in {line}"))
                .to_string()
        };
        assert_eq!(word("state="), word("serial="), "{every}: {line}");
        let runs: usize = word("runs_on_disk=").parse().unwrap();
        assert!(runs <= 2, "{every}: {line}");
        eprintln!("time loop, DLS_CHECKPOINT_EVERY={every}, killed in step {kill_step}: {line}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
