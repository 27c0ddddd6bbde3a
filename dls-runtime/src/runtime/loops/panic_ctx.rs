//! Which iterate the current thread is executing, so that a panic can name it.
//!
//! Each chunk iterator ([`ChunkRange`](crate::runtime::ChunkRange)) records, in thread-local storage, the
//! loop it belongs to and the offset of the iterate it last yielded. The panic hook installed by
//! the runtime reads it:
//!
//! - **MPI**: a panic that leaves an iterate ends the whole job: the chunk's destructor, run by the
//!   unwinding, prints `dls: rank R panicked in iterate I of loop `NAME`: MESSAGE` and ends the
//!   job (`backend::mpi::comm::abort_job`: `MPI_Abort`, or exit 101 under Open MPI's `mpirun`), so the job ends promptly with a non-zero status instead of hanging (the other
//!   ranks would wait forever for the dead one). This works even when the program replaced dls's
//!   panic hook. A panic outside an iterate aborts the job from the hook.
//! - **threads**: `doall` catches the panic, stops the other threads from taking more chunks, and
//!   panics in the caller with the iterate, the thread and the message. With the explicit
//!   [`Loop`](crate::runtime::Loop) API the hook prints the same context line and the panic unwinds
//!   normally on the thread that pulled the chunk.
//! - **A panic the iterate catches itself** (`catch_unwind` in user code) is no failure, on
//!   either backend: the loop goes on, on every worker, and no iterate is lost. Nothing is
//!   stopped until a panic leaves its iterate (the worker loop then raises the loop's stop flag).
//!
//! The context belongs to a running loop, not to a chunk object: `Loop::next_chunk` sets it, and
//! it is cleared when that loop has no more chunks for the thread or ends (`leave_loop`, keyed by
//! the loop's id). A chunk kept past the next request, or past the loop's end, changes nothing.

use crate::runtime::annotate::sync::Mutex;
use crate::runtime::annotate::sync::OnceLock;
use crate::runtime::annotate::sync::{AtomicBool, AtomicU64, AtomicUsize};
use std::cell::{Cell, RefCell};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Once};

/// The loop a thread is executing a chunk of.
#[derive(Clone)]
pub(crate) struct ChunkCtx {
    /// The loop's id ([`next_loop_id`]): only that loop's end clears the context.
    pub loop_id: u64,
    pub loop_name: Arc<str>,
    /// The loop's first index, as bits ([`LoopIndex::to_bits`](crate::runtime::LoopIndex::to_bits)).
    pub first_bits: u128,
    /// Formats `first + offset` in the loop's index type.
    pub format: fn(u128, u64) -> String,
    /// Worker (thread slot) number.
    pub worker: usize,
    /// True when `doall` catches and reports the panic itself (threads backend).
    pub caught: bool,
}

/// A process-unique id for a new loop.
pub(crate) fn next_loop_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Number of loops over all workers (not nested in an iterate) running in this process. Under MPI
/// a loop started while one runs, from a thread that executes no iterate (a thread spawned inside
/// an iterate), runs on that thread alone, as a loop started inside an iterate does (issue 17
/// case 9a): the other ranks are not starting it.
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// A loop over all workers started (see [`RUNNING`]).
pub(crate) fn loop_started() {
    RUNNING.fetch_add(1, Ordering::SeqCst);
}

/// A loop over all workers ended.
pub(crate) fn loop_ended() {
    RUNNING.fetch_sub(1, Ordering::SeqCst);
}

/// True while a loop over all workers runs in this process.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn loop_running() -> bool {
    RUNNING.load(Ordering::SeqCst) > 0
}

thread_local! {
    static CTX: RefCell<Option<ChunkCtx>> = const { RefCell::new(None) };
    /// The loop whose partial results this thread is combining (a merge function may panic).
    static COMBINING: RefCell<Option<std::sync::Arc<str>>> = const { RefCell::new(None) };
    /// Whether the thread is combining now (the name in `COMBINING` may stay after a merge, for
    /// the next merge under the same name).
    static COMBINING_ACTIVE: Cell<bool> = const { Cell::new(false) };
    static OFFSET: Cell<u64> = const { Cell::new(0) };
    /// The message of a panic raised in this thread's current iterate that has not yet left it:
    /// the iterate may still catch it (`catch_unwind` in user code) and go on.
    static PENDING: RefCell<Option<String>> = const { RefCell::new(None) };
}

