//! The driver of a loop that keeps each chunk's value apart until the scheduler confirms it:
//! re-execution of unfinished chunks (rDLB, `runtime/tolerance/reexecution.rs`) and checkpoints.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use super::chunk::Failure;
use crate::runtime::annotate::sync::AtomicU64;
use crate::runtime::checkpoint;
use crate::runtime::loops::handle::{ChunkRange, Iterates, Loop, Panics};
use crate::runtime::loops::panic_ctx::{self, payload_text};
use crate::runtime::loops::range::LoopIndex;
use crate::runtime::observe::delay;
use crate::runtime::tolerance::reexecution::Verdict;
use crate::runtime::tolerance::split::{self, SplitCell};
use crate::runtime::tolerance::Tolerance;
use serde::Serialize;

/// A re-executing worker asks whether its chunk became redundant about this often: (no more
/// often than, at least as often as) — when the question is an atomic load (threads) ...
const CHECK_CHEAP: (Duration, Duration) = (Duration::from_micros(200), Duration::from_millis(1));
/// ... when it is a load of the worker's cancel flag (threads: asked after each run of
/// iterates, so the runs stay short) ...
const CHECK_FLAG: (Duration, Duration) = (Duration::from_micros(10), Duration::from_micros(50));
/// ... and when it is an `MPI_Improbe`, which on an oversubscribed node yields the core.
const CHECK_COSTLY: (Duration, Duration) = (Duration::from_millis(5), Duration::from_millis(20));
/// The most iterates of a new chunk before its first question (when it is a probe): the stride
/// learnt on cheap iterates would otherwise delay it by a thousand dear ones.
const FIRST_CHECK: u32 = 8;

/// A worker's checkpoints (`runtime/checkpoint.rs`): the loop's writer and this worker's state.
pub(crate) type Checkpointing<'a> = Option<(&'a checkpoint::Writer, checkpoint::WorkerState)>;

/// [`drive`] for loops that may re-execute unfinished chunks (rDLB, `runtime/tolerance/reexecution.rs`):
/// every chunk is folded into a value of its own, from `identity()`, and kept apart until the
/// reply to the worker's next request gives its verdict; a confirmed chunk's value is merged into
/// the worker's result with `combine`, a discarded one (another copy finished first) is dropped.
/// So every iterate counts exactly once, whichever copy of its chunk counted. The worker's result
/// starts from `initial` (worker 0 of a restarted loop: what the checkpoints held) and, with
/// `checkpoints`, is written with its ranges when due and at the end. Returns the worker's result
/// (`identity()` if it kept nothing).
pub(crate) fn drive_apart<I, T, Id, B, C>(
    lp: &Loop<I>,
    slot: Option<usize>,
    apart: Apart<'_, T, Id, C>,
    mut body: B,
    panics: Panics,
) -> Result<T, Failure>
where
    I: LoopIndex,
    T: Serialize,
    Id: Fn() -> T,
    B: FnMut(Iterates<I>, &mut T),
    C: Fn(T, T) -> T,
{
    // The body delay (`DLS_DELAY=body:...`) is chosen once per loop, so that the loop without
    // one has no per-iterate test of it.
    match delay::body() {
        None => drive_apart_with(lp, slot, apart, body, panics),
        Some(d) => drive_apart_with(
            lp,
            slot,
            apart,
            move |run: Iterates<I>, part: &mut T| {
                for one in run.singles() {
                    d.wait(1);
                    body(one, part);
                }
            },
            panics,
        ),
    }
}

/// What a worker that keeps its chunks apart folds them with and starts from: the loop's
/// `identity` and `combine`, the result it starts from (`initial`: worker 0 of a restarted loop,
/// what the checkpoints held) and its checkpoints.
pub(crate) struct Apart<'a, T, Id, C> {
    pub(crate) identity: &'a Id,
    pub(crate) combine: &'a C,
    pub(crate) initial: Option<T>,
    pub(crate) checkpoints: Checkpointing<'a>,
    /// Where a worker that claimed its own chunks handed over to the scheduler
    /// (`drive/claimed.rs`): the value of its last chunk, awaiting its verdict, and the
    /// ordinal of that chunk (the hand-outs so far). Default: nothing, 0.
    pub(crate) resume: Option<(T, u64, u64)>,
    pub(crate) ordinal: u64,
}

