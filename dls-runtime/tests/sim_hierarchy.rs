//! The simulator's hierarchical hand-out (threads inside ranks, `HandOut::Hierarchical`): every
//! iterate executed once for every technique, a hand-computed timeline, k = 1 against central
//! hand-out, batches against a saturated scheduler, adaptive techniques learning from batch
//! timings, and the settings it refuses.

use dls_runtime::sim::{simulate, HandOut, Hierarchy, ServiceModel, SimConfig, SimOutcome};
use dls_runtime::technique::Kind;
use dls_runtime::Technique;

fn config(technique: &str, n: u64, p: usize, model: &str) -> SimConfig {
    let mut c = SimConfig::new(technique.parse().unwrap(), n, p);
    c.iterate_time = model.parse().unwrap();
    c
}

fn run(c: &SimConfig) -> SimOutcome {
    simulate(c).unwrap()
}

/// The chunk map is a partition of [0, n) executed by workers below `workers`, and the report
/// agrees with it.
fn assert_partition(o: &SimOutcome, n: u64, workers: usize, what: &str) {
    let r = &o.report;
    assert_eq!(r.p, workers, "{what}");
    assert_eq!(r.ranks.len(), workers, "{what}");
    let mut map = r.chunk_map.clone();
    map.sort_by_key(|c| c[0]);
    let mut next = 0;
    let mut per_worker = vec![0u64; workers];
    for &[start, size, w] in &map {
        assert_eq!(start, next, "{what}: gap or overlap at {start}");
        assert!(size >= 1 && (w as usize) < workers, "{what}");
        per_worker[w as usize] += size;
        next += size;
    }
    assert_eq!(next, n, "{what}");
    for (x, &done) in r.ranks.iter().zip(&per_worker) {
        assert_eq!(x.iterates, done, "{what}: worker {}", x.rank);
    }
    assert_eq!(r.chunks as usize, r.chunk_map.len(), "{what}");
    assert_eq!(r.chunk_times.len(), r.chunk_map.len(), "{what}");
    for t in r.chunk_times.iter().flatten() {
        assert!(t[0] <= t[1] && t[1] <= r.parallel_time_s, "{what}: {t:?}");
    }
    assert!(
        r.parallel_time_s >= r.lower_bound_s * (1.0 - 1e-12),
        "{what}"
    );
    if n == 0 {
        assert_eq!((r.parallel_time_s, r.chunks), (0.0, 0), "{what}");
    }
}

#[test]
fn every_technique_executes_every_iterate_once_with_threads_inside_ranks() {
    for &kind in Kind::ALL.iter() {
        for p in [1usize, 2, 3, 5] {
            for k in [1usize, 2, 3, 4, 8] {
                for n in [0u64, 1, 13, 600] {
                    let mut c = SimConfig::new(Technique::new(kind), n, p);
                    c.iterate_time = "uniform:1ms:2ms".parse().unwrap();
                    c.overhead_s = 5e-6;
                    c.latency_s = 2e-6;
                    c.hand_out = HandOut::threads(k);
                    c.chunk_map = true;
                    // Odd workers 2x slower, to mix the threads' ends.
                    c.speeds = (0..p * k).map(|w| 1.0 + (w % 2) as f64).collect();
                    c.fill_technique_params();
                    let o = match simulate(&c) {
                        Ok(o) => o,
                        // Techniques that need parameters the loop cannot give are skipped.
                        Err(_) => continue,
                    };
                    let what = format!("{kind:?} n={n} p={p} k={k}");
                    assert_partition(&o, n, p * k, &what);
                    // At least one request per rank (the one whose batch comes back empty).
                    assert!(o.requests >= p as u64, "{what}");
                }
            }
        }
    }
}

#[test]
fn every_technique_executes_every_iterate_once_under_parallel_service_and_late_threads() {
    for &kind in Kind::ALL.iter() {
        for (n, p, k) in [(600u64, 3usize, 4usize), (13, 2, 8), (1, 4, 2)] {
            let mut c = SimConfig::new(Technique::new(kind), n, p);
            c.iterate_time = "exp:1ms".parse().unwrap();
            c.overhead_s = 20e-6;
            c.service = ServiceModel::Parallel;
            c.hand_out = HandOut::Hierarchical(Hierarchy {
                threads: k,
                chunk_cost_s: 0.0,
                pop_cost_s: 0.0,
            });
            c.start_s = (0..p * k).map(|w| (w % 3) as f64 * 1e-3).collect();
            c.chunk_map = true;
            c.fill_technique_params();
            let Ok(o) = simulate(&c) else { continue };
            assert_partition(&o, n, p * k, &format!("{kind:?} n={n} p={p} k={k}"));
        }
    }
}

