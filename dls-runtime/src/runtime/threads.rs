//! The threads backend: the loop's [`SchedCore`](super::sched_core) behind a mutex, pulled by the
//! worker threads of a rayon pool (one worker slot per pool thread).

use super::error::DlsError;
use super::execute::{drive, Failure};
use super::loop_handle::Loop;
use super::range::LoopIndex;

/// A rayon thread pool of `threads` workers.
pub(crate) struct ThreadsBackend {
    pool: rayon::ThreadPool,
    threads: usize,
}

impl ThreadsBackend {
    /// A pool of `threads` workers (default: the machine's available parallelism).
    pub(crate) fn new(threads: Option<usize>) -> Result<Self, DlsError> {
        let threads = threads.unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        });
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("dls-worker-{i}"))
            .build()
            .map_err(|e| DlsError::Threads(format!("cannot start {threads} threads: {e}")))?;
        Ok(ThreadsBackend { pool, threads })
    }

    /// Number of worker threads.
    pub(crate) fn threads(&self) -> usize {
        self.threads
    }

    /// Runs `lp` on every pool thread; each folds its iterates into its own `identity()` value.
    /// Returns the per-thread values in thread order, or the first panicking iterate.
    pub(crate) fn run<I, T, Id, B>(
        &self,
        lp: &Loop<I>,
        identity: &Id,
        body: &B,
    ) -> Result<Vec<T>, Failure>
    where
        I: LoopIndex,
        T: Send,
        Id: Fn() -> T + Sync,
        B: Fn(I, &mut T) + Sync,
    {
        let results: Vec<Result<T, Failure>> = self.pool.broadcast(|ctx| {
            let mut acc = identity();
            drive(lp, Some(ctx.index()), &mut acc, body, true).map(|()| acc)
        });
        results.into_iter().collect()
    }
}