static MPI_ACTIVE: AtomicBool = AtomicBool::new(false);
/// Under MPI with one worker per rank: the process's iterate is tracked for threads an iterate
/// starts ([`PROCESS_CTX`]). Off on threads inside ranks ([`threads_inside_ranks`]).
static NAMING: AtomicBool = AtomicBool::new(false);
static MPI_RANK: AtomicUsize = AtomicUsize::new(0);
static MPI_ABORT: OnceLock<fn(i32)> = OnceLock::new();
static HOOK: Once = Once::new();

/// Marks the current thread as executing a chunk of the loop `ctx`.
pub(crate) fn enter_chunk(ctx: ChunkCtx) {
    if NAMING.load(Ordering::Relaxed) {
        let set = set_process_ctx(Some(ctx.clone()));
        PROCESS_SET_HERE.with(|s| s.set(set));
    }
    CTX.with(|c| *c.borrow_mut() = Some(ctx));
}

/// [`enter_chunk`] for worker `worker` of loop `loop_id`, making the context with `make` only
/// when the thread's context is of another loop (or another worker): a worker's next chunk of
/// the same loop costs no clone of the loop's name (an atomic count that every worker of the
/// loop would write, chunk after chunk).
#[inline]
pub(crate) fn enter_chunk_of(loop_id: u64, worker: usize, make: impl FnOnce() -> ChunkCtx) {
    let same = CTX.with(|c| {
        c.borrow()
            .as_ref()
            .is_some_and(|ctx| ctx.loop_id == loop_id && ctx.worker == worker)
    });
    // Under MPI the process's context must be this thread's too: unchanged since this thread
    // set it (no other thread's chunk, no loop's end in between), an MPI rank's next chunk
    // costs neither the clones nor the lock.
    if same
        && (!NAMING.load(Ordering::Relaxed)
            || PROCESS_SET_HERE.with(|s| s.get()) == PROCESS_SET.load(Ordering::Relaxed).max(1))
    {
        return;
    }
    enter_chunk(make());
}

/// Under MPI, the chunk this process executes (a rank runs one iterate at a time) and, in
/// [`PROCESS_OFFSET`], its current iterate: a panic in a thread that an iterate started names that
/// iterate.
static PROCESS_CTX: Mutex<Option<ChunkCtx>> = Mutex::new(None);
static PROCESS_OFFSET: AtomicU64 = AtomicU64::new(0);
/// The number of the last change of [`PROCESS_CTX`] (each [`set_process_ctx`] takes the next).
static PROCESS_SET: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The number of the change of [`PROCESS_CTX`] that set this thread's context there (0:
    /// none): while [`PROCESS_SET`] still has it, the process's context is this thread's.
    static PROCESS_SET_HERE: Cell<u64> = const { Cell::new(0) };
}

/// Sets the process's context; returns the number of this change (see [`PROCESS_SET`]; 0: not
/// set, the lock being poisoned).
fn set_process_ctx(ctx: Option<ChunkCtx>) -> u64 {
    let Ok(mut c) = PROCESS_CTX.lock() else {
        return 0;
    };
    *c = ctx;
    let set = PROCESS_SET.load(Ordering::Relaxed) + 1;
    PROCESS_SET.store(set, Ordering::Relaxed);
    set
}

/// The iterate this process executes (MPI), for a panic raised in another thread.
fn process_iterate() -> Option<(Arc<str>, String)> {
    let ctx = PROCESS_CTX.try_lock().ok()?.clone()?;
    let index = (ctx.format)(ctx.first_bits, PROCESS_OFFSET.load(Ordering::Relaxed));
    Some((ctx.loop_name, index))
}

/// Whether this process names its iterate to other threads ([`set_offset`]): asked once per
/// run of iterates, so that [`set_offset`] tests a value in a register per iterate.
#[inline]
pub(crate) fn naming() -> bool {
    NAMING.load(Ordering::Relaxed)
}

/// Records that the current thread is executing iterate `offset` of its chunk's loop;
/// `naming` is [`naming`]'s answer. Only an MPI rank of one worker names its iterate to other
/// threads: where several workers share the process (threads; threads inside ranks) each would
/// write this one word at every iterate.
#[inline]
pub(crate) fn set_offset(offset: u64, naming: bool) {
    OFFSET.with(|o| o.set(offset));
    if naming {
        PROCESS_OFFSET.store(offset, Ordering::Relaxed);
    }
}

