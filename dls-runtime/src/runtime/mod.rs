//! The execution runtime: Cariño & Banicescu's (2007) DLS API on two backends.
//!
//! | Cariño & Banicescu (2007), Fortran, MPI | dls (Rust) |
//! |-------------------------|------------|
//! | `DLS_Setup(MPI_COMM_WORLD, info)` | [`init()`] → [`Runtime`] (MPI under `mpirun` with the `mpi` feature, else threads) |
//! | `DLS_StartLoop(info, 1, N, method)` | [`Runtime::start_loop`]`(0..n, technique)` → [`Loop`] |
//! | `DLS_Terminated(info)` | [`Loop::terminated`], or `next_chunk()` returning `None` |
//! | `DLS_StartChunk(info, iStart, iSize)` | [`Loop::next_chunk`] → [`ChunkRange`] |
//! | `DLS_EndChunk(info)` | the next [`Loop::next_chunk`] (or [`Loop::finish`]): the finished chunk's timing rides on the next request |
//! | `DLS_EndLoop(info, iIters, iTime)` | [`Loop::finish`] → [`LoopStats`] |
//! | the whole `while` loop | [`Runtime::doall`], [`Runtime::doall_reduce`] |
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let rt = dls_runtime::init()?;                        // DLS_Setup
//! let lp = rt.start_loop(0..1000u64, "af".parse()?)?;   // DLS_StartLoop
//! let mut local = 0u64;
//! while let Some(chunk) = lp.next_chunk() {             // DLS_Terminated / StartChunk / EndChunk
//!     for i in chunk {
//!         local += i;
//!     }
//! }
//! let stats = lp.finish();                              // DLS_EndLoop
//! assert_eq!(stats.iterates, 1000);
//! assert_eq!(local, 999 * 1000 / 2);
//!
//! // The closure forms run on every worker (thread or rank):
//! let (sum, _stats) = rt.doall_reduce("sum", 0..1000u64, "fac2".parse()?, || 0u64,
//!     |i, acc| *acc += i, |a, b| a + b)?;
//! assert_eq!(sum, 999 * 1000 / 2);
//! # Ok(()) }
//! ```
//!
//! **Backends.** *threads* (the default): the loop's scheduler state sits behind a mutex and the
//! threads of the backend's pool pull chunks from it; `DLS_THREADS` sets the thread count. *MPI* (feature
//! `mpi`, chosen when the program is launched by `mpirun`): scheduler/worker as in Cariño & Banicescu (2007) fig. 3.3,
//! see the module docs of `runtime::mpi_backend` (built with the `mpi` feature); with
//! `DLS_THREADS=k` every rank runs `k` threads, which share the batches of chunks rank 0 hands
//! their rank (threads inside ranks, `runtime/backend/mpi/hybrid.rs`).
//!
//! **Nested loops.** A loop started inside an iterate of another loop (on the same thread) runs on
//! that thread alone, with the same technique, and prints no report: on MPI the other ranks are
//! busy in the outer loop, and on threads the pool's threads are. Two-level loops over groups of
//! ranks use `Runtime::start_loop_on` (feature `mpi`) with a sub-communicator instead.
//!
//! **Settings** come from the environment, see [`settings`].
//!
//! **Layout** (see `ARCHITECTURE.md`, "One loop engine"): one folder per subsystem, each below
//! the engine and none calling back up into [`Runtime`]. This file: [`Runtime`], [`init`],
//! [`current`]. `loops/`: the engine (`options.rs` describes a loop, `engine.rs` runs it with the
//! `ordered.rs` adaptor, `worker.rs` the worker loops, `handle.rs` a loop in progress,
//! `source.rs` the chunk-source seam, `range.rs`, `panic_ctx.rs`). `sched/`: the scheduler side
//! (`reporting.rs`, `holes.rs`). `tolerance/`: re-execution, split and checkpoints behind the
//! `Tolerance` seam. `combine/`: partial results (strategies, the pipeline, `wire.rs`).
//! `check/`: fault checks and injection. `observe/`: reports, progress, delays, the CPU clock.
//! `memory/`: what the runtime keeps across loops of a name (AWF, `auto`). `backend/`: the
//! `Platform` seam, threads and MPI (`mpi/`). At the top: `settings.rs` (reads every `DLS_*`
//! variable; nothing below imports it but for re-exported types), `launch.rs`, `error.rs`,
//! `sync.rs`. No two files import each other (`tests/import_cycles.rs`).

