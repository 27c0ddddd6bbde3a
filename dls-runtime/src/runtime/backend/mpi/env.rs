//! MPI initialisation and finalisation (`DLS_Setup` on MPI).

use mpi::collective::{CommunicatorCollectives, SystemOperation};
use mpi::environment::{Threading, Universe};
use mpi::topology::{Communicator, SimpleCommunicator};

use super::agreement::agree;
use super::chunk_loop::MpiLoop;
use super::hybrid::HybridLoop;
use super::messages::Step;
use crate::runtime::backend::platform::{LoopStart, Platform};
use crate::runtime::backend::pool::{cores, Pool};
use crate::runtime::backend::threads::{DEFAULT_STACK, SPIN};
use crate::runtime::error::DlsError;
use crate::runtime::loops::handle::Panics;
use crate::runtime::loops::panic_ctx;
use crate::runtime::loops::source::ChunkSource;
use crate::runtime::Backend;
use crate::Technique;

/// The initialised MPI library. Finalises MPI when dropped.
pub(crate) struct MpiEnv {
    universe: Option<Universe>,
    /// The thread that initialised MPI: the one that starts loops over every rank.
    thread: std::thread::ThreadId,
    rank: usize,
    size: usize,
    /// Threads inside every rank (`DLS_THREADS` under a launcher): `None` for one worker per
    /// rank, the classic scheduler/worker loop (`chunk_loop.rs`); `Some(k)` for `k` workers per
    /// rank sharing batches of chunks (`hybrid.rs`).
    threads: Option<usize>,
    /// Workers 1, 2, … of a rank with threads inside.
    pool: Option<Pool>,
    /// The settings as read at the start (`(name, value)` of those set): a change after it is
    /// named at the end (`agreement::settings_changed`).
    settings_at_start: Vec<(String, String)>,
    /// The communicator of the exchanges of gathered elements written in place (`placed.rs`),
    /// duplicated from `MPI_COMM_WORLD` at the first.
    placed_comm: std::sync::OnceLock<super::LoopComm>,
}

/// Open MPI's MCA parameter `mpi_yield_when_idle`, as an environment variable.
const YIELD_VAR: &str = "OMPI_MCA_mpi_yield_when_idle";

/// The threads of this process, from `/proc/self/status` (`None` where it cannot be read: not
/// Linux).
fn process_threads() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
}

fn abort_world(code: i32) {
    super::comm::abort_job(&SimpleCommunicator::world(), code)
}

impl MpiEnv {
    /// Initialises MPI with `MPI_THREAD_MULTIPLE`, then checks that every rank sees the same
    /// settings and made the same `chosen` calls (`(what, value)`: the program's choices through
    /// the API, such as the threads given to `dls::init_with_threads`).
    pub(crate) fn init(chosen: &[(String, String)]) -> Result<MpiEnv, DlsError> {
        if mpi::environment::is_finalized() {
            return Err(DlsError::Mpi(
                "MPI was already finalised in this process (the runtime was dropped); MPI \
                 cannot be initialised twice: keep the runtime from dls::init() alive"
                    .into(),
            ));
        }
        // Open MPI busy-polls without yielding when it believes each rank has a core of its own.
        // A dls scheduler rank runs two threads (compute + service), so let waiting ranks yield
        // the CPU, unless the user chose otherwise (read by MPI_Init from the environment).
        if std::env::var_os(YIELD_VAR).is_none() && process_threads() == Some(1) {
            // SAFETY: `set_var` races only with a read of the environment on another thread
            // (C code calling `getenv` takes no lock of std's). The process has one thread, this
            // one (`process_threads`), so no other thread exists to read it. Where others exist
            // the variable is left unset: Open MPI then decides its polling itself.
            unsafe { std::env::set_var(YIELD_VAR, "1") };
        }
        let (universe, provided) =
            mpi::initialize_with_threading(Threading::Multiple).ok_or_else(|| {
                DlsError::Mpi(
                    "MPI was already initialised by someone else in this process; let \
                     dls::init() initialise it"
                        .into(),
                )
            })?;
        if provided != Threading::Multiple {
            drop(universe);
            return Err(DlsError::Mpi(format!(
                "the MPI library provides thread support {provided:?}, but dls needs \
                 MPI_THREAD_MULTIPLE (the scheduler answers requests on a service thread); use \
                 an MPI build with thread multiple support (Open MPI >= 3 has it)"
            )));
        }
        let world = universe.world();
        let rank = world.rank() as usize;
        let size = world.size() as usize;
        panic_ctx::set_mpi(rank, abort_world);
        let settings_at_start = super::agreement::agree_settings(chosen);
        Ok(MpiEnv {
            universe: Some(universe),
            thread: std::thread::current().id(),
            rank,
            size,
            threads: None,
            pool: None,
            settings_at_start,
            placed_comm: std::sync::OnceLock::new(),
        })
    }

