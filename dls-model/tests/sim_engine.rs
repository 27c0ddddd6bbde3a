//! The simulator's event loop against hand-computed timelines, heterogeneity, slowdowns,
//! determinism, coverage of the iteration space and the JSON field names.

use dls_model::sim::{simulate, SimConfig, SimOutcome};
use dls_model::technique::Kind;
use dls_model::technique::Technique;

fn config(technique: &str, n: u64, p: usize, model: &str) -> SimConfig {
    let mut c = SimConfig::new(technique.parse().unwrap(), n, p);
    c.iterate_time = model.parse().unwrap();
    c
}

fn run(c: &SimConfig) -> SimOutcome {
    simulate(c).unwrap()
}

#[test]
fn static_two_ranks_no_costs() {
    // N = 4, P = 2, 1 s per iterate: each rank runs 2 iterates back to back.
    let o = run(&config("static", 4, 2, "const:1s"));
    let r = &o.report;
    assert_eq!(r.parallel_time_s, 2.0);
    assert_eq!(r.lower_bound_s, 2.0);
    assert_eq!(r.efficiency, 1.0);
    assert_eq!(r.chunks, 2);
    for x in &r.ranks {
        assert_eq!(
            (x.iterates, x.chunks, x.work_time_s, x.idle_time_s),
            (2, 1, 2.0, 0.0)
        );
    }
}

#[test]
fn static_two_ranks_with_overhead_and_latency() {
    // Rank 0 (local): served [0, 0.1], runs [0.1, 2.1].
    // Rank 1: request arrives 0.01, waits for the server, served [0.1, 0.2], reply at 0.21,
    // runs [0.21, 2.21]. Final requests: rank 0 at 2.1 ([2.1, 2.2]), rank 1 at 2.22.
    let mut c = config("static", 4, 2, "const:1s");
    c.overhead_s = 0.1;
    c.latency_s = 0.01;
    let o = run(&c);
    let r = &o.report;
    assert!(
        (r.parallel_time_s - 2.21).abs() < 1e-12,
        "{}",
        r.parallel_time_s
    );
    assert!((r.ranks[0].idle_time_s - 0.21).abs() < 1e-12);
    assert!((r.ranks[1].idle_time_s - 0.21).abs() < 1e-12);
    assert_eq!(o.requests, 4);
    assert!((o.scheduler_busy_s - 0.4).abs() < 1e-12);
    assert!((r.efficiency - 4.0 / (2.0 * 2.21)).abs() < 1e-12);
}

#[test]
fn self_scheduling_serialised_server() {
    // SS, N = 3, P = 2, 1 s per iterate, h = 0.5 s, no latency.
    // r0 served [0, .5] -> iterate 0 on [.5, 1.5]; r1 served [.5, 1] -> iterate 1 on [1, 2];
    // r0 served [1.5, 2] -> iterate 2 on [2, 3]; r1 served [2, 2.5] -> done; r0 [3, 3.5] -> done.
    let mut c = config("ss", 3, 2, "const:1s");
    c.overhead_s = 0.5;
    c.chunk_map = true;
    let o = run(&c);
    let r = &o.report;
    assert_eq!(r.parallel_time_s, 3.0);
    assert_eq!(r.chunk_map, vec![[0, 1, 0], [1, 1, 1], [2, 1, 0]]);
    assert_eq!((r.ranks[0].iterates, r.ranks[1].iterates), (2, 1));
    assert_eq!(r.ranks[1].idle_time_s, 2.0);
    assert_eq!(o.requests, 5);
    assert_eq!(r.lower_bound_s, 1.5);
}

#[test]
fn parallel_service_does_not_queue_requests() {
    // SS, N = 4, P = 2, 1 s per iterate, h = 0.5 s.
    // Serial: r0 [0, .5] -> [.5, 1.5]; r1 [.5, 1] -> [1, 2]; r0 [1.5, 2] -> [2, 3];
    //         r1 [2, 2.5] -> [2.5, 3.5].
    // Parallel: both served [0, .5] -> [.5, 1.5], then both [1.5, 2] -> [2, 3].
    let mut c = config("ss", 4, 2, "const:1s");
    c.overhead_s = 0.5;
    assert_eq!(run(&c).report.parallel_time_s, 3.5);
    c.service = dls_model::sim::ServiceModel::Parallel;
    let o = run(&c);
    assert_eq!(o.report.parallel_time_s, 3.0);
    assert_eq!(o.report.ranks[0].idle_time_s, 1.0);
}

