//! The threads backend: the loop's [`SharedSource`] (a `ReportingScheduler` behind a mutex, or
//! chunks claimed with one atomic add for fixed-size techniques, `runtime/sched/claim.rs`),
//! pulled by `threads` workers: the thread that starts the loop (worker 0, as in an OpenMP
//! parallel region, where the encountering thread is thread 0) and `threads - 1` threads of the
//! backend's pool (`pool.rs`). Starting a loop thus wakes only the other workers, and a
//! one-thread runtime runs its loops on the calling thread with no hand-over at all (issue 17
//! case 12; the bench `empty_loop` measures it).

use crate::runtime::annotate::sync::AtomicUsize;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::runtime::backend::pool::{cores, Pool};

use crate::runtime::backend::platform::{Backend, LoopStart, Platform};
use crate::runtime::error::DlsError;
use crate::runtime::loops::handle::Panics;
use crate::runtime::loops::source::{ChunkSource, SharedSource};
use crate::Technique;

/// The default stack of a worker thread: 8 MiB, the main thread's stack on Linux, so that an
/// iterate that recurses deeply in the serial program also runs on a worker.
pub const DEFAULT_STACK: usize = 8 << 20;

/// How long a worker between loops (and a loop's first worker waiting for the others) watches
/// before it sleeps, when the threads fit the cores: the loops of a time loop a few microseconds
/// apart then start without waking a sleeping thread (OpenMP runtimes do the same).
pub(crate) const SPIN: Duration = Duration::from_micros(200);

/// `threads` workers: the calling thread and a pool of the other `threads - 1`.
pub(crate) struct ThreadsBackend {
    /// Workers 1, 2, …; none for one thread.
    pool: Option<Pool>,
    threads: usize,
    /// Loops whose workers run on the pool now (`run_workers` in progress).
    running: AtomicUsize,
}

impl ThreadsBackend {
    /// `threads` workers (default: the machine's available parallelism): the pool's threads have
    /// stacks of `stack` bytes (default [`DEFAULT_STACK`], the main thread's 8 MiB, so that an
    /// iterate that recurses deeply in the serial program does not overflow a worker's stack);
    /// worker 0 is the thread that starts each loop, with its own stack, as the serial loop.
    /// With `pin` (`DLS_PIN=cores`) pool thread j runs on the j-th core of the process's CPU
    /// mask only (worker 0, the program's own thread, stays where it is). A process bound to
    /// fewer cores than `threads` is warned at start (`backend/cores.rs`).
    pub(crate) fn new(
        threads: Option<usize>,
        stack: Option<usize>,
        pin: bool,
    ) -> Result<Self, DlsError> {
        let cores = cores();
        let threads = threads.unwrap_or(cores);
        crate::runtime::backend::cores::warn_if_bound(threads, false, "this process");
        let pool = if threads > 1 {
            // With more threads than cores a watching thread would hold a core that a thread
            // with work needs: they sleep at once.
            let spin = if threads <= cores {
                SPIN
            } else {
                Duration::ZERO
            };
            let cpus = pin.then(crate::runtime::backend::cores::own_cpus).flatten();
            let pool = Pool::pinned(threads - 1, stack.unwrap_or(DEFAULT_STACK), spin, cpus)
                .map_err(|e| match stack {
                    Some(bytes) => DlsError::Setting {
                        name: "DLS_STACK",
                        value: bytes.to_string(),
                        message: format!(
                            "cannot start {threads} threads with stacks of {bytes} bytes ({e}); \
                             use a smaller DLS_STACK (default 8M) or fewer DLS_THREADS"
                        ),
                    },
                    None => DlsError::Threads(format!("cannot start {threads} threads: {e}")),
                })?;
            Some(pool)
        } else {
            None
        };
        Ok(ThreadsBackend {
            pool,
            threads,
            running: AtomicUsize::new(0),
        })
    }
}

impl Platform for ThreadsBackend {
    fn backend(&self) -> Backend {
        Backend::Threads {
            threads: self.threads,
        }
    }

    fn all_agree(&self, ok: bool) -> bool {
        ok
    }

    fn rank0_value(&self, _at: &LoopStart<'_>, _requested: &Technique, mine: Vec<u8>) -> Vec<u8> {
        mine
    }

    fn start(
        &self,
        at: &LoopStart<'_>,
        technique: &Technique,
        weights: Option<Vec<f64>>,
    ) -> Result<Box<dyn ChunkSource>, DlsError> {
        Ok(Box::new(SharedSource::new(
            technique,
            at.n,
            self.threads,
            weights,
        )?))
    }

    fn run_workers(
        &self,
        worker: &(dyn Fn(usize) + Sync),
        useful: usize,
        first_sees_the_end: bool,
    ) {
        /// Counts the loop as running while the pool runs it (also when a panic unwinds).
        struct Running<'a>(&'a AtomicUsize);
        impl Drop for Running<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::SeqCst);
            }
        }
        self.running.fetch_add(1, Ordering::SeqCst);
        let _running = Running(&self.running);
        match &self.pool {
            None => worker(0),
            Some(pool) => pool.run(
                worker,
                self.threads.min(useful).saturating_sub(1),
                first_sees_the_end,
            ),
        }
    }

    /// The pool runs a loop: every pool thread takes part in it until it ends.
    fn busy(&self) -> bool {
        self.running.load(Ordering::SeqCst) > 0
    }

    fn panics(&self) -> Panics {
        Panics::Catch
    }
}
