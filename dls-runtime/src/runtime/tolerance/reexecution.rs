//! Re-execution of unfinished chunks (rDLB: Mohammed, Cavelan & Ciorba 2019): the scheduler's
//! ledger of the chunks handed out and not yet confirmed.
//!
//! Once every iterate of a loop has been handed out, a worker that asks for more would otherwise
//! wait for the slowest holder of an unfinished chunk, or forever for a stalled one (a rank
//! stopped by the operating system, an iterate that hangs). With re-execution the scheduler hands
//! it a **copy** of an unfinished chunk instead. The first copy of a chunk to finish is
//! *confirmed* and counts; every later copy is *discarded*. Workers keep each chunk's contribution
//! apart until the reply to their next request says which (`engine::drive::apart::drive_apart`), so every
//! result counts each iterate exactly once.
//!
//! **When a copy is made.** Not at once: in a loop without a sick worker the last chunks are about
//! to finish, and copying them would only burn cores that others need. A chunk is copied when it
//! is *late*: held for longer than [`LATE_FACTOR`] times what its holder needs for a chunk of that
//! size (the holder's own measured time per iterate, or the loop's mean before the holder has
//! finished a chunk), and at least [`LATE_MIN`]; before any chunk has finished, after
//! [`LATE_UNKNOWN`]. A worker that asks while no chunk is late waits until the first one becomes
//! late or the loop completes. A worker that is slow all along is measured as slow, so its chunks
//! are not late by its own pace and are not copied; one that turns slow or stops is. A late chunk
//! of the scheduler's own process whose holder is about to end it (less than `SPLIT_MIN` left at
//! its pace, and still claiming its iterates) is not copied either: the asking worker waits for
//! its end (`ABOUT_TO_END` in `runtime/sched/reporting.rs`).
//!
//! **How.** A late chunk is split into up to P − 1 parts, and each idle worker takes a part (the
//! one with the fewest copies, oldest chunk first), so the workers left re-execute a stalled
//! worker's chunk side by side rather than one of them all of it. A part can itself be copied
//! again once it is late (up to P − 1 stalled workers are covered). The original holder's whole
//! chunk counts only if it finishes before any part; a part counts if it is the first copy of its
//! iterates to finish. A holder whose chunk became redundant (every iterate of it confirmed by
//! another copy) is told so and stops inside the chunk (`Tolerance::cancelled`, asked every few
//! iterates by `engine::drive::apart::drive_apart`); a copy that finishes second is discarded.

use std::collections::{BTreeSet, VecDeque};
use std::time::{Duration, Instant};

use crate::Chunk;

/// A chunk is late once it has been held this many times its expected duration on its holder.
pub(crate) const LATE_FACTOR: f64 = 1.5;
/// ... and never before this long after it was handed out: a worker that shares its core with
/// others (more workers than cores) waits several of the kernel's time slices (a few
/// milliseconds each) now and then, which is no stall.
pub(crate) const LATE_MIN: Duration = Duration::from_millis(50);
/// A chunk handed out before any chunk of the loop finished is late after this long.
pub(crate) const LATE_UNKNOWN: Duration = Duration::from_secs(1);

/// Whether a finished chunk's contribution counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Verdict {
    /// The first copy of the chunk to finish (or the only one): fold it into the result.
    #[default]
    Keep,
    /// Another copy finished first: drop it.
    Discard,
}

/// A range of iterates handed out: a whole chunk, or a part of a late chunk.
#[derive(Debug, Clone)]
struct Piece {
    chunk: Chunk,
    /// The worker that got it last (its pace sets when the piece is late).
    holder: usize,
    /// When it was last handed out.
    handed: Instant,
    /// Workers holding it now.
    holders: u32,
    /// Times it was handed out again.
    copies: u32,
    confirmed: bool,
}

impl Piece {
    fn new(chunk: Chunk, holder: usize, handed: Instant) -> Piece {
        Piece {
            chunk,
            holder,
            handed,
            holders: 0,
            copies: 0,
            confirmed: false,
        }
    }
}

