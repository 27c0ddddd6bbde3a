//! Splitting a running chunk for an idle worker (a dls choice, on with re-execution).
//!
//! Every technique sizes its chunks in iterates. When the cost of an iterate follows its index
//! (the dear middle rows of a Mandelbrot image), a chunk handed out near the loop's end can hold
//! more work than everything left to the others, and they idle until it ends: under `mpirun -np
//! 2`, on a 500×500 Mandelbrot image one pixel per iterate, rank 0's last AWF-C chunk of 23,713
//! pixels ran 31 ms while rank 1 finished the rest and idled 22 ms (of a 224 ms loop); FAC2's
//! loops ended with 8-14 ms of idle time on one rank. Re-execution (`runtime/tolerance/reexecution.rs`)
//! does not help there: a copy of a chunk that is merely long starts from its first iterate and
//! cannot finish before the original.
//!
//! So when a worker asks and every iterate has been handed out, the scheduler first looks for a
//! chunk it can **split**: a chunk held by a worker of the scheduler's own process (a thread of
//! the threads backend, or rank 0's compute thread under MPI) whose iterates not yet started
//! would take, at the pace of the chunk so far, at least [`SPLIT_MIN`]. The holder keeps the first
//! half of what it has not started and the asking worker gets the second half as a chunk of its
//! own. Each idle worker that asks splits the largest such remainder again, so the loop's end
//! comes within about [`SPLIT_MIN`] of perfect balance.
//!
//! **Chunks on other MPI ranks.** The scheduler does not see another rank's progress, so it
//! asks: it sends the rank whose chunk should take longest (a guess from the rank's measured
//! pace) a `TAG_SPLIT` message naming the chunk, and the asking worker waits. The holder looks
//! for asks every [`SPLIT_POLL`] inside a chunk (one `MPI_Improbe`); it splits its own cell as
//! the scheduler does for a local chunk, if at least [`SPLIT_MIN`] is left at its pace, and
//! answers with the split point before its next request (or refuses); the part split off goes
//! to the next idle worker. While an answer is due (up to [`ASK_PATIENCE`]) the idle workers
//! wait for it rather than copy the chunk (re-execution). A holder is asked again after it split (what it kept may still be
//! long) or if it had not started the chunk when asked, never after it refused for too little
//! left. A holder that is stopped never
//! answers: its chunk becomes late and is re-executed as before; if it answers after copies
//! were handed out, its prefix is discarded (the copies cover the chunk).
//!
//! **Who gets how much.** When the asking worker's own chunks cannot be split at once (another
//! MPI rank's need an ask and an answer), the holder keeps three quarters and the asker gets the
//! last quarter: if the cost per iterate rises along the chunk, an even split by iterates would
//! give the asker most of the time left, while with a quarter the holder most likely ends last
//! and its remainder can be split once more when the asker comes back (measured under `mpirun
//! -np 2` on Mandelbrot per pixel: see BENCHMARKS.md).
//!
//! **How the holder and the scheduler agree, without a lock.** The holder does not take its
//! chunk's iterates one by one from a counter; it claims them in batches from its slot's
//! [`SplitCell`], one atomic word that holds the chunk's current end (`limit`, high 32 bits) and
//! how far the holder has claimed (`claimed`, low 32 bits), both relative to the chunk's start.
//! A claim is one `fetch_add` of the batch size: the holder runs the claimed iterates below the
//! limit and stops when a claim starts at or past it. The scheduler splits with one
//! compare-and-swap that lowers the limit to a point `s` at or above `claimed`: the swap fails
//! if the holder claimed in between, and the scheduler reads the word again. So the holder runs
//! exactly `[0, s)` and the asking worker `[s, old limit)`: every iterate once. Batches are
//! sized so that one takes 20-80 µs (the claim costs one atomic operation and one clock read), so
//! a split can take all but those microseconds of the remainder.
//!
//! The holder's chunk then counts as the shorter chunk everywhere: its timing (the iterates it
//! reports), the chunk map (its entry shrinks, the new chunk gets an entry of its own, so the
//! map stays a partition of the iterates), the ledger of re-execution and the checkpoints. The
//! technique is not asked: splitting happens only once it has handed out every iterate. The
//! report counts splits (`reexecution.splits`). Chunks of more than [`MAX_SPLIT`] iterates and
//! copies of chunks (re-execution) are never split. Should a holder end a chunk short without
//! the split recorded, the scheduler hands the rest out again (`Ledger::ended_short`).