#[test]
fn hand_computed_timeline() {
    // STATIC, N = 4 on 2 ranks x 2 threads, 1 s per iterate, h = 0.1 s, c = 0.01 s, no pop
    // cost, L = 0.01 s. Every thread is free at 0; thread 0 sends rank 0's request (arrives at
    // 0), thread 2 rank 1's (arrives at 0.01).
    // Rank 0's batch of 2: served [0, 0.11], reply at 0.11. Thread 0 takes a chunk, leaving 1
    // (not below ceil(2/2) = 1); thread 1 takes the other and sends the next request at 0.11.
    // Both run [0.11, 1.11].
    // Rank 1's batch: served [0.11, 0.22], reply at 0.23; threads 2 and 3 run [0.23, 1.23];
    // thread 3 sends the next request at 0.23 (arrives 0.24).
    // Rank 0's second request: served [0.22, 0.32], empty; rank 1's: [0.32, 0.42], empty.
    let mut c = config("static", 4, 2, "const:1s");
    c.overhead_s = 0.1;
    c.latency_s = 0.01;
    c.hand_out = HandOut::Hierarchical(Hierarchy {
        threads: 2,
        chunk_cost_s: 0.01,
        pop_cost_s: 0.0,
    });
    c.chunk_map = true;
    let o = run(&c);
    let r = &o.report;
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert!(close(r.parallel_time_s, 1.23), "{}", r.parallel_time_s);
    assert_eq!(o.requests, 4);
    assert!(close(o.scheduler_busy_s, 0.42), "{}", o.scheduler_busy_s);
    assert_eq!(
        r.chunk_map,
        vec![[0, 1, 0], [1, 1, 1], [2, 1, 2], [3, 1, 3]]
    );
    let times: Vec<[f64; 2]> = r.chunk_times.iter().map(|t| t.unwrap()).collect();
    for (t, want) in times.iter().zip([0.11, 0.11, 0.23, 0.23]) {
        assert!(close(t[0], want) && close(t[1], want + 1.0), "{times:?}");
    }
    assert!(close(r.efficiency, 4.0 / (4.0 * 1.23)));
    assert!(close(r.ranks[0].idle_time_s, 0.23));
    assert_eq!(o.hand_out, c.hand_out);
    assert!(o.to_string().contains("2 ranks x 2 threads"));
}

#[test]
fn the_pop_cost_delays_each_chunk() {
    // One rank of one thread, SS over 3 iterates of 1 s, h = 0, pop 0.5 s: each chunk starts
    // half a second after its thread looks for it (the first after the reply at 0).
    let mut c = config("ss", 3, 1, "const:1s");
    c.hand_out = HandOut::Hierarchical(Hierarchy {
        threads: 1,
        chunk_cost_s: 0.0,
        pop_cost_s: 0.5,
    });
    assert!((run(&c).report.parallel_time_s - 4.5).abs() < 1e-12);
}

#[test]
fn one_thread_per_rank_without_latency_is_close_to_central() {
    // k = 1: a rank is one worker; the only difference is the prefetch (a rank asks for its next
    // chunk when it starts one), which costs little where the next chunk's size does not depend
    // on when it is asked for (see the next test for GSS, where it does).
    for technique in ["static", "ss", "fac2", "af", "awf-c", "awf-b"] {
        let mut c = config(technique, 20_000, 8, "exp:1ms");
        c.overhead_s = 5e-6;
        let central = run(&c).report.parallel_time_s;
        c.hand_out = HandOut::threads(1);
        let o = run(&c);
        let ratio = o.report.parallel_time_s / central;
        assert!((0.99..=1.01).contains(&ratio), "{technique}: {ratio}");
        assert_eq!(o.report.p, 8);
    }
}

#[test]
fn the_prefetch_gives_each_rank_two_of_gss_front_chunks() {
    // GSS sizes a chunk R/P from what is left when it is asked for. With k = 1 every rank asks
    // for its second chunk as it starts its first, so the first 2P chunks (1 - (7/8)^16 = 88 %
    // of the loop) leave at t = 0 and rank 0 holds 2500 + 859 of 20,000 iterates (chunks 1 and
    // 9): the makespan
    // is a third above central hand-out's, where a rank asks when its chunk ends.
    let mut c = config("gss", 20_000, 8, "exp:1ms");
    c.overhead_s = 5e-6;
    c.chunk_map = true;
    let central = run(&c).report.parallel_time_s;
    c.hand_out = HandOut::threads(1);
    let o = run(&c);
    let started_at_once = o.report.chunk_times[..16]
        .iter()
        .filter(|t| t.unwrap()[0] < 1e-3)
        .count();
    assert_eq!(started_at_once, 8);
    let sizes: Vec<u64> = o.report.chunk_map.iter().map(|c| c[1]).collect();
    assert_eq!(&sizes[..2], &[2500, 2188]);
    let rank0: Vec<u64> = o
        .report
        .chunk_map
        .iter()
        .filter(|c| c[2] == 0)
        .map(|c| c[1])
        .take(2)
        .collect();
    assert_eq!(rank0, vec![2500, 859]);
    let ratio = o.report.parallel_time_s / central;
    assert!(ratio > 1.25, "{ratio}");
}

