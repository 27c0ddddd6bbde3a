//! Blocks of chunks fed to the claims of a rank's threads (threads inside ranks, a dynamic
//! technique of fixed-size chunks: SS, FSC, mFSC).
//!
//! Rank 0 hands a rank a **block** of whole chunks at a time (`backend/mpi/hybrid.rs`); the
//! rank's threads claim the block's chunks with one atomic add each, through the same
//! [`Claims`](super::claim::Claims) and the same claiming worker loop as threads do on one
//! machine (`runtime/engine/drive/claimed.rs`). The claim word packs the next chunk's index (low 40
//! bits) with the block's end (its low 24 bits, high 24 bits of the word):
//!
//! - a claim is one `fetch_add(1)`; the chunk it read is valid while it is below the block's
//!   end ([`claimed`]);
//! - a claim past the end (each thread makes at most one per block) goes to [`Fed::refill`],
//!   which installs the next block with one store (queued, or asked for now);
//! - a claim that leaves fewer chunks in the block than half the rank's target asks for the next
//!   block early ([`Fed::ask_early`]), so the rank's threads do not run dry while a request
//!   travels.
//!
//! How many chunks a rank asks for ([`block_target`]) follows what it measured: the chunks that
//! run while two round trips of a request travel, at least [`min_block_chunks`] and at most
//! [`MAX_BLOCK_CHUNKS`] per thread, `k` chunks before any chunk is timed. The simulator plans
//! with the same rule (`sim/hierarchy.rs`).

use crate::runtime::annotate::sync::AtomicBool;
use crate::runtime::annotate::sync::{Mutex, MutexGuard};
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

// The claim word (`Claims::next`) is the shim's: loom's in the claim counter's models.
use crate::runtime::shim::AtomicU64;

use crate::runtime::sync::{lock, Arrivals};
use crate::Chunk;
pub(crate) use dls_model::tuning::{block_target, MAX_BLOCK_CHUNKS};

/// Where a rank's blocks come from: rank 0's scheduler (a lock on rank 0, a request from the
/// others).
pub(crate) trait Feed: Send + Sync {
    /// The next block of about `want` iterates: whole chunks from a multiple of the chunk size
    /// (the loop's last chunk may be short); `None` once the loop has none left for this rank.
    fn block(&self, want: u64) -> Option<Chunk>;
}

/// The weight of a new measurement in the rank's running means (chunk time, round trip).
const NEW: f64 = 0.25;
/// The shortest round trip a rank plans with (rank 0's blocks cost a lock, not a message).
const MIN_ROUND_TRIP: Duration = Duration::from_micros(1);
/// The claim word's bits for the chunk index.
const INDEX_BITS: u32 = 40;
const INDEX: u64 = (1 << INDEX_BITS) - 1;
/// The claim word's bits for the block's end (its low 24 bits).
const END: u64 = (1 << 24) - 1;
/// The most chunks one block may hold: a claim past the end reads a distance above it.
pub(crate) const MAX_BLOCK: u64 = 1 << 23;
/// The most chunks a loop fed blocks may have (the index never reaches the end's bits, with
/// room for the claims past a block's end).
pub(crate) const MAX_CHUNKS: u64 = INDEX - (1 << 20);
/// The most threads a rank fed blocks may have (a block of 256 chunks per thread fits).
pub(crate) const MAX_THREADS: u64 = MAX_BLOCK / MAX_BLOCK_CHUNKS;

/// Whether a loop of `n` iterates in chunks of `c` on `k` threads fits the claim word: at most
/// [`MAX_CHUNKS`] chunks, at most [`MAX_THREADS`] threads.
pub(crate) fn fits(n: u64, c: u64, k: usize) -> bool {
    n.div_ceil(c.max(1)) <= MAX_CHUNKS && k as u64 <= MAX_THREADS
}

/// The claim word of a block whose next chunk is `k` and whose end is `end` (exclusive).
fn word(k: u64, end: u64) -> u64 {
    ((end & END) << INDEX_BITS) | k
}