use crate::runtime::annotate::sync::AtomicU64;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Chunks of more iterates than this are not split (the cell holds 32-bit offsets).
pub(crate) const MAX_SPLIT: u64 = (1 << 31) - 1;

// SPLIT_POLL is read by the MPI backend only.
#[cfg_attr(not(feature = "mpi"), allow(unused_imports))]
pub(crate) use dls_model::tuning::{SPLIT_MIN, SPLIT_POLL};

/// How long an idle worker waits for a holder's answer to an ask before it may take a copy of
/// the chunk instead (re-execution): a hundred of the holder's [`SPLIT_POLL`]s. A holder that
/// answers later still splits consistently (see [`SplitCell`] and `Ledger::split_answer`).
pub(crate) const ASK_PATIENCE: Duration = Duration::from_millis(20);

/// The `limit` of a refusal (`s = 0`) from a holder that had not started the chunk yet, so could
/// not judge how long it has left: it may be asked again.
pub(crate) const NOT_STARTED: u64 = 1;

/// The largest batch a holder claims at once.
pub(crate) const MAX_BATCH: u64 = 1 << 16;

const LOW: u64 = (1 << 32) - 1;

/// One worker slot's chunk in progress: its current end and how far its holder has claimed (see
/// the [module documentation](self)).
///
/// On cache lines of its own (128 bytes, as [`Padded`](crate::runtime::sync::Padded)): the
/// holder writes its cell at every chunk ([`arm`](Self::arm), a claim of a fixed-size chunk),
/// and the workers' cells were 8-byte values allocated one after the other, often on one line.
/// At 2 threads that line went back and forth between the cores at every claim: SS over cheap
/// iterates (`chunk_cost`, ten runs each) paid 131–199 ns a chunk (median 162) against 114–147
/// (median 128) once the cells were apart, where a bare `fetch_add` loop paid 93–125.
#[derive(Debug, Default)]
#[repr(align(128))]
pub(crate) struct SplitCell(AtomicU64);

impl SplitCell {
    /// A chunk of `size` iterates was handed to the slot (by the scheduler, before the worker
    /// gets it): nothing claimed, the limit at its end. A chunk above [`MAX_SPLIT`] leaves the
    /// cell empty: its worker runs it without claims.
    pub(crate) fn arm(&self, size: u64) {
        let word = if size <= MAX_SPLIT { size << 32 } else { 0 };
        self.0.store(word, Ordering::Release);
    }

    /// The holder claims the next `batch` iterates: returns where the claim starts and the
    /// chunk's current limit. The holder runs `[start, min(start + batch, limit))`; a claim
    /// that starts at or past the limit means the chunk is done. `batch` is 1 to
    /// [`MAX_BATCH`] (the claimed count then stays below 2^32).
    pub(crate) fn claim(&self, batch: u64) -> (u64, u64) {
        debug_assert!((1..=MAX_BATCH).contains(&batch));
        let word = self.0.fetch_add(batch, Ordering::AcqRel);
        (word & LOW, word >> 32)
    }

    /// How far the holder has claimed and the chunk's current limit.
    pub(crate) fn state(&self) -> (u64, u64) {
        let word = self.0.load(Ordering::Acquire);
        (word & LOW, word >> 32)
    }

    /// Lowers the limit so that the holder keeps `keep` quarters of what it has not claimed (2:
    /// half; 3: three quarters), at least one iterate each side, if at least
    /// two iterates are left: returns `(s, old limit)`, the holder keeping `[0, s)` and
    /// `[s, old limit)` going to another worker; `None` if too little is left.
    pub(crate) fn split(&self, keep: u64) -> Option<(u64, u64)> {
        let mut word = self.0.load(Ordering::Acquire);
        loop {
            let (claimed, limit) = (word & LOW, word >> 32);
            if limit < claimed.saturating_add(2) {
                return None;
            }
            let left = limit - claimed;
            let s = claimed + (left * keep.min(3) / 4).clamp(1, left - 1);
            match self.0.compare_exchange_weak(
                word,
                (s << 32) | claimed,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Some((s, limit)),
                Err(now) => word = now,
            }
        }
    }

    /// The iterates the slot's chunk of `handed` iterates ended with: its limit, lowered by
    /// splits (a chunk above [`MAX_SPLIT`] is never split).
    pub(crate) fn executed(&self, handed: u64) -> u64 {
        if handed > MAX_SPLIT {
            handed
        } else {
            (self.0.load(Ordering::Acquire) >> 32).min(handed)
        }
    }
}