pub(crate) mod annotate;
pub(crate) mod backend;
pub(crate) mod check;
pub(crate) mod checkpoint;
pub(crate) mod combine;
pub(crate) mod engine;
mod error;
pub(crate) mod launch;
pub(crate) mod loops;
pub(crate) mod memory;
pub(crate) mod observe;
pub(crate) mod sched;
pub mod settings;
pub(crate) mod shim;
mod sync;
pub(crate) mod tolerance;

// The public modules keep their paths (`dls_runtime::runtime::checked`, `::options`, …).
#[cfg(feature = "mpi")]
pub use backend::mpi as mpi_backend;
pub use check::inject;
pub use engine::checked;
pub use loops::options;
pub use observe::{delay, progress, stats};

use crate::runtime::annotate::sync::Mutex;
use std::sync::{Arc, Weak};

pub use backend::platform::Backend;
pub use check::inject::inject;
pub use checkpoint::checkpoint_key;
pub use combine::strategy::{Strategy, AUTO_ALLGATHER_BYTES, AUTO_MERGE_SAVING_S};
pub use combine::wire::Wire;
pub use error::DlsError;
pub use loops::handle::{ChunkRange, Iterates, Loop};
pub use loops::range::{LoopIndex, LoopRange};
pub use observe::delay::region;
pub use observe::stats::LoopStats;

pub(crate) use combine::{combine_partials, Exchange, Merging};
pub(crate) use engine::drive::direct::drive;
pub(crate) use loops::handle::{Ending, Panics, UntypedLoop};
pub(crate) use loops::source::{ChunkSource, Tally};
pub(crate) use sync::lock;

use backend::platform::Platform;
use backend::threads::ThreadsBackend;
use settings::{Launch, ReportMode, Settings};

use crate::Technique;

/// What every handle of a runtime shares.
struct Shared {
    settings: Settings,
    platform: Box<dyn Platform>,
    /// AWF's history of earlier executions, per loop name (time steps of the same loop).
    history: Mutex<crate::technique::History>,
    /// The mean merge time of each loop name's last run (for `auto`), at most
    /// 1024 names (`history.rs`).
    merge_times: Mutex<std::collections::HashMap<String, f64>>,
    /// `schedule = "auto"`: what each loop name measured and chose (`auto.rs`).
    auto: Mutex<memory::auto::AutoHistory>,
    /// The loops' checkpoints across loops (`checkpoint.rs`).
    checkpoints: checkpoint::CheckpointMemory,
    /// The settings as `init` read them from the environment (`(name, value)` of those set;
    /// none for a runtime built from given settings): a change after the start is named at the
    /// end (issue 43 R4-3; on MPI by `MpiEnv`'s drop, across the ranks).
    settings_at_start: Option<Vec<(String, String)>>,
}

impl Drop for Shared {
    fn drop(&mut self) {
        // The program got to its end: its loops' checkpoints are retired (on MPI after every rank
        // agreed that it ended, in `MpiEnv`'s drop).
        if std::thread::panicking() {
            return;
        }
        let folders = std::mem::take(&mut *lock(&self.checkpoints.checkpointed));
        if matches!(self.platform.backend(), Backend::Threads { .. }) {
            checkpoint::retire(folders);
            // A setting changed after the start had no effect: said, not silently ignored.
            if let Some(start) = &self.settings_at_start {
                let changed = settings::changed_since(start, |k| std::env::var(k).ok());
                if !changed.is_empty() {
                    loops::panic_ctx::say_line(&format!(
                        "dls: warning: {}",
                        settings::changed_message(&changed)
                    ));
                }
            }
            // A delay of DLS_DELAY that was never spent: the run measured nothing it was asked
            // to (on MPI, checked across the ranks in `MpiEnv`'s drop).
            if let Some(e) = observe::delay::never_spent() {
                loops::panic_ctx::say_line(&format!("dls: error: {e}"));
                std::process::exit(2);
            }
        } else {
            checkpoint::retire_after_the_end(folders);
        }
    }
}

