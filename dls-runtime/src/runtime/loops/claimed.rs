//! The worker loop of a loop whose chunks its workers claim themselves (`runtime/sched/claim.rs`:
//! a fixed-size technique on threads): per chunk one clock read, one lock of the worker's own log
//! (taken by nobody else until the loop's end or tail) and the atomic add of the claim, with no
//! virtual call and no shared count written; the chunk's iterates run as in
//! [`drive`](crate::runtime::loops::worker::drive). It is the plain worker loop's fast path:
//! what it does per chunk is what `UntypedLoop::next` and the source would do, and what it
//! tallies goes to the loop's caller record once, at its end.
//!
//! In a loop that re-executes unfinished chunks, each chunk's value is kept apart until the
//! worker's next claim says whether it counts (as `drive_apart` does): while chunks are claimed,
//! each counts; once the loop's tail is the scheduler's ([`Claimed::Tail`]), the worker goes on in
//! [`drive_apart`](crate::runtime::loops::worker::drive_apart) with its value so far and its last
//! chunk's value, whose verdict the scheduler gives. It runs only chunks of one iterate there (a
//! larger chunk may become a copy's original while it runs: `drive_apart` asks after each
//! iterate whether it still counts, and may split it).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::runtime::loops::handle::{Loop, Panics};
use crate::runtime::loops::panic_ctx::{self, payload_text};
use crate::runtime::loops::range::LoopIndex;
use crate::runtime::loops::source::Tally;
use crate::runtime::loops::worker::{run_chunk, Failure};
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
    B: FnMut(I, &mut T),
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
    loop {
        let now = Instant::now();
        let finished = last.map(|(size, handed)| {
            let took = now.saturating_duration_since(handed).as_secs_f64();
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
        run_chunk(lp, slot, panics, range, |i| body(i, &mut *target))?;
        if let Some(part) = part {
            pending = Some((part, chunk.start, chunk.size));
        }
    }
}

/// Which loops' workers claimed their chunks, by name (the engine's tests read it).
#[cfg(test)]
pub(crate) mod probe {
    pub(crate) static CLAIMED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
}
