//! The execution runtime: seed 004's DLS API on two backends.
//!
//! | seed 004 (Fortran, MPI) | dls (Rust) |
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
//! threads of a rayon pool pull chunks from it; `DLS_THREADS` sets the thread count. *MPI* (feature
//! `mpi`, chosen when the program is launched by `mpirun`): scheduler/worker as in seed 004 fig. 3.3,
//! see the module docs of `runtime::mpi_backend` (built with the `mpi` feature).
//!
//! **Nested loops.** A loop started inside an iterate of another loop (on the same thread) runs on
//! that thread alone, with the same technique, and prints no report: on MPI the other ranks are
//! busy in the outer loop, and on threads the pool's threads are. Two-level loops over groups of
//! ranks use [`Runtime::start_loop_on`] (feature `mpi`) with a sub-communicator instead.
//!
//! **Settings** come from the environment, see [`settings`].

mod error;
mod execute;
mod loop_handle;
#[cfg(feature = "mpi")]
pub mod mpi_backend;
pub(crate) mod panic_ctx;
mod range;
pub(crate) mod sched_core;
pub mod settings;
pub mod stats;
mod threads;
mod wire;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

pub use error::DlsError;
pub use loop_handle::{ChunkRange, Loop};
pub use range::{LoopIndex, LoopRange};
pub use stats::LoopStats;
pub use wire::Wire;

use execute::drive;
use loop_handle::{lock, Driver, LoopCore};
use sched_core::SchedCore;
use settings::{launcher_size, ReportMode, Settings};
use threads::ThreadsBackend;

use crate::report::LoopReport;
use crate::technique::{AwfHistory, Kind};
use crate::Technique;

/// Which backend a [`Runtime`] runs loops on.
///
/// ```
/// let rt = dls_runtime::init().unwrap();
/// if let dls_runtime::Backend::Threads { threads } = rt.backend() {
///     assert_eq!(threads, rt.workers());
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Worker threads of a rayon pool in this process.
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
    },
}

enum BackendImpl {
    Threads(ThreadsBackend),
    #[cfg(feature = "mpi")]
    Mpi(mpi_backend::MpiEnv),
}

struct Inner {
    settings: Settings,
    backend: BackendImpl,
    /// AWF's history of earlier executions, per loop name (time steps of the same loop).
    history: Mutex<HashMap<String, AwfHistory>>,
}

/// The dynamic loop scheduling environment (seed 004's `info` after `DLS_Setup`).
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
    inner: Arc<Inner>,
}

static CURRENT: Mutex<Weak<Inner>> = Mutex::new(Weak::new());
static LAZY: Mutex<Option<Runtime>> = Mutex::new(None);

/// `DLS_Setup`: sets up the runtime, once per process.
///
/// - Launched by `mpirun` (`OMPI_COMM_WORLD_SIZE` or `PMI_SIZE` set) and built with the `mpi`
///   feature: initialises MPI (with `MPI_THREAD_MULTIPLE`) over `MPI_COMM_WORLD`.
/// - Launched by `mpirun` with more than one process but built without `mpi`: an error
///   ([`DlsError::MpiNotBuilt`]); dls never runs N independent copies of the program.
/// - Otherwise: the threads backend, `DLS_THREADS` threads (default: one per core).
///
/// Reads `DLS_SCHEDULE`, `DLS_THREADS` and `DLS_REPORT` (see [`settings`]); a bad value is an
/// error naming the variable. Calling `init` again while a runtime is alive returns that runtime.
/// It also installs a panic hook that names the rank and iterate of a panicking iterate (and, on
/// MPI, aborts the job so that it never hangs).
///
/// ```
/// let rt = dls_runtime::init().unwrap();
/// let again = dls_runtime::init().unwrap();
/// assert_eq!(rt.backend(), again.backend());
/// ```
pub fn init() -> Result<Runtime, DlsError> {
    let mut current = lock(&CURRENT);
    if let Some(inner) = current.upgrade() {
        return Ok(Runtime { inner });
    }
    let settings = Settings::from_env()?;
    let launched = launcher_size(|k| std::env::var(k).ok());
    let backend = if use_mpi(launched, cfg!(feature = "mpi"))? {
        mpi_env()?
    } else {
        BackendImpl::Threads(ThreadsBackend::new(settings.threads)?)
    };
    let rt = Runtime {
        inner: Arc::new(Inner {
            settings,
            backend,
            history: Mutex::new(HashMap::new()),
        }),
    };
    rt.check_report_target()?;
    panic_ctx::install_hook();
    *current = Arc::downgrade(&rt.inner);
    Ok(rt)
}