#[test]
fn saturated_scheduler_serialises_the_loop() {
    // SS with h equal to the iterate time on 8 ranks: the server hands out one iterate per h,
    // so the makespan is about N·h whatever P is.
    let mut c = config("ss", 200, 8, "const:1ms");
    c.overhead_s = 1e-3;
    let o = run(&c);
    assert!(
        (o.report.parallel_time_s - 0.201).abs() < 1e-9,
        "{}",
        o.report.parallel_time_s
    );
}

#[test]
fn timed_slowdown_is_exact() {
    // One rank, STATIC: 2 s of work starting at 0, 2x slower from 0.5 s: 0.5 + 1.5·2 = 3.5 s.
    let mut c = config("static", 2, 1, "const:1s");
    c.slowdowns = vec!["0@0.5sx2".parse().unwrap()];
    let o = run(&c);
    assert_eq!(o.report.parallel_time_s, 3.5);
    assert_eq!(o.report.lower_bound_s, 2.0);
    assert_eq!(o.report.ranks[0].work_time_s, 3.5);
}

#[test]
fn loop_fraction_slowdown_applies_to_later_chunks() {
    // SS on one rank: iterates 0 and 1 at 1 s, iterates 2 and 3 (from half the loop) at 3 s.
    let mut c = config("ss", 4, 1, "const:1s");
    c.slowdowns = vec!["0@0.5x3".parse().unwrap()];
    assert_eq!(run(&c).report.parallel_time_s, 8.0);
}

#[test]
fn mid_loop_slowdown_moves_work_away_from_the_slow_rank() {
    let mut even = config("ss", 4000, 4, "exp:1ms");
    even.seed = 3;
    let mut slowed = even.clone();
    slowed.slowdowns = vec!["2@0.5x4".parse().unwrap()];
    let a = run(&even).report;
    let b = run(&slowed).report;
    assert!(b.ranks[2].iterates < a.ranks[2].iterates * 3 / 4);
    assert!(b.parallel_time_s > a.parallel_time_s);
    assert_eq!(b.ranks.iter().map(|r| r.iterates).sum::<u64>(), 4000);
}

#[test]
fn slow_rank_dominates_static_and_dynamic_schedules_route_around_it() {
    let mut c = config("static", 400, 4, "const:1ms");
    c.speeds = vec![1.0, 1.0, 1.0, 3.0];
    let o = run(&c);
    // STATIC: rank 3 runs its 100 iterates 3x slower and sets the makespan.
    assert!((o.report.parallel_time_s - 0.3).abs() < 1e-12);
    assert!((o.report.lower_bound_s - 0.4 / (3.0 + 1.0 / 3.0)).abs() < 1e-12);
    assert_eq!(o.report.ranks[3].idle_time_s, 0.0);
    // Self-scheduling: the slow rank gets about a third of a fast rank's share.
    c.technique = Technique::new(Kind::Ss);
    let o = run(&c);
    let fast = o.report.ranks[..3].iter().map(|r| r.iterates).sum::<u64>() as f64 / 3.0;
    let share = o.report.ranks[3].iterates as f64 / fast;
    assert!((share - 1.0 / 3.0).abs() < 0.05, "share {share}");
    assert!(o.makespan_over_lower_bound() < 1.02);
}

#[test]
fn weighted_factoring_takes_the_rank_speeds_as_weights() {
    // WF without weights in its spec gets 1 / speeds: the slow rank's chunks are a third of the
    // others' in every batch, so the loop ends near its bound; without weights it is FAC2.
    let mut c = config("wf", 100_000, 4, "const:1ms");
    c.speeds = vec![1.0, 1.0, 1.0, 3.0];
    let mut plain = c.clone();
    plain.technique.params.weights = Some(vec![1.0; 4]);
    let note = c.fill_technique_params().unwrap();
    assert!(note.contains("0.3333"), "{note}");
    let weighted = run(&c).makespan_over_lower_bound();
    let unweighted = run(&plain).makespan_over_lower_bound();
    assert!(
        weighted < 1.02 && unweighted > 1.2,
        "{weighted} vs {unweighted}"
    );
}

