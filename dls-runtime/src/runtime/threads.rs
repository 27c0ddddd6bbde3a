//! The threads backend: the loop's [`SharedSource`] (a `ReportingScheduler` behind a mutex),
//! pulled by the worker threads of a rayon pool (one worker slot per pool thread).

use std::sync::atomic::{AtomicUsize, Ordering};

use super::error::DlsError;
use super::loop_handle::Panics;
use super::platform::Platform;
use super::settings::DEFAULT_STACK;
use super::source::{ChunkSource, SharedSource};
use super::Backend;
use crate::Technique;

/// A rayon thread pool of `threads` workers.
pub(crate) struct ThreadsBackend {
    pool: rayon::ThreadPool,
    threads: usize,
    /// Loops whose workers run on the pool now (`run_workers` in progress).
    running: AtomicUsize,
}

impl ThreadsBackend {
    /// A pool of `threads` workers (default: the machine's available parallelism), each with a
    /// stack of `stack` bytes (default [`DEFAULT_STACK`], the main thread's 8 MiB, so that an
    /// iterate that recurses deeply in the serial program does not overflow a worker's stack).
    pub(crate) fn new(threads: Option<usize>, stack: Option<usize>) -> Result<Self, DlsError> {
        let threads = threads.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        });
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("dls-worker-{i}"))
            .stack_size(stack.unwrap_or(DEFAULT_STACK))
            .build()
            .map_err(|e| DlsError::Threads(format!("cannot start {threads} threads: {e}")))?;
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

    fn start(
        &self,
        _name: &str,
        technique: &Technique,
        n: u64,
        weights: Option<Vec<f64>>,
    ) -> Result<Box<dyn ChunkSource>, DlsError> {
        Ok(Box::new(SharedSource::new(
            technique,
            n,
            self.threads,
            weights,
        )?))
    }

    fn run_workers(&self, worker: &(dyn Fn(usize) + Sync)) {
        /// Counts the loop as running while the pool runs it (also when a panic unwinds).
        struct Running<'a>(&'a AtomicUsize);
        impl Drop for Running<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::SeqCst);
            }
        }
        self.running.fetch_add(1, Ordering::SeqCst);
        let _running = Running(&self.running);
        self.pool.broadcast(|ctx| worker(ctx.index()));
    }

    /// The pool runs a loop: every pool thread takes part in it until it ends.
    fn busy(&self) -> bool {
        self.running.load(Ordering::SeqCst) > 0
    }

    fn panics(&self) -> Panics {
        Panics::Catch
    }
}
