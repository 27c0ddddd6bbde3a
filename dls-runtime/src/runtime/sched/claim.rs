//! Chunks claimed with one atomic add (threads backend): the hand-out of a technique whose
//! chunks all have one size ([`ChunkScheduler::fixed_chunk`](crate::ChunkScheduler::fixed_chunk):
//! SS, STATIC, FSC, mFSC) in a loop that does not restart from checkpoints.
//!
//! Chunk `k` is `[k·c, min((k+1)·c, N))` whoever asks, so a worker claims the next chunk by
//! incrementing the chunk counter, as an OpenMP runtime does for `schedule(dynamic, c)` (LB4OMP
//! too): no lock, one contended cache line. What the [`ReportingScheduler`] records per chunk
//! (the chunk map, the chunk times, the per-rank tallies, the progress count) is recorded by each
//! worker in its own [`SlotLog`], on cache lines of its own, and folded into the scheduler once
//! the loop ends ([`Claims::fold_into`]): the report is the one the scheduler would have made
//! (the map in hand-out order, which for these chunks is the order of `k`).
//!
//! A rank of threads inside an MPI job claims the same way from the blocks of chunks rank 0
//! hands it ([`Claims::fed`], `runtime/sched/feed.rs`): the claim word then also holds the
//! block's end, and a claim past it installs the next block.
//!
//! [`ReportingScheduler`]: crate::runtime::sched::reporting::ReportingScheduler

use crate::runtime::annotate::sync::{AtomicBool, AtomicU64};
use std::sync::atomic::Ordering;
use std::sync::Arc;

// The claim word is the shim's (loom's in the claim counter's model, `backend/loom_models.rs`).
use crate::runtime::shim::AtomicU64 as ClaimWord;
use std::time::{Duration, Instant};

use crate::runtime::sched::feed::{self, Fed, Sample};
use crate::runtime::sched::reporting::ReportingScheduler;
use crate::runtime::sync::{Padded, SlotLock};
use crate::runtime::tolerance::split::SplitCell;
use crate::{Chunk, ChunkTiming};

/// How often a worker adds its finished iterates to the loop's progress count (one shared
/// counter: adding at every chunk would make it a second contended line).
const PROGRESS_EVERY: Duration = Duration::from_millis(2);

/// The lock-free hand-out of one loop's fixed-size chunks, and the workers' logs.
#[derive(Debug)]
pub(crate) struct Claims {
    /// `c`: the size of every chunk but the last.
    size: u64,
    n: u64,
    /// `ceil(N / c)`.
    chunks: u64,
    /// The next chunk's `k` (past `chunks` once every chunk is out); fed blocks: with the
    /// block's end (`feed::claimed`).
    next: Padded<ClaimWord>,
    /// The blocks of a rank of threads inside an MPI job (`None`: every chunk is this
    /// process's).
    fed: Option<Fed>,
    /// One log per worker slot.
    slots: Box<[Padded<SlotLock<SlotLog>>]>,
    /// Chunks with `k` below this are listed in the chunk map (`DLS_CHUNK_MAP`; 0 once
    /// [`untimed`](Self::untimed)).
    map_max: AtomicU64,
    /// Whether anybody reads the chunks' times (cleared by [`untimed`](Self::untimed)).
    timed: AtomicBool,
    /// The scheduler's clock for the chunk times.
    origin: Instant,
    /// The progress display's count of iterates of finished chunks.
    done: Arc<AtomicU64>,
    /// Whether the loop's tail goes to the scheduler (a re-executing loop).
    tail: AtomicBool,
}

/// What a request gets from [`Claims::next`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Claimed {
    /// The slot's next chunk.
    Chunk(Chunk),
    /// Every chunk is out: the loop has no more for this slot.
    Done,
    /// The loop's tail is the scheduler's ([`Claims::hand_over`]): ask it, with the timing of
    /// the previous chunk unless `recorded` (it was recorded here, and counts).
    Tail { recorded: bool },
}