/// The offset of the iterate this thread last recorded ([`set_offset`]).
pub(crate) fn offset() -> u64 {
    OFFSET.with(|o| o.get())
}

/// The current chunk ended normally (not by unwinding): a panic raised in one of its iterates
/// was caught inside the iterate, which went on (issue 17 case 5). Forget its message.
pub(crate) fn chunk_went_on() {
    take_pending();
}

/// Takes the message of a panic raised in this thread's current iterate, if one is pending.
fn take_pending() -> Option<String> {
    PENDING
        .try_with(|p| p.try_borrow_mut().ok().and_then(|mut p| p.take()))
        .ok()
        .flatten()
}

/// Marks this thread as combining the partial results of loop `name` until the guard is dropped,
/// so that a panic of a merge function names the loop.
pub(crate) fn combining(name: impl Into<std::sync::Arc<str>>) -> Combining {
    let names = merges_of(name.into());
    let active = merging();
    Combining {
        _active: active,
        _names: names,
    }
}

/// See [`combining`].
pub(crate) struct Combining {
    // Dropped in this order: the merge ends, then the name goes.
    _active: Merging,
    _names: MergesOf,
}

/// Names loop `name` for this thread's merges until the guard is dropped; each merge is then
/// marked by [`merging`] alone, which writes one flag of the thread (a worker that merges every
/// chunk's value pays no more per chunk).
pub(crate) fn merges_of(name: std::sync::Arc<str>) -> MergesOf {
    MergesOf {
        before: COMBINING.with(|c| c.replace(Some(name))),
    }
}

/// See [`merges_of`].
pub(crate) struct MergesOf {
    before: Option<std::sync::Arc<str>>,
}

impl Drop for MergesOf {
    fn drop(&mut self) {
        let before = self.before.take();
        let _ = COMBINING.try_with(|c| {
            if let Ok(mut c) = c.try_borrow_mut() {
                *c = before;
            }
        });
    }
}

/// Marks this thread as merging (under the name [`merges_of`] gave) until the guard is dropped.
#[inline]
pub(crate) fn merging() -> Merging {
    Merging {
        was: COMBINING_ACTIVE.with(|a| a.replace(true)),
    }
}

/// See [`merging`].
pub(crate) struct Merging {
    was: bool,
}

impl Drop for Merging {
    #[inline]
    fn drop(&mut self) {
        let _ = COMBINING_ACTIVE.try_with(|a| a.set(self.was));
    }
}

/// The loop whose results this thread is combining, if any.
fn combining_now() -> Option<std::sync::Arc<str>> {
    if !COMBINING_ACTIVE.try_with(|a| a.get()).unwrap_or(false) {
        return None;
    }
    COMBINING
        .try_with(|c| c.try_borrow().ok().and_then(|c| c.clone()))
        .ok()
        .flatten()
}

/// The current thread no longer executes chunks of loop `loop_id` (it has no more for the
/// thread, or it ended). A context of another loop (an enclosing one) is left alone.
pub(crate) fn leave_loop(loop_id: u64) {
    let _ = CTX.try_with(|c| {
        if let Ok(mut c) = c.try_borrow_mut() {
            if c.as_ref().is_some_and(|ctx| ctx.loop_id == loop_id) {
                take_pending();
                *c = None;
                if NAMING.load(Ordering::Relaxed) {
                    set_process_ctx(None);
                }
            }
        }
    });
}

/// The current thread's panic context, saved while a loop nested in its iterate (a loop started
/// inside an iterate, an inner loop of a two-level loop) sets its own; see
/// `UntypedLoop::nested_in`.
pub(crate) struct Saved {
    ctx: Option<ChunkCtx>,
    offset: u64,
}

/// Saves the current thread's panic context.
pub(crate) fn save() -> Saved {
    Saved {
        ctx: CTX.with(|c| c.borrow().clone()),
        offset: OFFSET.with(|o| o.get()),
    }
}

