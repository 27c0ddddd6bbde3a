//! A rank's speed measured against the other ranks on neighbouring iterates (a dls choice, part
//! of the adaptive techniques' sampling phase; `local=0` or `probe=0` turns it off).
//!
//! The published adaptive techniques (AF: Banicescu & Liu 2000; AWF-B..E: Cariño & Banicescu
//! 2008) take a rank's time per iterate for its speed. When the cost of an iterate follows its
//! index (Mandelbrot pixels in row order, a triangular loop whose iterate i costs ∝ i) the ranks
//! measure different parts of the loop, so a rank that drew cheap iterates looks fast and is
//! handed a large chunk of dear ones. Chunks are handed out in index order and ranks take turns,
//! so every chunk has chunks of other ranks next to it in the index space: their time per
//! iterate, each divided by its rank's speed, gives the local cost of an iterate around the
//! chunk, by linear interpolation between the nearest chunk of another rank on either side (or
//! extrapolation from the two nearest on one side, at the ends of what is measured). A rank's
//! speed is its time per iterate over that local cost.
//!
//! The techniques keep their own formulas: each measured chunk is handed to them as a timing
//! scaled by `c0 / local cost` (c0: the first time per iterate measured in the loop), so a rank
//! as fast as the others on the same iterates shows the same time per iterate wherever its
//! chunks lie, and a rank 3× slower shows 3× the time. A chunk is handed on once it has a
//! measured chunk of another rank on both sides, or two on its left while nothing to its right
//! is measured yet (the loop's front: a rank that turns slower shows at once), or two on its
//! right at the loop's start. A rank is unmeasured (its chunks stay at the probe size) until
//! then. A rank with three chunks waiting hands the oldest on with its speed so far (so
//! one-sided evidence never moves it), and a loop on one rank hands every chunk on as measured.
//!
//! While a rank's estimate settles its chunks may not take much longer than what it has run so
//! far: [`growth_cap`](LocalSpeeds::growth_cap) bounds a measured rank's chunk by the iterates it
//! could run at the loop's front (the cost per iterate of the measured chunk furthest along the
//! index, at the rank's speed) in the work time measured on it so far, so its chunk times at
//! most about double from one chunk to the next. Without it, a rank that ran the cheap top rows
//! of a Mandelbrot image is handed a factoring chunk (`R/(2P)` iterates) of the dear middle rows
//! that alone outlasts the loop's lower bound.
//!
//! Iterate cost independent of the index gives local costs equal to the mean (up to noise): the
//! techniques then behave as published, and their reaction to a rank that is slower from the
//! start or turns slower mid-loop is kept (its times rise against its neighbours').
//!
//! Simulated (`dls compare`, makespan over lower bound, median of seeds 1–5; before = `local=0`,
//! the estimate of the published techniques with the probe phase), `--overhead 2us --latency
//! 1us`, iterate times from a recorded 500×500 Mandelbrot per-pixel profile (`file:`): P = 2
//! AF 1.15 → 1.02, AWF-B 1.64 → 1.13, AWF-C 1.12 → 1.00, AWF-E 1.11 → 1.01 (FAC2 1.007);
//! P = 4 AF 1.57 → 1.09, AWF-B 1.31 → 1.10, AWF-C 1.26 → 1.01, AWF-E 1.09 → 1.01 (FAC2
//! 1.33). Exp 1 ms iterates, N = 20,000, P = 8, one rank 3× slower: 1.001–1.002 before and
//! after. The last rank 3× slower from 1.25 s on (`--slowdown 7@1250msx3`): AWF-C and AWF-E
//! 1.047 before and after, AWF-B 1.23 → 1.15, but AF 1.25 → 1.46 (over seeds 1.09–1.56; AF's
//! mu is an unweighted mean, slow to follow a change, and the growth cap shifts its chunk
//! sequence). Heavy-tailed small loops lose a little (gamma(0.25, 4 ms), N = 2,000, P = 8, one
//! rank 3× slower: AF 1.04 → 1.07, AWF-C 1.04 → 1.06, AWF-B 1.32 → 1.08): a neighbour's time
//! is then a noisy yardstick.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::chunk::{Chunk, ChunkTiming};
use crate::learning::aggregates::Aggregates;
use crate::learning::rank_stats::{RankStats, TimeBasis};

/// How many of a rank's chunks may wait for neighbours before the oldest is handed on with the
/// loop-wide cost.
const MAX_WAITING: usize = 3;
/// How many chunks of the requesting rank a neighbour search steps over.
const SCAN: usize = 4;
/// Bounds of one chunk's speed ratio against its neighbours (guards against extrapolation).
const RATIO_RANGE: (f64, f64) = (0.05, 20.0);