/// A chunk handed out: the whole chunk as its first worker got it and, once it was late, its
/// parts, which idle workers re-execute side by side.
#[derive(Debug, Clone)]
struct Entry {
    whole: Piece,
    parts: Vec<Piece>,
    /// The whole chunk's iterates are all confirmed (by the whole or by every part).
    confirmed: bool,
    /// Its holder (another MPI rank) was asked to split it (`runtime/tolerance/split.rs`) and has not
    /// split it since: it is not asked again (a refusal is final).
    split_asked: bool,
    /// ... and has not answered yet: since when.
    split_pending: Option<Instant>,
    /// Its holder split it after copies of it had been handed out: it runs only a prefix, so
    /// its whole chunk never counts (the copies cover every iterate).
    truncated: bool,
}

/// What a worker holds: an entry, and which part of it (`None`: the whole chunk).
type Held = (u64, Option<u32>);

/// A worker told to stop: the worker and the ordinal (1, 2, …) of the hand-out to it that became
/// redundant. Ordinals, not chunk offsets, name what to stop: a part of a chunk may start where
/// the chunk did, and a late cancellation must not stop the next piece.
pub(crate) type Cancel = (usize, u64);

/// What a worker is told when nothing is left to hand out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tail {
    /// Execute a copy of (part of) an unfinished chunk.
    Copy(Chunk),
    /// Ask again at this time (or when the loop completes, whichever comes first).
    Wait(Instant),
    /// Every chunk is confirmed: the loop is complete.
    Complete,
}

/// The chunks of one loop handed out and not yet confirmed, in the order handed out.
#[derive(Debug)]
pub(crate) struct Ledger {
    /// Sequence number of `entries[0]`.
    base: u64,
    entries: VecDeque<Entry>,
    /// Per worker: what it holds.
    held: Vec<Option<Held>>,
    /// Sequence numbers of the unconfirmed entries (the tail looks at these only).
    open: BTreeSet<u64>,
    /// Copies handed out.
    pub(crate) copies: u64,
    /// Executions dropped because another copy of their iterates finished first.
    pub(crate) discarded_chunks: u64,
    /// Their iterates.
    pub(crate) discarded_iterates: u64,
    /// When the last unconfirmed chunk was confirmed.
    pub(crate) completed: Option<Instant>,
    /// Workers whose chunk (or part) became redundant: every iterate of it is confirmed by
    /// another copy, so they may stop executing it. Taken by the source, which tells them.
    cancels: Vec<Cancel>,
    /// Per worker: whether it has been told that what it holds is redundant.
    told: Vec<bool>,
    /// Per worker: hand-outs so far (the ordinal of what it holds).
    handouts: Vec<u64>,
    /// Calls of the methods a scheduler makes per chunk (tests: a loop without re-execution
    /// makes none).
    #[cfg(test)]
    pub(crate) calls: std::cell::Cell<u64>,
}

impl Ledger {
    /// A ledger for `p` workers.
    pub(crate) fn new(p: usize) -> Ledger {
        Ledger {
            base: 0,
            entries: VecDeque::new(),
            held: vec![None; p],
            open: BTreeSet::new(),
            copies: 0,
            discarded_chunks: 0,
            discarded_iterates: 0,
            completed: None,
            cancels: Vec::new(),
            told: vec![false; p],
            handouts: vec![0; p],
            #[cfg(test)]
            calls: std::cell::Cell::new(0),
        }
    }

    /// The workers to tell that their chunk is redundant (see [`Ledger::finished`]).
    pub(crate) fn take_cancels(&mut self) -> Vec<Cancel> {
        #[cfg(test)]
        self.calls.set(self.calls.get() + 1);
        std::mem::take(&mut self.cancels)
    }

    /// After `seq` gained a confirmation: every other worker holding a piece of it whose
    /// iterates are now all confirmed (a whole chunk once any part of it counted, a part once it
    /// or the whole chunk counted) is to be told to stop.
    fn cancel_redundant(&mut self, seq: u64) {
        let i = self.index(seq);
        let e = &self.entries[i];
        if e.parts.is_empty() {
            return;
        }
        let any_part = e.parts.iter().any(|p| p.confirmed);
        for (w, h) in self.held.iter().enumerate() {
            let Some((s, part)) = *h else { continue };
            if s != seq {
                continue;
            }
            let redundant = match part {
                None => e.confirmed || any_part,
                Some(k) => e.confirmed || e.parts[k as usize].confirmed,
            };
            if redundant && !self.told[w] {
                self.told[w] = true;
                self.cancels.push((w, self.handouts[w]));
            }
        }
    }

    fn index(&self, seq: u64) -> usize {
        usize::try_from(seq - self.base).expect("ledger index")
    }