/// What one worker slot did: the chunks it was handed (the listed ones with their times), its
/// tallies, and its iterates not yet added to the progress count.
#[derive(Debug, Default)]
pub(crate) struct SlotLog {
    /// Listed chunks handed to this slot, by `k` (increasing), with `[arrival, work]` once
    /// finished (NaN until then), as the scheduler's `chunk_ends`.
    listed: Vec<(u64, [f64; 2])>,
    /// The slot's chunks handed out and not finished: `k`, when, and where `listed` lists it
    /// (normally at most one).
    open: Vec<(u64, Instant, Option<usize>)>,
    chunks: u64,
    iterates: u64,
    work_s: f64,
    unreported: u64,
    /// When its iterates are next added to the progress count.
    report_due: Option<Instant>,
    /// Folded into the scheduler, whose the slot's requests are now.
    handed_over: bool,
    /// Fed blocks: `iterates` and `work_s` at the slot's last sample for the feed.
    sampled: (u64, f64),
}

/// What one worker slot of a fed rank did, taken at the loop's end ([`Claims::take_slots`]).
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct SlotSummary {
    pub chunks: u64,
    pub iterates: u64,
    pub work_s: f64,
    /// Its listed chunks with `[end, work]` (end: seconds after the claims' origin).
    pub listed: Vec<(Chunk, [f64; 2])>,
}

impl Claims {
    /// The hand-out of `n` iterates in chunks of `size` over `slots` worker slots, the chunk
    /// map listing the first `map_max` chunks, times on `origin`'s clock, finished iterates
    /// counted in `done`.
    pub(crate) fn new(
        size: u64,
        n: u64,
        slots: usize,
        map_max: usize,
        origin: Instant,
        done: Arc<AtomicU64>,
    ) -> Self {
        let size = size.max(1);
        Claims {
            size,
            n,
            chunks: n.div_ceil(size),
            next: Padded(ClaimWord::new(0)),
            slots: (0..slots.max(1))
                .map(|_| Padded(SlotLock::new(SlotLog::default())))
                .collect(),
            map_max: AtomicU64::new(map_max as u64),
            timed: AtomicBool::new(true),
            origin,
            done,
            tail: AtomicBool::new(false),
            fed: None,
        }
    }

