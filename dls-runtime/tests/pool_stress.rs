//! A randomised stress test of the threads backend (its pool, the claim counter, the slot locks,
//! re-execution's hand-over) with exact accounting: rounds of 1–8 threads that start loops at
//! once on one runtime of 1–4 workers, with loops started inside iterates (nested attempts: they
//! run serially on their thread), panicking iterates, re-executing loops and fixed-size and
//! variable-size techniques, until at least `DLS_STRESS_CLAIMS` iterates (default 150,000) have
//! been claimed. Every index of a loop that does not panic is executed exactly once (counted once
//! where it re-executes), every index of one that panics at most once and the panicking one once
//! (in a re-executing loop a copy of a late chunk may run them again), and the total of
//! executions counted by the iterates equals the total the loops' accounting expects. A watchdog
//! ends the test if it runs past 10 minutes (a hang fails instead of hanging).
//!
//! `scripts/valgrind.sh` runs this test under valgrind's memcheck, and under DRD built with
//! dls-runtime's feature `valgrind` (happens-before annotations), with smaller counts.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dls_runtime::runtime::settings::Settings;
use dls_runtime::Runtime;

/// xorshift64*: the test's random choices, from a seed printed at the start.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const TECHNIQUES: [&str; 7] = ["ss", "static", "fsc", "gss", "fac2", "af", "tss"];

/// One loop's plan: its size, technique, where it panics (if it does), whether it re-executes,
/// and which of its iterates start a nested loop.
struct Plan {
    n: u64,
    technique: &'static str,
    panic_at: Option<u64>,
    reexecute: bool,
    nested_every: u64,
}

/// Runs `plan` on `rt`; returns the executions the accounting expects and those the iterates
/// counted (top-level and nested).
fn run_loop(rt: &Runtime, plan: &Plan) -> (u64, u64) {
    let seen: Vec<AtomicU8> = (0..plan.n).map(|_| AtomicU8::new(0)).collect();
    let nested = AtomicU64::new(0);
    let rt = if plan.reexecute {
        rt.with_reexecution(true)
    } else {
        rt.with_reexecution(false)
    };
    let body = |i: u64| {
        seen[i as usize].fetch_add(1, Ordering::Relaxed);
        if plan.panic_at == Some(i) {
            panic!("stress panic at {i}");
        }
        if i % plan.nested_every == 0 {
            // A loop started inside an iterate: it runs serially on this thread.
            let stats = rt
                .doall_named("nested", 0..3u64, "ss".parse().unwrap(), |_| {
                    nested.fetch_add(1, Ordering::Relaxed);
                })
                .unwrap();
            assert_eq!(stats.report.p, 1, "a nested loop runs on its thread");
        }
    };
    // A re-executing loop may run copies of a late chunk: its exact count is its reduction's,
    // where every copy but the first to finish is discarded.
    let mut kept = None;
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        if plan.reexecute {
            rt.doall_reduce(
                "stress",
                0..plan.n,
                plan.technique.parse().unwrap(),
                || 0u64,
                |i, k| {
                    body(i);
                    *k += 1;
                },
                |a, b| a + b,
            )
            .map(|(k, stats)| {
                kept = Some(k);
                stats
            })
        } else {
            rt.doall_named("stress", 0..plan.n, plan.technique.parse().unwrap(), body)
        }
    }));
    let counts: Vec<u8> = seen.iter().map(|a| a.load(Ordering::Relaxed)).collect();
    let executed: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let nested = nested.load(Ordering::Relaxed);
    match plan.panic_at {
        None => {
            outcome.expect("no panic").expect("the loop runs");
            if let Some(kept) = kept {
                // Copies may have run (at least once each); exactly once as the loop counts.
                assert!(counts.iter().all(|&c| c >= 1), "an index never ran");
                assert_eq!(kept, plan.n, "{}: kept executions", plan.technique);
                let nested_at_least = 3 * plan.n.div_ceil(plan.nested_every);
                assert!(nested >= nested_at_least);
                return (plan.n, kept);
            }
            assert!(
                counts.iter().all(|&c| c == 1),
                "{} over {}: an index not executed exactly once",
                plan.technique,
                plan.n
            );
            let nested_expected = 3 * plan.n.div_ceil(plan.nested_every);
            assert_eq!(nested, nested_expected, "nested loops' iterates");
            (plan.n + nested_expected, executed + nested)
        }
        Some(at) => {
            let payload = outcome.expect_err("the panic reaches the caller");
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_default();
            assert!(msg.contains(&format!("stress panic at {at}")), "{msg}");
            if plan.reexecute {
                // A copy of the panicking iterate's chunk may have been handed out before the
                // panic stopped the loop (the chunk was late: valgrind's serialised threads make
                // that common); the copy runs, and panics, too (book: long_jobs.md).
                assert!(counts[at as usize] >= 1, "the panicking index {at} ran");
            } else {
                assert_eq!(
                    counts[at as usize], 1,
                    "{} over {}: the panicking index {at} ran once",
                    plan.technique, plan.n
                );
                assert!(counts.iter().all(|&c| c <= 1), "an index ran twice");
            }
            // What ran is what was counted: every execution is one claim of one index.
            (executed + nested, executed + nested)
        }
    }
}

