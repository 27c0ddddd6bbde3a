//! Threads inside MPI ranks (`DLS_THREADS=k` under mpirun, `backend/mpi/hybrid.rs`): every
//! iterate runs once and counts once for every technique over a grid of P ranks × k threads,
//! every clause combination equals its serial loop, a panic on a rank's helper thread ends the
//! job naming the rank, the report shows ranks and threads, and re-execution and splits keep
//! their guarantees there (checkpoints: `mpi_restart.rs`).

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

/// A job's exit and output, for a failing assertion.
fn show(job: &mpi_common::Job) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        job.code, job.stdout, job.stderr
    )
}

/// Every technique, N in {0, 1, 13, 600, P−1, P, P+1, 1000, 4099}, closure and explicit loops:
/// the sums equal the serial ones, each rank's report counts what it ran, and the chunk map is a
/// partition of 0..N (`mpi_exactly_once`), for 1–3 ranks × 1–3 threads.
#[test]
fn every_iterate_runs_once_over_ranks_times_threads() {
    exactly_once_over(&["1", "2", "3"], &[]);
}

/// `mpi_exactly_once` on 1–3 ranks × each of `threads`, with `env` besides `DLS_THREADS`.
fn exactly_once_over(threads: &[&str], env: &[(&str, &str)]) {
    for ranks in 1..=3usize {
        for &k in threads {
            let mut all = vec![("DLS_THREADS", k)];
            all.extend_from_slice(env);
            let job = mpi_common::mpirun_env(
                ranks,
                &[],
                &all,
                "mpi_exactly_once",
                &[],
                Duration::from_secs(180),
            );
            let p = ranks * k.parse::<usize>().unwrap();
            assert!(
                job.success && job.stdout.contains(&format!("exactly-once OK: P={p},")),
                "{ranks} ranks x {k} threads {env:?}: {}",
                show(&job)
            );
        }
    }
}

/// The 60 loops of every clause combination (reductions, gathers, ordered merges, checks,
/// two-level loops) equal their serial loops on 2 ranks × 2 threads and 3 ranks × 2 threads.
#[test]
fn every_clause_combination_equals_the_serial_loop_on_threads_inside_ranks() {
    for ranks in [2usize, 3] {
        let job = mpi_common::mpirun_env(
            ranks,
            &[],
            &[("DLS_THREADS", "2")],
            "clause_matrix",
            &[],
            Duration::from_secs(180),
        );
        let line = format!(
            "matrix: 60 loops equal the serial loops (P={ranks}, workers={})",
            2 * ranks
        );
        assert!(job.success && job.stdout.contains(&line), "{}", show(&job));
    }
}

/// A panic in an iterate on any thread of a rank ends the whole job, naming the rank, the
/// iterate and the message.
#[test]
fn a_panic_on_a_thread_inside_a_rank_ends_the_job() {
    for (victim, rank) in [("worker", 1), ("scheduler", 0)] {
        let job = mpi_common::mpirun_env(
            3,
            &[],
            &[("DLS_THREADS", "2")],
            "mpi_panic",
            &[victim],
            Duration::from_secs(60),
        );
        assert!(!job.success, "{victim}: exited 0\n{}", show(&job));
        let prefix = format!("dls: rank {rank} panicked in iterate ");
        let line = job
            .stderr
            .lines()
            .find(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| panic!("{victim}: no `{prefix}` line\n{}", show(&job)));
        let (k, tail) = line[prefix.len()..].split_once(' ').expect("iterate");
        assert_eq!(tail, format!("of loop `panicky`: boom at {k}"), "{line}");
    }
}

/// `DLS_REPORT=1` names the ranks and their threads: one line per rank, its threads summed,
/// and the iterates of the lines add up to N.
#[test]
fn the_report_shows_ranks_and_threads() {
    let job = mpi_common::mpirun_env(
        2,
        &[],
        &[("DLS_THREADS", "2"), ("DLS_REPORT", "1")],
        "mandelbrot",
        &[],
        Duration::from_secs(120),
    );
    assert!(job.success, "{}", show(&job));
    assert!(
        job.stderr.contains("p=4 (2 ranks x 2 threads)"),
        "no p=4 (2 ranks x 2 threads) in\n{}",
        show(&job)
    );
    let rows: Vec<u64> = job
        .stderr
        .lines()
        .filter(|l| l.starts_with("dls:   rank (2 threads)"))
        .map(|l| {
            let after = l.split(':').nth(2).expect("a count");
            after.split_whitespace().next().unwrap().parse().unwrap()
        })
        .collect();
    assert_eq!(rows.len(), 2, "{}", show(&job));
    // The example's loop runs over the image's 320 rows.
    assert_eq!(rows.iter().sum::<u64>(), 320, "{}", show(&job));
}

/// The `key=value` fields of a program's line that starts with `prefix`.
fn field(out: &str, prefix: &str, key: &str) -> f64 {
    let line = out
        .lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line in {out}"));
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key} in {line}"))
        .parse()
        .unwrap_or_else(|e| panic!("{key} in {line}: {e}"))
}