/// The dynamic loop scheduling environment (Cariño & Banicescu's (2007) `info` after `DLS_Setup`).
///
/// On MPI every rank must start the same loops in the same order (each start is collective over
/// the loop's communicator), from one thread per rank. On threads, loops may also be started
/// concurrently from several threads; they share the pool.
///
/// Cheap to clone (a shared handle). On MPI it owns the MPI library: MPI is finalised when the
/// last handle is dropped, so keep the handle returned by [`init`] alive in `main` until the end
/// and let it drop there (on the thread that called `init`), and `mpirun` exits 0.
///
/// ```
/// let rt = dls_runtime::init().unwrap();
/// assert!(rt.workers() >= 1);
/// assert_eq!(rt.rank(), 0);
/// ```
#[derive(Clone)]
pub struct Runtime {
    shared: Arc<Shared>,
    /// The reduction strategy of this handle's loops ([`Runtime::with_reduction`]).
    reduction: Option<Strategy>,
    /// Re-execution of unfinished chunks for this handle's loops (`with_reexecution`).
    reexecute: Option<bool>,
    /// Splitting of chunks in progress for idle workers (`with_split`).
    split: Option<bool>,
    /// Whether this handle's closure-form loops build the statistics they return
    /// ([`Runtime::with_statistics`]).
    statistics: bool,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("backend", &self.backend())
            .field("settings", self.settings())
            .finish_non_exhaustive()
    }
}

static CURRENT: Mutex<Weak<Shared>> = Mutex::new(Weak::new());
static LAZY: Mutex<Option<Runtime>> = Mutex::new(None);

/// `DLS_Setup`: sets up the runtime, once per process.
///
/// - Launched by `mpirun`, `mpiexec` or `srun` (the launcher's variables, see
///   [`settings::Launch`]) and built with the `mpi` feature: initialises MPI (with
///   `MPI_THREAD_MULTIPLE`) over `MPI_COMM_WORLD`.
/// - Launched with more than one process (or a launch whose size no variable gives) but built
///   without `mpi`: an error ([`DlsError::MpiNotBuilt`]) naming the variable and the lines to
///   add to `Cargo.toml`; dls never runs N independent copies of the program.
///   With `DLS_THREADS=k`, every rank runs `k` worker threads (threads inside ranks: a rank gets
///   a batch of chunks for its threads at a time, `backend/mpi/hybrid.rs`); without it, every
///   rank is one worker.
/// - Otherwise: the threads backend, `DLS_THREADS` threads (default: one per core).
///
/// Reads `DLS_SCHEDULE`, `DLS_THREADS` and `DLS_REPORT` (see [`settings`]); a bad value is an
/// error naming the variable. Calling `init` again while a runtime is alive returns that runtime.
/// Under MPI it sets `OMPI_MCA_mpi_yield_when_idle=1` in the environment before `MPI_Init`
/// (waiting ranks then yield their core to the rank's other threads), unless the variable is
/// set or the process already runs other threads (setting the environment could race with
/// their reads): call `init` before starting threads, or set the variable in the job script.
/// It also installs a panic hook that names the rank and iterate of a panicking iterate (and, on
/// MPI, aborts the job so that it never hangs).
///
/// ```
/// let rt = dls_runtime::init().unwrap();
/// let again = dls_runtime::init().unwrap();
/// assert_eq!(rt.backend(), again.backend());
/// ```
pub fn init() -> Result<Runtime, DlsError> {
    init_impl(None)
}

/// [`init`] with `threads` worker threads, unless `DLS_THREADS` says otherwise: on the threads
/// backend the process's workers, under a launcher (built with `mpi`) the threads inside every
/// rank, as `DLS_THREADS=threads` would give. Every rank must pass the same number. A runtime
/// already alive is returned as it is.
///
/// ```
/// let rt = dls_runtime::init_with_threads(2).unwrap();
/// if std::env::var_os("DLS_THREADS").is_none() {
///     assert_eq!(rt.workers(), 2 * rt.size());
/// }
/// ```
pub fn init_with_threads(threads: usize) -> Result<Runtime, DlsError> {
    settings::parse_threads(&threads.to_string())?;
    init_impl(Some(threads))
}

fn init_impl(threads: Option<usize>) -> Result<Runtime, DlsError> {
    let mut current = lock(&CURRENT);
    if let Some(shared) = current.upgrade() {
        return Ok(Runtime {
            shared,
            reduction: None,
            reexecute: None,
            split: None,
            statistics: false,
        });
    }
    let launched = Launch::detect(|k| std::env::var(k).ok());
    let (settings, platform) = if use_mpi(launched.as_ref(), cfg!(feature = "mpi"))? {
        // MPI first: its initialisation compares every setting across the ranks, so that one
        // seen by some ranks only ends the job naming it, instead of those ranks failing alone
        // (or running differently). Then every rank parses the same values alike.
        let (platform, settings) = mpi_platform(threads)?;
        (settings, platform)
    } else {
        let mut settings = Settings::from_env()?;
        settings.threads = settings.threads.or(threads);
        let platform: Box<dyn Platform> = Box::new(ThreadsBackend::new(
            settings.threads,
            settings.stack,
            settings.pin,
        )?);
        (settings, platform)
    };
    let rt = Runtime::from_parts(settings, platform, Target::Check)?;
    *current = Arc::downgrade(&rt.shared);
    Ok(rt)
}

