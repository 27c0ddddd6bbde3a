//! The threads backend: exactly-once for every technique, thread count and loop size; explicit
//! API pulled from several threads; index types at their limits; reductions; nested loops;
//! `DLS_SCHEDULE` and `DLS_REPORT`; panics naming the iterate and the thread.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use dls_runtime::runtime::settings::{parse_schedule, ReportMode, Settings};
use dls_runtime::technique::Kind;
use dls_runtime::{LoopReport, Runtime, Technique};

fn check_map(r: &LoopReport, n: u64) {
    let mut map = r.chunk_map.clone();
    map.sort();
    let mut next = 0;
    for [start, size, rank] in map {
        assert_eq!(start, next, "{}: gap or overlap", r.name);
        assert!(size >= 1 && (rank as usize) < r.p, "{}", r.name);
        next += size;
    }
    assert_eq!(next, n, "{}", r.name);
    check_times(r);
    assert_eq!(
        r.ranks.iter().map(|k| k.iterates).sum::<u64>(),
        n,
        "{}",
        r.name
    );
    assert_eq!(
        r.ranks.iter().map(|k| k.chunks).sum::<u64>(),
        r.chunks,
        "{}",
        r.name
    );
}

/// Every listed chunk has its times, inside the loop's parallel time, and one worker's chunks
/// follow one another without overlapping.
fn check_times(r: &LoopReport) {
    assert_eq!(r.chunk_times.len(), r.chunk_map.len(), "{}", r.name);
    let mut last_end = vec![0.0f64; r.p];
    for (c, t) in r.chunk_map.iter().zip(&r.chunk_times) {
        let [start, end] = t.unwrap_or_else(|| panic!("{}: chunk {c:?} has no times", r.name));
        assert!(
            0.0 <= start && start <= end && end <= r.parallel_time_s,
            "{}: chunk {c:?} at [{start}, {end}], parallel time {}",
            r.name,
            r.parallel_time_s
        );
        let w = c[2] as usize;
        assert!(
            start >= last_end[w],
            "{}: chunks of worker {w} overlap",
            r.name
        );
        last_end[w] = end;
    }
}

#[test]
fn every_iterate_exactly_once_for_every_technique() {
    for p in [1usize, 2, 3, 4, 8] {
        let rt = Runtime::threads(p, Settings::default())
            .unwrap()
            .with_statistics(true);
        assert_eq!(rt.workers(), p);
        for kind in Kind::ALL {
            for n in [0u64, 1, p as u64 - 1, p as u64, p as u64 + 1, 1000] {
                let hits: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
                let stats = rt
                    .doall_named(kind.name(), 0..n, Technique::new(kind), |i| {
                        hits[i as usize].fetch_add(1, Ordering::Relaxed);
                    })
                    .unwrap();
                assert!(
                    hits.iter().all(|h| h.load(Ordering::Relaxed) == 1),
                    "{} p={p} n={n}",
                    kind.name()
                );
                assert_eq!((stats.report.n, stats.report.p), (n, p));
                assert_eq!(stats.iterates, n);
                check_map(&stats.report, n);
            }
        }
    }
}