    /// The claims of a rank's `slots` threads over the blocks of `fed` (chunks of `size`
    /// iterates of a loop of `n`; the chunk map lists chunks whose `k` is below `map_max`).
    /// `None` where the loop does not fit the claim word ([`feed::fits`]).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn fed(
        size: u64,
        n: u64,
        slots: usize,
        map_max: usize,
        origin: Instant,
        done: Arc<AtomicU64>,
        fed: Fed,
    ) -> Option<Self> {
        if !feed::fits(n, size, slots) {
            return None;
        }
        let mut claims = Claims::new(size, n, slots, map_max, origin, done);
        claims.next = Padded(ClaimWord::new(Fed::empty_word()));
        claims.fed = Some(fed);
        Some(claims)
    }

    /// Fed blocks: the feed (to close it when the rank leaves).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn feed(&self) -> Option<&Fed> {
        self.fed.as_ref()
    }

    /// `c`: the size of every chunk but the last.
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// Nobody reads this loop's chunk map or its chunks' times (a `#[par_doall]` loop without
    /// `DLS_REPORT`, before any chunk is claimed): no chunk is listed, so a worker's claim
    /// writes no map entry, and the workers may read the clock at some claims only
    /// ([`timed`](Self::timed)).
    pub(crate) fn untimed(&self) {
        self.map_max.store(0, Ordering::Relaxed);
        self.timed.store(false, Ordering::Relaxed);
    }

    /// Whether the loop's chunk times are read (its report): then every claim reads the clock.
    pub(crate) fn timed(&self) -> bool {
        self.timed.load(Ordering::Relaxed)
    }

    /// The loop re-executes: its tail goes to the scheduler (before any chunk is claimed).
    pub(crate) fn tail_to_scheduler(&self) {
        self.tail.store(true, Ordering::Relaxed);
    }

    /// Chunk `k`.
    #[inline]
    fn chunk(&self, k: u64) -> Chunk {
        let start = k * self.size;
        Chunk {
            start,
            size: self.size.min(self.n - start),
        }
    }

    /// Slot `slot`'s request at `now`: hands in `finished` (the timing of its previous chunk)
    /// and claims its next chunk (arming `cell` for it, where chunks may be split), or says that
    /// the loop has no more for the slot (also with `stop` raised) or that its tail is the
    /// scheduler's.
    #[inline]
    pub(crate) fn next(
        &self,
        slot: usize,
        finished: Option<ChunkTiming>,
        now: Instant,
        stop: bool,
        cell: Option<&SplitCell>,
    ) -> Claimed {
        let mut log = self.slots[slot % self.slots.len()].lock();
        if log.handed_over {
            return Claimed::Tail { recorded: false };
        }
        if let Some(fed) = &self.fed {
            if let Some(t) = finished {
                self.hand_in(&mut log, t, now);
            }
            if stop {
                return Claimed::Done;
            }
            return match self.claim_fed(fed, &mut log) {
                Some(k) => self.record_claim(&mut log, k, now, cell),
                None => Claimed::Done,
            };
        }
        let out = self.next.load(Ordering::Relaxed) >= self.chunks;
        if out && !stop && self.tail.load(Ordering::Relaxed) {
            return Claimed::Tail { recorded: false };
        }
        if let Some(t) = finished {
            self.hand_in(&mut log, t, now);
        }
        if stop || out {
            return Claimed::Done;
        }
        let k = self.next.fetch_add(1, Ordering::Relaxed);
        if k >= self.chunks {
            if self.tail.load(Ordering::Relaxed) {
                return Claimed::Tail {
                    recorded: finished.is_some(),
                };
            }
            return Claimed::Done;
        }
        // (A loop with a chunk delay of `DLS_DELAY` is not claimed: `delay::chunk_delayed`.)
        self.record_claim(&mut log, k, now, cell)
    }

    /// Records chunk `k`, claimed by `log`'s slot at `now`, and hands it out.
    #[inline]
    fn record_claim(
        &self,
        log: &mut SlotLog,
        k: u64,
        now: Instant,
        cell: Option<&SplitCell>,
    ) -> Claimed {
        let chunk = self.chunk(k);
        if let Some(cell) = cell {
            cell.arm(chunk.size);
        }
        log.chunks += 1;
        let listed = (k < self.map_max.load(Ordering::Relaxed)).then(|| {
            log.listed.push((k, [f64::NAN; 2]));
            log.listed.len() - 1
        });
        log.open.push((k, now, listed));
        Claimed::Chunk(chunk)
    }

    /// Fed blocks: claims the next chunk's `k` for `log`'s slot, asking for the next block
    /// early or installing it where the claim says so; `None` once the rank has no more.
    #[inline]
    fn claim_fed(&self, fed: &Fed, log: &mut SlotLog) -> Option<u64> {
        loop {
            let word = self.next.fetch_add(1, Ordering::Relaxed);
            if let Some((k, ahead)) = feed::claimed(word) {
                if fed.low(ahead) {
                    fed.ask_early(&self.next, ahead, Self::sample(log));
                }
                return Some(k);
            }
            if !fed.refill(&self.next, Self::sample(log)) {
                return None;
            }
        }
    }

    /// What `log`'s slot finished since its last sample (the feed's chunk time).
    fn sample(log: &mut SlotLog) -> Sample {
        let (iterates, work_s) = log.sampled;
        log.sampled = (log.iterates, log.work_s);
        (log.iterates - iterates, log.work_s - work_s)
    }

    /// Records a finished chunk of `log`'s slot: its oldest open chunk of that size.
    fn hand_in(&self, log: &mut SlotLog, t: ChunkTiming, now: Instant) {
        let at = match log.open.len() {
            0 | 1 => 0,
            _ => log
                .open
                .iter()
                .position(|&(k, _, _)| self.chunk(k).size == t.iterates)
                .unwrap_or(0),
        };
        if at < log.open.len() {
            if let (_, _, Some(i)) = log.open.remove(at) {
                let end = now.saturating_duration_since(self.origin).as_secs_f64();
                log.listed[i].1 = [end, t.work_s];
            }
        }
        log.iterates += t.iterates;
        log.work_s += t.work_s;
        log.unreported += t.iterates;
        let due = log.report_due.is_none_or(|at| now >= at);
        if due {
            self.done.fetch_add(log.unreported, Ordering::Relaxed);
            log.unreported = 0;
            log.report_due = Some(now + PROGRESS_EVERY);
        }
    }

    /// Every chunk handed out (`DLS_Terminated`; fed blocks: every block the rank will get).
    pub(crate) fn all_out(&self) -> bool {
        match &self.fed {
            Some(fed) => fed.all_out(&self.next),
            None => self.next.load(Ordering::Relaxed) >= self.chunks,
        }
    }

    /// Fed blocks, at the loop's end: what each slot did, its listed chunks with their ends on
    /// the claims' clock; the progress count made whole. The logs are emptied.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn take_slots(&self) -> Vec<SlotSummary> {
        self.slots
            .iter()
            .map(|slot| {
                let mut log = slot.lock();
                self.done.fetch_add(log.unreported, Ordering::Relaxed);
                let out = SlotSummary {
                    chunks: log.chunks,
                    iterates: log.iterates,
                    work_s: log.work_s,
                    listed: log
                        .listed
                        .drain(..)
                        .map(|(k, ends)| (self.chunk(k), ends))
                        .collect(),
                };
                *log = SlotLog::default();
                out
            })
            .collect()
    }

    /// Hands in a chunk still open at the loop's end (the worker left without asking again).
    pub(crate) fn hand_in_open(&self, slot: usize, t: ChunkTiming, now: Instant) {
        let mut log = self.slots[slot % self.slots.len()].lock();
        self.hand_in(&mut log, t, now);
    }

    /// At the loop's end: every slot's chunks, times and tallies into `scheduler`, which then
    /// reports the loop as if it had handed the chunks out itself; the progress count made
    /// whole.
    pub(crate) fn fold_into(&self, scheduler: &mut ReportingScheduler) {
        self.fold(scheduler, false);
    }

    /// The loop's tail begins (every chunk is out, a re-executing loop): the logs are folded
    /// into `scheduler`, each slot's unfinished chunks held there as if it had handed them out,
    /// and every later request of every slot goes to it. Once; a later call does nothing.
    pub(crate) fn hand_over(&self, scheduler: &mut ReportingScheduler) {
        self.fold(scheduler, true);
    }

    /// Whether the loop's tail went to the scheduler.
    pub(crate) fn handed_over(&self) -> bool {
        self.slots[0].lock().handed_over
    }

    fn fold(&self, scheduler: &mut ReportingScheduler, tail: bool) {
        // Every log locked at once: no request is between its log and the scheduler meanwhile.
        let mut logs: Vec<_> = self.slots.iter().map(|l| l.lock()).collect();
        if logs.iter().any(|l| l.handed_over) {
            return;
        }
        let p = scheduler.workers();
        let mut listed: Vec<(u64, usize, [f64; 2])> = Vec::new();
        let mut handed = 0u64;
        for (slot, log) in logs.iter_mut().enumerate() {
            let rank = slot % p;
            listed.extend(log.listed.drain(..).map(|(k, ends)| (k, rank, ends)));
            handed += log.chunks;
            scheduler.add_claimed(rank, log.chunks, log.iterates, log.work_s);
            self.done.fetch_add(log.unreported, Ordering::Relaxed);
            log.unreported = 0;
            log.iterates = 0;
            log.work_s = 0.0;
        }
        // Each `k` below the listed count once (every chunk handed out): placed, not sorted.
        let all = listed.len();
        if listed.iter().all(|e| (e.0 as usize) < all) {
            let mut placed = vec![(0u64, 0usize, [f64::NAN; 2]); all];
            for e in listed.drain(..) {
                placed[e.0 as usize] = e;
            }
            listed = placed;
        } else {
            listed.sort_unstable_by_key(|e| e.0);
        }
        let dropped = handed - listed.len() as u64;
        scheduler.add_claimed_map(
            listed
                .into_iter()
                .map(|(k, rank, ends)| (self.chunk(k), rank, ends)),
            dropped,
        );
        for (slot, log) in logs.iter_mut().enumerate() {
            if tail {
                let open: Vec<(Chunk, Instant)> = log
                    .open
                    .iter()
                    .map(|&(k, at, _)| (self.chunk(k), at))
                    .collect();
                scheduler.claimed_all(slot % p, log.chunks, &open);
                log.handed_over = true;
            }
            log.chunks = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Technique;

    fn timing(c: Chunk) -> ChunkTiming {
        ChunkTiming {
            iterates: c.size,
            work_s: 1e-6 * c.size as f64,
            elapsed_s: 1e-6 * c.size as f64,
        }
    }

    /// Claims from several threads cover [0, N) exactly once, and the folded report lists the
    /// chunks in order of their start, with every iterate counted once.
    #[test]
    fn claims_from_threads_are_a_partition_and_fold_into_the_report() {
        for (spec, n, p, map_max) in [
            ("ss", 10_000u64, 4usize, 1_000_000usize),
            ("ss", 10_000, 3, 100),
            ("mfsc", 1_000, 4, 1_000_000),
            ("static", 13, 4, 1_000_000),
            ("ss", 0, 2, 10),
            ("ss,min=7", 1, 2, 10),
        ] {
            let t: Technique = spec.parse().unwrap();
            let mut sched = ReportingScheduler::new(&t, n, p).unwrap();
            let c = crate::ChunkScheduler::new(&t, n, p)
                .unwrap()
                .fixed_chunk()
                .unwrap_or(1);
            let claims = Claims::new(c, n, p, map_max, Instant::now(), sched.done_counter());
            let seen: Vec<Vec<Chunk>> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..p)
                    .map(|slot| {
                        let claims = &claims;
                        s.spawn(move || {
                            let mut mine = Vec::new();
                            let mut last = None;
                            while let Claimed::Chunk(c) =
                                claims.next(slot, last, Instant::now(), false, None)
                            {
                                mine.push(c);
                                last = Some(timing(c));
                            }
                            mine
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            assert!(claims.all_out());
            let mut all: Vec<Chunk> = seen.concat();
            all.sort_by_key(|c| c.start);
            let mut at = 0;
            for ch in &all {
                assert_eq!(ch.start, at, "{spec}: a partition of [0, N)");
                at += ch.size;
            }
            assert_eq!(at, n, "{spec}");
            claims.fold_into(&mut sched);
            let report = sched.report("claims", Instant::now());
            let listed = all.len().min(map_max);
            assert_eq!(report.chunk_map.len(), listed, "{spec}");
            assert_eq!(report.chunk_map_dropped, (all.len() - listed) as u64);
            for (entry, ch) in report.chunk_map.iter().zip(&all) {
                assert_eq!(
                    [entry[0], entry[1]],
                    [ch.start, ch.size],
                    "{spec}: in order"
                );
            }
            assert!(report.chunk_times.iter().all(|t| t.is_some()), "{spec}");
            let iterates: u64 = report.ranks.iter().map(|r| r.iterates).sum();
            let chunks: u64 = report.ranks.iter().map(|r| r.chunks).sum();
            assert_eq!((iterates, chunks), (n, all.len() as u64), "{spec}");
            assert_eq!(sched.done_counter().load(Ordering::Relaxed), n, "{spec}");
        }
    }

    /// A raised stop flag ends the hand-out; the chunk in hand is still handed in.
    #[test]
    fn a_stop_ends_the_hand_out() {
        let claims = Claims::new(1, 100, 2, 10, Instant::now(), Arc::default());
        let Claimed::Chunk(c) = claims.next(0, None, Instant::now(), false, None) else {
            panic!("a chunk")
        };
        assert_eq!(
            claims.next(0, Some(timing(c)), Instant::now(), true, None),
            Claimed::Done
        );
        assert!(!claims.all_out());
        let log = claims.slots[0].lock();
        assert_eq!((log.iterates, log.open.len()), (1, 0));
    }
}
