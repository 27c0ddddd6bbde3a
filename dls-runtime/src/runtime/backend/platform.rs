//! What a runtime runs on: the threads of this process, or MPI ranks. The one place a backend is
//! chosen is `Runtime::from_parts`'s caller (`init`, `current`, `Runtime::threads`); everything
//! else calls this trait.

use crate::runtime::error::DlsError;
use crate::runtime::loops::handle::Panics;
use crate::runtime::loops::source::ChunkSource;
use crate::Technique;

/// Which backend a [`Runtime`](crate::Runtime) runs loops on.
///
/// ```
/// let rt = dls_runtime::init().unwrap();
/// if let dls_runtime::Backend::Threads { threads } = rt.backend() {
///     assert_eq!(threads, rt.workers());
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Backend {
    /// Worker threads in this process: the thread that starts a loop and a pool of the others.
    Threads {
        /// Number of worker threads.
        threads: usize,
    },
    /// MPI ranks under `mpirun`: rank 0 is the scheduler and also executes iterates.
    Mpi {
        /// This process's rank in `MPI_COMM_WORLD`.
        rank: usize,
        /// Number of ranks.
        size: usize,
        /// Worker threads inside every rank (`DLS_THREADS` under a launcher; 1 without).
        threads: usize,
    },
}

/// What identifies a loop's start, which every MPI rank must agree on before the loop runs.
#[derive(Clone)]
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) struct LoopStart<'a> {
    /// The loop's name (its source location, or the name the program gave).
    pub name: &'a str,
    /// Its number of iterates.
    pub n: u64,
    /// Its first index, as text (made only where a backend needs it: the ranks' agreement).
    pub first: &'a dyn Fn() -> String,
    /// What kind of loop it is, in words (with its result type): an explicit loop, a `doall`, a
    /// loop with a result, a checked loop (made only where a backend needs it).
    pub kind: &'a dyn Fn() -> String,
    /// The loop's options as the program chose them on this process, resolved against the
    /// settings, as `(what, value)` pairs (strategy, re-execution, order, check): every rank must
    /// choose the same (made only where a backend needs it).
    pub options: &'a dyn Fn() -> Vec<(String, String)>,
    /// Whether the loop re-executes unfinished chunks or writes checkpoints: its scheduler then
    /// follows every chunk to the worker that runs it (threads inside MPI ranks take a request
    /// per chunk per thread instead of batches, `backend/mpi/chunk_loop.rs`).
    pub tolerant: bool,
}

impl std::fmt::Debug for LoopStart<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LoopStart")
            .field("name", &self.name)
            .field("n", &self.n)
            .field("first", &(self.first)())
            .field("kind", &(self.kind)())
            .field("options", &(self.options)())
            .field("tolerant", &self.tolerant)
            .finish()
    }
}

/// A backend of the runtime.
pub(crate) trait Platform: Send + Sync {
    /// Which backend this is, with its rank and size or thread count.
    fn backend(&self) -> Backend;

    /// True on every process when `ok` is true on every process (collective on MPI).
    fn all_agree(&self, ok: bool) -> bool;

    /// The chunk source of the loop `name` of `n` iterates over every worker (collective on MPI,
    /// where every rank must start the same loop: checked first).
    fn start(
        &self,
        at: &LoopStart<'_>,
        technique: &Technique,
        weights: Option<Vec<f64>>,
    ) -> Result<Box<dyn ChunkSource>, DlsError>;

    /// Rank 0's `mine`, on every process (collective on MPI, where every rank first checks that
    /// all start the loop `name` of `n` iterates under `requested`): how every rank takes the
    /// technique rank 0 chose for a loop under `auto`. The threads backend returns `mine`.
    fn rank0_value(&self, at: &LoopStart<'_>, requested: &Technique, mine: Vec<u8>) -> Vec<u8>;

    /// Runs `worker(slot)` on this process's workers, in parallel, and waits for all: on at most
    /// `useful` of them (a loop of n iterates keeps at most n workers busy), and always on slot 0,
    /// which pulls chunks until none remain, so a worker that does not start loses nothing.
    /// `first_sees_the_end`: slot 0's worker returns only once the loop has no chunk left for
    /// anyone (false when slot 0 takes no chunk: a check's repair), so a worker that has not
    /// begun by then need not (the threads backend's pool then leaves it out).
    fn run_workers(&self, worker: &(dyn Fn(usize) + Sync), useful: usize, first_sees_the_end: bool);

    /// True while the workers are taken by a running loop, so that a loop started now from a
    /// thread that executes no iterate (a thread spawned inside an iterate) could only wait for
    /// them: it runs serially on its own thread instead (issue 17 case 9a).
    fn busy(&self) -> bool;

    /// Whether a loop over every worker may be started from the calling thread: on MPI, only
    /// from the thread that initialised dls (every rank's loop starts are collectives, which two
    /// threads of one rank would interleave: a hang). The threads backend takes loops from any
    /// thread.
    fn may_start_here(&self) -> Result<(), DlsError> {
        Ok(())
    }

    /// Who reports a panicking iterate on this backend.
    fn panics(&self) -> Panics;

    /// After a loop over every process whose gathered elements each process wrote in place:
    /// sends this process's ranges of `bytes` (a vector of elements of `elem` bytes) to every
    /// other process and receives theirs into `bytes`. `placed` lists `(process, first element,
    /// element count)`, the same on every process, sorted and disjoint (collective on MPI,
    /// `backend/mpi/placed.rs`). In one process every range is in place already: nothing to do.
    fn exchange_placed(
        &self,
        _bytes: &mut [u8],
        _elem: usize,
        _placed: &[(u32, u64, u64)],
    ) -> Result<(), DlsError> {
        Ok(())
    }
}