/// Whether to run on MPI: when launched by an MPI launcher and built with MPI. Launched with
/// several processes (or an unknown number) but built without MPI is an error: never run N
/// independent copies.
fn use_mpi(launched: Option<&Launch>, mpi_built: bool) -> Result<bool, DlsError> {
    match launched {
        Some(_) if mpi_built => Ok(true),
        Some(launch) if launch.multi_process() => Err(DlsError::MpiNotBuilt {
            launch: launch.clone(),
        }),
        _ => Ok(false),
    }
}

/// The MPI backend: the one place a runtime is built on MPI. MPI first: its initialisation
/// compares every setting across the ranks, so that one seen by some ranks only ends the job
/// naming it, instead of those ranks failing alone (or running differently); then every rank
/// parses the same values alike. `DLS_THREADS` (else `threads`, from
/// [`init_with_threads`]) gives every rank that many worker threads (threads inside ranks,
/// `backend/mpi/hybrid.rs`).
#[cfg(feature = "mpi")]
fn mpi_platform(threads: Option<usize>) -> Result<(Box<dyn Platform>, Settings), DlsError> {
    // The program's own choice of threads counts where `DLS_THREADS` does not override it: every
    // rank must make the same (issue 43 R4-4: `init_with_threads(1 + rank)` ended in
    // `MPI_ERR_TRUNCATE`).
    let overridden = std::env::var("DLS_THREADS").is_ok_and(|v| !v.trim().is_empty());
    let chosen = if overridden {
        Vec::new()
    } else {
        vec![(
            "threads given to dls::init_with_threads".to_string(),
            threads.map_or("none (dls::init)".to_string(), |k| k.to_string()),
        )]
    };
    let env = backend::mpi::MpiEnv::init(&chosen)?;
    let mut settings = Settings::from_env()?;
    settings.threads = settings.threads.or(threads);
    let env = match settings.threads {
        Some(k) => env.with_threads(k, settings.stack, settings.pin)?,
        None => env,
    };
    Ok((Box::new(env), settings))
}

#[cfg(not(feature = "mpi"))]
fn mpi_platform(_: Option<usize>) -> Result<(Box<dyn Platform>, Settings), DlsError> {
    Err(DlsError::Mpi(
        "this program was built without the `mpi` feature of dls".into(),
    ))
}

/// Whether [`Runtime::from_parts`] checks the `DLS_REPORT` target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Check,
    Trust,
}

/// The runtime for code that did not receive one: what `#[dls::parallel]`-generated code calls.
///
/// Returns the runtime created by [`init`] while it is alive (from any thread). If none was
/// created and the program was not launched by `mpirun` with several processes, creates a
/// threads runtime on first use and keeps it for the rest of the process. Under `mpirun` without
/// a live runtime it is an error: MPI must be initialised (and later finalised) by `main`, so call
/// `let rt = dls::init()?;` at the start of `main`.
///
/// ```
/// let rt = dls_runtime::current().unwrap();
/// let stats = rt.doall(0..10u32, "gss".parse().unwrap(), |_| {}).unwrap();
/// assert_eq!(stats.iterates, 10);
/// ```
pub fn current() -> Result<Runtime, DlsError> {
    if let Some(shared) = lock(&CURRENT).upgrade() {
        return Ok(Runtime {
            shared,
            reduction: None,
            reexecute: None,
            split: None,
            statistics: false,
        });
    }
    // The lazy runtime first: it exists only if the launcher check below passed when it was
    // made, and reading the launcher's variables at every loop cost more than the lookup.
    let mut lazy = lock(&LAZY);
    if let Some(rt) = lazy.as_ref() {
        return Ok(rt.clone());
    }
    if let Some(launch) = Launch::detect(|k| std::env::var(k).ok()) {
        if launch.multi_process() {
            return Err(DlsError::Mpi(format!(
                "launched by {} ({}) but no runtime is alive: call `let rt = dls::init()?;` at \
                 the start of main and keep `rt` until main ends",
                launch.launcher, launch.variable
            )));
        }
    }
    let settings = Settings::from_env()?;
    let platform = Box::new(ThreadsBackend::new(
        settings.threads,
        settings.stack,
        settings.pin,
    )?);
    let rt = Runtime::from_parts(settings, platform, Target::Check)?;
    *lazy = Some(rt.clone());
    Ok(rt)
}