/// [`drive_apart`] with the loop's body as it runs (the delay, if any, already in it).
fn drive_apart_with<I, T, Id, B, C>(
    lp: &Loop<I>,
    slot: Option<usize>,
    apart: Apart<'_, T, Id, C>,
    mut body: B,
    panics: Panics,
) -> Result<T, Failure>
where
    I: LoopIndex,
    T: Serialize,
    Id: Fn() -> T,
    B: FnMut(Iterates<I>, &mut T),
    C: Fn(T, T) -> T,
{
    let Apart {
        identity,
        combine,
        initial,
        mut checkpoints,
        resume,
        ordinal: handed_before,
    } = apart;
    #[cfg(test)]
    probe::APART.lock().unwrap().push(lp.name().to_string());
    let mut kept: Option<T> = initial;
    let mut pending: Option<(T, u64, u64)> = resume;
    // The loop's name for a merge's panic message, set once (each chunk's merge only marks
    // itself as one).
    let _merges = panic_ctx::merges_of(lp.core().name.clone());
    let tolerance = lp.core().source().tolerance();
    let mut pace = Pace::new(tolerance);
    // The ordinal of the chunk in hand (the scheduler names redundant chunks by it).
    let mut ordinal = handed_before;
    loop {
        let (next, verdict) = lp.next_chunk_verdict(slot, panics);
        if let Some((part, start, size)) = pending.take() {
            if verdict == Verdict::Keep {
                let worker = next.as_ref().map_or(0, |(_, w, _)| *w);
                let merged = keep(lp, kept.take(), part, combine, worker, panics)?;
                let kept = kept.insert(merged);
                if let Some((writer, state)) = checkpoints.as_mut() {
                    state.add(start, size);
                    if writer.due(state) {
                        writer.write_or_warn(state, kept);
                    }
                }
            }
        }
        let Some((mut chunk, worker, handed)) = next else {
            break;
        };
        ordinal += 1;
        let (start, size) = (chunk.start_offset(), chunk.len() as u64);
        let mut part = identity();
        // A copy of another worker's chunk logs its writes to gathered vectors that originals
        // write in place (where the source cannot tell, every chunk counts as a copy), unless
        // this process runs one worker (an MPI rank of one thread): no other execution of the
        // chunk can run beside this one in this process's memory, so it writes in place too,
        // and the exchange after the loop takes the copy that counted.
        let one_here = lp.core().source().local_slots() == 1;
        chunk.set_copy(!one_here && tolerance.is_none_or(|t| t.holds_copy(worker)));
        let mut held = Held::new(tolerance, worker, ordinal, handed, size);
        if panics == Panics::Unwind {
            held.run(&mut pace, &mut part, &mut chunk, &mut body);
        } else {
            let result = catch_unwind(AssertUnwindSafe(|| {
                held.run(&mut pace, &mut part, &mut chunk, &mut body)
            }));
            if let Err(payload) = result {
                lp.abort();
                return Err(Failure {
                    merging: false,
                    worker,
                    iterate: chunk.current().to_string(),
                    message: payload_text(payload.as_ref()),
                });
            }
        }
        if !held.abandoned {
            pending = Some((part, start, held.executed));
        }
    }
    let kept = kept.unwrap_or_else(identity);
    // The loop's end: a complete checkpoint when one is due, or when the loop ran for longer
    // than the interval (so that a restart after a later loop skips this one); a short loop of a
    // time loop writes only when due.
    if let Some((writer, state)) = checkpoints.as_mut() {
        if writer.due_at_end(state) {
            writer.write_or_warn(state, &kept);
        }
    }
    Ok(kept)
}

/// A confirmed chunk's value `part` merged into the worker's `kept` value with `combine`; a
/// panic there names the merge, not the iterate of the chunk just handed.
fn keep<I: LoopIndex, T>(
    lp: &Loop<I>,
    kept: Option<T>,
    part: T,
    combine: &impl Fn(T, T) -> T,
    worker: usize,
    panics: Panics,
) -> Result<T, Failure> {
    let Some(k) = kept else {
        return Ok(part);
    };
    let _combining = panic_ctx::merging();
    if panics == Panics::Unwind {
        return Ok(combine(k, part));
    }
    catch_unwind(AssertUnwindSafe(|| combine(k, part))).map_err(|payload| {
        lp.abort();
        Failure {
            merging: true,
            worker,
            iterate: String::new(),
            message: payload_text(payload.as_ref()),
        }
    })
}

/// How often a worker asks whether its chunk became redundant, learnt over its chunks: every
/// `stride` iterates, adapted so that the question is asked every 0.2-1 ms (threads) or 5-20 ms
/// (MPI) whatever the iterates' length; and when it last looked for messages at a claim.
struct Pace {
    stride: u32,
    countdown: u32,
    last_check: Instant,
    /// The bounds of the gap between two questions where the question is not a flag's load.
    bounds: (Duration, Duration),
    /// Messages looked for at claims (`ChunkSource::at_claim`), and when last, over chunks: a
    /// chunk shorter than the interval does not reset it.
    poll_every: Option<Duration>,
    last_poll: Instant,
}

impl Pace {
    fn new(tolerance: Option<&dyn Tolerance>) -> Pace {
        let now = Instant::now();
        Pace {
            stride: 1,
            countdown: 1,
            last_check: now,
            bounds: if tolerance.is_none_or(|t| t.cheap_cancel_check()) {
                CHECK_CHEAP
            } else {
                CHECK_COSTLY
            },
            poll_every: tolerance.and_then(|t| t.claim_poll()),
            last_poll: now,
        }
    }