/// Whether to run on MPI: when launched by an MPI launcher (`launched`: its process count) and
/// built with MPI. Launched with several processes but built without MPI is an error: never run
/// N independent copies.
fn use_mpi(launched: Option<usize>, mpi_built: bool) -> Result<bool, DlsError> {
    match launched {
        Some(_) if mpi_built => Ok(true),
        Some(size) if size > 1 => Err(DlsError::MpiNotBuilt { size }),
        _ => Ok(false),
    }
}

#[cfg(feature = "mpi")]
fn mpi_env() -> Result<BackendImpl, DlsError> {
    Ok(BackendImpl::Mpi(mpi_backend::MpiEnv::init()?))
}

#[cfg(not(feature = "mpi"))]
fn mpi_env() -> Result<BackendImpl, DlsError> {
    Err(DlsError::Mpi(
        "this program was built without the `mpi` feature of dls".into(),
    ))
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
/// assert_eq!(stats.report.n, 10);
/// ```
pub fn current() -> Result<Runtime, DlsError> {
    if let Some(inner) = lock(&CURRENT).upgrade() {
        return Ok(Runtime { inner });
    }
    if let Some(size) = launcher_size(|k| std::env::var(k).ok()) {
        if size > 1 {
            return Err(DlsError::Mpi(format!(
                "launched by mpirun with {size} processes but no runtime is alive: call \
                 `let rt = dls::init()?;` at the start of main and keep `rt` until main ends"
            )));
        }
    }
    let mut lazy = lock(&LAZY);
    if let Some(rt) = lazy.as_ref() {
        return Ok(rt.clone());
    }
    let settings = Settings::from_env()?;
    let backend = BackendImpl::Threads(ThreadsBackend::new(settings.threads)?);
    let rt = Runtime {
        inner: Arc::new(Inner {
            settings,
            backend,
            history: Mutex::new(HashMap::new()),
        }),
    };
    rt.check_report_target()?;
    panic_ctx::install_hook();
    *lazy = Some(rt.clone());
    Ok(rt)
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
        panic_ctx::install_hook();
        Ok(Runtime {
            inner: Arc::new(Inner {
                backend: BackendImpl::Threads(ThreadsBackend::new(Some(threads))?),
                settings,
                history: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// Checks that rank 0 can append to the `DLS_REPORT` file. On MPI the verdict is shared by
    /// every rank (a collective), so that all ranks fail alike instead of some waiting forever.
    fn check_report_target(&self) -> Result<(), DlsError> {
        let ReportMode::JsonLines(path) = &self.inner.settings.report else {
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
        #[cfg(feature = "mpi")]
        if let BackendImpl::Mpi(env) = &self.inner.backend {
            if !env.all_agree(verdict.is_ok()) && verdict.is_ok() {
                verdict = Err("rank 0 cannot append to it".into());
            }
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
        match &self.inner.backend {
            BackendImpl::Threads(_) => 0,
            #[cfg(feature = "mpi")]
            BackendImpl::Mpi(env) => env.rank(),
        }
    }

    /// Number of processes (MPI ranks; 1 on the threads backend).
    ///
    /// ```
    /// assert!(dls_runtime::init().unwrap().size() >= 1);
    /// ```
    pub fn size(&self) -> usize {
        match &self.inner.backend {
            BackendImpl::Threads(_) => 1,
            #[cfg(feature = "mpi")]
            BackendImpl::Mpi(env) => env.size(),
        }
    }

    /// P: the number of workers that execute iterates (MPI ranks, or threads).
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// assert!(rt.workers() >= rt.size());
    /// ```
    pub fn workers(&self) -> usize {
        match &self.inner.backend {
            BackendImpl::Threads(t) => t.threads(),
            #[cfg(feature = "mpi")]
            BackendImpl::Mpi(env) => env.size(),
        }
    }

    /// The backend in use.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// println!("{:?}", rt.backend());
    /// ```
    pub fn backend(&self) -> Backend {
        match &self.inner.backend {
            BackendImpl::Threads(t) => Backend::Threads {
                threads: t.threads(),
            },
            #[cfg(feature = "mpi")]
            BackendImpl::Mpi(env) => Backend::Mpi {
                rank: env.rank(),
                size: env.size(),
            },
        }
    }

    /// The settings read from the environment.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let _ = &rt.settings().report;
    /// ```
    pub fn settings(&self) -> &Settings {
        &self.inner.settings
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
        self.inner.settings.schedule.clone().unwrap_or(technique)
    }

    /// `DLS_StartLoop`: starts a loop over `range` (the synchronisation point at its start; on MPI
    /// every rank calls it). The loop is named after the caller's source location. `DLS_SCHEDULE`
    /// overrides `technique`.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let lp = rt.start_loop(1..=100i32, "fac2".parse().unwrap()).unwrap();
    /// let mut n = 0;
    /// while let Some(c) = lp.next_chunk() { n += c.count(); }
    /// assert_eq!(n, 100);
    /// assert!(lp.name().contains(".rs:"));
    /// ```
    #[track_caller]
    pub fn start_loop<R: LoopRange>(
        &self,
        range: R,
        technique: Technique,
    ) -> Result<Loop<R::Index>, DlsError> {
        let name = std::panic::Location::caller().to_string();
        self.start_loop_named(&name, range, technique)
    }

    /// [`start_loop`](Runtime::start_loop) with an explicit loop name (as in the report).
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let lp = rt.start_loop_named("rows", 0..3u8, "ss".parse().unwrap()).unwrap();
    /// assert_eq!(lp.finish().report.name, "rows");
    /// ```
    pub fn start_loop_named<R: LoopRange>(
        &self,
        name: &str,
        range: R,
        technique: Technique,
    ) -> Result<Loop<R::Index>, DlsError> {
        self.make_loop(name, range, technique).map(|(lp, _)| lp)
    }

    fn make_loop<R: LoopRange>(
        &self,
        name: &str,
        range: R,
        technique: Technique,
    ) -> Result<(Loop<R::Index>, Mode), DlsError> {
        let (first, n) = range.first_and_len()?;
        let technique = self.effective_technique(technique);
        let mut report = self.inner.settings.report.clone();
        let (driver, mode) = if panic_ctx::in_iterate() {
            report = ReportMode::Off;
            (shared(&technique, n, 1, None)?, Mode::Local)
        } else {
            match &self.inner.backend {
                BackendImpl::Threads(t) => {
                    let w = self.awf_weights_for(name, &technique, t.threads());
                    (shared(&technique, n, t.threads(), w)?, Mode::Threads)
                }
                #[cfg(feature = "mpi")]
                BackendImpl::Mpi(env) => {
                    let w = self.awf_weights_for(name, &technique, env.size());
                    let lp = mpi_backend::MpiLoop::start(&env.world(), &technique, n, w)?;
                    (Driver::Mpi(lp), Mode::Mpi)
                }
            }
        };
        let core = LoopCore::new(
            name.into(),
            technique,
            n,
            driver,
            report,
            Some(self.clone()),
        );
        Ok((Loop::new(first, core), mode))
    }

    /// Starts a loop over the ranks of `comm` (any communicator: a group of ranks, or the
    /// coordinator and the group leaders of a two-level loop). Rank 0 of `comm` is the scheduler.
    /// Every rank of `comm` must call it, with the same range and technique. Unlike
    /// [`start_loop`](Runtime::start_loop) it may be called inside an iterate of another loop.
    ///
    /// ```no_run
    /// # // needs mpirun
    /// let rt = dls_runtime::init().unwrap();
    /// let world = mpi::topology::SimpleCommunicator::world();
    /// let lp = rt.start_loop_on(&world, "inner", 0..10u32, "gss".parse().unwrap()).unwrap();
    /// while let Some(c) = lp.next_chunk() { for _ in c {} }
    /// lp.finish();
    /// ```
    #[cfg(feature = "mpi")]
    pub fn start_loop_on<C, R>(
        &self,
        comm: &C,
        name: &str,
        range: R,
        technique: Technique,
    ) -> Result<Loop<R::Index>, DlsError>
    where
        C: mpi::topology::Communicator,
        R: LoopRange,
    {
        if !matches!(self.inner.backend, BackendImpl::Mpi(_)) {
            return Err(DlsError::Mpi(
                "start_loop_on needs the MPI backend (launch the program with mpirun)".into(),
            ));
        }
        let (first, n) = range.first_and_len()?;
        let technique = self.effective_technique(technique);
        let w = self.awf_weights_for(name, &technique, comm.size() as usize);
        let driver = Driver::Mpi(mpi_backend::MpiLoop::start(comm, &technique, n, w)?);
        let core = LoopCore::new(
            name.into(),
            technique,
            n,
            driver,
            self.inner.settings.report.clone(),
            Some(self.clone()),
        );
        Ok(Loop::new(first, core))
    }

    /// Runs `body` once for every index of `range`, in parallel over all workers, with dynamic
    /// loop scheduling. Named after the caller's source location. Returns the loop's statistics.
    ///
    /// A panicking iterate ends the loop: on threads, `doall` panics with the iterate, the thread
    /// and the message; on MPI the job is aborted with the rank, the iterate and the message.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicU64, Ordering};
    /// let rt = dls_runtime::init().unwrap();
    /// let sum = AtomicU64::new(0);
    /// let stats = rt.doall(0..1000u64, "awf-b".parse().unwrap(), |i| {
    ///     sum.fetch_add(i, Ordering::Relaxed);
    /// }).unwrap();
    /// assert_eq!(sum.into_inner(), 499_500); // on MPI: this rank's share only
    /// assert_eq!(stats.report.ranks.iter().map(|r| r.iterates).sum::<u64>(), 1000);
    /// ```
    #[track_caller]
    pub fn doall<R, F>(
        &self,
        range: R,
        technique: Technique,
        body: F,
    ) -> Result<LoopStats, DlsError>
    where
        R: LoopRange,
        F: Fn(R::Index) + Sync,
    {
        let name = std::panic::Location::caller().to_string();
        self.doall_named(&name, range, technique, body)
    }

    /// [`doall`](Runtime::doall) with an explicit loop name.
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let stats = rt.doall_named("noop", 0..5u8, "ss".parse().unwrap(), |_| {}).unwrap();
    /// assert_eq!(stats.report.name, "noop");
    /// ```
    pub fn doall_named<R, F>(
        &self,
        name: &str,
        range: R,
        technique: Technique,
        body: F,
    ) -> Result<LoopStats, DlsError>
    where
        R: LoopRange,
        F: Fn(R::Index) + Sync,
    {
        self.reduce_impl(
            name,
            range,
            technique,
            || (),
            |i, _| body(i),
            |_, _| (),
            false,
        )
        .map(|(_, stats)| stats)
    }

    /// A parallel loop with a reduction: every worker (thread or rank) folds its iterates into its
    /// own value from `identity()` with `body`; the workers' values are combined with `combine`
    /// (an associative operation, applied in any tree order) and **every** caller — every rank on
    /// MPI — gets the full result. Over MPI the values travel serialised ([`Wire`]).
    ///
    /// ```
    /// let rt = dls_runtime::init().unwrap();
    /// let (max, stats) = rt.doall_reduce("max", 0..100i64, "gss".parse().unwrap(),
    ///     || i64::MIN, |i, m| *m = (*m).max((i * 37) % 101), |a, b| a.max(b)).unwrap();
    /// assert_eq!(max, 100);
    /// assert_eq!(stats.report.name, "max");
    /// ```
    pub fn doall_reduce<R, T, Id, B, C>(
        &self,
        name: &str,
        range: R,
        technique: Technique,
        identity: Id,
        body: B,
        combine: C,
    ) -> Result<(T, LoopStats), DlsError>
    where
        R: LoopRange,
        T: Send + Wire,
        Id: Fn() -> T + Sync,
        B: Fn(R::Index, &mut T) + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        self.reduce_impl(name, range, technique, identity, body, combine, true)
    }

    #[allow(clippy::too_many_arguments)]
    fn reduce_impl<R, T, Id, B, C>(
        &self,
        name: &str,
        range: R,
        technique: Technique,
        identity: Id,
        body: B,
        combine: C,
        exchange: bool,
    ) -> Result<(T, LoopStats), DlsError>
    where
        R: LoopRange,
        T: Send + Wire,
        Id: Fn() -> T + Sync,
        B: Fn(R::Index, &mut T) + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        let (lp, mode) = self.make_loop(name, range, technique)?;
        match (mode, &self.inner.backend) {
            (Mode::Threads, BackendImpl::Threads(pool)) => match pool.run(&lp, &identity, &body) {
                Ok(values) => {
                    let stats = lp.finish();
                    Ok((fold_all(values, &identity, &combine), stats))
                }
                Err(f) => {
                    let name = lp.name().to_string();
                    drop(lp);
                    panic!(
                        "dls: iterate {} of loop `{}` panicked on thread {}: {}",
                        f.iterate, name, f.worker, f.message
                    );
                }
            },
            #[cfg(feature = "mpi")]
            (Mode::Mpi, _) => {
                let mut acc = identity();
                let _ = drive(&lp, None, &mut acc, &body, false);
                let value = if exchange {
                    let m = lp.core().mpi().expect("an MPI loop has an MPI driver");
                    let values = m.all_gather_values(&acc)?;
                    fold_all(values, &identity, &combine)
                } else {
                    acc
                };
                Ok((value, lp.finish()))
            }
            _ => {
                // Nested inside an iterate: this thread alone; panics unwind normally.
                let _ = exchange;
                let mut acc = identity();
                let _ = drive(&lp, Some(0), &mut acc, &body, false);
                Ok((acc, lp.finish()))
            }
        }
    }
}

impl Runtime {
    /// AWF's weights for the next execution of the loop `name`, from its earlier executions
    /// (time steps) on this runtime: `None` before the first, or when the loop is not AWF.
    /// `w_i = P·rho_i / Σ rho_k` with `rho_i = mean(pi) / pi_i` and
    /// `pi_i = Σ_s s·T_is / Σ_s s·N_is` (Banicescu, Velusamy & Devaprasad 2003; see
    /// [`AwfHistory`]).
    ///
    /// ```
    /// use dls_runtime::{Runtime, runtime::settings::Settings};
    /// let rt = Runtime::threads(2, Settings::default()).unwrap();
    /// assert_eq!(rt.awf_weights("step"), None);
    /// rt.doall_named("step", 0..100u32, "awf".parse().unwrap(), |_| {}).unwrap();
    /// assert_eq!(rt.awf_weights("step").unwrap().len(), 2);
    /// ```
    pub fn awf_weights(&self, name: &str) -> Option<Vec<f64>> {
        lock(&self.inner.history).get(name).map(|h| h.weights())
    }

    fn awf_weights_for(&self, name: &str, technique: &Technique, p: usize) -> Option<Vec<f64>> {
        if technique.kind != Kind::Awf {
            return None;
        }
        let history = lock(&self.inner.history);
        let h = history.get(name)?;
        let w = h.weights();
        (h.steps() > 0 && w.len() == p).then_some(w)
    }

    /// Records a finished AWF loop as one more time step of its history.
    pub(crate) fn record_history(&self, technique: &Technique, report: &LoopReport) {
        if technique.kind != Kind::Awf || report.p == 0 {
            return;
        }
        let per_rank: Vec<(u64, f64)> = report
            .ranks
            .iter()
            .map(|r| (r.iterates, r.work_time_s))
            .collect();
        let mut history = lock(&self.inner.history);
        let h = history
            .entry(report.name.clone())
            .or_insert_with(|| AwfHistory::new(report.p));
        if h.update(&per_rank).is_err() {
            // Another P than before (e.g. the loop also ran nested): start a new history.
            let mut fresh = AwfHistory::new(report.p);
            if fresh.update(&per_rank).is_ok() {
                *h = fresh;
            }
        }
    }
}

/// How a loop executes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Threads,
    Local,
    #[cfg(feature = "mpi")]
    Mpi,
}

fn shared(
    technique: &Technique,
    n: u64,
    p: usize,
    weights: Option<Vec<f64>>,
) -> Result<Driver, DlsError> {
    let mut core = SchedCore::new(technique, n, p)?;
    if let Some(w) = weights {
        core.set_weights(w)?;
    }
    Ok(Driver::Shared {
        core: Mutex::new(core),
        p,
    })
}

fn fold_all<T>(values: Vec<T>, identity: &impl Fn() -> T, combine: &impl Fn(T, T) -> T) -> T {
    let mut it = values.into_iter();
    match it.next() {
        Some(first) => it.fold(first, combine),
        None => identity(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_choice() {
        assert!(!use_mpi(None, true).unwrap());
        assert!(!use_mpi(None, false).unwrap());
        assert!(use_mpi(Some(1), true).unwrap());
        assert!(use_mpi(Some(4), true).unwrap());
        assert!(!use_mpi(Some(1), false).unwrap());
        let e = use_mpi(Some(4), false).unwrap_err().to_string();
        assert!(e.contains("launched by mpirun with 4 processes"), "{e}");
        assert!(e.contains("--features mpi"), "{e}");
    }
}