/// Whether this process is rank 0, the one that should print and write files.
///
/// Every rank runs `main` under `mpirun`, so a `println!` after a loop prints once per rank; guard
/// output with `if dls::is_root()`. On the threads backend (one process) it is always `true`. It
/// asks the live runtime ([`current`]); when there is none (for instance before `init`), it reads
/// the launcher's rank variable (`OMPI_COMM_WORLD_RANK`, `PMI_RANK`, `PMIX_RANK`).
///
/// ```
/// let rt = dls_runtime::init().unwrap();
/// assert!(dls_runtime::is_root()); // threads backend: one process
/// assert_eq!(dls_runtime::is_root(), rt.rank() == 0);
/// ```
pub fn is_root() -> bool {
    if let Some(shared) = lock(&CURRENT).upgrade() {
        return (Runtime {
            shared,
            reduction: None,
            reexecute: None,
            split: None,
            statistics: false,
        })
        .rank()
            == 0;
    }
    settings::launcher_rank(|k| std::env::var(k).ok()).is_none_or(|rank| rank == 0)
}

impl Runtime {
    /// A threads runtime with `threads` workers and the given settings, independent of the
    /// environment and of [`init`] (for tests, benchmarks and embedding).
    ///
    /// ```
    /// use dls_runtime::{Runtime, runtime::settings::Settings};
    /// let rt = Runtime::threads(3, Settings::default()).unwrap();
    /// assert_eq!(rt.workers(), 3);
    /// ```
    pub fn threads(threads: usize, settings: Settings) -> Result<Runtime, DlsError> {
        if threads == 0 {
            return Err(DlsError::Threads("at least one thread is needed".into()));
        }
        let platform = Box::new(ThreadsBackend::new(
            Some(threads),
            settings.stack,
            settings.pin,
        )?);
        Runtime::from_parts(settings, platform, Target::Trust)
    }

    /// The one construction path: a runtime on `platform`; checks the report target (a collective
    /// on MPI) and installs the panic hook.
    fn from_parts(
        settings: Settings,
        platform: Box<dyn Platform>,
        target: Target,
    ) -> Result<Runtime, DlsError> {
        sched::reporting::set_chunk_map_max(
            settings.chunk_map.unwrap_or(settings::DEFAULT_CHUNK_MAP),
        );
        let rt = Runtime {
            shared: Arc::new(Shared {
                settings,
                platform,
                history: Mutex::new(crate::technique::History::new()),
                merge_times: Mutex::new(std::collections::HashMap::new()),
                auto: Mutex::new(memory::auto::AutoHistory::default()),
                checkpoints: checkpoint::CheckpointMemory::default(),
                settings_at_start: (target == Target::Check)
                    .then(|| settings::settings_set(|k| std::env::var(k).ok())),
            }),
            reduction: None,
            reexecute: None,
            split: None,
            statistics: false,
        };
        if let Some(i) = &rt.shared.settings.inject {
            // Under MPI the faulty worker is a rank (all its threads, with threads inside ranks).
            let p = match rt.backend() {
                Backend::Mpi { size, .. } => size,
                Backend::Threads { threads } => threads,
            };
            if i.worker >= p {
                return Err(DlsError::Setting {
                    name: "DLS_INJECT",
                    value: format!("worker={}", i.worker),
                    message: format!(
                        "worker {} does not exist: this run has {p} workers, 0 to {} (MPI \
                         ranks, or threads), so nothing would be injected",
                        i.worker,
                        p - 1
                    ),
                });
            }
        }
        if target == Target::Check {
            // Settings are read once, now: those the runtime's hooks read themselves are read
            // here too, so that a change after the start has no effect on any rank (issue 43
            // R4-3: `set_var("DLS_DELAY", …)` on one rank after init hung the job at its end).
            observe::delay::read_at_start();
            check::inject::read_at_start();
            rt.check_report_target()?;
        }
        loops::panic_ctx::install_hook();
        Ok(rt)
    }