    /// `worker` got a fresh chunk at `now`.
    pub(crate) fn handed(&mut self, worker: usize, chunk: Chunk, now: Instant) {
        #[cfg(test)]
        self.calls.set(self.calls.get() + 1);
        let seq = self.base + self.entries.len() as u64;
        let mut whole = Piece::new(chunk, worker, now);
        whole.holders = 1;
        self.entries.push_back(Entry {
            whole,
            parts: Vec::new(),
            confirmed: false,
            split_asked: false,
            split_pending: None,
            truncated: false,
        });
        self.open.insert(seq);
        self.held[worker] = Some((seq, None));
        self.handouts[worker] += 1;
        self.completed = None;
    }

    /// `worker` was handed `count` chunks that this ledger did not see (claimed with an atomic
    /// add before the loop's tail, `runtime/sched/claim.rs`, all finished and confirmed): the
    /// ordinal of its next hand-out counts them.
    pub(crate) fn handed_elsewhere(&mut self, worker: usize, count: u64) {
        self.handouts[worker] += count;
    }

    /// The chunk `worker` holds and when it was handed out, if it is a whole chunk of its own
    /// that nobody copies and that is not confirmed: one that may be split (`runtime/tolerance/split.rs`).
    pub(crate) fn whole_held(&self, worker: usize) -> Option<(Instant, Chunk)> {
        let (seq, None) = self.held[worker]? else {
            return None;
        };
        let e = self.entries.get(self.index(seq))?;
        (e.parts.is_empty() && !e.confirmed).then_some((e.whole.handed, e.whole.chunk))
    }

    /// `worker`'s whole chunk (see [`whole_held`](Self::whole_held)) now ends after `size`
    /// iterates: the rest was split off and handed out as a chunk of its own.
    pub(crate) fn shrink(&mut self, worker: usize, size: u64) {
        if let Some((seq, None)) = self.held[worker] {
            let i = self.index(seq);
            let whole = &mut self.entries[i].whole;
            debug_assert!(size >= 1 && size < whole.chunk.size);
            whole.chunk.size = size;
        }
    }

    /// Asks `worker` (another MPI rank) to split its whole chunk: returns the ordinal of the
    /// hand-out to name it by, or `None` if it holds no whole chunk, or was asked and has not
    /// split it since (an answer pending, or a refusal).
    pub(crate) fn ask_split(&mut self, worker: usize, now: Instant) -> Option<u64> {
        let (seq, None) = self.held[worker]? else {
            return None;
        };
        let i = self.index(seq);
        let e = self.entries.get_mut(i)?;
        if e.split_asked || e.confirmed || !e.parts.is_empty() {
            return None;
        }
        e.split_asked = true;
        e.split_pending = Some(now);
        Some(self.handouts[worker])
    }

    /// Whether `worker`'s whole chunk was asked to split already.
    pub(crate) fn split_asked(&self, worker: usize) -> bool {
        let Some((seq, None)) = self.held[worker] else {
            return false;
        };
        self.entries
            .get(self.index(seq))
            .is_some_and(|e| e.split_asked)
    }

    /// When the oldest ask not yet answered was sent, if any.
    pub(crate) fn split_pending_since(&self) -> Option<Instant> {
        self.open
            .iter()
            .filter_map(|&seq| self.entries.get(self.index(seq))?.split_pending)
            .min()
    }

    /// `worker` answered the ask about its `ordinal`-th hand-out: it ends after `s` of the
    /// chunk's iterates, `[s, limit)` being for another worker (`s = 0`: refused; with `limit =`
    /// [`NOT_STARTED`](crate::runtime::tolerance::split::NOT_STARTED), only for now). Returns the
    /// part to hand out, if the chunk can shrink (no copy of it was handed out meanwhile; if
    /// one was, the holder's prefix never counts and the copies cover the chunk).
    pub(crate) fn split_answer(
        &mut self,
        worker: usize,
        ordinal: u64,
        s: u64,
        limit: u64,
    ) -> Option<Chunk> {
        let (seq, None) = self.held[worker]? else {
            return None;
        };
        if self.handouts[worker] != ordinal {
            return None;
        }
        let i = self.index(seq);
        let e = self.entries.get_mut(i)?;
        e.split_pending.take()?;
        if s == 0 {
            // Refused; final unless the holder had not started the chunk (it could not judge).
            if limit == crate::runtime::tolerance::split::NOT_STARTED {
                e.split_asked = false;
            }
            return None;
        }
        if s >= limit || limit != e.whole.chunk.size {
            return None;
        }
        if e.parts.is_empty() && !e.confirmed {
            let c = e.whole.chunk;
            e.whole.chunk.size = s;
            // What the holder kept may be asked about again, by the next idle worker.
            e.split_asked = false;
            Some(Chunk {
                start: c.start + s,
                size: limit - s,
            })
        } else {
            e.truncated = true;
            None
        }
    }

