//! The worker loop of a loop whose chunks its workers claim themselves (`runtime/sched/claim.rs`:
//! a fixed-size technique on threads): per chunk one clock read, one lock of the worker's own log
//! (taken by nobody else until the loop's end or tail) and the atomic add of the claim, with no
//! virtual call and no shared count written; the chunk's iterates run as in
//! [`drive`](super::direct::drive). It is the plain worker loop's fast path:
//! what it does per chunk is what `UntypedLoop::next` and the source would do, and what it
//! tallies goes to the loop's caller record once, at its end.
//!
//! In a loop that re-executes unfinished chunks, each chunk's value is kept apart until the
//! worker's next claim says whether it counts (as `drive_apart` does): while chunks are claimed,
//! each counts; once the loop's tail is the scheduler's ([`Claimed::Tail`]), the worker goes on in
//! [`drive_apart`](super::apart::drive_apart) with its value so far and its last
//! chunk's value, whose verdict the scheduler gives. It runs only chunks of one iterate there (a
//! larger chunk may become a copy's original while it runs: `drive_apart` asks after each
//! iterate whether it still counts, and may split it).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::chunk::{run_chunk, Failure};
use crate::runtime::loops::handle::{Iterates, Loop, Panics};
use crate::runtime::loops::panic_ctx::{self, payload_text};
use crate::runtime::loops::range::LoopIndex;
use crate::runtime::loops::source::Tally;
use crate::runtime::observe::cpu_clock;
use crate::runtime::sched::claim::{Claimed, Claims};
use crate::ChunkTiming;

/// How a claiming worker ended.
pub(crate) enum Ended<T> {
    /// The loop has no more chunks for it: its value.
    Done(T),
    /// The loop's tail is the scheduler's: its value so far (every chunk that counted), and its
    /// last chunk's value with the chunk's start and size if that chunk's verdict is to come.
    Tail {
        kept: T,
        pending: Option<(T, u64, u64)>,
        ordinal: u64,
    },
}

/// How the claiming worker keeps its chunks' values.
pub(crate) enum Keep<'a, Id, C> {
    /// Into the worker's value directly (no re-execution).
    Direct,
    /// Apart until the next claim (re-execution): each chunk from `identity()`, merged with
    /// `combine`.
    Apart { identity: &'a Id, combine: &'a C },
}

/// Pulls claimed chunks of `lp` as worker `slot` until none is left or the tail is the
/// scheduler's, folding every iterate into `acc` with `body` (see the module docs).
pub(crate) fn drive_claimed<I, T, Id, B, C>(
    lp: &Loop<I>,
    slot: usize,
    claims: &Claims,
    mut acc: T,
    keep: Keep<'_, Id, C>,
    mut body: B,
    panics: Panics,
) -> Result<Ended<T>, Failure>
where
    I: LoopIndex,
    Id: Fn() -> T,
    B: FnMut(Iterates<I>, &mut T),
    C: Fn(T, T) -> T,
{
    #[cfg(test)]
    probe::CLAIMED.lock().unwrap().push(lp.name().to_string());
    let source = lp.core().source();
    let stop = source.stop_flag();
    // Armed at every claim where chunks may be split, so that the scheduler, once the tail is
    // its, reads the chunk in progress (one iterate here: never split) as every other.
    let cell = source.tolerance().and_then(|t| t.split_cell(slot));
    // The loop's name for a merge's panic message, set once (each merge only marks itself).
    let _merges = panic_ctx::merges_of(lp.core().name.clone());
    let mut tally = Tally::default();
    // The previous chunk: its size, when it was handed, and (apart) its value.
    let mut last: Option<(u64, Instant)> = None;
    let mut pending: Option<(T, u64, u64)> = None;
    let mut cpu_from: Option<f64> = None;
    let reads_cpu = lp.core().reads_cpu_clock();
    let merge = |acc: T, part: T, keep: &Keep<'_, Id, C>| -> Result<T, Failure> {
        let Keep::Apart { combine, .. } = keep else {
            return Ok(acc);
        };
        let _merging = panic_ctx::merging();
        if panics == Panics::Unwind {
            return Ok(combine(acc, part));
        }
        catch_unwind(AssertUnwindSafe(|| combine(acc, part))).map_err(|payload| {
            lp.abort();
            Failure {
                merging: true,
                worker: slot,
                iterate: String::new(),
                message: payload_text(payload.as_ref()),
            }
        })
    };
    let mut clock = ClaimClock::new(claims.timed());
    loop {
        let (now, read) = clock.now();
        let finished = last.map(|(size, handed)| {
            // Between two reads of the clock a chunk took no time; the chunk at a read took
            // every chunk's since the last: the sums are the worker's times.
            let took = if read {
                now.saturating_duration_since(handed).as_secs_f64()
            } else {
                0.0
            };
            ChunkTiming {
                iterates: size,
                work_s: took,
                elapsed_s: took,
            }
        });
        let stopped = stop.is_some_and(|s| s.load(Ordering::Relaxed));
        let claimed = claims.next(slot, finished, now, stopped, cell);
        let counted = !matches!(claimed, Claimed::Tail { recorded: false });
        if let (Some(t), true) = (&finished, counted) {
            tally.finished(t);
            if let Some((part, _, _)) = pending.take() {
                acc = merge(acc, part, &keep)?;
            }
        }
        let chunk = match claimed {
            Claimed::Chunk(c) => c,
            Claimed::Done => {
                lp.left();
                if let (false, Some((_, handed))) = (read, last) {
                    // The worker's last claim: the chunks since the clock's last read count
                    // their time (the worker's work time).
                    tally.work_s += Instant::now()
                        .saturating_duration_since(handed)
                        .as_secs_f64();
                }
                let cpu_s = match (cpu_from, cpu_from.and_then(|_| cpu_clock::thread_cpu_s())) {
                    (Some(from), Some(to)) => (to - from).max(0.0),
                    _ => 0.0,
                };
                lp.core().absorb_claimed(slot, tally, cpu_s, None, None);
                return Ok(Ended::Done(acc));
            }
            Claimed::Tail { .. } => {
                // The scheduler goes on: the last chunk's timing with the next request, unless
                // it was recorded here (then it counted, above).
                let open = last.filter(|_| !counted);
                lp.core().absorb_claimed(slot, tally, 0.0, open, cpu_from);
                return Ok(Ended::Tail {
                    kept: acc,
                    pending,
                    ordinal: tally.chunks,
                });
            }
        };
        tally.chunks += 1;
        if cpu_from.is_none() && reads_cpu {
            cpu_from = cpu_clock::thread_cpu_s();
        }
        // A nanosecond after the request, as `UntypedLoop::next` does for a source that answers
        // at once: the report's chunk times keep a worker's chunks apart.
        last = Some((chunk.size, now + Duration::from_nanos(1)));
        let range = lp.claimed_range(chunk, slot, panics);
        let mut part = match &keep {
            Keep::Direct => None,
            Keep::Apart { identity, .. } => Some(identity()),
        };
        let target = part.as_mut().unwrap_or(&mut acc);
        run_chunk(lp, slot, panics, range, |c| {
            body(c.take_run(u64::MAX), &mut *target)
        })?;
        if let Some(part) = part {
            pending = Some((part, chunk.start, chunk.size));
        }
    }
}

