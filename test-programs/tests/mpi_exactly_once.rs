//! Exactly-once under mpirun: P in {1, 2, 3, 4, 8} (oversubscribed) × every technique × N in
//! {0, 1, P-1, P, P+1, 1000, 4099}, closure and explicit API, plus index types at their limits
//! (see `src/bin/mpi_exactly_once.rs`, which checks counts, sums, sums of squares, per-rank
//! counts and the chunk map on every rank). Also: every run exits 0 (MPI finalised cleanly).

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

fn run(p: usize) {
    let job = mpi_common::mpirun(p, &[], "mpi_exactly_once", &[], Duration::from_secs(120));
    assert!(
        job.success,
        "P={p}: exit {:?}\nstdout:\n{}\nstderr:\n{}",
        job.code, job.stdout, job.stderr
    );
    assert!(
        job.stdout.contains(&format!("exactly-once OK: P={p},")),
        "P={p}: {}",
        job.stdout
    );
    eprintln!("P={p}: {} in {:.2?}", job.stdout.trim(), job.elapsed);
}

#[test]
fn exactly_once_p1() {
    run(1);
}

#[test]
fn exactly_once_p2() {
    run(2);
}

#[test]
fn exactly_once_p3() {
    run(3);
}

#[test]
fn exactly_once_p4() {
    run(4);
}

#[test]
fn exactly_once_p8() {
    run(8);
}

/// `DLS_REPORT=path` under mpirun: rank 0 alone appends one JSON object per loop, holding every
/// rank's figures and the chunk map.
#[test]
fn report_file_written_once_per_loop_by_rank_0() {
    let path = std::env::temp_dir().join(format!("dls-mpi-report-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let value = path.display().to_string();
    let job = mpi_common::mpirun_env(
        3,
        &["-x", "DLS_REPORT"],
        &[("DLS_REPORT", &value)],
        "explicit_api",
        &["fac2"],
        Duration::from_secs(120),
    );
    assert!(job.success, "{job:?}");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let _ = std::fs::remove_file(&path);
    let loops: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(loops.len(), 2, "two loops, one line each:\n{text}");
    for l in &loops {
        assert_eq!(l["p"], 3, "{l}");
        assert_eq!(l["technique"], "fac2", "{l}");
        let ranks = l["ranks"].as_array().unwrap();
        assert_eq!(ranks.len(), 3);
        let total: u64 = ranks.iter().map(|r| r["iterates"].as_u64().unwrap()).sum();
        assert_eq!(total, l["n"].as_u64().unwrap());
        let covered: u64 = l["chunk_map"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c[1].as_u64().unwrap())
            .sum();
        assert_eq!(covered, l["n"].as_u64().unwrap());
        assert_eq!(l["backend"], "mpi", "{l}");
        // Rank 0's scheduler measured the requests of ranks 1 and 2: every chunk they were
        // handed (and their last requests), each at a plausible cost.
        let q = &l["scheduler"];
        let remote_chunks: u64 = ranks[1..]
            .iter()
            .map(|r| r["chunks"].as_u64().unwrap())
            .sum();
        assert!(q["requests"].as_u64().unwrap() >= remote_chunks, "{l}");
        let cost = q["request_cost_s"].as_f64().unwrap();
        assert!(cost > 0.0 && cost < 0.01, "{l}");
        let utilisation = q["utilisation"].as_f64().unwrap();
        assert!(utilisation > 0.0 && utilisation <= 1.0, "{l}");
        // Every chunk has its [start, end] on rank 0's clock, inside the loop's parallel time,
        // and one rank's chunks follow one another.
        let parallel = l["parallel_time_s"].as_f64().unwrap();
        let times = l["chunk_times"].as_array().expect("chunk_times");
        let map = l["chunk_map"].as_array().unwrap();
        assert_eq!(times.len(), map.len(), "{l}");
        let mut last_end = [0.0f64; 3];
        // A chunk whose parts were re-executed by other ranks (a late chunk on a loaded machine)
        // has no time of its own: at most one such chunk per copy made.
        let copies = l["reexecution"]["copies"].as_u64().unwrap_or(0);
        let untimed = times.iter().filter(|t| t.is_null()).count() as u64;
        assert!(
            untimed <= copies,
            "{untimed} chunks without times, {copies} copies: {l}"
        );
        for (c, t) in map.iter().zip(times) {
            if t.is_null() {
                continue;
            }
            let (start, end) = (t[0].as_f64().unwrap(), t[1].as_f64().unwrap());
            assert!(
                0.0 <= start && start <= end && end <= parallel,
                "{t} of {parallel}"
            );
            let w = c[2].as_u64().unwrap() as usize;
            assert!(
                start >= last_end[w] - 1e-6,
                "rank {w}'s chunks overlap: {l}"
            );
            last_end[w] = end;
        }
        // Every rank's CPU time travelled to rank 0 (the loops do work on every rank); one
        // thread uses at most the loop's wall time.
        for r in ranks {
            let cpu = r["cpu_time_s"].as_f64().unwrap();
            assert!(cpu <= parallel + 1e-3, "{r}");
            if r["chunks"].as_u64().unwrap() > 0 {
                assert!(cpu > 0.0, "{r}");
            }
        }
    }
}