    /// After `took` iterates: whether the question is due now (and the stride for the next).
    #[inline]
    fn due(&mut self, took: u32, bounds: (Duration, Duration)) -> bool {
        self.countdown -= took;
        if self.countdown > 0 {
            return false;
        }
        let (at_least, at_most) = bounds;
        let now = Instant::now();
        let gap = now.saturating_duration_since(self.last_check);
        self.last_check = now;
        if gap < at_least {
            self.stride = (self.stride * 2).min(1024);
        } else if gap > at_most {
            // In proportion: the next question comes about `at_most` later.
            let scaled = u128::from(self.stride) * at_most.as_nanos() / gap.as_nanos().max(1);
            self.stride = u32::try_from(scaled).unwrap_or(1).max(1);
        }
        self.countdown = self.stride;
        true
    }
}

/// One chunk in the hands of the apart driver: where it may be split or cancelled, and what
/// became of it.
struct Held<'a> {
    tolerance: Option<&'a dyn Tolerance>,
    worker: usize,
    ordinal: u64,
    /// When the chunk was handed (no clock read of its own: self-scheduling's chunks are one
    /// iterate).
    started: Instant,
    /// Where the question is a memory load (threads), it is asked after every run of iterates,
    /// the runs adapted to 10-50 µs of work: soon after a copy finished, without a load per
    /// iterate in the body's loop.
    flag: Option<&'a AtomicU64>,
    /// Where the scheduler runs in this process, the chunk's iterates are claimed in batches
    /// through the slot's cell, so that it can split the chunk for an idle worker
    /// (`runtime/tolerance/split.rs`), batches adapted to 20-80 µs. (A chunk of one iterate
    /// cannot be split: it runs without claims.)
    cell: Option<&'a SplitCell>,
    /// Where the chunk ended (its size unless it was split).
    executed: u64,
    /// Whether the rest of the chunk was given up: other copies confirmed it.
    abandoned: bool,
}

impl<'a> Held<'a> {
    fn new(
        tolerance: Option<&'a dyn Tolerance>,
        worker: usize,
        ordinal: u64,
        started: Instant,
        size: u64,
    ) -> Held<'a> {
        Held {
            tolerance,
            worker,
            ordinal,
            started,
            flag: tolerance.and_then(|t| t.cancel_flag(worker)),
            cell: tolerance
                .and_then(|t| t.split_cell(worker))
                .filter(|_| (2..=split::MAX_SPLIT).contains(&size)),
            executed: size,
            abandoned: false,
        }
    }

    /// Runs the chunk's iterates into `part` in runs: up to the next question, and within the
    /// batch claimed.
    fn run<I: LoopIndex, T>(
        &mut self,
        pace: &mut Pace,
        part: &mut T,
        chunk: &mut ChunkRange<'_, I>,
        body: &mut impl FnMut(Iterates<I>, &mut T),
    ) {
        let bounds = if self.flag.is_some() {
            CHECK_FLAG
        } else {
            pace.bounds
        };
        // A new chunk may hold dearer iterates than the last (cost that follows the index):
        // its first question comes within a few iterates, whatever the stride was.
        pace.countdown = pace.countdown.min(FIRST_CHECK);
        let mut claimed_left: u64 = 0;
        // Claims start at one iterate in every chunk (it may hold dearer iterates than the
        // last) and grow from there; the first takes the chunk's start for its time.
        let mut batch = 1u64;
        let mut claimed_at = self.started;
        let mut first_claim = true;
        loop {
            let mut n = u64::from(pace.countdown);
            if let Some(cell) = self.cell {
                if claimed_left == 0 {
                    let now = if std::mem::take(&mut first_claim) {
                        self.started
                    } else {
                        Instant::now()
                    };
                    batch = split::next_batch(batch, now - claimed_at);
                    claimed_at = now;
                    self.poll(pace, now);
                    let (from, limit) = cell.claim(batch);
                    self.executed = limit;
                    if from >= limit {
                        break;
                    }
                    claimed_left = batch.min(limit - from);
                }
                n = n.min(claimed_left);
            }
            let iterates = chunk.take_run(n);
            let took = iterates.left();
            if took == 0 {
                break;
            }
            body(iterates, part);
            claimed_left = claimed_left.saturating_sub(took);
            if let Some(flag) = self.flag {
                if flag.load(std::sync::atomic::Ordering::Relaxed) == self.ordinal {
                    self.abandoned = true;
                    break;
                }
            }
            // `took` is at most `countdown` (u32). Every iterate of this chunk was confirmed
            // by other copies: its verdict will be `Discard`, so the rest need not run.
            if pace.due(took as u32, bounds)
                && self.flag.is_none()
                && self
                    .tolerance
                    .is_some_and(|t| t.cancelled(self.worker, self.ordinal))
            {
                self.abandoned = true;
                break;
            }
        }
    }

    /// Looks for messages at a claim when the interval has passed.
    fn poll(&self, pace: &mut Pace, now: Instant) {
        if pace
            .poll_every
            .is_some_and(|p| now.saturating_duration_since(pace.last_poll) >= p)
        {
            pace.last_poll = now;
            if let Some(t) = self.tolerance {
                t.at_claim(self.worker, self.ordinal, self.started);
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod probe {
    pub(crate) static APART: crate::runtime::annotate::sync::Mutex<Vec<String>> =
        crate::runtime::annotate::sync::Mutex::new(Vec::new());
}