#[test]
fn stress_every_index_claimed_exactly_once() {
    let target: u64 = std::env::var("DLS_STRESS_CLAIMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150_000);
    let seed = std::env::var("DLS_STRESS_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    println!("DLS_STRESS_SEED={seed} DLS_STRESS_CLAIMS={target}");
    let finished = Arc::new(AtomicBool::new(false));
    let watched = finished.clone();
    std::thread::spawn(move || {
        let t = std::time::Instant::now();
        while !watched.load(Ordering::Relaxed) {
            if t.elapsed() > Duration::from_secs(600) {
                eprintln!("pool_stress: still running after 600 s (seed {seed}): a hang");
                std::process::exit(101);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    });
    // Panics of the stress loops are expected: keep their messages out of the output.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !info.to_string().contains("stress panic at") {
            hook(info);
        }
    }));
    let mut rng = Rng(seed);
    let (mut expected, mut counted, mut loops, mut panicked, mut rounds) = (0u64, 0, 0, 0, 0);
    let mut starters_seen = [0u64; 9];
    while counted < target {
        rounds += 1;
        let workers = 1 + rng.below(4) as usize;
        let rt = Runtime::threads(workers, Settings::default())
            .unwrap()
            .with_statistics(true);
        let starters = 1 + rng.below(8) as usize;
        starters_seen[starters] += 1;
        let plans: Vec<Vec<Plan>> = (0..starters)
            .map(|_| {
                (0..1 + rng.below(3))
                    .map(|_| {
                        let n = 1 + rng.below(250);
                        Plan {
                            n,
                            technique: TECHNIQUES[rng.below(TECHNIQUES.len() as u64) as usize],
                            panic_at: (rng.below(6) == 0).then(|| rng.below(n)),
                            reexecute: rng.below(4) == 0,
                            nested_every: 10 + rng.below(100),
                        }
                    })
                    .collect()
            })
            .collect();
        let results: Vec<(u64, u64)> = std::thread::scope(|s| {
            let handles: Vec<_> = plans
                .iter()
                .map(|mine| {
                    let rt = &rt;
                    s.spawn(move || {
                        mine.iter()
                            .map(|plan| run_loop(rt, plan))
                            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (e, c) in results {
            expected += e;
            counted += c;
        }
        loops += plans.iter().map(Vec::len).sum::<usize>();
        panicked += plans
            .iter()
            .flatten()
            .filter(|p| p.panic_at.is_some())
            .count();
        // The runtime (and its pool) is dropped here: its threads are joined.
    }
    finished.store(true, Ordering::Relaxed);
    let _ = std::panic::take_hook();
    println!(
        "pool_stress: {counted} claims (expected {expected}) in {loops} loops ({panicked} \
         panicking) over {rounds} rounds; rounds by starting threads 1-8: {:?}",
        &starters_seen[1..]
    );
    assert_eq!(counted, expected, "every claim accounted for");
    assert!(counted >= target);
}