/// One measured chunk.
#[derive(Debug, Clone, Copy)]
struct Measured {
    size: u64,
    rank: usize,
    timing: ChunkTiming,
    handed_on: bool,
}

impl Measured {
    fn mid(&self, start: u64) -> f64 {
        start as f64 + self.size as f64 / 2.0
    }
    fn per_iterate(&self) -> f64 {
        self.timing.work_s / self.size as f64
    }
}

/// Measurements of every rank compared on neighbouring iterates: the per-rank statistics the
/// adaptive formulas read (timings scaled to a common local cost) and their sums.
#[derive(Debug, Clone)]
pub(crate) struct LocalSpeeds {
    /// Chunks handed to each rank and not yet measured, oldest first.
    open: Vec<VecDeque<Chunk>>,
    /// Measured chunks by start (those far before every open or waiting chunk are dropped).
    chunks: BTreeMap<u64, Measured>,
    /// Starts of the chunks handed out and not yet handed on (open or waiting).
    pending: BTreeSet<u64>,
    /// Starts of measured chunks not yet handed on, per rank, oldest first.
    waiting: Vec<VecDeque<u64>>,
    /// The first time per iterate measured: the scale of the scaled timings.
    c0: Option<f64>,
    stats: Vec<RankStats>,
    /// Work time measured on each rank (unscaled).
    raw_work: Vec<f64>,
    aggregates: Aggregates,
    since_refresh: usize,
}

impl LocalSpeeds {
    /// Nothing measured, `p` ranks.
    pub(crate) fn new(p: usize) -> Self {
        LocalSpeeds {
            open: vec![VecDeque::new(); p],
            chunks: BTreeMap::new(),
            pending: BTreeSet::new(),
            waiting: vec![VecDeque::new(); p],
            c0: None,
            stats: vec![RankStats::default(); p],
            raw_work: vec![0.0; p],
            aggregates: Aggregates::default(),
            since_refresh: 0,
        }
    }

    /// The per-rank statistics of the scaled timings (what the formulas read).
    pub(crate) fn stats(&self) -> &[RankStats] {
        &self.stats
    }

    /// Their running sums.
    pub(crate) fn aggregates(&self) -> &Aggregates {
        &self.aggregates
    }

    /// `rank` was handed `chunk`.
    pub(crate) fn handed(&mut self, rank: usize, chunk: Chunk) {
        self.open[rank].push_back(chunk);
        self.pending.insert(chunk.start);
        self.stats[rank].chunks += 1;
    }

    /// `rank` finished a chunk in `timing`: the rank's oldest open chunk of that size (its
    /// oldest one if none has that size).
    pub(crate) fn record(&mut self, rank: usize, timing: ChunkTiming) {
        let open = &mut self.open[rank];
        let Some(k) = open
            .iter()
            .position(|c| c.size == timing.iterates)
            .or(if open.is_empty() { None } else { Some(0) })
        else {
            return;
        };
        let chunk = open.remove(k).expect("index found above");
        self.pending.remove(&chunk.start);
        let valid = |x: f64| x.is_finite() && x >= 0.0;
        if chunk.size == 0 || timing.iterates != chunk.size || !valid(timing.work_s) {
            return;
        }
        if !valid(timing.elapsed_s) {
            return;
        }
        if self.c0.is_none() && timing.work_s > 0.0 {
            self.c0 = Some(timing.work_s / chunk.size as f64);
        }
        self.chunks.insert(
            chunk.start,
            Measured {
                size: chunk.size,
                rank,
                timing,
                handed_on: false,
            },
        );
        self.waiting[rank].push_back(chunk.start);
        self.pending.insert(chunk.start);
        self.raw_work[rank] += timing.work_s;
        let p = self.open.len();
        if p == 1 {
            self.hand_on_waiting(rank, true);
            return;
        }
        // The waiting chunks near this one may have gained a neighbour (a chunk further away
        // than SCAN entries is never a neighbour): O(SCAN) per record, whatever P.
        let near: Vec<usize> = self
            .chunks
            .range(..chunk.start)
            .rev()
            .take(SCAN)
            .chain(self.chunks.range(chunk.start..).take(SCAN + 1))
            .filter(|(k, m)| {
                m.rank != rank && !m.handed_on && self.waiting[m.rank].front() == Some(*k)
            })
            .map(|(_, m)| m.rank)
            .chain(std::iter::once(rank))
            .collect();
        for r in near {
            self.hand_on_waiting(r, false);
        }
        if self.waiting[rank].len() >= MAX_WAITING {
            self.hand_on_waiting(rank, true);
        }
        self.prune();
    }