    /// `worker`'s whole chunk ended after `executed` of its iterates (split by its holder): if
    /// fewer than the ledger has, the chunk shrinks to them and the rest is returned, to be
    /// handed out again; if copies of it exist, its holder's prefix will not count (the copies
    /// cover the chunk). A safety net: a split is normally recorded before its holder finishes.
    pub(crate) fn ended_short(&mut self, worker: usize, executed: u64) -> Option<Chunk> {
        #[cfg(test)]
        self.calls.set(self.calls.get() + 1);
        let (seq, None) = self.held[worker]? else {
            return None;
        };
        let i = self.index(seq);
        let e = self.entries.get_mut(i)?;
        let c = e.whole.chunk;
        if executed >= c.size || executed == 0 {
            return None;
        }
        if e.parts.is_empty() && !e.confirmed {
            e.whole.chunk.size = executed;
            Some(Chunk {
                start: c.start + executed,
                size: c.size - executed,
            })
        } else {
            e.truncated = true;
            None
        }
    }

    /// Whether `worker` holds a copy (part) of a chunk rather than a chunk of its own.
    pub(crate) fn holds_copy(&self, worker: usize) -> bool {
        #[cfg(test)]
        self.calls.set(self.calls.get() + 1);
        matches!(self.held[worker], Some((_, Some(_))))
    }

    /// `worker` finished what it held (at `now`): `Keep` if none of its iterates was confirmed
    /// before (it confirms them), else `Discard`. `None` if it held nothing (a request after a
    /// wait).
    pub(crate) fn finished(&mut self, worker: usize, now: Instant) -> Option<Verdict> {
        #[cfg(test)]
        self.calls.set(self.calls.get() + 1);
        let (seq, part) = self.held[worker].take()?;
        let i = self.index(seq);
        let e = &mut self.entries[i];
        self.told[worker] = false;
        let verdict = match part {
            None => {
                e.whole.holders -= 1;
                // An ask its holder did not see before it finished: no answer will come.
                e.split_pending = None;
                // The whole chunk counts only if no part of it has: parts overlap it.
                if e.confirmed || e.truncated || e.parts.iter().any(|p| p.confirmed) {
                    Verdict::Discard
                } else {
                    e.whole.confirmed = true;
                    e.confirmed = true;
                    Verdict::Keep
                }
            }
            Some(k) => {
                let k = k as usize;
                e.parts[k].holders -= 1;
                if e.confirmed || e.parts[k].confirmed {
                    Verdict::Discard
                } else {
                    e.parts[k].confirmed = true;
                    e.confirmed = e.parts.iter().all(|p| p.confirmed);
                    Verdict::Keep
                }
            }
        };
        match verdict {
            Verdict::Discard => {
                let size = match part {
                    None => e.whole.chunk.size,
                    Some(k) => e.parts[k as usize].chunk.size,
                };
                self.discarded_chunks += 1;
                self.discarded_iterates += size;
            }
            Verdict::Keep => {
                if e.confirmed && self.open.remove(&seq) && self.open.is_empty() {
                    self.completed = Some(now);
                }
                self.cancel_redundant(seq);
            }
        }
        // Forget confirmed chunks at the front that no worker holds any more.
        while self.entries.front().is_some_and(|e| {
            e.confirmed && e.whole.holders == 0 && e.parts.iter().all(|p| p.holders == 0)
        }) {
            self.entries.pop_front();
            self.base += 1;
        }
        Some(verdict)
    }

    /// Chunks handed out and not confirmed.
    pub(crate) fn unconfirmed(&self) -> usize {
        #[cfg(test)]
        self.calls.set(self.calls.get() + 1);
        self.open.len()
    }