/// What a claim that read `word` gets: its chunk's index and how many chunks the block holds
/// after it; `None` when the block is spent (the claim was past its end).
#[inline]
pub(crate) fn claimed(word: u64) -> Option<(u64, u64)> {
    let k = word & INDEX;
    let ahead = (word >> INDEX_BITS).wrapping_sub(k) & END;
    (1..=MAX_BLOCK).contains(&ahead).then(|| (k, ahead - 1))
}

/// The blocks of one rank's loop, and how it asks for them.
pub(crate) struct Fed {
    feed: Box<dyn Feed>,
    /// The rank's threads.
    k: u64,
    /// The technique's chunk size.
    c: u64,
    state: Mutex<State>,
    /// Blocks installed: what threads waiting for one watch, then sleep on.
    installs: Arrivals,
    /// A block is being fetched or waits in the queue, or none is left: no claim asks early.
    busy: AtomicBool,
    /// A claim that leaves fewer chunks than this in its block asks for the next one.
    low_water: AtomicU64,
}

impl std::fmt::Debug for Fed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fed")
            .field("k", &self.k)
            .field("c", &self.c)
            .finish_non_exhaustive()
    }
}

#[derive(Debug)]
struct State {
    /// Blocks not yet installed: first chunk index, chunks.
    queue: VecDeque<(u64, u64)>,
    fetching: bool,
    /// The feed has no more blocks.
    done: bool,
    /// No block asked for yet.
    first: bool,
    /// Running means: seconds a chunk's iterates take (its work time), seconds a request's
    /// round trip takes.
    chunk_s: Option<f64>,
    round_trip_s: f64,
    /// The chunks the rank keeps in hand ([`block_target`]).
    target: u64,
    /// Threads waiting for a block.
    waiting: usize,
}

/// What a thread measured since its last sample: iterates finished and their work time.
pub(crate) type Sample = (u64, f64);

impl Fed {
    /// The blocks of `feed` for `k` threads claiming chunks of `c` iterates; a thread waiting for
    /// a block watches for it for `watch` before it sleeps.
    pub(crate) fn new(feed: Box<dyn Feed>, k: usize, c: u64, watch: Duration) -> Fed {
        let k = (k as u64).clamp(1, MAX_THREADS);
        Fed {
            feed,
            k,
            c: c.max(1),
            state: Mutex::new(State {
                queue: VecDeque::new(),
                fetching: false,
                done: false,
                first: true,
                chunk_s: None,
                round_trip_s: MIN_ROUND_TRIP.as_secs_f64(),
                target: k,
                waiting: 0,
            }),
            installs: Arrivals::new(watch),
            busy: AtomicBool::new(false),
            low_water: AtomicU64::new(0),
        }
    }

    /// The claim word before any block: spent.
    pub(crate) fn empty_word() -> u64 {
        word(0, 0)
    }

    /// Whether a claim that leaves `ahead` chunks in its block should ask for the next block.
    #[inline]
    pub(crate) fn low(&self, ahead: u64) -> bool {
        ahead < self.low_water.load(Ordering::Relaxed) && !self.busy.load(Ordering::Relaxed)
    }

    /// Every block handed to the rank is spent and the feed has no more.
    pub(crate) fn all_out(&self, next: &AtomicU64) -> bool {
        let st = lock(&self.state);
        st.done && st.queue.is_empty() && claimed(next.load(Ordering::Acquire)).is_none()
    }

    /// Whether the feed said it has no more blocks (the rank got its empty reply).
    pub(crate) fn done(&self) -> bool {
        lock(&self.state).done
    }

    /// The rank leaves the loop (its end, or the explicit API's loop finished early): no block
    /// is asked for any more.
    pub(crate) fn close(&self) {
        let mut st = lock(&self.state);
        st.done = true;
        st.queue.clear();
        self.busy.store(true, Ordering::Relaxed);
    }

