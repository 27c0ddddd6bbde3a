//! The simulator's hierarchical hand-out (threads inside ranks, `HandOut::Hierarchical`, the
//! runtime's rule of `runtime/backend/mpi/hybrid.rs`): every iterate executed once for every
//! technique, hand-computed timelines of batches (a rank's first requests; a pop that leaves the
//! queue holding fewer than half the depth asks before its chunk starts; long chunks are asked
//! for only when the queue is empty), k = 1 against central hand-out, batches against a
//! saturated scheduler, adaptive techniques learning a slow rank from per-share timings, and the
//! settings it refuses. SS, FSC and mFSC take blocks of chunks instead of batches: the timelines
//! of batches use GSS with `max=1`, whose chunks are SS's (one iterate each), and the blocks'
//! own tests are in `src/sim/hierarchy.rs`.

use dls_model::sim::{simulate, HandOut, Hierarchy, ServiceModel, SimConfig, SimOutcome};
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
fn one_thread_per_rank_is_central_hand_out() {
    // k = 1: a rank is one worker. The depth is min(1, floor(round trip / chunk time)), a chunk's
    // time being its work time: 0 while chunks take longer than a round trip (here about 1 ms
    // against 5 to 40 us), so the thread asks for one chunk when it is free, as under central
    // hand-out. Without the costs of a batch's extra chunk and of a pop (c = l = 0) the loop is
    // the central one: the same chunks to the same workers at the same times (checked here
    // for seed 1 at L = 0 and 1 us; seeds 2 and 3 at L = 0 gave the same makespans too). With
    // the default l = 100 ns each chunk starts 100 ns later: measured ratios 1.000000 to
    // 1.000101 (SS, 2500 chunks a worker; seeds 1-3, L = 0). SS takes blocks, here of one
    // chunk each: with one thread and one-iterate chunks the target is one chunk (its half 0,
    // so no pop asks early) while a chunk takes longer than two round trips, and a thread that
    // is free asks for one iterate, served in h, as central hand-out.
    for technique in ["static", "ss", "af", "awf-c", "awf-b", "gss", "fac2", "tss"] {
        for latency_s in [0.0, 1e-6] {
            let mut c = config(technique, 20_000, 8, "exp:1ms");
            c.overhead_s = 5e-6;
            c.latency_s = latency_s;
            c.chunk_map = true;
            c.fill_technique_params();
            let central = run(&c);
            c.hand_out = HandOut::Hierarchical(Hierarchy {
                threads: 1,
                chunk_cost_s: 0.0,
                pop_cost_s: 0.0,
            });
            let o = run(&c);
            let what = format!("{technique} L={latency_s}");
            assert_eq!(o.report.p, 8, "{what}");
            assert_eq!(o.requests, central.requests, "{what}");
            assert_eq!(o.report.chunk_map, central.report.chunk_map, "{what}");
            assert_eq!(o.report.chunk_times, central.report.chunk_times, "{what}");
            assert_eq!(
                o.report.parallel_time_s, central.report.parallel_time_s,
                "{what}"
            );
            c.hand_out = HandOut::threads(1);
            let ratio = run(&c).report.parallel_time_s / central.report.parallel_time_s;
            assert!((1.0..=1.0002).contains(&ratio), "{what}: {ratio}");
        }
    }
}

#[test]
fn a_pop_that_leaves_fewer_than_half_the_depth_asks_before_its_chunk_starts() {
    // GSS with max=1 (chunks of one iterate, as SS's; SS takes blocks), N = 5 on 1 rank x 2 threads, 40 ms per iterate, h = 0.1 s, no chunk or pop cost (rank
    // 0: no latency). Thread 0 asks for k = 2 at 0 (thread 1 waits): served [0, 0.1]; the round
    // trip's mean is 1 us + 0.25 (0.1 s - 1 us) = 0.025 s. No chunk has been timed (depth 0):
    // both run [0.1, 0.14].
    // At 0.14 the chunk time is 0.04 s (its work), depth = floor(2 x 0.025 / 0.04) = 1: thread
    // 0 finds the queue empty and asks for min(2, 1 + 0 waiting + 1) = 2, thread 1 waits:
    // served [0.14, 0.24] (round trip 0.044, depth floor(2.19) = 2, half of it ceil(2 / 2) =
    // 1). Thread 0 pops chunk 2, leaving 1 (not fewer than half the depth): it runs it [0.24,
    // 0.28]. Thread 1 pops chunk 3, leaving 0 < 1: it asks for the missing 2 and waits for the
    // reply before it starts. Served [0.24, 0.34] (chunk 4 only): thread 1 runs chunk 3 [0.34,
    // 0.38]; thread 0, waiting since 0.28, pops chunk 4, leaving 0 < 1, asks for 2 and waits:
    // served [0.34, 0.44], empty (the rank is done), and chunk 4 runs [0.44, 0.48].
    let mut c = config("gss,max=1", 5, 1, "const:40ms");
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
    assert!(close(r.parallel_time_s, 0.48), "{}", r.parallel_time_s);
    assert_eq!(o.requests, 4);
    assert!(close(o.scheduler_busy_s, 0.4));
    // In the order the chunks start: [start, size, worker].
    assert_eq!(
        r.chunk_map,
        vec![[0, 1, 0], [1, 1, 1], [2, 1, 0], [3, 1, 1], [4, 1, 0]]
    );
    let times: Vec<[f64; 2]> = r.chunk_times.iter().map(|t| t.unwrap()).collect();
    for (t, want) in times.iter().zip([0.1, 0.1, 0.24, 0.34, 0.44]) {
        assert!(close(t[0], want) && close(t[1], want + 0.04), "{times:?}");
    }
}