    /// Checks that rank 0 can append to the `DLS_REPORT` file. On MPI the verdict is shared by
    /// every rank (a collective), so that all ranks fail alike instead of some waiting forever.
    fn check_report_target(&self) -> Result<(), DlsError> {
        let ReportMode::JsonLines(path) = &self.shared.settings.report else {
            return Ok(());
        };
        let mut verdict = Ok(());
        if self.rank() == 0 {
            if let Err(e) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
            {
                verdict = Err(e.to_string());
            }
        }
        if !self.shared.platform.all_agree(verdict.is_ok()) && verdict.is_ok() {
            verdict = Err("rank 0 cannot append to it".into());
        }
        verdict.map_err(|e| DlsError::Setting {
            name: "DLS_REPORT",
            value: path.display().to_string(),
            message: format!(
                "cannot append to this file ({e}); use 1 for a summary on stderr, 0 for none, or \
                 a writable file path for JSON Lines"
            ),
        })
    }

    /// This process's rank (0 on the threads backend).
    ///
    /// ```
    /// assert_eq!(dls_runtime::init().unwrap().rank(), 0);
    /// ```
    pub fn rank(&self) -> usize {
        match self.backend() {
            Backend::Threads { .. } => 0,
            Backend::Mpi { rank, .. } => rank,
        }
    }

    /// Number of processes (MPI ranks; 1 on the threads backend).
    ///
    /// ```
    /// assert!(dls_runtime::init().unwrap().size() >= 1);
    /// ```
    pub fn size(&self) -> usize {
        match self.backend() {
            Backend::Threads { .. } => 1,
            Backend::Mpi { size, .. } => size,
        }
    }

    /// P: the number of workers that execute iterates (MPI ranks, or threads).
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// assert!(rt.workers() >= rt.size());
    /// ```
    pub fn workers(&self) -> usize {
        match self.backend() {
            Backend::Threads { threads } => threads,
            Backend::Mpi { size, threads, .. } => size * threads,
        }
    }

    /// The backend in use.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// println!("{:?}", rt.backend());
    /// ```
    pub fn backend(&self) -> Backend {
        self.shared.platform.backend()
    }

    /// The settings read from the environment.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let _ = &rt.settings().report;
    /// ```
    pub fn settings(&self) -> &Settings {
        &self.shared.settings
    }

    /// The technique a loop runs with: `DLS_SCHEDULE` if set, else the program's.
    ///
    /// ```
    /// use dls_runtime::{Runtime, runtime::settings::{parse_schedule, Settings}};
    /// let s = Settings { schedule: Some(parse_schedule("gss").unwrap()), ..Settings::default() };
    /// let rt = Runtime::threads(1, s).unwrap();
    /// assert_eq!(rt.effective_technique("fac2".parse().unwrap()).to_string(), "gss");
    /// ```
    pub fn effective_technique(&self, technique: Technique) -> Technique {
        self.shared.settings.schedule.clone().unwrap_or(technique)
    }

    /// The same runtime, whose loops combine their partial results by `strategy` (unless
    /// `DLS_REDUCTION` says otherwise): a cheap handle, like a clone.
    ///
    /// ```
    /// use dls_runtime::Strategy;
    /// let rt = dls_runtime::init().unwrap().with_reduction(Strategy::Tree).with_statistics(true);
    /// let (sum, stats) = rt.doall_reduce("sum", 0..100u64, "gss".parse().unwrap(),
    ///     || 0, |i, s| *s += i, |a, b| a + b).unwrap();
    /// assert_eq!(sum, 4950);
    /// // One process: its workers' values are combined in memory.
    /// assert_eq!(stats.report.reduction.unwrap().requested, "tree");
    /// ```
    pub fn with_reduction(&self, strategy: Strategy) -> Runtime {
        Runtime {
            shared: self.shared.clone(),
            reduction: Some(strategy),
            reexecute: self.reexecute,
            split: self.split,
            statistics: self.statistics,
        }
    }

    /// The same runtime, whose loops re-execute unfinished chunks (`true`, the default) or not
    /// (`false`) — unless `DLS_REEXECUTE` says otherwise: a cheap handle, like a clone. See
    /// `runtime::reexecution`.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap().with_reexecution(false).with_statistics(true);
    /// let (sum, stats) = rt.doall_reduce("sum", 0..100u64, "gss".parse().unwrap(),
    ///     || 0, |i, s| *s += i, |a, b| a + b).unwrap();
    /// assert_eq!(sum, 4950);
    /// assert!(stats.report.reexecution.is_none() || std::env::var("DLS_REEXECUTE").is_ok());
    /// ```
    pub fn with_reexecution(&self, on: bool) -> Runtime {
        Runtime {
            shared: self.shared.clone(),
            reduction: self.reduction,
            reexecute: Some(on),
            split: self.split,
            statistics: self.statistics,
        }
    }