    /// A claim found the block in `next` spent: installs the next block (queued, or asked for
    /// now, or waited for while another thread asks). `false`: the rank has no more.
    pub(crate) fn refill(&self, next: &AtomicU64, sample: Sample) -> bool {
        let mut sample = Some(sample);
        let mut st = lock(&self.state);
        loop {
            if claimed(next.load(Ordering::Acquire)).is_some() {
                return true;
            }
            if let Some(block) = st.queue.pop_front() {
                self.install(next, &st, block);
                return true;
            }
            if st.done {
                return false;
            }
            if st.fetching {
                st = self.wait(st);
                continue;
            }
            let want = if st.first { self.k } else { st.target };
            st = self.fetch(next, st, want, sample.take());
        }
    }

    /// A claim left `ahead` chunks in its block, fewer than half the target: asks for the next
    /// block now, enough to fill the rank's hand to the target, unless one is asked for already.
    pub(crate) fn ask_early(&self, next: &AtomicU64, ahead: u64, sample: Sample) {
        let st = lock(&self.state);
        if st.fetching || st.done || !st.queue.is_empty() {
            return;
        }
        let want = st.target.saturating_sub(ahead).max(1);
        drop(self.fetch(next, st, want, Some(sample)));
    }

    /// Installs `block` in `next` (whose block is spent), with the state locked.
    fn install(&self, next: &AtomicU64, st: &State, (first, chunks): (u64, u64)) {
        next.store(word(first, first + chunks), Ordering::Release);
        self.busy.store(
            st.fetching || st.done || !st.queue.is_empty(),
            Ordering::Relaxed,
        );
        self.installs.arrived(st.waiting > 0);
    }