/// The time of a claim. Where the loop's chunk times are read (its report), the clock is read
/// at every claim. Elsewhere (a `#[par_doall]` loop without `DLS_REPORT`: [`Claims::untimed`])
/// at every `stride`-th claim only, the stride doubling while the reads come less than
/// [`CLOCK_GAP`]`.0` apart and back to 1 when more than `.1`: on cheap iterates a clock read
/// (tens of nanoseconds) would be a large part of a chunk's cost, and on dear ones every claim
/// still reads it. What the times are still for — the worker's work time (the re-execution
/// ledger's pace, at the loop's tail), the progress count, when a chunk was handed — is then
/// late by at most the gap's upper end while the chunks' cost stays, and by one stride's chunks
/// when they turn dear (the next read sets the stride back to 1). A chunk's time is 0 between
/// reads and every chunk's since the last read at a read, and the worker's last claim adds the
/// time since the last read ([`drive_claimed`]), so a worker's summed time is its time. At the loop's tail the re-execution ledger may see a chunk handed out earlier than it
/// was, and copy it sooner: a copy the original then beats is discarded (exactly once holds).
struct ClaimClock {
    exact: bool,
    stride: u32,
    left: u32,
    last: Instant,
}

/// Reads of the clock closer than `.0` double the stride, further than `.1` set it to 1.
const CLOCK_GAP: (Duration, Duration) = (Duration::from_micros(5), Duration::from_micros(50));
/// The largest stride.
const CLOCK_STRIDE_MAX: u32 = 256;

impl ClaimClock {
    fn new(exact: bool) -> ClaimClock {
        ClaimClock {
            exact,
            stride: 1,
            left: 0,
            last: Instant::now(),
        }
    }

    /// The time of this claim, and whether the clock was read for it (else: the last read's).
    #[inline]
    fn now(&mut self) -> (Instant, bool) {
        if self.exact {
            return (Instant::now(), true);
        }
        if self.left > 0 {
            self.left -= 1;
            return (self.last, false);
        }
        let now = Instant::now();
        let gap = now.saturating_duration_since(self.last);
        if gap < CLOCK_GAP.0 {
            self.stride = (self.stride * 2).min(CLOCK_STRIDE_MAX);
        } else if gap > CLOCK_GAP.1 {
            self.stride = 1;
        }
        self.left = self.stride - 1;
        self.last = now;
        (now, true)
    }
}

/// Which loops' workers claimed their chunks, by name (the engine's tests read it).
#[cfg(test)]
pub(crate) mod probe {
    pub(crate) static CLAIMED: crate::runtime::annotate::sync::Mutex<Vec<String>> =
        crate::runtime::annotate::sync::Mutex::new(Vec::new());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An exact clock reads at every claim; a strided one reads at fewer claims on cheap chunks,
    /// at every claim again once chunks take long, and the times it gives never run backwards.
    #[test]
    fn the_claim_clock_reads_less_often_only_while_chunks_are_cheap() {
        let mut exact = ClaimClock::new(true);
        assert!((0..100).all(|_| exact.now().1));

        let mut clock = ClaimClock::new(false);
        let mut last = clock.now().0;
        let mut reads = 0;
        for _ in 0..100_000 {
            let (now, read) = clock.now();
            assert!(now >= last);
            last = now;
            reads += usize::from(read);
        }
        // (A preemption resets the stride to 1 for a few reads: the count, not the last
        // stride, is what holds on a loaded machine.)
        assert!(reads < 10_000, "{reads} reads in 100,000 cheap claims");
        // Chunks of 100 µs (more than the gap's upper end): back to a read at every claim at
        // the next read, at most a stride later.
        for _ in 0..=CLOCK_STRIDE_MAX {
            let (_, _) = clock.now();
            let t = Instant::now();
            while t.elapsed() < Duration::from_micros(100) {}
        }
        assert_eq!(clock.stride, 1);
        assert!((0..5).all(|_| {
            let read = clock.now().1;
            let t = Instant::now();
            while t.elapsed() < Duration::from_micros(100) {}
            read
        }));
    }
}
