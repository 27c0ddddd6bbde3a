//! What merging the bigram maps of `map_merge` costs on P cores, timed piece by piece on one
//! (issue 29: "the merge time falls as P grows"). The text is cut into P equal parts, each counted
//! into its own map (not timed), and then, against the serial counting time of the same run:
//!
//! - `tree`: the workers' maps merged as a binary tree in worker order (what dls does from 3
//!   workers on, `combine/workers.rs`), each merge adding the smaller map into the larger; the
//!   critical path is the slowest merge of each level, summed over the ⌈lg P⌉ levels;
//! - `sharded`: each worker splits its map into P shards by key hash (the slowest split), worker
//!   s merges shard s of every map and drains it into a vector (the slowest shard), and the
//!   caller's map is then built from the P disjoint shards (`assembly`, with room for every key
//!   made first): what dls does from 8 workers on, where each has a core
//!   (`dls-runtime/src/partials.rs`, `shard_coded`);
//! - `floor`: building the total's map from its entries alone, which a caller that gets the whole
//!   map pays whatever P;
//! - `must insert`: the keys that the largest worker's map lacks, inserted into (a copy of) it,
//!   with room for them made first (not timed). Whoever ends with the whole map in one std
//!   `HashMap`, which one thread fills, starts at best from one worker's map and must insert the
//!   rest: on threads the caller, under MPI every rank (starting from its own map). A bound from
//!   below on any merge, which grows with P, since each worker's map holds fewer of the keys.
//!
//! Each piece runs alone on one core, so the figures are what P real cores would give if the
//! pieces of a level did not slow each other (shared caches and memory bandwidth make them
//! slower): a bound from below for P > cores. Medians over the rounds.
//!
//! ```text
//! cargo run --release -p dls-bench --bin merge_paths [rounds]
//! ```

#[path = "../bigrams.rs"]
mod bigrams;

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::time::Instant;

use bigrams::{count_serial, merge_counts, text, Counts};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// The text's positions cut into `p` equal parts, each counted into its own map.
fn partials(vocab: &[String], words: &[u32], p: usize) -> Vec<Counts> {
    let n = words.len() - 1;
    (0..p)
        .map(|k| count_serial(vocab, words, k * n / p..(k + 1) * n / p))
        .collect()
}

/// The tree's critical path (seconds) and the total.
fn tree(mut level: Vec<Counts>) -> (f64, Counts) {
    let mut path = 0.0;
    while level.len() > 1 {
        let mut next = Vec::with_capacity(level.len().div_ceil(2));
        let mut slowest: f64 = 0.0;
        let mut maps = level.into_iter();
        while let Some(a) = maps.next() {
            match maps.next() {
                Some(b) => {
                    let t = Instant::now();
                    next.push(merge_counts(a, b));
                    slowest = slowest.max(t.elapsed().as_secs_f64());
                }
                None => next.push(a),
            }
        }
        path += slowest;
        level = next;
    }
    (path, level.pop().unwrap_or_default())
}

/// The keys that the largest of `maps` lacks (how many), and the seconds it takes to insert them
/// into a copy of it whose room for them was made first.
fn must_insert(maps: &[Counts]) -> (usize, f64) {
    let Some(big) = maps.iter().max_by_key(|m| m.len()) else {
        return (0, 0.0);
    };
    let mut missing = Counts::new();
    for map in maps {
        for (key, n) in map {
            if !big.contains_key(key) {
                *missing.entry(key.clone()).or_insert(0) += n;
            }
        }
    }
    let lacks = missing.len();
    let entries: Vec<(String, u64)> = missing.into_iter().collect();
    let mut total = big.clone();
    total.reserve(lacks);
    let t = Instant::now();
    for (key, n) in entries {
        total.insert(key, n);
    }
    let took = t.elapsed().as_secs_f64();
    std::hint::black_box(total.len());
    (lacks, took)
}