/// Restores a context from [`save`].
pub(crate) fn restore(saved: Saved) {
    if NAMING.load(Ordering::Relaxed) {
        set_process_ctx(saved.ctx.clone());
        PROCESS_OFFSET.store(saved.offset, Ordering::Relaxed);
    }
    CTX.with(|c| *c.borrow_mut() = saved.ctx);
    OFFSET.with(|o| o.set(saved.offset));
}

/// Runs `f` outside any iterate (a merge between two chunks of a pipelined reduction), so that a
/// panic in `f` is reported as a merge, not as the last chunk's last iterate.
pub(crate) fn between_iterates<R>(f: impl FnOnce() -> R) -> R {
    let saved = save();
    CTX.with(|c| *c.borrow_mut() = None);
    if NAMING.load(Ordering::Relaxed) {
        set_process_ctx(None);
    }
    let result = f();
    restore(saved);
    result
}

/// True while the current thread executes an iterate of some loop (loops started there run on
/// this thread only).
pub(crate) fn in_iterate() -> bool {
    CTX.with(|c| c.borrow().is_some())
}

/// Writes one line to stderr in a single call: under mpirun the lines of several ranks then
/// never interleave mid-line (`eprintln!` writes each piece of its format separately).
pub(crate) fn say_line(line: &str) {
    use std::io::Write;
    let mut whole = String::with_capacity(line.len() + 1);
    whole.push_str(line);
    whole.push('\n');
    let _ = std::io::stderr().lock().write_all(whole.as_bytes());
}

/// `eprintln!` written whole, see [`say_line`].
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::runtime::loops::panic_ctx::say_line(&format!($($arg)*))
    };
}

/// Under MPI: the world rank, and the function that aborts the job.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn set_mpi(rank: usize, abort: fn(i32)) {
    MPI_RANK.store(rank, Ordering::SeqCst);
    let _ = MPI_ABORT.set(abort);
    MPI_ACTIVE.store(true, Ordering::SeqCst);
    NAMING.store(true, Ordering::SeqCst);
}

/// Every rank has several workers (`DLS_THREADS=k` under a launcher): no one iterate is the
/// process's, so none is tracked for the threads an iterate starts (each worker would write the
/// process's context at every chunk and its iterate at every iterate: one cache line all the
/// rank's workers fight over). A panic in such a thread ends the job only if it reaches an
/// iterate (`join().unwrap()`), as on threads.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn threads_inside_ranks() {
    NAMING.store(false, Ordering::SeqCst);
    set_process_ctx(None);
}

/// MPI is about to be finalised: panics no longer abort the job.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn clear_mpi() {
    MPI_ACTIVE.store(false, Ordering::SeqCst);
    NAMING.store(false, Ordering::SeqCst);
}

/// The text of a panic payload.
pub(crate) fn payload_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

/// This process's MPI rank, when it runs under MPI.
pub(crate) fn mpi_rank() -> Option<usize> {
    MPI_ACTIVE
        .load(Ordering::SeqCst)
        .then(|| MPI_RANK.load(Ordering::SeqCst))
}

/// The worker (slot) whose chunk this thread executes, if any.
pub(crate) fn current_worker() -> Option<usize> {
    CTX.try_with(|c| {
        c.try_borrow()
            .ok()
            .and_then(|c| c.as_ref().map(|ctx| ctx.worker))
    })
    .ok()
    .flatten()
}

/// The current iterate, formatted, and the loop context (if the thread is in a chunk).
pub(crate) fn current_iterate() -> Option<(ChunkCtx, String)> {
    let ctx = CTX
        .try_with(|c| c.try_borrow().ok().and_then(|c| c.clone()))
        .ok()??;
    let offset = OFFSET.with(|o| o.get());
    let index = (ctx.format)(ctx.first_bits, offset);
    Some((ctx, index))
}