#[test]
fn long_chunks_are_asked_for_only_when_the_queue_is_empty() {
    // GSS with max=1 (chunks of one iterate, as SS's; SS takes blocks), N = 5 on 1 rank x 2 threads, 1 s per iterate, h = 0.1 s, no chunk or pop cost. The
    // first request brings 2 chunks, run [0.1, 1.1]. From then on a chunk takes 1 s against a
    // round trip of 0.025 to 0.06 s: depth = floor(2 x round trip / 1 s) = 0, so no pop asks
    // early and a thread that finds the queue empty asks for itself and the threads already
    // waiting. At 1.1 thread 0 asks for 1 (thread 1's chunk ends at the same time but after
    // it: it waits for the request in flight); served [1.1, 1.2], thread 0 runs chunk 2 [1.2,
    // 2.2]; thread 1 finds the queue empty and asks for 1: served [1.2, 1.3], chunk 3 [1.3,
    // 2.3]. At 2.2 thread 0 asks: served [2.2, 2.3], chunk 4 [2.3, 3.3]. Thread 1, free at 2.3
    // before that reply, waits, finds the queue empty after it and asks: served [2.3, 2.4],
    // empty. After the first request for 2, four ask for 1 each (the last comes back empty).
    let mut c = config("gss,max=1", 5, 1, "const:1s");
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
    assert_eq!(o.requests, 5);
    assert!(close(o.scheduler_busy_s, 0.5));
    let workers: Vec<u64> = r.chunk_map.iter().map(|c| c[2]).collect();
    assert_eq!(workers, vec![0, 1, 0, 1, 0]);
    let times: Vec<[f64; 2]> = r.chunk_times.iter().map(|t| t.unwrap()).collect();
    for (t, want) in times.iter().zip([0.1, 0.1, 1.2, 1.3, 2.3]) {
        assert!(close(t[0], want) && close(t[1], want + 1.0), "{times:?}");
    }
}

#[test]
fn batches_beat_a_saturated_central_scheduler() {
    // GSS with max=1 (chunks of one iterate, as SS's, in batches; SS takes blocks, which do
    // better: `hierarchical_ss_beats_central_ss_on_fine_iterates` in src/sim/hierarchy.rs),
    // 8 ranks x 8 threads, 10 us iterates, h = 20 us: 64 workers asking for one iterate each
    // queue at the scheduler (N·h = 0.16 s). A rank's request carries several chunks for about
    // h, so fewer requests end the loop sooner. A chunk's work (10 us on average) is short
    // beside a round trip (h or more): a temporary trace (seed 1, SS when it took batches)
    // found the depth at k = 8 at every request but the ranks' first. Measured (seeds 1-3
    // alike): 1599 requests, 5.00 chunks each, and 0.0326 s against 0.160 s, the scheduler busy
    // all along (0.0326 s); GSS with max=1 gives SS's batch figures exactly (seed 1). The
    // trace: 16 requests for 8 by a thread that found the queue empty (each rank's first two),
    // then 1582 for 5 by the pop that left 3, fewer than half the depth (ceil(8 / 2) = 4), and
    // one for 7; the replies brought 5 chunks 1574 times, 8 16 times, 2 once, none 8 times.
    let mut c = config("gss,max=1", 8000, 64, "exp:10us");
    c.overhead_s = 20e-6;
    c.latency_s = 1e-6;
    let central = run(&c);
    c.p = 8;
    c.hand_out = HandOut::threads(8);
    let hier = run(&c);
    assert!(central.report.parallel_time_s > 0.15);
    assert!(
        hier.report.parallel_time_s < 0.22 * central.report.parallel_time_s,
        "{} vs {}",
        hier.report.parallel_time_s,
        central.report.parallel_time_s
    );
    // More than 4.9 chunks a request.
    assert!(hier.requests * 49 < 8000 * 10, "{}", hier.requests);
    assert!(hier.report.efficiency > 4.0 * central.report.efficiency);
    // Still bound by the scheduler: it is busy nearly to the end.
    assert!(hier.scheduler_busy_s > 0.95 * hier.report.parallel_time_s);
}

#[test]
fn adaptive_techniques_learn_a_slow_rank_from_per_share_timings() {
    // 4 ranks x 4 threads; every thread of rank 3 is 3x slower. A request reports each share's
    // chunks finished since the rank's previous one: AF and AWF-C give rank 3's threads a third
    // of the work and end well before STATIC (measured, seed 1: 1.003 and 1.004 x the lower
    // bound, 0.39 x STATIC; rank 3's threads ran 3983 and 3991 iterates against rank 0's 12,068
    // and 12,108; seeds 2 and 3 alike, 1.001-1.004 x the bound; remeasured, the same figures
    // as when a rank asked early at every pop that left fewer than the depth).
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
    c.split = dls_model::sim::SplitModel::Threads;
    assert!(simulate(&c).unwrap_err().to_string().contains("--split"));
    c.split = dls_model::sim::SplitModel::Off;
    // Speeds and start times count workers.
    c.speeds = vec![1.0; 4];
    assert!(simulate(&c).unwrap_err().to_string().contains("--speeds"));
    c.speeds = vec![1.0; 8];
    c.start_s = vec![0.0; 4];
    assert!(simulate(&c).unwrap_err().to_string().contains("--starts"));
    c.start_s = vec![0.0; 8];
    assert!(simulate(&c).is_ok());
}
