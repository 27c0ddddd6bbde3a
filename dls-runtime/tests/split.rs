//! Splitting a long chunk in progress for an idle worker (`runtime/tolerance/split.rs`), on the threads
//! backend: the idle worker takes the second half of what the holder has not started, every
//! iterate still runs once and counts once, and the chunk map stays a partition.

use std::time::Duration;

use dls_runtime::runtime::settings::Settings;
use dls_runtime::technique::Kind;
use dls_runtime::{LoopReport, Runtime, Technique};

/// A loop whose second half is dear (200 µs an iterate) and first half free: STATIC on 2
/// workers hands all of the dear half to worker 1.
fn dear_tail(rt: &Runtime, technique: &str, n: u64) -> ((u64, u64), LoopReport) {
    let (v, stats) = rt
        .doall_reduce(
            "dear tail",
            0..n,
            technique.parse::<Technique>().unwrap(),
            || (0u64, 0u64),
            |i, acc| {
                if i >= n / 2 {
                    std::thread::sleep(Duration::from_micros(200));
                }
                acc.0 += i * i % 1009;
                acc.1 += 1;
            },
            |a, b| (a.0 + b.0, a.1 + b.1),
        )
        .unwrap();
    (v, stats.report)
}

fn serial(n: u64) -> (u64, u64) {
    ((0..n).map(|i| i * i % 1009).sum(), n)
}

/// The chunk map covers `[0, n)` exactly once.
fn assert_partition(report: &LoopReport, n: u64, what: &str) {
    let mut chunks: Vec<[u64; 3]> = report.chunk_map.clone();
    chunks.sort();
    let mut next = 0;
    for c in &chunks {
        assert_eq!(c[0], next, "{what}: gap or overlap at {next}: {chunks:?}");
        assert!(c[1] > 0, "{what}: empty chunk {c:?}");
        next = c[0] + c[1];
    }
    assert_eq!(next, n, "{what}: the map ends at {next}, not {n}");
    assert_eq!(
        report.ranks.iter().map(|r| r.iterates).sum::<u64>(),
        n,
        "{what}: the report counts every iterate once"
    );
}

#[test]
fn an_idle_worker_takes_the_second_half_of_a_long_chunk() {
    let rt = Runtime::threads(2, Settings::default())
        .unwrap()
        .with_statistics(true);
    let n = 400;
    let (v, report) = dear_tail(&rt, "static", n);
    assert_eq!(v, serial(n));
    assert_partition(&report, n, "static");
    let rx = report.reexecution.clone().expect("re-execution is on");
    assert!(rx.splits >= 1, "no split: {rx:?}");
    // Worker 0 ran its free half at once and then iterates of the dear half, split off worker
    // 1's chunk: chunks of worker 0 start in the dear half.
    assert!(
        report.chunk_map.iter().any(|c| c[2] == 0 && c[0] >= n / 2),
        "{:?}",
        report.chunk_map
    );
    assert_eq!(rx.discarded_iterates, 0, "a split is no copy: {rx:?}");
}

#[test]
fn split_off_leaves_the_chunk_to_its_holder() {
    let off = Settings::from_lookup(|k| (k == "DLS_SPLIT").then(|| "off".into())).unwrap();
    for rt in [
        Runtime::threads(2, off).unwrap().with_statistics(true),
        Runtime::threads(2, Settings::default())
            .unwrap()
            .with_statistics(true)
            .with_split(false),
    ] {
        let n = 200;
        let (v, report) = dear_tail(&rt, "static", n);
        assert_eq!(v, serial(n));
        assert_partition(&report, n, "static, split off");
        assert_eq!(report.reexecution.unwrap().splits, 0);
        assert_eq!(report.chunk_map.len(), 2, "{:?}", report.chunk_map);
    }
}

/// Property: every technique, worker count and loop size, with a dear tail that makes splits
/// likely: the serial result, every iterate counted once, the chunk map a partition.
#[test]
fn every_iterate_counts_once_with_splits_for_every_technique() {
    let mut splits = 0;
    for p in [2usize, 3] {
        let rt = Runtime::threads(p, Settings::default())
            .unwrap()
            .with_statistics(true);
        for kind in Kind::ALL {
            for n in [1u64, 7, 120] {
                let t = Technique::new(kind).to_string();
                let (v, report) = dear_tail(&rt, &t, n);
                assert_eq!(v, serial(n), "{t} p={p} n={n}");
                assert_partition(&report, n, &format!("{t} p={p} n={n}"));
                splits += report.reexecution.unwrap().splits;
            }
        }
    }
    assert!(splits > 0, "no loop split a chunk");
}