    /// What `worker` (which holds nothing) gets once every iterate has been handed out. `pace(w)`
    /// is worker `w`'s measured seconds per iterate, or the loop's mean, or `None` before any
    /// chunk finished. A late chunk is split into up to `p - 1` parts, one per worker that may
    /// help, so that the workers left re-execute a stalled worker's chunk side by side.
    pub(crate) fn tail(
        &mut self,
        worker: usize,
        now: Instant,
        pace: impl Fn(usize) -> Option<f64>,
    ) -> Tail {
        #[cfg(test)]
        self.calls.set(self.calls.get() + 1);
        if self.open.is_empty() {
            return Tail::Complete;
        }
        let helpers = (self.held.len().saturating_sub(1)).max(1) as u64;
        let late_at = |p: &Piece| p.handed + late_after(p.chunk.size, pace(p.holder));
        // (copies, entry index, part) of the best candidate; and the earliest deadline.
        let mut best: Option<(u32, usize, usize)> = None;
        let mut wake: Option<Instant> = None;
        let mut earliest = |at: Instant| wake = Some(wake.map_or(at, |w: Instant| w.min(at)));
        let seqs: Vec<u64> = self.open.iter().copied().collect();
        for seq in seqs {
            let i = self.index(seq);
            if self.entries[i].parts.is_empty() {
                let at = late_at(&self.entries[i].whole);
                if at > now {
                    earliest(at);
                    continue;
                }
                // Late: split it into parts for the workers that may help.
                let e = &mut self.entries[i];
                let c = e.whole.chunk;
                let m = c.size.min(helpers);
                e.parts = (0..m)
                    .map(|k| {
                        let lo = c.size * k / m;
                        let hi = c.size * (k + 1) / m;
                        Piece::new(
                            Chunk {
                                start: c.start + lo,
                                size: hi - lo,
                            },
                            worker,
                            now,
                        )
                    })
                    .collect();
            }
            let e = &self.entries[i];
            for (k, part) in e.parts.iter().enumerate() {
                if part.confirmed {
                    continue;
                }
                if part.holders > 0 {
                    let at = late_at(part);
                    if at > now {
                        earliest(at);
                        continue;
                    }
                }
                if best.is_none_or(|(c, _, _)| part.copies < c) {
                    best = Some((part.copies, i, k));
                }
            }
        }
        match best {
            Some((_, i, k)) => {
                let part = &mut self.entries[i].parts[k];
                part.copies += 1;
                part.holders += 1;
                part.holder = worker;
                part.handed = now;
                self.copies += 1;
                self.held[worker] = Some((self.base + i as u64, Some(k as u32)));
                self.handouts[worker] += 1;
                Tail::Copy(part.chunk)
            }
            None => Tail::Wait(wake.unwrap_or(now + LATE_MIN)),
        }
    }
}