/// The batch a holder claims next, from the last batch's `size` and how long it took: doubled
/// below 20 µs, halved above 80 µs, within 1 to [`MAX_BATCH`]. (Batches of 5-20 µs cost 1% on
/// iterates of 0.3-4 µs, one clock read and one atomic operation per batch; 20-80 µs is a
/// quarter of that, and a split still gets all but 80 µs of what the holder has left.)
pub(crate) fn next_batch(size: u64, took: Duration) -> u64 {
    if took < Duration::from_micros(20) {
        (size * 2).min(MAX_BATCH)
    } else if took > Duration::from_micros(80) {
        (size / 2).max(1)
    } else {
        size
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Runs a holder claiming batches of `batch` from a chunk of `size` while another thread
    /// splits it as often as it can; returns the holder's iterates and the split-off ranges.
    fn race(size: u64, batch: u64) -> (Vec<u64>, Vec<(u64, u64)>) {
        let cell = Arc::new(SplitCell::default());
        cell.arm(size);
        let holder = {
            let cell = cell.clone();
            std::thread::spawn(move || {
                let mut ran = Vec::new();
                loop {
                    let (start, limit) = cell.claim(batch);
                    if start >= limit {
                        return (ran, limit);
                    }
                    for i in start..(start + batch).min(limit) {
                        ran.push(i);
                        std::hint::spin_loop();
                    }
                }
            })
        };
        let mut taken = Vec::new();
        while !holder.is_finished() {
            if let Some((s, limit)) = cell.split(2) {
                taken.push((s, limit));
            }
        }
        let (ran, limit) = holder.join().unwrap();
        assert_eq!(cell.executed(size), limit);
        assert_eq!(
            ran.len() as u64,
            limit,
            "the holder runs exactly [0, limit)"
        );
        (ran, taken)
    }

    #[test]
    fn the_holder_and_the_splits_cover_every_iterate_once() {
        let mut splits = 0;
        for (size, batch) in [
            (1, 1),
            (2, 1),
            (100, 1),
            (10_000, 1),
            (10_000, 7),
            (50_000, 64),
        ] {
            let (ran, taken) = race(size, batch);
            splits += taken.len();
            let mut seen = vec![0u8; size as usize];
            for i in ran {
                seen[i as usize] += 1;
            }
            for (s, limit) in taken {
                for i in s..limit {
                    seen[i as usize] += 1;
                }
            }
            assert!(seen.iter().all(|&k| k == 1), "size {size}, batch {batch}");
        }
        assert!(splits > 0, "the race split nothing");
    }

    #[test]
    fn a_split_takes_the_second_half_of_what_is_not_claimed() {
        let cell = SplitCell::default();
        cell.arm(100);
        assert_eq!(cell.claim(10), (0, 100));
        assert_eq!(cell.split(2), Some((55, 100)));
        assert_eq!(cell.state(), (10, 55));
        assert_eq!(cell.executed(100), 55);
        assert_eq!(cell.claim(40), (10, 55));
        // 50 claimed, 5 left: the next split leaves the holder 2 of them.
        assert_eq!(cell.split(2), Some((52, 55)));
        assert_eq!(cell.claim(40), (50, 52));
        assert_eq!(cell.split(2), None, "nothing left to split");
        // Three quarters kept: 100 left after 20 claimed, the split-off part is the last 25.
        let cell = SplitCell::default();
        cell.arm(120);
        cell.claim(20);
        assert_eq!(cell.split(3), Some((95, 120)));
        // Two left: one each side whatever the share.
        cell.claim(73);
        assert_eq!(cell.split(3), Some((94, 95)));
        assert_eq!(cell.claim(1), (93, 94));
        assert_eq!(
            cell.claim(1),
            (94, 94),
            "a claim at the limit: the chunk is done"
        );
    }

    #[test]
    fn a_chunk_too_large_for_the_cell_is_never_split() {
        let cell = SplitCell::default();
        cell.arm(MAX_SPLIT + 1);
        assert_eq!(cell.split(2), None);
        assert_eq!(cell.executed(MAX_SPLIT + 1), MAX_SPLIT + 1);
    }

    #[test]
    fn batches_settle_between_20_and_80_us() {
        assert_eq!(next_batch(8, Duration::from_micros(1)), 16);
        assert_eq!(next_batch(8, Duration::from_micros(40)), 8);
        assert_eq!(next_batch(8, Duration::from_micros(100)), 4);
        assert_eq!(next_batch(1, Duration::from_millis(5)), 1);
        assert_eq!(next_batch(MAX_BATCH, Duration::ZERO), MAX_BATCH);
    }
}