/// Re-execution on threads inside ranks (`DLS_REEXECUTE=on`): rank 2 of 3 ranks × 2 threads
/// is stopped (SIGSTOP, both its threads) inside an iterate for 3 s; the other ranks' threads
/// execute copies of its chunks, so the loop's iterates are done near the bound of the 4 threads
/// left (the test allows 1.8×), and its stale copies are discarded when it resumes: the sum
/// equals the serial one and every iterate counts once. Without `DLS_REEXECUTE` (off by default
/// on threads inside ranks) the loop waits for the stopped rank, so the test can fail.
#[test]
fn a_stopped_rank_with_threads_does_not_hold_the_loop_back() {
    let stall = |technique: &str, env: &[(&str, &str)]| -> String {
        let mut env = env.to_vec();
        env.push(("DLS_THREADS", "2"));
        let job = mpi_common::mpirun_env(
            3,
            &[],
            &env,
            "mpi_stall",
            &["2400", technique, "2", "0.25", "3"],
            Duration::from_secs(60),
        );
        assert!(job.success, "{technique}: {}", show(&job));
        eprintln!("{technique} {env:?}: {}", job.stdout.trim());
        job.stdout
    };
    for technique in ["fac2", "af", "ss"] {
        let out = stall(technique, &[("DLS_REEXECUTE", "on")]);
        let f = |k: &str| field(&out, "stall:", k);
        assert_eq!(f("sum"), f("serial"), "{technique}: {out}");
        assert_eq!(f("iterates"), 2400.0, "{technique}: {out}");
        assert!(f("copies") >= 1.0, "{technique}: {out}");
        assert!(f("ratio") <= 1.8, "{technique}: {out}");
    }
    let out = stall("fac2", &[]);
    let f = |k: &str| field(&out, "stall:", k);
    assert_eq!(f("sum"), f("serial"), "{out}");
    assert_eq!(f("copies"), 0.0, "{out}");
    assert!(f("ratio") > 2.0, "{out}");
}

/// Every technique, N in {0, 1, 13, 600, …}, with re-execution on (a request per chunk per
/// thread, `chunk_loop.rs`): sums equal serial, the chunk map is a partition, on 1–3 ranks × 2
/// and 3 threads.
#[test]
fn every_iterate_runs_once_with_reexecution_on_threads_inside_ranks() {
    exactly_once_over(&["2", "3"], &[("DLS_REEXECUTE", "on")]);
}

/// A long chunk in progress is split for idle threads of any rank (`mpi_split`: STATIC hands
/// the dear second half to the last worker), with the asks and answers on the thread's own
/// tags; every iterate counts once and the chunk map stays a partition; with `off` nothing is
/// split.
#[test]
fn idle_threads_split_a_chunk_in_progress() {
    for split in ["on", "off"] {
        let job = mpi_common::mpirun_env(
            2,
            &[],
            &[("DLS_THREADS", "2"), ("DLS_REEXECUTE", "on")],
            "mpi_split",
            &["600", split],
            Duration::from_secs(60),
        );
        assert!(job.success, "{split}: {}", show(&job));
        let out = &job.stdout;
        let line = out
            .lines()
            .find_map(|l| l.strip_prefix("split: "))
            .unwrap_or_else(|| panic!("{}", show(&job)));
        let f = |k: &str| {
            line.split(' ')
                .find_map(|x| x.strip_prefix(k))
                .unwrap_or_default()
        };
        assert_eq!(f("sum="), f("serial="), "{split}: {line}");
        assert_eq!(f("iterates="), "600", "{split}: {line}");
        let splits: u64 = f("splits=").parse().unwrap();
        assert_eq!(splits >= 1, split == "on", "{split}: {line}");
        mpi_common::assert_partition(out, 600);
    }
}

/// Adaptive techniques see a rank whose threads are slower: with every iterate of rank 1 three
/// times as long (`hybrid_slow_rank`, 2 ranks × 2 threads), AF and AWF-C give rank 1 clearly
/// fewer iterates than STATIC's half (a quarter would balance the times exactly).
#[test]
fn adaptive_techniques_see_a_slower_rank() {
    let per_rank = |technique: &str| -> Vec<u64> {
        let job = mpi_common::mpirun_env(
            2,
            &[],
            &[("DLS_THREADS", "2")],
            "hybrid_slow_rank",
            &[technique],
            Duration::from_secs(120),
        );
        assert!(job.success, "{technique}: {}", show(&job));
        let line = job
            .stdout
            .lines()
            .find(|l| l.starts_with("slow rank"))
            .unwrap_or_else(|| panic!("{technique}: {}", show(&job)));
        let list = line.split('[').nth(1).unwrap().split(']').next().unwrap();
        list.split(", ").map(|x| x.parse().unwrap()).collect()
    };
    assert_eq!(per_rank("static"), [1500, 1500]);
    for technique in ["af", "awf-c"] {
        let got = per_rank(technique);
        assert!(
            got[1] < 1200 && got[0] + got[1] == 3000,
            "{technique}: iterates per rank {got:?}"
        );
    }
}