/// The sharded merge: (slowest split + slowest shard merge, assembly) in seconds, and the total.
fn sharded(maps: Vec<Counts>) -> (f64, f64, Counts) {
    let p = maps.len();
    let hasher = RandomState::new();
    let mut split_slowest: f64 = 0.0;
    let mut pieces: Vec<Vec<Vec<(String, u64)>>> = Vec::with_capacity(p);
    for map in maps {
        let t = Instant::now();
        let mut shards: Vec<Vec<(String, u64)>> = (0..p).map(|_| Vec::new()).collect();
        for (key, n) in map {
            let s = (hasher.hash_one(&key) % p as u64) as usize;
            shards[s].push((key, n));
        }
        split_slowest = split_slowest.max(t.elapsed().as_secs_f64());
        pieces.push(shards);
    }
    let mut merge_slowest: f64 = 0.0;
    let mut shards = Vec::with_capacity(p);
    for s in 0..p {
        let t = Instant::now();
        let mut shard = Counts::new();
        for worker in pieces.iter_mut() {
            for (key, n) in std::mem::take(&mut worker[s]) {
                *shard.entry(key).or_insert(0) += n;
            }
        }
        // Drained into a vector by its own worker, as dls does (`partials::shard_coded`).
        let entries: Vec<(String, u64)> = shard.into_iter().collect();
        merge_slowest = merge_slowest.max(t.elapsed().as_secs_f64());
        shards.push(entries);
    }
    let t = Instant::now();
    let mut total = Counts::with_capacity(shards.iter().map(Vec::len).sum());
    for shard in shards {
        total.extend(shard);
    }
    (
        split_slowest + merge_slowest,
        t.elapsed().as_secs_f64(),
        total,
    )
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5);
    let (vocab, words) = text();
    let n = words.len() - 1;
    let whole = count_serial(&vocab, &words, 0..n);
    let serial = median(
        (0..rounds)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(count_serial(&vocab, &words, 0..n).len());
                t.elapsed().as_secs_f64()
            })
            .collect(),
    );
    let floor = median(
        (0..rounds)
            .map(|_| {
                // The entries of a map just counted (their keys where counting put them).
                let moved: Vec<(String, u64)> =
                    count_serial(&vocab, &words, 0..n).into_iter().collect();
                let t = Instant::now();
                let mut total = Counts::with_capacity(moved.len());
                total.extend(moved);
                std::hint::black_box(total.len());
                t.elapsed().as_secs_f64()
            })
            .collect(),
    );
    println!(
        "merge_paths: {n} bigrams, {} distinct keys; serial counting: median {serial:.4} s; \
         floor (building the total's map from its entries, with room made first): {floor:.4} s \
         = {:.3} of the serial count; {rounds} rounds; pieces timed one at a time on one core",
        whole.len(),
        floor / serial
    );
    println!(
        "| P | keys per map | tree: critical path / serial | sharded: split + shard / serial | \
         sharded: assembly / serial | sharded: total / serial | keys the largest map lacks | \
         must insert / serial |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for p in [2, 4, 8, 16] {
        let (mut paths, mut shard_times, mut assemblies, mut keys) =
            (Vec::new(), Vec::new(), Vec::new(), 0);
        let (mut lacks, mut inserts) = (0, Vec::new());
        for _ in 0..rounds {
            let maps = partials(&vocab, &words, p);
            keys = maps.iter().map(Counts::len).sum::<usize>() / p;
            let (missing, took) = must_insert(&maps);
            lacks = missing;
            inserts.push(took);
            let (path, total) = tree(maps);
            assert_eq!(total, whole, "tree P={p}");
            paths.push(path);
            let (shard, assembly, total) = sharded(partials(&vocab, &words, p));
            assert_eq!(total, whole, "sharded P={p}");
            shard_times.push(shard);
            assemblies.push(assembly);
        }
        let (path, shard, assembly) = (median(paths), median(shard_times), median(assemblies));
        println!(
            "| {p} | {keys} | {:.3} | {:.3} | {:.3} | {:.3} | {lacks} | {:.3} |",
            path / serial,
            shard / serial,
            assembly / serial,
            (shard + assembly) / serial,
            median(inserts) / serial
        );
    }
}