#[test]
fn explicit_loop_pulled_by_several_threads() {
    let rt = Runtime::threads(4, Settings::default())
        .unwrap()
        .with_statistics(true);
    for kind in [Kind::Ss, Kind::Gss, Kind::Fac2, Kind::AwfB, Kind::Af] {
        let n = 5000u64;
        let lp = rt.start_loop(0..n, Technique::new(kind)).unwrap();
        let hits: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    while let Some(chunk) = lp.next_chunk() {
                        for i in chunk {
                            hits[i as usize].fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        assert!(lp.terminated());
        let stats = lp.finish();
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        check_map(&stats.report, n);
        assert!(
            stats.report.name.contains("runtime_threads.rs"),
            "{}",
            stats.report.name
        );
    }
}

#[test]
fn index_types_at_their_limits() {
    let rt = Runtime::threads(3, Settings::default())
        .unwrap()
        .with_statistics(true);
    let t: Technique = "gss".parse().unwrap();
    let sum = |a: i128, b: i128| a + b;
    let (s, _) = rt
        .doall_reduce(
            "i8",
            i8::MIN..=i8::MAX,
            t.clone(),
            || 0i128,
            |i, a| *a += i as i128,
            sum,
        )
        .unwrap();
    assert_eq!(s, -128);
    let (s, _) = rt
        .doall_reduce(
            "u8",
            250u8..=255,
            t.clone(),
            || 0i128,
            |i, a| *a += i as i128,
            sum,
        )
        .unwrap();
    assert_eq!(s, (250..=255).sum::<i128>());
    let (s, _) = rt
        .doall_reduce(
            "i64",
            i64::MAX - 4..i64::MAX,
            t.clone(),
            || 0i128,
            |i, a| *a += (i64::MAX - i) as i128,
            sum,
        )
        .unwrap();
    assert_eq!(s, 1 + 2 + 3 + 4);
    let (s, _) = rt
        .doall_reduce(
            "u128",
            u128::MAX - 2..=u128::MAX,
            t.clone(),
            || 0i128,
            |i, a| *a += (u128::MAX - i) as i128,
            sum,
        )
        .unwrap();
    assert_eq!(s, 3);
    let (s, _) = rt
        .doall_reduce(
            "isize",
            -3isize..3,
            t.clone(),
            || 0i128,
            |i, a| *a += i as i128,
            sum,
        )
        .unwrap();
    assert_eq!(s, -3);
    let (nine, two) = (9u32, 2u32);
    for empty in [5u32..5, nine..two] {
        let stats = rt
            .doall(empty, t.clone(), |_| panic!("no iterate"))
            .unwrap();
        assert_eq!(stats.report.n, 0);
    }
    #[allow(clippy::reversed_empty_ranges)]
    let stats = rt
        .doall(3i16..=-3, t.clone(), |_| panic!("no iterate"))
        .unwrap();
    assert_eq!(stats.report.n, 0);
    let e = rt.start_loop(0..=u64::MAX, t).err().unwrap();
    assert!(e.to_string().contains("u64::MAX"), "{e}");
}

#[test]
fn reductions_reach_the_caller() {
    let rt = Runtime::threads(4, Settings::default())
        .unwrap()
        .with_statistics(true);
    let (v, stats) = rt
        .doall_reduce(
            "hist",
            0..10_000u32,
            "af".parse().unwrap(),
            || vec![0u64; 10],
            |i, h| h[(i % 10) as usize] += 1,
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
        .unwrap();
    assert_eq!(v, vec![1000; 10]);
    assert_eq!(stats.report.name, "hist");
    assert!(stats.report.parallel_time_s > 0.0);
    assert!(stats.report.efficiency > 0.0);
}

#[test]
fn nested_loops_run_on_the_calling_thread() {
    let rt = Runtime::threads(2, Settings::default())
        .unwrap()
        .with_statistics(true);
    let total = AtomicU64::new(0);
    rt.doall(0..20u64, "ss".parse().unwrap(), |i| {
        let inner = rt
            .doall_named("inner", 0..i, "gss".parse().unwrap(), |j| {
                total.fetch_add(j, Ordering::Relaxed);
            })
            .unwrap();
        assert_eq!(inner.report.p, 1);
    })
    .unwrap();
    let expected: u64 = (0..20u64).map(|i| (0..i).sum::<u64>()).sum();
    assert_eq!(total.into_inner(), expected);
}

#[test]
fn schedule_setting_overrides_the_program() {
    let s = Settings {
        schedule: Some(parse_schedule("gss,min=3").unwrap()),
        ..Settings::default()
    };
    let rt = Runtime::threads(2, s).unwrap().with_statistics(true);
    let stats = rt
        .doall(0..100u32, "static".parse().unwrap(), |_| {})
        .unwrap();
    assert_eq!(stats.report.technique, "gss,min=3");
    assert!(stats
        .report
        .chunk_map
        .iter()
        .all(|c| c[1] >= 3 || c[0] + c[1] == 100));
}

#[test]
fn report_setting_appends_json_lines() {
    let path = std::env::temp_dir().join(format!("dls-report-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let s = Settings {
        report: ReportMode::JsonLines(path.clone()),
        ..Settings::default()
    };
    let rt = Runtime::threads(2, s).unwrap().with_statistics(true);
    rt.doall_named("first", 0..50u32, "fac2".parse().unwrap(), |_| {})
        .unwrap();
    rt.doall_named("second", 0..7u32, "ss".parse().unwrap(), |_| {})
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let objects: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON object"))
        .collect();
    assert_eq!(objects.len(), 2);
    assert_eq!(objects[0]["name"], "first");
    assert_eq!(objects[1]["n"], 7);
    for o in &objects {
        for key in [
            "name",
            "technique",
            "n",
            "p",
            "parallel_time_s",
            "efficiency",
            "ranks",
            "chunk_map",
        ] {
            assert!(!o[key].is_null(), "missing {key}: {o}");
        }
        for r in o["ranks"].as_array().unwrap() {
            for key in ["rank", "iterates", "work_time_s", "chunks"] {
                assert!(!r[key].is_null(), "missing ranks[].{key}: {o}");
            }
        }
        assert_eq!(o["chunk_map"][0].as_array().unwrap().len(), 3);
    }
}

#[test]
fn a_panicking_iterate_names_the_iterate_and_the_thread() {
    let rt = Runtime::threads(3, Settings::default())
        .unwrap()
        .with_statistics(true);
    let after = AtomicU64::new(0);
    let result = catch_unwind(AssertUnwindSafe(|| {
        rt.doall_named("boomer", 0..100_000u32, "ss".parse().unwrap(), |i| {
            if i == 777 {
                panic!("boom {i}");
            }
            if i > 20_000 {
                after.fetch_add(1, Ordering::Relaxed);
            }
            std::hint::black_box(i);
        })
    }));
    let payload = result.expect_err("the panic reaches the caller");
    let msg = payload
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(msg.contains("iterate 777 of loop `boomer`"), "{msg}");
    assert!(msg.contains("on thread "), "{msg}");
    assert!(msg.contains("boom 777"), "{msg}");
    // The other threads stopped taking chunks soon after.
    assert!(after.into_inner() < 79_000);
    // The runtime is still usable.
    assert_eq!(
        rt.doall(0..10u8, "ss".parse().unwrap(), |_| {})
            .unwrap()
            .report
            .n,
        10
    );
}

#[test]
fn unfinished_loops_are_finished_on_drop() {
    let rt = Runtime::threads(2, Settings::default())
        .unwrap()
        .with_statistics(true);
    let lp = rt.start_loop(0..100u32, "fac2".parse().unwrap()).unwrap();
    let first = lp.next_chunk().unwrap();
    assert!(first.len() >= 1);
    drop(first);
    let stats = lp.finish();
    // Finished early: the remaining iterates were not executed.
    assert!(stats.iterates < 100);
    assert_eq!(stats.report.n, 100);
}

#[test]
fn awf_learns_rank_speeds_across_time_steps() {
    let rt = Runtime::threads(2, Settings::default())
        .unwrap()
        .with_statistics(true);
    let step = || {
        rt.doall_named("time step", 0..200u32, "awf".parse().unwrap(), |_| {
            // Worker 1 (the pool's thread `dls-worker-1`; worker 0 is the calling thread) is 3x
            // slower.
            let slow = std::thread::current().name() == Some("dls-worker-1");
            std::thread::sleep(std::time::Duration::from_micros(if slow {
                300
            } else {
                100
            }));
        })
        .unwrap()
    };
    step();
    let w = rt.awf_weights("time step").expect("history after one step");
    assert!(w[0] > 1.2 && w[1] < 0.8, "weights {w:?}");
    let second = step();
    // The second step starts with the learned weights: thread 0's first chunk is the larger one.
    let first_of = |rank: u64| {
        second
            .report
            .chunk_map
            .iter()
            .find(|c| c[2] == rank)
            .map(|c| c[1])
            .unwrap()
    };
    assert!(first_of(0) > first_of(1), "{:?}", second.report.chunk_map);
}

/// Uses about `depth` KiB of stack.
#[inline(never)]
fn recurse(depth: u32) -> u64 {
    let frame = std::hint::black_box([depth as u8; 1024]);
    if depth == 0 {
        return frame[0] as u64;
    }
    recurse(depth - 1) + std::hint::black_box(frame[512]) as u64
}

/// Issue 17 case 11: an iterate recursing 3–5 MiB deep (2,500 frames of 1–2 KiB) runs on every
/// worker as it does serially on the main thread (8 MiB); rayon's default worker stack (2 MiB)
/// overflowed and killed the process. Worker 0 is the thread that starts the loop, so the loop is
/// started from a thread with the main thread's stack (a test thread has 2 MiB, on which the serial
/// loop would overflow too); the other workers are the pool's threads, with `DLS_STACK`'s default.
#[test]
fn workers_have_the_main_threads_stack() {
    let main_like = std::thread::Builder::new().stack_size(8 << 20);
    let (sum, per_worker) = main_like
        .spawn(|| {
            let rt = Runtime::threads(2, Settings::default())
                .unwrap()
                .with_statistics(true);
            let (sum, stats) = rt
                .doall_reduce(
                    "deep",
                    0..16u32,
                    "ss".parse().unwrap(),
                    || 0u64,
                    |i, acc| {
                        *acc += recurse(2500 + i);
                        std::thread::sleep(std::time::Duration::from_millis(5));
                    },
                    |a, b| a + b,
                )
                .unwrap();
            let per_worker: Vec<u64> = stats.report.ranks.iter().map(|r| r.iterates).collect();
            (sum, per_worker)
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(
        per_worker.iter().all(|&n| n > 0),
        "both workers ran deep iterates: {per_worker:?}"
    );
    // Each call adds its frame's byte `depth as u8` once per level.
    let serial: u64 = (0..16u32)
        .map(|i| (0..=2500 + i).map(|d| (d as u8) as u64).sum::<u64>())
        .sum();
    assert_eq!(sum, serial);
}

/// Issue 17 case 5: a panic that the iterate itself catches (`catch_unwind` in user code) is the
/// iterate's business: the loop goes on and no iterate is lost (the panic hook used to stop the
/// loop for every thread, silently dropping the iterates not yet handed out).
#[test]
fn a_panic_caught_inside_an_iterate_loses_no_iterate() {
    let rt = Runtime::threads(3, Settings::default())
        .unwrap()
        .with_statistics(true);
    for technique in ["ss", "fac2", "static"] {
        let ran = AtomicU64::new(0);
        let stats = rt
            .doall_named("catching", 0..20_000u32, technique.parse().unwrap(), |i| {
                if i % 5_000 == 777 {
                    let caught = catch_unwind(|| panic!("caught inside iterate {i}"));
                    assert!(caught.is_err());
                }
                ran.fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
        assert_eq!(ran.into_inner(), 20_000, "{technique}");
        assert_eq!(
            stats.report.ranks.iter().map(|r| r.iterates).sum::<u64>(),
            20_000
        );
    }
}

/// Issue 17 case 5 (the rest): a panic an iterate catches itself stops no worker. Before, the
/// panic hook raised the loop's stop flag until the chunk ended, and every thread that asked for a
/// chunk meanwhile left the loop: here the catching iterate takes 50 ms after the panic, the
/// other worker asks for a chunk every millisecond, and it used to leave after about two iterates
/// (the catching worker then ran the other 298).
#[test]
fn a_panic_caught_inside_an_iterate_stops_no_worker() {
    let rt = Runtime::threads(2, Settings::default())
        .unwrap()
        .with_statistics(true);
    let stats = rt
        .doall_named("catching_slowly", 0..300u32, "ss".parse().unwrap(), |i| {
            if i == 0 {
                let caught = catch_unwind(|| panic!("caught inside iterate 0"));
                assert!(caught.is_err());
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        })
        .unwrap();
    let per_worker: Vec<u64> = stats.report.ranks.iter().map(|r| r.iterates).collect();
    assert_eq!(per_worker.iter().sum::<u64>(), 300);
    assert!(
        per_worker.iter().all(|&n| n >= 10),
        "every worker keeps taking chunks after a caught panic: {per_worker:?}"
    );
}

/// Issue 17 case 9a: a loop started from a thread spawned inside an iterate runs serially on
/// that thread (the pool's threads are all taken by the running loop) instead of waiting for
/// them forever, and gives the serial result.
#[test]
fn a_loop_started_from_a_thread_spawned_in_an_iterate_completes() {
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = Runtime::threads(2, Settings::default())
            .unwrap()
            .with_statistics(true);
        let (sums, _) = rt
            .doall_reduce(
                "outer",
                0..8u64,
                "ss".parse().unwrap(),
                Vec::new,
                |i, v: &mut Vec<(u64, u64)>| {
                    let inner = std::thread::scope(|s| {
                        s.spawn(|| {
                            let (sum, _) = rt
                                .doall_reduce(
                                    "spawned",
                                    0..=i,
                                    "gss".parse().unwrap(),
                                    || 0,
                                    |j, s| *s += j,
                                    |a, b| a + b,
                                )
                                .unwrap();
                            sum
                        })
                        .join()
                        .unwrap()
                    });
                    v.push((i, inner));
                },
                |mut a, b| {
                    a.extend(b);
                    a
                },
            )
            .unwrap();
        let _ = done.send(sums);
    });
    let mut sums = finished
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the loop finished (it used to deadlock)");
    sums.sort();
    let serial: Vec<(u64, u64)> = (0..8).map(|i| (i, i * (i + 1) / 2)).collect();
    assert_eq!(sums, serial);
}

/// Issue 17 cases 8 and 9b: the "inside an iterate" state belongs to the running loop, not to a
/// chunk object. Dropping an earlier chunk while a later one runs does not end it (a loop started
/// then is still nested), and once the loop has finished the next loop runs on every worker.
#[test]
fn the_iterate_state_follows_the_loop_not_the_chunk() {
    let rt = Runtime::threads(2, Settings::default())
        .unwrap()
        .with_statistics(true);
    let ss: dls_runtime::Technique = "ss".parse().unwrap();
    let lp = rt.start_loop_named("held", 0..10u32, ss.clone()).unwrap();
    let first = lp.next_chunk().unwrap();
    let second = lp.next_chunk().unwrap();
    drop(first);
    let inner = rt.start_loop_named("inside", 0..3u32, ss.clone()).unwrap();
    assert_eq!(inner.workers(), 1, "still inside the held loop's iterate");
    let mut ran = 0;
    while let Some(c) = inner.next_chunk() {
        ran += c.count();
    }
    assert_eq!(ran, 3);
    inner.finish();
    drop(second);
    while let Some(c) = lp.next_chunk() {
        for _ in c {}
    }
    lp.finish();
    let after = rt.start_loop_named("after", 0..3u32, ss).unwrap();
    assert_eq!(
        after.workers(),
        2,
        "a loop after the end is a full parallel loop"
    );
    after.finish();
}

/// Issue 17 case 12: the thread that starts a loop is worker 0, so a loop on one thread runs on
/// the calling thread with no hand-over to a pool thread (an empty loop cost 19–36 µs when every
/// loop went to the pool, 0.6–0.8 µs now: `benches/src/bin/empty_loop.rs`), and a loop of fewer
/// iterates than workers wakes no more workers than it has iterates.
#[test]
fn the_calling_thread_is_worker_0() {
    let me = std::thread::current().id();
    let one = Runtime::threads(1, Settings::default())
        .unwrap()
        .with_statistics(true);
    let (on_caller, _) = one
        .doall_reduce(
            "one thread",
            0..5u32,
            "ss".parse().unwrap(),
            || true,
            |_, here| *here &= std::thread::current().id() == me,
            |a, b| a && b,
        )
        .unwrap();
    assert!(on_caller, "every iterate ran on the calling thread");
    let two = Runtime::threads(2, Settings::default())
        .unwrap()
        .with_statistics(true);
    let (threads, _) = two
        .doall_reduce(
            "one iterate",
            0..1u32,
            "ss".parse().unwrap(),
            Vec::new,
            |_, v: &mut Vec<String>| {
                v.push(std::thread::current().name().unwrap_or("?").to_string())
            },
            |mut a, b| {
                a.extend(b);
                a
            },
        )
        .unwrap();
    let caller = std::thread::current().name().unwrap_or("?").to_string();
    assert_eq!(threads, [caller], "a one-iterate loop runs on the caller");
}

/// Issue 10 item 3: an order-dependent merge gives the serial order under dynamic scheduling
/// (iterates of uneven cost spread the chunks of each worker apart), for several techniques.
#[test]
fn an_ordered_reduction_keeps_the_serial_order() {
    let rt = Runtime::threads(2, Settings::default())
        .unwrap()
        .with_statistics(true);
    for technique in ["ss", "gss", "fac2", "af"] {
        let (v, _) = rt
            .doall_reduce_ordered(
                "ordered",
                0..200u32,
                technique.parse().unwrap(),
                Vec::new,
                |i, v: &mut Vec<u32>| {
                    if i % 7 == 0 {
                        std::thread::sleep(std::time::Duration::from_micros(300));
                    }
                    v.push(i)
                },
                |mut a, b| {
                    a.extend(b);
                    a
                },
            )
            .unwrap();
        assert!(v.iter().copied().eq(0..200), "{technique}: {v:?}");
        // The unordered form keeps every item, not the order.
        let (mut w, _) = rt
            .doall_reduce(
                "unordered",
                0..200u32,
                technique.parse().unwrap(),
                Vec::new,
                |i, v: &mut Vec<u32>| v.push(i),
                |mut a, b| {
                    a.extend(b);
                    a
                },
            )
            .unwrap();
        w.sort();
        assert!(w.iter().copied().eq(0..200));
    }
}

/// Issue 14 item 5: a report says when more workers than cores ran (times then mislead), and
/// not otherwise.
#[test]
fn the_report_says_when_workers_outnumber_cores() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let busy = Runtime::threads(cores + 2, Settings::default())
        .unwrap()
        .with_statistics(true);
    let stats = busy.doall(0..10u32, "ss".parse().unwrap(), |_| {}).unwrap();
    let o = stats
        .report
        .oversubscribed
        .expect("more workers than cores");
    assert_eq!((o.workers, o.cores), (cores + 2, cores));
    assert!(dls_runtime::runtime::stats::summary(&stats.report).contains("mislead"));
    let fits = Runtime::threads(1, Settings::default())
        .unwrap()
        .with_statistics(true);
    let stats = fits.doall(0..10u32, "ss".parse().unwrap(), |_| {}).unwrap();
    assert_eq!(stats.report.oversubscribed, None);
}

#[test]
fn the_report_has_chunk_times_and_cpu_time() {
    let rt = Runtime::threads(2, Settings::default())
        .unwrap()
        .with_statistics(true);
    let spin = |_| {
        let t = std::time::Instant::now();
        while t.elapsed() < std::time::Duration::from_micros(200) {
            std::hint::spin_loop();
        }
    };
    let stats = rt.doall(0..400u32, "fac2".parse().unwrap(), spin).unwrap();
    let r = &stats.report;
    assert_eq!(r.backend, "threads");
    check_times(r);
    // The chunks cover the loop: the first starts near its start and the last ends near its end
    // (200 us iterates, so 100 ms of work per worker against a few ms of tolerance).
    let first = r
        .chunk_times
        .iter()
        .flatten()
        .map(|t| t[0])
        .fold(f64::MAX, f64::min);
    let last = r
        .chunk_times
        .iter()
        .flatten()
        .map(|t| t[1])
        .fold(0.0, f64::max);
    assert!(
        first < 0.2 * r.parallel_time_s,
        "{first} of {}",
        r.parallel_time_s
    );
    assert!(
        last > 0.8 * r.parallel_time_s,
        "{last} of {}",
        r.parallel_time_s
    );
    // Per chunk, its length is its worker's measured work time.
    for k in &r.ranks {
        let span: f64 = r
            .chunk_map
            .iter()
            .zip(&r.chunk_times)
            .filter(|(c, _)| c[2] as usize == k.rank)
            .map(|(_, t)| t.unwrap()[1] - t.unwrap()[0])
            .sum();
        assert!(
            (span - k.work_time_s).abs() < 1e-6,
            "{span} vs {}",
            k.work_time_s
        );
        // Spinning iterates use CPU, and one thread uses at most the loop's wall time.
        assert!(k.cpu_time_s > 0.0, "{k:?}");
        assert!(k.cpu_time_s <= r.parallel_time_s + 1e-3, "{k:?}");
    }
    let text = dls_runtime::runtime::stats::summary(r);
    assert!(text.contains("dls:   worker    1:"), "{text}");
    assert!(text.contains("(cpu "), "{text}");
}

/// Issue 27 (a new user's trial): the time spent merging partial results was shown as idle. The
/// report now has it as its own phase, `combine_time_s` (after the last chunk), which no
/// worker's idle time includes; the summary names it.
#[test]
fn combining_the_partial_results_is_its_own_phase_not_idle() {
    let rt = Runtime::threads(2, Settings::default())
        .unwrap()
        .with_statistics(true);
    let (sum, stats) = rt
        .doall_reduce(
            "slow merge",
            0..200u64,
            "static".parse().unwrap(),
            || 0u64,
            |i, s| *s += i,
            |a, b| {
                std::thread::sleep(std::time::Duration::from_millis(60));
                a + b
            },
        )
        .unwrap();
    assert_eq!(sum, 19_900);
    let r = &stats.report;
    assert!(r.combine_time_s >= 0.05, "{}", r.combine_time_s);
    for k in &r.ranks {
        assert!(
            k.idle_time_s < r.combine_time_s,
            "idle {} includes the combine {}",
            k.idle_time_s,
            r.combine_time_s
        );
    }
    let summary = dls_runtime::runtime::stats::summary(r);
    assert!(
        summary.contains("combining the partial results"),
        "{summary}"
    );
}