    /// Whether a loop on this runtime runs the first execution of each iterate in this
    /// process's threads and keeps no checkpoint: the threads backend, no checkpoints, no gather
    /// delay (`DLS_DELAY=gather:…`, spent per logged element: a scalability test). Gathered
    /// vectors that a body only assigns to are then written in place by first executions,
    /// logged by copies (re-execution: `gather::GatherWriter::of_run`).
    pub(crate) fn runs_originals_here(&self) -> bool {
        matches!(self.backend(), Backend::Threads { .. })
            && self.shared.settings.checkpoint.is_none()
            && observe::delay::active().gather.is_none()
    }

    /// Where a loop started now on this runtime runs over every MPI rank, each rank's first
    /// executions on its own threads, and keeps no checkpoint (no gather delay either): this
    /// process's rank. Gathered plain elements that a body only assigns to are then written in
    /// place by first executions, their ranges recorded and exchanged between the ranks after
    /// the loop (`gather::Place::exchanged`, [`Runtime::exchange_placed`]); copies log. `None`
    /// on threads, and for a loop that runs on the calling thread alone (nested in an iterate,
    /// or started from a thread an iterate spawned: the other ranks do not run it).
    pub(crate) fn exchanges_originals(&self) -> Option<u32> {
        let Backend::Mpi { rank, .. } = self.backend() else {
            return None;
        };
        let here = self.shared.settings.checkpoint.is_none()
            && observe::delay::active().gather.is_none()
            && !loops::panic_ctx::in_iterate()
            && !self.shared.platform.busy();
        here.then_some(rank as u32)
    }

    /// After a loop for which [`Runtime::exchanges_originals`] held: sends this rank's ranges of
    /// `bytes` to the other ranks and receives theirs (collective; see
    /// `backend/mpi/placed.rs`).
    pub(crate) fn exchange_placed(
        &self,
        bytes: &mut [u8],
        elem: usize,
        placed: &[(u32, u64, u64)],
    ) -> Result<(), DlsError> {
        self.shared.platform.exchange_placed(bytes, elem, placed)
    }

    /// Whether a loop on this runtime runs each iterate exactly once in this process's threads,
    /// `loop_reexecute` being the loop's own re-execution setting (`Some(false)`: a loop with
    /// `shared(...)` variables): the threads backend, no checkpoints, no gather delay, no
    /// re-execution (the
    /// precedence of [`effective_reexecution`](Self::effective_reexecution), with the loop's
    /// setting between `DLS_REEXECUTE` and the runtime's). Gathered vectors are then written in
    /// place (`gather::Place`).
    pub(crate) fn runs_each_iterate_once(&self, loop_reexecute: Option<bool>) -> bool {
        let settings = &self.shared.settings;
        matches!(self.backend(), Backend::Threads { .. })
            && settings.checkpoint.is_none()
            && observe::delay::active().gather.is_none()
            && !settings
                .reexecute
                .or(loop_reexecute)
                .or(self.reexecute)
                .unwrap_or(true)
    }

    /// The same runtime, whose re-executing loops split a long chunk in progress for an idle
    /// worker (`true`, the default) or not (`false`) — unless `DLS_SPLIT` says otherwise: a cheap
    /// handle, like a clone. The holder keeps the first half of the iterates it has not started
    /// and the idle worker gets the second (another MPI rank is asked by a message, and an
    /// asking MPI rank gets the last quarter). See `runtime::split`.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap().with_split(false).with_statistics(true);
    /// let (sum, stats) = rt.doall_reduce("sum", 0..100u64, "gss".parse().unwrap(),
    ///     || 0, |i, s| *s += i, |a, b| a + b).unwrap();
    /// assert_eq!(sum, 4950);
    /// let splits = stats.report.reexecution.map_or(0, |r| r.splits);
    /// assert!(splits == 0 || std::env::var("DLS_SPLIT").is_ok());
    /// ```
    pub fn with_split(&self, on: bool) -> Runtime {
        Runtime {
            shared: self.shared.clone(),
            reduction: self.reduction,
            reexecute: self.reexecute,
            split: Some(on),
            statistics: self.statistics,
        }
    }

