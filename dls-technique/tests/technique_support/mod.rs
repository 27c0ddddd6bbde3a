//! Drivers shared by the technique tests: run a [`ChunkScheduler`] to the end and check that the
//! chunks are well formed on the way.

#![allow(dead_code)]

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use dls_technique::{Chunk, ChunkScheduler, ChunkTiming, Technique};

/// Chunk sizes handed out when ranks ask in turn 0, 1, ..., P−1, 0, ... (no measurements).
pub(crate) fn round_robin(spec: &str, n: u64, p: usize) -> Vec<u64> {
    let t: Technique = spec.parse().unwrap();
    let mut s = ChunkScheduler::new(&t, n, p).unwrap();
    let mut sizes = Vec::new();
    let mut i = 0;
    while let Some(c) = s.next_chunk(i % p) {
        sizes.push(c.size);
        i += 1;
        assert!(i as u64 <= n, "{spec}: more chunks than iterates");
    }
    sizes
}

/// `[(a, k), ...]` expanded into `a` repeated `k` times.
pub(crate) fn repeat(parts: &[(u64, usize)]) -> Vec<u64> {
    parts
        .iter()
        .flat_map(|&(a, k)| std::iter::repeat_n(a, k))
        .collect()
}

/// SplitMix64, for reproducible noise in the drivers.
pub(crate) fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Runs a loop event by event: the rank whose clock is lowest asks next; a chunk of `size`
/// iterates takes `size · per_iterate[rank] · noise` seconds of work (noise uniform in
/// [0.5, 1.5) from `seed`) plus `overhead` seconds, and its timing is recorded. Checks that
/// every chunk starts where the previous ended (for static-steal, which places its chunks in
/// the ranks' blocks: that the chunks cover [0, N) without overlap), has 1..=R iterates, and
/// that the run ends within N chunks. Returns the chunks with the rank that got each.
pub(crate) fn drive(
    s: &mut ChunkScheduler,
    per_iterate: &[f64],
    overhead: f64,
    seed: u64,
) -> Result<Vec<(usize, Chunk)>, String> {
    let n = s.n();
    let p = s.p();
    let mut clock: BinaryHeap<Reverse<(u64, usize)>> =
        (0..p).map(|r| Reverse((0f64.to_bits(), r))).collect();
    let mut chunks = Vec::new();
    let mut next = 0u64;
    let in_order = !places_chunks(s.technique());
    while let Some(Reverse((time, rank))) = clock.pop() {
        let remaining = s.remaining();
        let Some(c) = s.next_chunk(rank) else {
            continue;
        };
        if in_order && c.start != next {
            return Err(format!("chunk {c:?} does not start at {next}"));
        }
        if c.size == 0 || c.size > remaining {
            return Err(format!("chunk {c:?} with R = {remaining}"));
        }
        next += c.size;
        chunks.push((rank, c));
        if chunks.len() as u64 > n {
            return Err(format!("more than N = {n} chunks"));
        }
        let noise = 0.5 + (mix(seed ^ chunks.len() as u64) >> 11) as f64 / (1u64 << 53) as f64;
        let work = c.size as f64 * per_iterate[rank] * noise;
        s.record(
            rank,
            ChunkTiming {
                iterates: c.size,
                work_s: work,
                elapsed_s: work + overhead,
            },
        );
        let t = f64::from_bits(time) + work + overhead;
        clock.push(Reverse((t.to_bits(), rank)));
    }
    if next != n {
        return Err(format!("chunks cover {next} of {n} iterates"));
    }
    if let Some(gap) = coverage_gap(chunks.iter().map(|(_, c)| *c), n) {
        return Err(gap);
    }
    if s.remaining() != 0 || (0..p).any(|r| s.next_chunk(r).is_some()) {
        return Err("the scheduler hands out chunks after the end".into());
    }
    let per_rank: u64 = s.stats().iter().map(|r| r.iterates).sum();
    if per_rank != n {
        return Err(format!("per-rank iterates add up to {per_rank}, not {n}"));
    }
    Ok(chunks)
}

/// Whether the technique places its chunks itself (static-steal), rather than in index order.
pub(crate) fn places_chunks(t: &Technique) -> bool {
    t.kind.name() == "static-steal"
}

/// `None` when `chunks` cover [0, n) exactly once, else what is wrong.
pub(crate) fn coverage_gap(chunks: impl Iterator<Item = Chunk>, n: u64) -> Option<String> {
    let mut all: Vec<Chunk> = chunks.collect();
    all.sort_by_key(|c| c.start);
    let mut next = 0;
    for c in &all {
        if c.start != next {
            return Some(format!(
                "chunk {c:?} after iterate {next}: a gap or an overlap"
            ));
        }
        next += c.size;
    }
    (next != n).then(|| format!("chunks cover [0, {next}) of [0, {n})"))
}