#[test]
fn deterministic_per_seed() {
    let mut c = config("gss", 5000, 8, "gamma:0.5:2ms");
    c.overhead_s = 1e-5;
    c.latency_s = 2e-6;
    c.chunk_map = true;
    let a = run(&c);
    assert_eq!(a, run(&c));
    c.seed = 2;
    assert_ne!(a.report.parallel_time_s, run(&c).report.parallel_time_s);
}

#[test]
fn every_technique_covers_the_loop_exactly_once() {
    for &kind in Kind::ALL.iter() {
        for (n, p) in [(0u64, 4usize), (1, 4), (3, 8), (10, 1), (1000, 7)] {
            let mut c = SimConfig::new(Technique::new(kind), n, p);
            c.iterate_time = "uniform:1ms:2ms".parse().unwrap();
            c.chunk_map = true;
            c.fill_technique_params();
            let o = match simulate(&c) {
                Ok(o) => o,
                // Techniques that need parameters the loop cannot give are skipped.
                Err(_) => continue,
            };
            let r = &o.report;
            // In index order (static-steal hands its blocks' pieces out of index order).
            let mut map = r.chunk_map.clone();
            map.sort_by_key(|c| c[0]);
            let mut next = 0;
            for &[start, size, rank] in &map {
                assert_eq!(start, next, "{kind:?} n={n} p={p}");
                assert!(size >= 1 && (rank as usize) < p);
                next += size;
            }
            assert_eq!(next, n, "{kind:?} n={n} p={p}");
            assert_eq!(r.ranks.iter().map(|x| x.iterates).sum::<u64>(), n);
            assert_eq!(r.chunks as usize, r.chunk_map.len());
            assert!(r.parallel_time_s >= r.lower_bound_s * (1.0 - 1e-12));
            if n == 0 {
                assert_eq!((r.parallel_time_s, r.chunks), (0.0, 0));
            }
        }
    }
}

#[test]
fn lower_bound_counts_the_longest_iterate() {
    // One iterate of 10 s among short ones: no schedule beats 10 s.
    let path = std::env::temp_dir().join(format!("dls_sim_lb_{}.txt", std::process::id()));
    std::fs::write(&path, "10s\n1s\n1s\n1s\n").unwrap();
    let c = config("ss", 4, 4, &format!("file:{}", path.display()));
    let o = run(&c);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(o.report.lower_bound_s, 10.0);
    assert_eq!(o.report.parallel_time_s, 10.0);
    assert_eq!(o.longest_iterate_s, 10.0);
}

#[test]
fn bad_settings_are_errors_naming_the_setting() {
    let mut c = config("ss", 10, 4, "const:1ms");
    c.speeds = vec![1.0, 2.0];
    assert!(simulate(&c).unwrap_err().to_string().contains("--speeds"));
    c.speeds.clear();
    c.slowdowns = vec!["7@0.5x2".parse().unwrap()];
    assert!(simulate(&c).unwrap_err().to_string().contains("--slowdown"));
    c.slowdowns.clear();
    c.overhead_s = -1.0;
    assert!(simulate(&c).unwrap_err().to_string().contains("--overhead"));
    c.overhead_s = 0.0;
    c.p = 0;
    assert!(simulate(&c).unwrap_err().to_string().contains("--p"));
    let c = config("ss", 10, 2, "const:1ms");
    let mut short = c.clone();
    short.iterate_time = dls_model::sim::IterateTimeModel::recorded("r", vec![1.0; 3]).unwrap();
    assert!(simulate(&short).unwrap_err().to_string().contains("n = 10"));
}