#[test]
fn batches_beat_a_saturated_central_scheduler_for_ss() {
    // SS, 8 ranks x 8 threads, 10 us iterates, h = 20 us: 64 workers asking for one iterate each
    // queue at the scheduler (N·h = 0.16 s); a batch of 8 costs h + 7·0.1 us, 8x fewer requests.
    let mut c = config("ss", 8000, 64, "exp:10us");
    c.overhead_s = 20e-6;
    c.latency_s = 1e-6;
    let central = run(&c);
    c.p = 8;
    c.hand_out = HandOut::threads(8);
    let hier = run(&c);
    assert!(central.report.parallel_time_s > 0.15);
    assert!(
        hier.report.parallel_time_s < central.report.parallel_time_s / 6.0,
        "{} vs {}",
        hier.report.parallel_time_s,
        central.report.parallel_time_s
    );
    // N / k batches and one empty batch per rank.
    assert_eq!(hier.requests, 8000 / 8 + 8);
    assert!(hier.report.efficiency > 6.0 * central.report.efficiency);
}

#[test]
fn adaptive_techniques_learn_a_slow_rank_from_batch_timings() {
    // 4 ranks x 4 threads; every thread of rank 3 is 3x slower. The timings a rank reports are
    // shared equally among its slots, which is exact here: AF and AWF-C give rank 3's threads
    // less work and end well before STATIC.
    let mut c = config("static", 40_000, 4, "exp:1ms");
    c.overhead_s = 5e-6;
    c.latency_s = 1e-6;
    c.hand_out = HandOut::threads(4);
    c.speeds = (0..16).map(|w| if w >= 12 { 3.0 } else { 1.0 }).collect();
    let stat = run(&c).report.parallel_time_s;
    for technique in ["af", "awf-c"] {
        c.technique = technique.parse().unwrap();
        let o = run(&c);
        let r = &o.report;
        assert!(r.parallel_time_s < 0.6 * stat, "{technique}");
        assert!(r.parallel_time_s < 1.15 * r.lower_bound_s, "{technique}");
        let slow: u64 = r.ranks[12..].iter().map(|x| x.iterates).sum();
        let fast: u64 = r.ranks[..4].iter().map(|x| x.iterates).sum();
        assert!(slow * 2 < fast, "{technique}: {slow} vs {fast}");
    }
}

#[test]
fn deterministic_per_seed() {
    let mut c = config("fac2", 5000, 3, "exp:1ms");
    c.hand_out = HandOut::threads(4);
    c.overhead_s = 3e-6;
    c.latency_s = 1e-6;
    c.chunk_map = true;
    assert_eq!(run(&c), run(&c));
    let mut other = c.clone();
    other.seed = 2;
    assert_ne!(run(&c).report.chunk_times, run(&other).report.chunk_times);
}

#[test]
fn bad_hierarchical_settings_are_errors_naming_the_setting() {
    let mut c = config("ss", 10, 4, "const:1ms");
    c.hand_out = HandOut::threads(0);
    assert!(simulate(&c).unwrap_err().to_string().contains("--hand-out"));
    c.hand_out = HandOut::threads(1 << 10);
    c.p = 1 << 10;
    assert!(simulate(&c).unwrap_err().to_string().contains("--hand-out"));
    c.p = 4;
    c.hand_out = HandOut::Hierarchical(Hierarchy {
        chunk_cost_s: f64::NAN,
        ..Hierarchy::new(2)
    });
    assert!(simulate(&c).unwrap_err().to_string().contains("--hand-out"));
    c.hand_out = HandOut::threads(2);
    c.split = dls_runtime::sim::SplitModel::Threads;
    assert!(simulate(&c).unwrap_err().to_string().contains("--split"));
    c.split = dls_runtime::sim::SplitModel::Off;
    // Speeds and start times count workers.
    c.speeds = vec![1.0; 4];
    assert!(simulate(&c).unwrap_err().to_string().contains("--speeds"));
    c.speeds = vec![1.0; 8];
    c.start_s = vec![0.0; 4];
    assert!(simulate(&c).unwrap_err().to_string().contains("--starts"));
    c.start_s = vec![0.0; 8];
    assert!(simulate(&c).is_ok());
}