    /// Gives every rank `threads` workers (`DLS_THREADS` under a launcher; every rank has the
    /// same value, the settings' agreement checked it): the thread that starts a loop and a pool
    /// of `threads - 1` with stacks of `stack` bytes.
    pub(crate) fn with_threads(
        mut self,
        threads: usize,
        stack: Option<usize>,
        pin: bool,
    ) -> Result<MpiEnv, DlsError> {
        if threads > 1 {
            // Ranks that share a node share its cores: a watching thread would hold one.
            let spin = if threads <= cores() {
                SPIN
            } else {
                std::time::Duration::ZERO
            };
            let cpus = pin.then(crate::runtime::backend::cores::own_cpus).flatten();
            let pool = Pool::pinned(threads - 1, stack.unwrap_or(DEFAULT_STACK), spin, cpus)
                .map_err(|e| {
                    DlsError::Threads(format!(
                        "rank {}: cannot start {threads} threads: {e}",
                        self.rank
                    ))
                })?;
            self.pool = Some(pool);
            panic_ctx::threads_inside_ranks();
        }
        // A launcher binds a rank to one core by default (Open MPI does for up to 2 ranks, and
        // srun without --cpus-per-task): its threads would then share that core. Said, not
        // silently slow.
        if self.rank == 0 {
            crate::runtime::backend::cores::warn_if_bound(
                threads,
                true,
                "rank 0 (and likely every rank)",
            );
        }
        self.threads = Some(threads);
        Ok(self)
    }
}

/// The MPI backend: loops over `MPI_COMM_WORLD`, one compute thread per rank.
impl Platform for MpiEnv {
    fn backend(&self) -> Backend {
        Backend::Mpi {
            rank: self.rank,
            size: self.size,
            threads: self.threads.unwrap_or(1),
        }
    }

    /// A loop over all ranks is running in this process: a loop started now comes from another
    /// thread (one spawned inside an iterate), which the other ranks are not running.
    fn busy(&self) -> bool {
        panic_ctx::loop_running()
    }

    /// True on every rank when `ok` is true on every rank (collective over `MPI_COMM_WORLD`).
    fn all_agree(&self, ok: bool) -> bool {
        let mine = i32::from(ok);
        let mut all = 0i32;
        SimpleCommunicator::world().all_reduce_into(&mine, &mut all, SystemOperation::min());
        all == 1
    }

    fn rank0_value(&self, at: &LoopStart<'_>, requested: &Technique, mine: Vec<u8>) -> Vec<u8> {
        use crate::runtime::combine::Exchange;
        agree(&Step::start_loop(at, requested));
        let world = super::LoopComm(SimpleCommunicator::world());
        world.broadcast(0, (self.rank == 0).then_some(mine))
    }

    fn start(
        &self,
        at: &LoopStart<'_>,
        technique: &Technique,
        weights: Option<Vec<f64>>,
    ) -> Result<Box<dyn ChunkSource>, DlsError> {
        agree(&Step::start_loop(at, technique));
        let world = SimpleCommunicator::world();
        match self.threads {
            // Re-execution and checkpoints follow every chunk to its thread: a request per
            // chunk per thread (`chunk_loop.rs`); other loops take batches (`hybrid.rs`).
            Some(k) if at.tolerant => Ok(Box::new(MpiLoop::start_threads(
                &world, technique, at.n, k, weights,
            )?)),
            Some(k) => Ok(Box::new(HybridLoop::start(
                &world, technique, at.n, k, weights,
            )?)),
            None => Ok(Box::new(MpiLoop::start(&world, technique, at.n, weights)?)),
        }
    }