#[test]
fn json_uses_the_runtime_field_names() {
    let mut c = config("fac2", 100, 4, "exp:1ms");
    c.chunk_map = true;
    let v = serde_json::to_value(&run(&c).report).unwrap();
    for key in [
        "name",
        "technique",
        "n",
        "p",
        "parallel_time_s",
        "lower_bound_s",
        "sequential_cost_s",
        "efficiency",
        "aad",
        "chunks",
        "ranks",
        "chunk_map",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    for key in ["rank", "iterates", "work_time_s", "chunks", "idle_time_s"] {
        assert!(v["ranks"][0].get(key).is_some(), "missing ranks[].{key}");
    }
    assert_eq!(v["technique"], "fac2");
}

/// The runtime's split of a chunk in progress (`DLS_SPLIT`), worked by hand: STATIC, N = 10
/// iterates of 1 s on 2 ranks, no overheads.
#[test]
fn an_idle_rank_splits_a_chunk_in_progress() {
    use dls_model::sim::SplitModel;
    let split = |model: SplitModel, speeds: Vec<f64>| {
        let mut c = config("static", 10, 2, "const:1s");
        c.speeds = speeds;
        c.split = model;
        c.chunk_map = true;
        run(&c)
    };
    // Threads: rank 1 is 3× slower. Rank 0 ends [0, 5) at 5 s; rank 1 has started 2 of
    // [5, 10) (iterate 6 runs from 3 s to 6 s), so 3 are left: it keeps one more, [5, 8), and
    // ends at 9 s; rank 0 takes [8, 10) and ends at 7 s, when rank 1's last iterate runs.
    for model in [SplitModel::Threads, SplitModel::Mpi] {
        let out = split(model, vec![1.0, 3.0]);
        assert_eq!(out.splits, 1);
        assert_eq!(out.report.parallel_time_s, 9.0);
        assert_eq!(
            out.report.chunk_map,
            vec![[0, 5, 0], [5, 3, 1], [8, 2, 0]],
            "the map stays a partition"
        );
        assert_eq!(out.report.ranks[1].iterates, 3);
        assert_eq!(out.report.ranks[1].work_time_s, 9.0);
        assert_eq!(out.report.ranks[0].iterates, 7);
    }
    // On threads rank 0 takes its part at once (5 s); under MPI rank 1 answers the ask at the
    // end of its iterate in progress (iterate 6, at 6 s), and rank 0 waits until then.
    let out = split(SplitModel::Threads, vec![1.0, 3.0]);
    assert_eq!(out.report.chunk_times[2], Some([5.0, 7.0]));
    let out = split(SplitModel::Mpi, vec![1.0, 3.0]);
    assert_eq!(out.report.chunk_times[2], Some([6.0, 8.0]));
    // With a latency of 2 s the ask reaches rank 1 at 7 s (and half a 0.2 ms poll), while
    // iterate 6 runs ([7 s, 10 s): rank 1 started its chunk at 4 s); at 10 s it keeps one of
    // the 3 iterates it has not started (half, rounded down; rank 0 asked) and answers with
    // [8, 10), and ends [5, 8) at 13 s; the answer reaches rank 0 at 12 s, which ends [8, 10)
    // at 14 s.
    let mut c = config("static", 10, 2, "const:1s");
    c.speeds = vec![1.0, 3.0];
    c.split = SplitModel::Mpi;
    c.chunk_map = true;
    c.latency_s = 2.0;
    let out = run(&c);
    assert_eq!(out.report.chunk_map, vec![[0, 5, 0], [5, 3, 1], [8, 2, 0]]);
    assert_eq!(out.report.chunk_times[1], Some([4.0, 13.0]));
    assert_eq!(out.report.chunk_times[2], Some([12.0, 14.0]));
    assert_eq!(out.report.parallel_time_s, 14.0);
    // MPI, rank 0 3× slower: rank 1, idle at 5 s, takes the last quarter of the 3 iterates rank
    // 0 has not started (at least one): [4, 5); rank 0 ends [0, 4) at 12 s.
    let out = split(SplitModel::Mpi, vec![3.0, 1.0]);
    assert_eq!(out.splits, 1);
    assert_eq!(out.report.parallel_time_s, 12.0);
    assert_eq!(out.report.chunk_map, vec![[0, 4, 0], [5, 5, 1], [4, 1, 1]]);
    // Threads: the half, [3, 5) of the 3 left ([2, 5)): rank 0 keeps [0, 3), ends at 9 s.
    let out = split(SplitModel::Threads, vec![3.0, 1.0]);
    assert_eq!(out.report.parallel_time_s, 9.0);
    // Off: as published.
    let out = split(SplitModel::Off, vec![1.0, 3.0]);
    assert_eq!((out.splits, out.report.parallel_time_s), (0, 15.0));
}