    /// Drops the measured chunks no open or waiting chunk can reach as a neighbour: those more
    /// than `SCAN + 1` entries before the first of them (memory and time stay bounded by what
    /// is in flight, not by the loop's chunk count).
    fn prune(&mut self) {
        let Some(&first) = self.pending.first() else {
            return;
        };
        let keep_from = self
            .chunks
            .range(..first)
            .rev()
            .nth(SCAN + 1)
            .map(|(&k, _)| k);
        if let Some(k) = keep_from {
            if self.chunks.first_key_value().is_some_and(|(&f, _)| f < k) {
                self.chunks = self.chunks.split_off(&k);
            }
        }
    }

    /// Hands on `rank`'s waiting chunks, oldest first, while their local cost is known (all of
    /// them when `force`: a chunk without neighbours on both sides then keeps its rank's speed
    /// so far, so one-sided evidence never moves a rank's estimate).
    fn hand_on_waiting(&mut self, rank: usize, force: bool) {
        while let Some(&start) = self.waiting[rank].front() {
            let cost = match self.local_cost(start) {
                Some(c) => c,
                None if force => {
                    let own = self.chunks[&start].per_iterate();
                    if self.open.len() == 1 {
                        own
                    } else {
                        own / self.factor(rank)
                    }
                }
                None => break,
            };
            self.waiting[rank].pop_front();
            self.pending.remove(&start);
            self.hand_on(start, cost);
        }
    }

    /// Passes the chunk at `start` to its rank's statistics, scaled by `c0 / cost`.
    fn hand_on(&mut self, start: u64, cost: f64) {
        let m = self
            .chunks
            .get_mut(&start)
            .expect("a waiting chunk is measured");
        m.handed_on = true;
        let m = *m;
        let c0 = self.c0.unwrap_or(1.0);
        let cost = if cost.is_finite() && cost > 0.0 {
            cost
        } else {
            c0
        };
        let own = m.per_iterate();
        let ratio = if own > 0.0 {
            (own / cost).clamp(RATIO_RANGE.0, RATIO_RANGE.1)
        } else {
            0.0
        };
        let scale = if own > 0.0 { ratio * c0 / own } else { 1.0 };
        let scaled = ChunkTiming {
            iterates: m.size,
            work_s: m.timing.work_s * scale,
            elapsed_s: m.timing.elapsed_s * scale,
        };
        let stats = &mut self.stats[m.rank];
        self.aggregates.remove(stats);
        let changed = stats.record(scaled);
        self.aggregates.add(stats);
        if changed {
            self.since_refresh += 1;
            if self.since_refresh >= self.stats.len() {
                self.aggregates = Aggregates::from_stats(&self.stats);
                self.since_refresh = 0;
            }
        }
    }

    /// The largest chunk `rank` may take while its estimate settles: the iterates it would run
    /// at the loop's front (the cost per iterate of the measured chunk furthest in the index
    /// space, at the rank's speed) in the work time measured on it so far; the iterates
    /// measured on it when nothing has a cost yet. Its chunk times then at most double.
    ///
    /// The front cost is never taken below the front chunk's own time per iterate, even when
    /// that chunk's rank seems slower than `rank`. At the front a chunk is compared with what
    /// lies to its left only, so where the cost per iterate rises steeply along the index the
    /// rank that ran it looks slow (under mpirun, rank 1 starting a Mandelbrot image 2 ms late:
    /// its first probe chunk of the dear middle rows, 1.8 µs a pixel, against rank 0's cheap top
    /// rows, looked 20× slower); dividing its time by that factor made the front look cheap and
    /// let rank 0 take FAC2's chunk of the dearest rows, 151 ms of a 194 ms loop (simulated with
    /// `--starts 0,2ms`). Overestimating the front cost costs only more, smaller chunks.
    /// Simulated (`dls compare`, Mandelbrot per pixel `file:` profile, `--overhead 500ns
    /// --latency 600ns`, efficiency before → after): rank 1 3 ms late, AF 0.921 → 0.947, AWF-C
    /// 0.907 → 0.992, AWF-E 0.907 → 0.992, AWF/AWF-B/AWF-D 0.866 → 0.902; P = 4 with ranks 1, 2,
    /// 3 late by 1, 2, 3 ms: AWF-C 0.928 → 0.945, AWF-E 0.954 → 0.972; one rank 3× slower from
    /// 1.25 s (exp 1 ms, N = 20,000, P = 8, seeds 1–3): AF 0.899/0.960/0.933 →
    /// 0.901/0.965/0.974, the others unchanged or better.
    pub(crate) fn growth_cap(&self, rank: usize) -> u64 {
        let worked: f64 = self.raw_work[rank];
        let front = self.chunks.values().next_back().map(|m| {
            // Never below the front chunk's own time per iterate: a rank that seems slow
            // there may only have met dearer iterates (see the doc above).
            let at_rank_speed = m.per_iterate() / self.factor(m.rank) * self.factor(rank);
            at_rank_speed.max(m.per_iterate())
        });
        match front {
            Some(c) if c > 0.0 && worked > 0.0 => (worked / c).min(u64::MAX as f64 / 2.0) as u64,
            _ => self.stats[rank].iterates,
        }
    }

