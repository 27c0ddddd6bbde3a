//! The worker loop: what every worker of every loop runs, on every backend and at both levels of
//! a two-level loop. It pulls chunks from the loop's source (the request carries the previous
//! chunk's timing), sets the panic context (in `Loop::next_chunk_in`) and keeps the worker's
//! tally (in `UntypedLoop::next`), and folds every iterate into the worker's accumulator.
//! With a `body` delay in `DLS_DELAY` (see `runtime/observe/delay.rs`) each iterate first spends it; the
//! hook is tested once per chunk, so without it the iterates run exactly as before.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use crate::runtime::loops::handle::{ChunkRange, Iterates, Loop, Panics};
use crate::runtime::loops::panic_ctx::{self, payload_text};
use crate::runtime::loops::range::LoopIndex;
use crate::runtime::observe::delay;
use crate::runtime::tolerance::checkpoint;
use crate::runtime::tolerance::reexecution::Verdict;
use crate::runtime::tolerance::split;
use serde::Serialize;

/// A panicking iterate on the threads backend.
#[derive(Debug, Clone)]
pub(crate) struct Failure {
    /// The panic came from the merge function, not from an iterate.
    pub merging: bool,
    pub worker: usize,
    pub iterate: String,
    pub message: String,
}

/// Pulls chunks of `lp` as worker `slot` (None: the current thread's slot) until the loop has no
/// more, folding every iterate into `acc` with `body`, which goes through a run of iterates
/// ([`Iterates`]: here, a whole chunk).
///
/// With [`Panics::Catch`] (threads backend), a panicking iterate stops the loop for every worker
/// and is returned as a [`Failure`]; with [`Panics::Unwind`] it unwinds (under MPI the panic
/// hook aborts the job).
pub(crate) fn drive<I, T, B>(
    lp: &Loop<I>,
    slot: Option<usize>,
    acc: &mut T,
    mut body: B,
    panics: Panics,
) -> Result<(), Failure>
where
    I: LoopIndex,
    B: FnMut(Iterates<I>, &mut T),
{
    while let Some((chunk, worker)) = lp.next_chunk_in(slot, panics) {
        match delay::body() {
            None => run_chunk(lp, worker, panics, chunk, |c| {
                body(c.take_run(u64::MAX), acc)
            })?,
            Some(d) => run_chunk(lp, worker, panics, chunk, |c| {
                while !c.is_done() {
                    d.wait(1);
                    body(c.take_run(1), acc);
                }
            })?,
        }
    }
    Ok(())
}

/// A body of one iterate as a body of runs ([`Iterates`]), what the engine's drivers call.
#[inline]
pub(crate) fn each<I: LoopIndex, T>(
    body: impl Fn(I, &mut T) + Sync,
) -> impl Fn(Iterates<I>, &mut T) + Sync {
    move |run, acc| {
        for i in run {
            body(i, acc);
        }
    }
}

