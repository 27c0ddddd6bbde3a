//! The simulator's hierarchical hand-out (threads inside ranks, `HandOut::Hierarchical`, the
//! runtime's rule of `runtime/backend/mpi/hybrid.rs`): every iterate executed once for every
//! technique, hand-computed timelines (a rank's first requests; a pop that leaves the queue short
//! asks before its chunk starts), k = 1 against central hand-out, GSS and FAC2 with a chunk held
//! ahead, batches against a saturated scheduler, adaptive techniques learning a slow rank from
//! per-share timings, and the settings it refuses.

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
    // cost, L = 0.01 s. Every thread is free at 0; thread 0 sends rank 0's first request, for
    // k = 2 chunks (arrives at 0), thread 2 rank 1's (arrives at 0.01); threads 1 and 3 wait.
    // Rank 0's 2 chunks: served [0, 0.11], reply at 0.11. No chunk has been timed (depth 0), so
    // no pop asks early: threads 0 and 1 run [0.11, 1.11].
    // Rank 1's: served [0.11, 0.22], reply at 0.23; threads 2 and 3 run [0.23, 1.23].
    // At 1.11 thread 0 finds the queue empty and asks again (arrives 1.11), thread 1 waits:
    // served [1.11, 1.21], empty, so rank 0 is done. Rank 1's at 1.23 arrives at 1.24: served
    // [1.24, 1.34], empty.
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
    // k = 1: a rank is one worker. Its first chunk it asks for as central hand-out does; from
    // its second on, depth = min(1, ceil(round trip / chunk time)) = 1, so the thread that pops
    // the rank's only chunk asks for the next one and waits for it before it starts: one round
    // trip per chunk, as central, but each chunk is handed out one chunk earlier. That costs
    // little where chunks within a stretch of the loop are equal (measured ratios 1.0000 to
    // 1.0011 here); GSS and FAC2 pay for it (next test).
    for technique in ["static", "ss", "af", "awf-c", "awf-b"] {
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
fn at_one_thread_per_rank_gss_and_fac2_pay_for_the_chunk_held_ahead() {
    // GSS sizes a chunk R/P from what is left when it is handed out. Before its first chunk ends
    // a rank has timed nothing (depth 0): the first P chunks go one to each rank at t = 0, as
    // under central hand-out (the earlier rule, a prefetch below ceil(k/2), sent 2P at t = 0 and
    // ended 1.33x central). From the second chunk on a rank holds its next chunk before it starts
    // one: the rank whose first chunk ends first (worker 7, 982 iterates, at 0.97 s) takes the
    // next two, 859 and 752, and the 752 that central hand-out gives worker 6 at 1.12 s keeps
    // worker 7 busy to the end. Measured: GSS 1.100 x central (1.10-1.13 over seeds 1-5, the same
    // at h = 0.62 us, 5 us and 20 us, L = 0 or 1 us); FAC2 1.059 (1.05-1.07), whose batch of P
    // equal chunks the first ranks to ask take two at a time.
    let mut c = config("gss", 20_000, 8, "exp:1ms");
    c.overhead_s = 5e-6;
    c.chunk_map = true;
    let central = run(&c).report.parallel_time_s;
    c.hand_out = HandOut::threads(1);
    let o = run(&c);
    let r = &o.report;
    let first: Vec<u64> = r.chunk_map[..8].iter().map(|c| c[2]).collect();
    assert_eq!(first, (0..8).collect::<Vec<u64>>());
    assert!(r.chunk_times[..8].iter().all(|t| t.unwrap()[0] < 1e-3));
    let sizes = |w: u64| -> Vec<u64> {
        let of_w = r.chunk_map.iter().filter(|c| c[2] == w);
        of_w.map(|c| c[1]).take(3).collect()
    };
    assert_eq!(sizes(7), vec![982, 859, 752]);
    assert_eq!(sizes(6), vec![1122, 658, 576]);
    let ratio = r.parallel_time_s / central;
    assert!((1.05..1.2).contains(&ratio), "gss: {ratio}");

    c.technique = "fac2".parse().unwrap();
    c.hand_out = HandOut::Central;
    let central = run(&c).report.parallel_time_s;
    c.hand_out = HandOut::threads(1);
    let ratio = run(&c).report.parallel_time_s / central;
    assert!((1.03..1.1).contains(&ratio), "fac2: {ratio}");
}

#[test]
fn a_pop_that_leaves_fewer_than_the_depth_asks_before_its_chunk_starts() {
    // SS, N = 5 on 1 rank x 2 threads, 1 s per iterate, h = 0.1 s, no chunk or pop cost (rank 0:
    // no latency). Thread 0 asks for k = 2 at 0 (thread 1 waits): served [0, 0.1], both run
    // [0.1, 1.1]; the round trip's mean is 1 us + 0.25 (0.1 s - 1 us) = 0.025 s.
    // At 1.1 the chunk time is 1.1 s (from asking to end), depth = ceil(2 x 0.025 / 1.1) = 1;
    // thread 0 asks for min(2, 1 + 0 waiting + 1) = 2, thread 1 waits: served [1.1, 1.2]
    // (round trip 0.044). Thread 0 pops chunk 2, leaving 1 (not below 1), and runs it
    // [1.2, 2.2]; thread 1 pops chunk 3, leaving 0, asks for 1 and waits for it before it
    // starts: served [1.2, 1.3] (chunk 4), chunk 3 runs [1.3, 2.3].
    // At 2.2 thread 0 pops chunk 4, leaving 0 < 1: it asks at 2.2, served [2.2, 2.3], empty (the
    // rank is done), and runs chunk 4 [2.3, 3.3]. Thread 1 finds nothing at 2.3.
    let mut c = config("ss", 5, 1, "const:1s");
    c.overhead_s = 0.1;
    c.hand_out = HandOut::Hierarchical(Hierarchy {
        threads: 2,
        chunk_cost_s: 0.0,
        pop_cost_s: 0.0,
    });
    c.chunk_map = true;
    let o = run(&c);
    let r = &o.report;
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(close(r.parallel_time_s, 3.3), "{}", r.parallel_time_s);
    assert_eq!(o.requests, 4);
    assert!(close(o.scheduler_busy_s, 0.4));
    let workers: Vec<u64> = r.chunk_map.iter().map(|c| c[2]).collect();
    assert_eq!(workers, vec![0, 1, 0, 1, 0]);
    let times: Vec<[f64; 2]> = r.chunk_times.iter().map(|t| t.unwrap()).collect();
    for (t, want) in times.iter().zip([0.1, 0.1, 1.2, 1.3, 2.3]) {
        assert!(close(t[0], want) && close(t[1], want + 1.0), "{times:?}");
    }
}

#[test]
fn batches_beat_a_saturated_central_scheduler_for_ss() {
    // SS, 8 ranks x 8 threads, 10 us iterates, h = 20 us: 64 workers asking for one iterate each
    // queue at the scheduler (N·h = 0.16 s). A rank's request carries several chunks for about
    // h, so fewer requests end the loop sooner, but far fewer than k chunks a request: measured
    // 5154 requests (1.55 chunks each) and 0.103 s against 0.160 s. The chunk time a rank plans
    // with runs from a thread's asking to its chunk's end, so it takes in the wait for the
    // reply (about 870 us per 10 us chunk here, against a round trip of 160 us): the depth
    // falls to ceil(8 x 160 / 870) = 2, and the thread whose pop leaves the queue short asks
    // for 1 or 2 chunks while 5 or 6 threads wait.
    let mut c = config("ss", 8000, 64, "exp:10us");
    c.overhead_s = 20e-6;
    c.latency_s = 1e-6;
    let central = run(&c);
    c.p = 8;
    c.hand_out = HandOut::threads(8);
    let hier = run(&c);
    assert!(central.report.parallel_time_s > 0.15);
    assert!(
        hier.report.parallel_time_s < 0.75 * central.report.parallel_time_s,
        "{} vs {}",
        hier.report.parallel_time_s,
        central.report.parallel_time_s
    );
    assert!(hier.requests < 8000 * 7 / 10, "{}", hier.requests);
    assert!(hier.report.efficiency > 1.3 * central.report.efficiency);
}

#[test]
fn adaptive_techniques_learn_a_slow_rank_from_per_share_timings() {
    // 4 ranks x 4 threads; every thread of rank 3 is 3x slower. A request reports each share's
    // chunks finished since the rank's previous one: AF and AWF-C give rank 3's threads a third
    // of the work and end well before STATIC (measured: 1.006 and 1.002 x the lower bound, 0.39
    // x STATIC; rank 3's threads ran 4019 and 4048 iterates against rank 0's 12,141 and
    // 12,051).
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
        assert!(r.parallel_time_s < 1.03 * r.lower_bound_s, "{technique}");
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