    /// Rank `rank`'s speed factor so far (time per iterate over the local cost, 1 before any).
    fn factor(&self, rank: usize) -> f64 {
        match (self.stats[rank].awf_pi(TimeBasis::Work), self.c0) {
            (Some(pi), Some(c0)) if c0 > 0.0 => pi / c0,
            _ => 1.0,
        }
    }

    /// Nearest measured chunks of ranks other than `rank` on one side of `start`: up to two,
    /// as (midpoint, time per iterate over that rank's factor).
    fn neighbours(&self, start: u64, rank: usize, left: bool) -> Vec<(f64, f64)> {
        let pick = |(s, m): (&u64, &Measured)| {
            (m.rank != rank && m.per_iterate() > 0.0)
                .then(|| (m.mid(*s), m.per_iterate() / self.factor(m.rank)))
        };
        let found: Vec<(f64, f64)> = if left {
            self.chunks
                .range(..start)
                .rev()
                .take(SCAN)
                .filter_map(pick)
                .take(2)
                .collect()
        } else {
            self.chunks
                .range(start + 1..)
                .take(SCAN)
                .filter_map(pick)
                .take(2)
                .collect()
        };
        found
    }

    /// The cost of an iterate around the chunk at `start` at the speed of an average rank:
    /// interpolated between the nearest other ranks' chunks on either side; at the start of the
    /// loop (no other rank's chunk to the left), extrapolated from the two nearest on the right.
    fn local_cost(&self, start: u64) -> Option<f64> {
        let m = self.chunks.get(&start)?;
        let x = m.mid(start);
        let left = self.neighbours(start, m.rank, true);
        let right = self.neighbours(start, m.rank, false);
        let line = |(x1, y1): (f64, f64), (x2, y2): (f64, f64)| {
            if (x2 - x1).abs() < f64::EPSILON {
                (y1 + y2) / 2.0
            } else {
                y1 + (y2 - y1) * (x - x1) / (x2 - x1)
            }
        };
        // An extrapolation is kept within a quarter of the nearer value, at least.
        let extrapolate =
            |side: &[(f64, f64)]| line(side[0], side[1]).max(0.25 * side[0].1.min(side[1].1));
        let cost = match (left.first(), right.first()) {
            (Some(&l), Some(&r)) => line(l, r),
            (None, Some(_)) if right.len() == 2 => extrapolate(&right),
            // The loop's front: extrapolated from the two nearest on the left but kept between
            // their values (an unbounded extrapolation would magnify their noise).
            (Some(_), None) if left.len() == 2 => {
                let (a, b) = (left[0].1, left[1].1);
                line(left[0], left[1]).clamp(a.min(b), a.max(b))
            }
            _ => return None,
        };
        (cost > 0.0).then_some(cost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(iterates: u64, work_s: f64) -> ChunkTiming {
        ChunkTiming {
            iterates,
            work_s,
            elapsed_s: work_s,
        }
    }

    /// Hands out consecutive chunks of `size` round robin to `p` ranks, each iterate i costing
    /// `cost(i) · factor[rank]`, and records them in order; returns the ranks' AWF pi.
    fn run(
        p: usize,
        size: u64,
        rounds: usize,
        factor: &[f64],
        cost: impl Fn(u64) -> f64,
    ) -> Vec<f64> {
        let mut l = LocalSpeeds::new(p);
        let mut start = 0;
        for _ in 0..rounds {
            let mut handed = Vec::new();
            for r in 0..p {
                let c = Chunk { start, size };
                l.handed(r, c);
                handed.push((r, c));
                start += size;
            }
            for (r, c) in handed {
                let work: f64 = (c.start..c.start + c.size).map(&cost).sum::<f64>() * factor[r];
                l.record(r, t(c.size, work));
            }
        }
        (0..p)
            .map(|r| l.stats()[r].awf_pi(TimeBasis::Work).unwrap())
            .collect()
    }

    #[test]
    fn triangular_cost_on_equal_ranks_gives_equal_speeds() {
        let pi = run(2, 100, 6, &[1.0, 1.0], |i| (i + 1) as f64 * 1e-6);
        let ratio = pi[0] / pi[1];
        assert!((ratio - 1.0).abs() < 0.05, "pi = {pi:?}");
        // The published estimate (raw time per iterate) would see rank 1 as slower.
    }

    #[test]
    fn a_slower_rank_shows_on_triangular_cost() {
        let pi = run(3, 100, 6, &[1.0, 3.0, 1.0], |i| (i + 1) as f64 * 1e-6);
        assert!((pi[1] / pi[0] - 3.0).abs() < 0.3, "pi = {pi:?}");
        assert!((pi[2] / pi[0] - 1.0).abs() < 0.1, "pi = {pi:?}");
    }

    #[test]
    fn constant_cost_keeps_the_published_ratio() {
        // Each estimate leans on its neighbours' estimates, which settle as chunks come in:
        // within 10% after five rounds.
        let pi = run(4, 50, 5, &[1.0, 1.0, 1.0, 3.0], |_| 1e-3);
        for r in 0..3 {
            assert!((pi[r] / pi[0] - 1.0).abs() < 0.1, "pi = {pi:?}");
        }
        assert!((pi[3] / pi[1] - 3.0).abs() < 0.3, "pi = {pi:?}");
    }

    #[test]
    fn one_rank_hands_on_at_once() {
        let mut l = LocalSpeeds::new(1);
        l.handed(0, Chunk { start: 0, size: 10 });
        l.record(0, t(10, 1.0));
        assert_eq!(l.stats()[0].measured_chunks, 1);
        assert!((l.stats()[0].awf_pi(TimeBasis::Work).unwrap() - 0.1).abs() < 1e-12);
    }

    #[test]
    fn a_rank_without_neighbours_is_handed_on_after_three_chunks() {
        // Rank 1 never runs: rank 0's chunks have no neighbours of another rank.
        let mut l = LocalSpeeds::new(2);
        for k in 0..3 {
            l.handed(
                0,
                Chunk {
                    start: k * 10,
                    size: 10,
                },
            );
            l.record(0, t(10, 1.0));
            assert_eq!(l.stats()[0].measured_chunks, if k < 2 { 0 } else { 3 });
        }
    }

    #[test]
    fn memory_stays_bounded_by_what_is_in_flight() {
        // 4 ranks, 1,000 rounds: the chunks kept are those near the open or waiting ones.
        let mut l = LocalSpeeds::new(4);
        let mut start = 0;
        for _ in 0..1000 {
            let mut handed = Vec::new();
            for r in 0..4 {
                let c = Chunk { start, size: 10 };
                l.handed(r, c);
                handed.push((r, c));
                start += 10;
            }
            for (r, c) in handed {
                l.record(r, t(c.size, 1e-3 * c.size as f64));
            }
        }
        assert!(l.chunks.len() <= 4 * (SCAN + 2), "{} kept", l.chunks.len());
        assert_eq!(
            l.stats().iter().map(|s| s.measured_chunks).sum::<u64>(),
            4000
        );
    }

    #[test]
    fn a_dear_front_never_makes_the_growth_cap_cheap() {
        // Rank 0 runs three cheap chunks (0.1 µs an iterate); rank 1 starts late with a chunk
        // of dear iterates (2 µs an iterate) at the front, compared with rank 0's cheap chunks
        // on its left only: it looks about 20× slower. Rank 0's cap must still count the front
        // at 2 µs an iterate at least, not 2 µs / 20.
        let mut l = LocalSpeeds::new(2);
        for k in 0..3 {
            let c = Chunk {
                start: k * 100,
                size: 100,
            };
            l.handed(0, c);
            l.record(0, t(100, 1e-5));
        }
        l.handed(
            1,
            Chunk {
                start: 300,
                size: 100,
            },
        );
        l.record(1, t(100, 2e-4));
        assert!(l.factor(1) > 5.0, "rank 1 seen {}× slower", l.factor(1));
        let worked = 3e-5;
        let cap = l.growth_cap(0);
        assert!(cap as f64 <= worked / 2e-6 + 1.0, "cap {cap}");
    }

    #[test]
    fn timings_of_unknown_chunks_are_ignored() {
        let mut l = LocalSpeeds::new(2);
        l.record(0, t(10, 1.0));
        assert_eq!(l.stats()[0].measured_chunks, 0);
    }
}