/// Runs the iterates of one chunk of `lp` as `worker`: `each` goes through them (in runs taken
/// from the chunk). With [`Panics::Catch`] (threads backend) a panicking iterate stops the loop
/// for every worker and comes back as a [`Failure`] naming it; with [`Panics::Unwind`] it
/// unwinds.
#[inline]
pub(crate) fn run_chunk<I: LoopIndex>(
    lp: &Loop<I>,
    worker: usize,
    panics: Panics,
    mut chunk: ChunkRange<'_, I>,
    mut each: impl FnMut(&mut ChunkRange<'_, I>),
) -> Result<(), Failure> {
    if panics == Panics::Unwind {
        each(&mut chunk);
        return Ok(());
    }
    let result = catch_unwind(AssertUnwindSafe(|| each(&mut chunk)));
    result.map_err(|payload| {
        lp.abort();
        Failure {
            merging: false,
            worker,
            iterate: chunk.current().to_string(),
            message: payload_text(payload.as_ref()),
        }
    })
}

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

/// A worker's checkpoints (`runtime/tolerance/checkpoint.rs`): the loop's writer and this worker's state.
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
    /// (`runtime/loops/claimed.rs`): the value of its last chunk, awaiting its verdict, and the
    /// ordinal of that chunk (the hand-outs so far). Default: nothing, 0.
    pub(crate) resume: Option<(T, u64, u64)>,
    pub(crate) ordinal: u64,
}

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
    let source = lp.core().source();
    // Messages looked for at claims (`ChunkSource::at_claim`), and when last, over chunks: a
    // chunk shorter than the interval does not reset it.
    let tolerance = source.tolerance();
    let poll_every = tolerance.and_then(|t| t.claim_poll());
    let mut last_poll = Instant::now();
    // The ordinal of the chunk in hand (the scheduler names redundant chunks by it), and how
    // often to ask whether it became redundant: every `stride` iterates, adapted so that the
    // question is asked every 0.2-1 ms (threads) or 5-20 ms (MPI) whatever the iterates' length.
    let mut ordinal = handed_before;
    let mut stride = 1u32;
    let mut countdown = 1u32;
    let mut last_check = Instant::now();
    let (check_at_least, check_at_most) = if tolerance.map_or(true, |t| t.cheap_cancel_check()) {
        CHECK_CHEAP
    } else {
        CHECK_COSTLY
    };
    loop {
        let (next, verdict) = lp.next_chunk_verdict(slot, panics);
        if let Some((part, start, size)) = pending.take() {
            if verdict == Verdict::Keep {
                kept = Some(match kept.take() {
                    Some(k) => {
                        // A panic here names the merge, not the iterate of the chunk just handed.
                        let _combining = panic_ctx::merging();
                        if panics == Panics::Unwind {
                            combine(k, part)
                        } else {
                            match catch_unwind(AssertUnwindSafe(|| combine(k, part))) {
                                Ok(v) => v,
                                Err(payload) => {
                                    lp.abort();
                                    return Err(Failure {
                                        merging: true,
                                        worker: next.as_ref().map_or(0, |(_, w, _)| *w),
                                        iterate: String::new(),
                                        message: payload_text(payload.as_ref()),
                                    });
                                }
                            }
                        }
                    }
                    None => part,
                });
                if let Some((writer, state)) = checkpoints.as_mut() {
                    state.add(start, size);
                    if writer.due(state) {
                        if let Some(k) = &kept {
                            writer.write_or_warn(state, k);
                        }
                    }
                }
            }
        }
        let Some((chunk, worker, handed)) = next else {
            break;
        };
        ordinal += 1;
        let (start, size) = (chunk.start_offset(), chunk.len() as u64);
        let mut part = identity();
        let mut abandoned = false;
        // Where the question is a memory load (threads), it is asked after every run of
        // iterates, the runs adapted to 10-50 µs of work: soon after a copy finished, without
        // a load per iterate in the body's loop.
        let flag = tolerance.and_then(|t| t.cancel_flag(worker));
        let (check_at_least, check_at_most) = if flag.is_some() {
            CHECK_FLAG
        } else {
            (check_at_least, check_at_most)
        };
        // A new chunk may hold dearer iterates than the last (cost that follows the index):
        // its first question comes within a few iterates, whatever the stride was.
        countdown = countdown.min(FIRST_CHECK);
        // Where the scheduler runs in this process, the chunk's iterates are claimed in batches
        // through the slot's cell, so that it can split the chunk for an idle worker
        // (`runtime/tolerance/split.rs`), batches adapted to 20-80 µs; `executed` is where the chunk ended.
        // (A chunk of one iterate cannot be split: it runs without claims.)
        let cell = tolerance
            .and_then(|t| t.split_cell(worker))
            .filter(|_| (2..=split::MAX_SPLIT).contains(&size));
        let mut executed = size;
        // Claims start at one iterate in every chunk (it may hold dearer iterates than the last)
        // and grow from there.
        let mut batch = 1u64;
        // When the chunk was handed (no clock read of its own: self-scheduling's chunks are
        // one iterate).
        let chunk_started = handed;
        let mut chunk = chunk;
        // A copy of another worker's chunk logs its writes to gathered vectors that originals
        // write in place (where the source cannot tell, every chunk counts as a copy).
        chunk.set_copy(tolerance.map_or(true, |t| t.holds_copy(worker)));
        let mut run = |part: &mut T, chunk: &mut ChunkRange<'_, I>| {
            let mut claimed_left: u64 = 0;
            // The chunk's first claim takes the chunk's start for its time (one clock read
            // fewer per chunk).
            let mut claimed_at = chunk_started;
            let mut first_claim = true;
            loop {
                // The iterates run now, as one run: up to the next question, and within the
                // batch claimed.
                let mut n = u64::from(countdown);
                if let Some(cell) = cell {
                    if claimed_left == 0 {
                        let now = if first_claim {
                            first_claim = false;
                            chunk_started
                        } else {
                            Instant::now()
                        };
                        batch = split::next_batch(batch, now - claimed_at);
                        claimed_at = now;
                        if poll_every.is_some_and(|p| now.saturating_duration_since(last_poll) >= p)
                        {
                            last_poll = now;
                            if let Some(t) = tolerance {
                                t.at_claim(worker, ordinal, chunk_started);
                            }
                        }
                        let (from, limit) = cell.claim(batch);
                        executed = limit;
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
                if let Some(flag) = flag {
                    if flag.load(std::sync::atomic::Ordering::Relaxed) == ordinal {
                        abandoned = true;
                        break;
                    }
                }
                // `took` is at most `countdown` (u32).
                countdown -= took as u32;
                if countdown == 0 {
                    let now = Instant::now();
                    let gap = now.saturating_duration_since(last_check);
                    last_check = now;
                    if gap < check_at_least {
                        stride = (stride * 2).min(1024);
                    } else if gap > check_at_most {
                        // In proportion: the next question comes about `check_at_most` later.
                        let scaled =
                            u128::from(stride) * check_at_most.as_nanos() / gap.as_nanos().max(1);
                        stride = u32::try_from(scaled).unwrap_or(1).max(1);
                    }
                    countdown = stride;
                    // Every iterate of this chunk was confirmed by other copies: its verdict
                    // will be `Discard`, so the rest need not run.
                    if flag.is_none() && tolerance.is_some_and(|t| t.cancelled(worker, ordinal)) {
                        abandoned = true;
                        break;
                    }
                }
            }
        };
        if panics == Panics::Unwind {
            run(&mut part, &mut chunk);
        } else {
            let result = catch_unwind(AssertUnwindSafe(|| run(&mut part, &mut chunk)));
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
        if !abandoned {
            pending = Some((part, start, executed));
        }
    }
    let kept = kept.unwrap_or_else(identity);
    // The loop's end: a complete checkpoint, so that a restart after a later loop skips this one.
    if let Some((writer, state)) = checkpoints.as_mut() {
        if state.dirty() {
            writer.write_or_warn(state, &kept);
        }
    }
    Ok(kept)
}

/// Which loops ran their chunks apart (re-execution or checkpoints), by name: what the tests of
/// the engine read to show that a loop without those features runs none of their code.
#[cfg(test)]
pub(crate) mod probe {
    pub(crate) static APART: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
}