/// How long after it was handed out a chunk of `size` iterates is late, given its holder's pace
/// (seconds per iterate).
pub(crate) fn late_after(size: u64, pace: Option<f64>) -> Duration {
    match pace {
        Some(p) if p.is_finite() && p >= 0.0 => {
            Duration::from_secs_f64((LATE_FACTOR * p * size as f64).min(1e9)).max(LATE_MIN)
        }
        _ => LATE_UNKNOWN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(start: u64, size: u64) -> Chunk {
        Chunk { start, size }
    }

    #[test]
    fn the_first_copy_to_finish_counts_and_later_ones_are_discarded() {
        let t0 = Instant::now();
        let mut l = Ledger::new(3);
        l.handed(0, c(0, 100), t0);
        l.handed(1, c(100, 10), t0);
        assert_eq!(l.finished(1, t0), Some(Verdict::Keep));
        // Worker 1 asks before chunk 0 is late (pace 1 ms per iterate: late after 150 ms).
        let pace = |_| Some(1e-3);
        let soon = t0 + Duration::from_millis(5);
        assert_eq!(
            l.tail(1, soon, pace),
            Tail::Wait(t0 + Duration::from_millis(150))
        );
        // Late: split into p - 1 = 2 parts, one for each worker that may help.
        let late = t0 + Duration::from_millis(151);
        assert_eq!(l.tail(1, late, pace), Tail::Copy(c(0, 50)));
        assert_eq!(l.tail(2, late, pace), Tail::Copy(c(50, 50)));
        assert_eq!(l.copies, 2);
        // The parts finish first and count; the original holder's work is dropped, and it is told
        // to stop as soon as one part counted.
        assert_eq!(l.finished(1, late), Some(Verdict::Keep));
        assert_eq!(l.take_cancels(), vec![(0, 1)], "worker 0's first hand-out");
        assert_eq!(l.completed, None);
        assert_eq!(l.finished(2, late), Some(Verdict::Keep));
        assert_eq!(l.completed, Some(late));
        assert_eq!(l.tail(2, late, pace), Tail::Complete);
        assert_eq!(l.finished(0, late), Some(Verdict::Discard));
        assert_eq!((l.discarded_chunks, l.discarded_iterates), (1, 100));
        assert_eq!(l.finished(0, late), None);
        assert!(l.entries.is_empty());
    }

    #[test]
    fn the_whole_chunk_counts_if_no_part_finished_first() {
        let t0 = Instant::now();
        let mut l = Ledger::new(2);
        l.handed(0, c(0, 4), t0);
        let late = t0 + LATE_UNKNOWN;
        assert_eq!(l.tail(1, late, |_| None), Tail::Copy(c(0, 4)));
        assert_eq!(l.finished(0, late), Some(Verdict::Keep));
        assert_eq!(l.unconfirmed(), 0);
        assert_eq!(l.finished(1, late), Some(Verdict::Discard));
        // A part that finished first makes the whole chunk's execution overlap: it is dropped
        // and the other parts are still needed.
        let mut l = Ledger::new(3);
        l.handed(0, c(0, 4), t0);
        assert_eq!(l.tail(1, late, |_| None), Tail::Copy(c(0, 2)));
        assert_eq!(l.finished(1, late), Some(Verdict::Keep));
        assert_eq!(l.finished(0, late), Some(Verdict::Discard));
        assert_eq!(l.unconfirmed(), 1);
        assert_eq!(l.tail(0, late, |_| None), Tail::Copy(c(2, 2)));
        assert_eq!(l.finished(0, late), Some(Verdict::Keep));
        assert_eq!(l.tail(1, late, |_| None), Tail::Complete);
    }

    #[test]
    fn a_chunk_is_late_by_its_holders_pace() {
        assert_eq!(late_after(100, Some(1e-3)), Duration::from_millis(150));
        assert_eq!(late_after(1, Some(1e-6)), LATE_MIN);
        assert_eq!(late_after(1000, Some(1e-3)), Duration::from_millis(1500));
        assert_eq!(late_after(1, None), LATE_UNKNOWN);
        assert_eq!(late_after(1, Some(f64::NAN)), LATE_UNKNOWN);
    }

    /// Property: whatever the order in which workers finish, stall or take copies, every chunk
    /// is confirmed exactly once and the loop completes while a worker is still alive.
    #[test]
    fn every_chunk_is_confirmed_once_whatever_stalls() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut rand = move |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for case in 0..300 {
            let p = 1 + rand(5) as usize;
            let chunks = 1 + rand(20);
            let stalled: Vec<bool> = (0..p).map(|w| w > 0 && rand(3) == 0).collect();
            let t0 = Instant::now();
            let mut now = t0;
            let mut l = Ledger::new(p);
            let mut next = 0u64;
            let mut kept = vec![0u32; (chunks * 4) as usize];
            let mut holding: Vec<Option<Chunk>> = vec![None; p];
            let mut steps = 0;
            loop {
                steps += 1;
                assert!(steps < 100_000, "case {case}: no progress");
                now += Duration::from_millis(1 + rand(5));
                let w = rand(p as u64) as usize;
                if stalled[w] && holding[w].is_some() {
                    continue;
                }
                if let Some(ch) = holding[w].take() {
                    if l.finished(w, now) == Some(Verdict::Keep) {
                        for i in ch.start..ch.start + ch.size {
                            kept[i as usize] += 1;
                        }
                    }
                }
                if next < chunks {
                    let ch = c(next * 4, 4);
                    next += 1;
                    l.handed(w, ch, now);
                    holding[w] = Some(ch);
                    continue;
                }
                match l.tail(w, now, |_| Some(1e-3)) {
                    Tail::Copy(ch) => holding[w] = Some(ch),
                    Tail::Wait(_) => {}
                    Tail::Complete => break,
                }
            }
            assert!(kept.iter().all(|&k| k == 1), "case {case}: {kept:?}");
            assert_eq!(l.unconfirmed(), 0);
        }
    }
}