    fn may_start_here(&self) -> Result<(), DlsError> {
        if std::thread::current().id() == self.thread {
            return Ok(());
        }
        Err(DlsError::Mpi(format!(
            "rank {}: a loop over every rank was started from a thread other than the one that \
             called dls::init. Under mpirun every rank starts its loops from one thread, the one \
             that called dls::init (the one-thread rule): the ranks start each loop together, and \
             two threads of a rank starting loops at once would interleave those starts and hang. \
             Start the loops one after the other from that thread (a loop started inside an \
             iterate, or by a thread that an iterate spawned, runs on its own thread instead)",
            self.rank
        )))
    }

    fn run_workers(&self, worker: &(dyn Fn(usize) + Sync), useful: usize, first: bool) {
        match (&self.pool, self.threads) {
            (Some(pool), Some(k)) => pool.run(worker, k.min(useful).saturating_sub(1), first),
            _ => worker(0),
        }
    }

    fn panics(&self) -> Panics {
        Panics::Unwind
    }

    fn exchange_placed(
        &self,
        bytes: &mut [u8],
        elem: usize,
        placed: &[(u32, u64, u64)],
    ) -> Result<(), DlsError> {
        use mpi::topology::Communicator as _;
        // Called on every rank for the same loops (each holds the same merged log), from the
        // thread that runs the loops: the first call duplicates the communicator on every rank.
        let comm = self
            .placed_comm
            .get_or_init(|| super::LoopComm(SimpleCommunicator::world().duplicate()));
        super::placed::exchange(&comm.0, bytes, elem, placed)
    }
}

/// At the end of a run with `DLS_DELAY` (collective, once every rank has ended): the error for a
/// delay that no rank spent (`delay::never_spent`), the same on every rank.
fn unspent_delays() -> Option<String> {
    use crate::runtime::observe::delay;
    let mine = delay::spent_flags();
    if mine.is_empty() {
        return None;
    }
    let world = super::LoopComm(SimpleCommunicator::world());
    let all = crate::runtime::combine::gather_values(&world, &mine).unwrap_or_default();
    let any: Vec<bool> = (0..mine.len())
        .map(|k| all.iter().any(|r| r.get(k).copied().unwrap_or(true)))
        .collect();
    delay::unspent_message(&any)
}

impl Drop for MpiEnv {
    fn drop(&mut self) {
        // Every rank ends here; one that ends while others start a loop is named, not waited for.
        let mut failed = None;
        if std::thread::panicking() {
            // A panic unwinding out of main that the panic hook did not end (the program replaced
            // dls's hook): the other ranks would wait for this one forever.
            panic_ctx::abort_if_unwinding();
        } else {
            if !agree(&Step::End) {
                // Other ranks are elsewhere: leave without finalising MPI (which would wait for
                // them), so that main's error is printed; rank 0 ends the job.
                panic_ctx::clear_mpi();
                if let Some(u) = self.universe.take() {
                    std::mem::forget(u);
                }
                return;
            }
            // Every rank ended normally: the loops' checkpoints are of no further use.
            crate::runtime::checkpoint::retire_pending();
            // Both collectives on every rank, in this order.
            let changed = super::agreement::settings_changed(&self.settings_at_start);
            failed = changed.or(unspent_delays());
        }
        panic_ctx::clear_mpi();
        // The exchanges' communicator is freed before MPI is finalised.
        drop(self.placed_comm.take());
        // Dropping the universe calls MPI_Finalize.
        self.universe.take();
        if let Some(e) = failed {
            // Every rank saw the same flags and ends alike, rank 0 saying why.
            if self.rank == 0 {
                panic_ctx::say_line(&format!("dls: error: {e}"));
            }
            std::process::exit(2);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::process_threads;

    /// The count that decides whether `init` may set Open MPI's variable sees a thread more
    /// while one more runs (Linux).
    #[test]
    fn process_threads_counts_a_started_thread() {
        let before = process_threads().expect("/proc/self/status");
        assert!(before >= 1);
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || rx.recv().ok());
        // The test harness may start or end threads meanwhile: at least one more than the
        // fewest seen is what this thread adds.
        assert!(process_threads().unwrap() >= 2);
        drop(tx);
        t.join().unwrap();
    }
}