/// Under MPI, ends the job when a panic unwinds out of an iterate or out of `main` while the
/// panic hook did not: the program replaced dls's hook with `std::panic::set_hook` after
/// `dls::init()`, so nothing else would stop the other ranks waiting for this one forever. Called
/// from the destructors that unwinding runs (the chunk's, the runtime's); does nothing when the
/// thread is not panicking or the job is not an MPI job.
pub(crate) fn abort_if_unwinding() {
    if !std::thread::panicking() || !MPI_ACTIVE.load(Ordering::SeqCst) {
        return;
    }
    let rank = MPI_RANK.load(Ordering::SeqCst);
    let pending = take_pending();
    match (current_iterate(), pending) {
        // dls's hook saw the panic and left the abort to the unwinding (the iterate might have
        // caught it).
        (Some((ctx, index)), Some(message)) => {
            say!(
                "dls: rank {rank} panicked in iterate {index} of loop `{}`: {message}",
                ctx.loop_name
            );
            say!("dls: rank {rank} aborts the MPI job");
        }
        (Some((ctx, index)), None) => say!(
            "dls: rank {rank} panicked in iterate {index} of loop `{}` (its message is above, \
             printed by the program's own panic hook); aborting the MPI job",
            ctx.loop_name
        ),
        (None, _) => say!(
            "dls: rank {rank} panicked (its message is above, printed by the program's own panic \
             hook); aborting the MPI job"
        ),
    }
    if let Some(abort) = MPI_ABORT.get() {
        abort(101);
    }
}

/// Installs (once) the panic hook that names the rank and iterate, and aborts the MPI job.
/// The previously installed hook still runs (it prints the standard message and location).
pub(crate) fn install_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let mpi = MPI_ACTIVE.load(Ordering::SeqCst);
            let message = payload_text(info.payload());
            // A merge function runs between two chunks (re-executing loops merge each confirmed
            // chunk's value as the next chunk is handed out): a panic there is the merge's.
            let here = match combining_now() {
                Some(_) => None,
                None => current_iterate(),
            };
            if here.is_some() {
                // The iterate may catch this panic and go on: nothing is stopped or aborted here
                // (`chunk_went_on`); if it leaves the iterate, the chunk's drop ends the MPI job
                // (`abort_if_unwinding`) and, on threads, the worker loop stops the loop and
                // reports it.
                let _ = PENDING.try_with(|p| {
                    if let Ok(mut p) = p.try_borrow_mut() {
                        *p = Some(message.clone());
                    }
                });
                if let (false, Some((ctx, index))) = (mpi, &here) {
                    if !ctx.caught {
                        say!(
                            "dls: thread {} panicked in iterate {index} of loop `{}`: {message}",
                            ctx.worker,
                            ctx.loop_name
                        );
                    }
                }
                previous(info);
                return;
            }
            let rank = MPI_RANK.load(Ordering::SeqCst);
            // A panic of the program's own code outside every iterate (a library that panics
            // and recovers, a helper thread whose `join` the program handles, inside an iterate
            // or not) may be caught: only one that escapes ends the job (out of main: `MpiEnv`'s
            // drop; out of a loop's iterate, as when the iterate passes a helper's panic on: the
            // chunk's drop), as on threads (issue 43 F3). A helper thread's panic ends only that
            // thread; whoever joins it decides. dls's own threads still end the job at once.
            let own_thread = std::thread::current()
                .name()
                .is_some_and(|n| n.starts_with("dls-"));
            // A worker of the running loop (the thread that runs its chunks) that panics between
            // its iterates is in dls's code: that still ends the job at once.
            let loop_worker = CTX
                .try_with(|c| c.try_borrow().map_or(true, |c| c.is_some()))
                .unwrap_or(false);
            if mpi
                && combining_now().is_none()
                && !own_thread
                && (process_iterate().is_none() || !loop_worker)
            {
                previous(info);
                return;
            }
            match (combining_now(), mpi) {
                (Some(name), true) => say!(
                    "dls: rank {rank} panicked while combining the results of loop `{name}`: \
                     {message}"
                ),
                (Some(name), false) => {
                    say!("dls: panicked while combining the results of loop `{name}`: {message}")
                }
                (None, true) => match process_iterate() {
                    Some((name, index)) => {
                        let thread = std::thread::current();
                        say!(
                            "dls: rank {rank} panicked in thread `{}` during iterate {index} of \
                             loop `{name}`: {message}",
                            thread.name().unwrap_or("unnamed")
                        )
                    }
                    None => say!("dls: rank {rank} panicked outside a loop iterate: {message}"),
                },
                (None, false) => {}
            }
            previous(info);
            if mpi {
                say!(
                    "dls: rank {} aborts the MPI job",
                    MPI_RANK.load(Ordering::SeqCst)
                );
                if let Some(abort) = MPI_ABORT.get() {
                    abort(101);
                }
            }
        }));
    });
}