    /// Asks the feed for `want` chunks with the state unlocked meanwhile, queues the block (or
    /// marks the feed done) and installs it at once if the block in `next` is spent.
    fn fetch<'a>(
        &'a self,
        next: &AtomicU64,
        mut st: MutexGuard<'a, State>,
        want: u64,
        sample: Option<Sample>,
    ) -> MutexGuard<'a, State> {
        st.first = false;
        st.fetching = true;
        self.busy.store(true, Ordering::Relaxed);
        drop(st);
        let asked = Instant::now();
        let block = self.feed.block(want.min(MAX_BLOCK) * self.c);
        let trip = asked.elapsed().max(MIN_ROUND_TRIP).as_secs_f64();
        let mut st = lock(&self.state);
        st.round_trip_s += NEW * (trip - st.round_trip_s);
        if let Some((iterates, work_s)) = sample.filter(|s| s.0 > 0) {
            let per_chunk = work_s / iterates as f64 * self.c as f64;
            let c = st.chunk_s.get_or_insert(per_chunk);
            *c += NEW * (per_chunk - *c);
        }
        st.target = block_target(self.k, st.chunk_s, st.round_trip_s);
        self.low_water.store(st.target / 2, Ordering::Relaxed);
        match block.filter(|b| b.size > 0) {
            Some(b) => {
                let chunks = b.size.div_ceil(self.c);
                debug_assert_eq!(b.start % self.c, 0, "a block starts at a chunk");
                st.queue.push_back((b.start / self.c, chunks));
            }
            None => st.done = true,
        }
        st.fetching = false;
        if claimed(next.load(Ordering::Acquire)).is_none() {
            if let Some(block) = st.queue.pop_front() {
                self.install(next, &st, block);
                return st;
            }
        }
        self.busy
            .store(st.done || !st.queue.is_empty(), Ordering::Relaxed);
        if st.waiting > 0 {
            self.installs.wake();
        }
        st
    }

    /// Waits, with the state locked and a block being fetched by another thread, until it was
    /// installed or the feed is done.
    fn wait<'a>(&'a self, st: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.installs
            .wait(&self.state, st, |st| &mut st.waiting, |st| st.fetching)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A claim word hands out its block's chunks in order, then reads as spent, also after
    /// claims past the end, and across the end's 24-bit wrap.
    #[test]
    fn a_claim_word_hands_out_its_block_once() {
        for (first, chunks) in [
            (0u64, 1u64),
            (5, 3),
            ((1 << 24) - 2, 5),
            (MAX_CHUNKS - 9, 9),
        ] {
            let next = AtomicU64::new(word(first, first + chunks));
            for i in 0..chunks {
                let w = next.fetch_add(1, Ordering::Relaxed);
                assert_eq!(claimed(w), Some((first + i, chunks - 1 - i)), "{first}+{i}");
            }
            for _ in 0..1000 {
                assert_eq!(claimed(next.fetch_add(1, Ordering::Relaxed)), None);
            }
        }
        assert_eq!(claimed(Fed::empty_word()), None);
        let big = AtomicU64::new(word(7, 7 + MAX_BLOCK));
        assert_eq!(
            claimed(big.load(Ordering::Relaxed)),
            Some((7, MAX_BLOCK - 1))
        );
    }

    /// The target follows the round trip and the chunk time, within its bounds.
    #[test]
    fn the_target_is_the_chunks_that_hide_two_round_trips() {
        assert_eq!(block_target(4, None, 1e-3), 4);
        assert_eq!(block_target(4, Some(0.0), 1e-3), 1024);
        assert_eq!(block_target(4, Some(0.5), 5.0), 80);
        // Chunks of 1 ms: 8 a thread; of 5 µs: 10 a thread; of 1.5 µs: 32 a thread.
        assert_eq!(block_target(4, Some(1e-3), 1e-6), 32);
        assert_eq!(block_target(2, Some(5e-6), 1e-6), 20);
        assert_eq!(block_target(2, Some(1.5e-6), 1e-6), 64);
        assert_eq!(block_target(1, Some(1e-3), 1e-6), 1);
        assert_eq!(block_target(1, Some(1.5e-6), 1e-6), 2);
        assert_eq!(block_target(2, Some(1e-9), 1e-3), 512);
    }

    /// A feed of a range in blocks of what is asked for, counting its calls.
    struct Range {
        c: u64,
        n: u64,
        at: Mutex<u64>,
        calls: AtomicU64,
    }

    impl Feed for std::sync::Arc<Range> {
        fn block(&self, want: u64) -> Option<Chunk> {
            self.calls.fetch_add(1, Ordering::Relaxed);
            std::thread::yield_now();
            let mut at = lock(&self.at);
            let size = want.div_ceil(self.c) * self.c;
            let size = size.min(self.n - *at);
            (size > 0).then(|| {
                let b = Chunk { start: *at, size };
                *at += size;
                b
            })
        }
    }

    /// Threads claiming from blocks fed one at a time take every chunk of the range once, and
    /// the early asks keep a block queued (fewer refills than blocks).
    #[test]
    fn threads_claiming_fed_blocks_take_every_chunk_once() {
        for (c, n, k) in [
            (1u64, 20_000u64, 4usize),
            (3, 10_001, 3),
            (7, 5, 2),
            (1, 0, 2),
        ] {
            let range = std::sync::Arc::new(Range {
                c,
                n,
                at: Mutex::new(0),
                calls: AtomicU64::new(0),
            });
            let fed = Fed::new(Box::new(range.clone()), k, c, Duration::from_micros(20));
            let next = AtomicU64::new(Fed::empty_word());
            let taken: Vec<Vec<u64>> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..k)
                    .map(|_| {
                        let (fed, next) = (&fed, &next);
                        s.spawn(move || {
                            let mut mine = Vec::new();
                            loop {
                                let w = next.fetch_add(1, Ordering::Relaxed);
                                if let Some((idx, ahead)) = claimed(w) {
                                    if fed.low(ahead) {
                                        fed.ask_early(next, ahead, (1, 1e-7));
                                    }
                                    mine.push(idx);
                                    continue;
                                }
                                if !fed.refill(next, (1, 1e-7)) {
                                    return mine;
                                }
                            }
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let mut all: Vec<u64> = taken.concat();
            all.sort_unstable();
            assert_eq!(all, (0..n.div_ceil(c)).collect::<Vec<_>>(), "c {c}, n {n}");
            assert!(fed.all_out(&next));
        }
    }
}