    /// The same runtime, whose closure-form loops ([`doall`](Runtime::doall),
    /// [`doall_reduce`](Runtime::doall_reduce), [`run`](Runtime::run), …) build the statistics
    /// they return (`true`) or return the calling process's counters only (`false`, the
    /// default): a cheap handle, like a clone. Statistics nobody reads are never built: a loop
    /// that returns its report keeps a chunk map, times its chunks, reads the workers' CPU clocks
    /// and builds the report at its end, which on a loop of many small chunks costs as much as
    /// a tenth of its time. A loop's own [`LoopOptions::statistics`] and [`LoopOptions`] of a
    /// `#[par_doall]` loop (never) take precedence. `DLS_REPORT` prints reports either way.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let (sum, stats) = rt.doall_reduce("sum", 0..100u64, "ss".parse().unwrap(),
    ///     || 0, |i, s| *s += i, |a, b| a + b).unwrap();
    /// assert_eq!((sum, stats.iterates), (4950, 100)); // the counters, always
    /// assert!(stats.report.chunk_map.is_empty()); // no report: nobody asked for it
    ///
    /// let rt = rt.with_statistics(true);
    /// let (_, stats) = rt.doall_reduce("sum", 0..100u64, "ss".parse().unwrap(),
    ///     || 0, |i, s| *s += i, |a, b| a + b).unwrap();
    /// assert_eq!((stats.report.name.as_str(), stats.report.chunk_map.len()), ("sum", 100));
    /// ```
    ///
    /// [`LoopOptions`]: crate::runtime::options::LoopOptions
    /// [`LoopOptions::statistics`]: crate::runtime::options::LoopOptions::statistics
    pub fn with_statistics(&self, on: bool) -> Runtime {
        Runtime {
            statistics: on,
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A launch read from a map of variables, as `init` reads the process's environment.
    fn launch(vars: &[(&str, &str)]) -> Option<Launch> {
        Launch::detect(|k| {
            vars.iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn backend_choice() {
        let one = launch(&[("OMPI_COMM_WORLD_SIZE", "1")]);
        let four = launch(&[("OMPI_COMM_WORLD_SIZE", "4"), ("OMPI_COMM_WORLD_RANK", "0")]);
        assert!(!use_mpi(None, true).unwrap());
        assert!(!use_mpi(None, false).unwrap());
        assert!(use_mpi(one.as_ref(), true).unwrap());
        assert!(use_mpi(four.as_ref(), true).unwrap());
        assert!(!use_mpi(one.as_ref(), false).unwrap());
        let e = use_mpi(four.as_ref(), false).unwrap_err().to_string();
        assert!(
            e.contains("with 4 processes (OMPI_COMM_WORLD_SIZE=4)"),
            "{e}"
        );
        assert!(e.contains("--features mpi"), "{e}");
        assert!(e.contains(r#"mpi = ["dls/mpi"]"#), "{e}");
    }

    /// A PMIx launch (`srun --mpi=pmix`) and a Hydra launch of a program built without MPI
    /// are errors on every rank, not N copies on threads.
    #[test]
    fn pmix_and_hydra_launches_without_mpi_are_errors() {
        let srun = launch(&[("PMIX_RANK", "1"), ("SLURM_STEP_NUM_TASKS", "2")]);
        let e = use_mpi(srun.as_ref(), false).unwrap_err().to_string();
        assert!(
            e.contains("srun --mpi=pmix") && e.contains("PMIX_RANK"),
            "{e}"
        );
        assert!(e.contains("2 processes"), "{e}");
        let rank0 = launch(&[("PMIX_RANK", "0"), ("SLURM_STEP_NUM_TASKS", "2")]);
        assert!(use_mpi(rank0.as_ref(), false).is_err());
        let prterun = launch(&[("PMIX_RANK", "0")]);
        let e = use_mpi(prterun.as_ref(), false).unwrap_err().to_string();
        assert!(e.contains("an unknown number of processes"), "{e}");
        let hydra = launch(&[
            ("PMI_RANK", "0"),
            ("PMI_SIZE", "2"),
            ("MPI_LOCALNRANKS", "2"),
        ]);
        assert!(use_mpi(hydra.as_ref(), false).is_err());
        assert!(use_mpi(srun.as_ref(), true).unwrap());
    }
}
