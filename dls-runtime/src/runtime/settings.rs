//! Run-time settings read from the environment, like OpenMP's `OMP_*` variables.
//!
//! | variable | values | effect |
//! |----------|--------|--------|
//! | `DLS_SCHEDULE` | a technique with parameters, e.g. `fac2`, `fsc,h=200us,sigma=50us` | overrides the technique of every loop (like `OMP_SCHEDULE`) |
//! | `DLS_REDUCTION` | `auto`, `allgather`, `master`, `tree`, `pipeline` (any case) | overrides how every loop's partial results travel between ranks (see [`Strategy`]; default `auto`, or the program's `reduction = "..."`) |
//! | `DLS_CHECK` | `off`, `warn`, `repair` (any case) | what a checked loop (`Runtime::doall_reduce_checked`) does: `warn` (default) runs its iterates in a seeded random order and tests across workers that their values agree, reporting a rejection; `repair` also runs a suspect worker's iterates again on the others and returns the corrected result, or an error if the check still fails; `off` runs it unchecked |
//! | `DLS_CHECK_ALPHA` | a number above 0 and below 0.5 | the significance level of checked loops (default 1e-4) |
//! | `DLS_INJECT` | `worker=<w>,bias=<k>` or `scale=<f>` or `nan`, optionally `prob=<p>` | for testing fault checks only: `dls::inject(y)` makes worker w's values wrong (read when first used; see `runtime::inject`) |
//! | `DLS_PROGRESS` | `auto`, `bar`, `lines`, `off` (any case) | progress of running loops on stderr, from rank 0: iterates done (of finished chunks), rate and ETA. `auto` (default): a bar (`indicatif`) when stderr is a terminal, shown once a loop has run 1 s; otherwise a line every 5 s, so loops shorter than 5 s print nothing. `bar`: a bar from the start (nothing without a terminal). `lines`: a line every second for any loop. `off`: nothing. See `runtime::progress` |
//! | `DLS_REEXECUTE` | `on`, `off` (also `1`/`0`, `true`/`false`, `yes`/`no`; any case) | re-execution of unfinished chunks (default `on`, but `off` on threads inside MPI ranks, `DLS_THREADS` ≥ 2 under a launcher): once every iterate has been handed out, an idle worker executes a copy of a chunk another worker holds for too long (a stalled or slowed worker); the first copy to finish counts, so results count every iterate once. For the closure forms and `#[par_doall]` loops; `off`: idle workers wait. See `runtime::reexecution` |
//! | `DLS_SPLIT` | `on`, `off` (also `1`/`0`, `true`/`false`, `yes`/`no`; any case) | with re-execution, an idle worker first takes part of the iterates not yet started in a long chunk in progress (default `on`). See `runtime::split` |
//! | `DLS_CHECKPOINT` | a folder (created if missing; on a cluster, one every rank can reach) | checkpoint and restart of loops with a result (`doall_reduce`, `#[par_doall]`): every worker writes its confirmed result and the iterates in it there, every `DLS_CHECKPOINT_EVERY` and on SIGUSR1; a run with the same setting skips the iterates the newest checkpoints hold and restores their results; a restart whose fingerprint (binary, arguments, loop, range, result type, technique, `checkpoint_key`) differs is refused, and a run that ends retires its checkpoints. See `runtime::checkpoint` |
//! | `DLS_CHECKPOINT_EVERY` | a duration: `60s`, `5min`, `500ms`, or seconds | the interval between two checkpoints of a worker (default 60 s) |
//! | `DLS_DELAY` | comma-separated `<region>:<duration>[:spin\|sleep]`, the region `body`, `chunk`, `merge`, `gather` or the name of a `dls::region`, e.g. `body:20us,between:5ms:sleep` | synthetic delays for the scalability test (`dls scaltest`, Lyon & Kacker 1994): each named region gets slower by the duration per iterate, chunk, merge, gathered element or region entry (see `runtime::delay`; read once per process) |
//! | `DLS_THREADS` | a whole number from 1 to 1024 | worker threads of the threads backend (default: the machine's cores); under mpirun (or another launcher) the worker threads inside every rank (default: none, every rank is one worker): rank 0 hands a rank a batch of chunks for its threads at a time (threads inside ranks; re-execution is off there unless `DLS_REEXECUTE=on`, and a loop that re-executes or writes checkpoints takes a request per chunk per thread) |
//! | `DLS_PIN` | `off`, `cores` (also `on`; any case) | `cores`: each pool thread runs on one core of the process's CPU mask, thread j on its j-th core (like `OMP_PROC_BIND=true`); the thread that starts loops, the program's own, is not moved (default `off`: the kernel places the threads). A process whose mask holds fewer cores than its worker threads is warned at start either way |
//! | `DLS_CHUNK_MAP` | a whole number >= 0 | the most chunks a loop report lists with their times (default 1,000,000: 24 MB of chunk map and 16 MB of chunk times on the scheduler, 24 MB more in the report); chunks beyond are counted in the report's `chunk_map_dropped`, so SS over 10^7 iterates does not hold 10^7 entries |
//! | `DLS_STACK` | a size: `16M`, `64MiB`, `1G`, or bytes; at least 64 KiB | stack of each pool thread of the threads backend (default 8 MiB, the main thread's stack on Linux, so deep recursion that works serially works in parallel; worker 0 is the thread that starts the loop, on its own stack) |
//! | `DLS_REPORT` | `1`/`on`/`true`/`yes`/`stderr`, `stdout`/`-`, `0`/`off`/`false`/`no`/empty, or a file path (with a `/` or an extension, e.g. `run.jsonl`) | a summary of every loop on stderr (or stdout), printed by rank 0; a path: rank 0 appends one JSON object per loop to that file (JSON Lines). Words are case-insensitive; any other value is an error |
//!
//! Launch detection (not settings, read from the launcher): `OMPI_COMM_WORLD_SIZE` (Open MPI),
//! `PMI_SIZE`/`PMI_RANK` (MPICH/Intel MPI Hydra, Slurm with PMI-2), `MV2_COMM_WORLD_SIZE`
//! (MVAPICH), `PMIX_RANK` with `SLURM_STEP_NUM_TASKS` (Slurm's `srun --mpi=pmix`) or
//! `MPI_LOCALNRANKS` (Hydra) tell that a launcher started the program, see [`Launch`].

use std::path::PathBuf;

pub use crate::runtime::backend::threads::DEFAULT_STACK;
use crate::runtime::error::DlsError;
pub use crate::runtime::launch::{launcher_rank, launcher_size, Launch};
pub use crate::runtime::observe::stats::ReportMode;
pub use crate::runtime::sched::reporting::DEFAULT_CHUNK_MAP;
use crate::{Strategy, Technique};

/// `on`/`off` and their usual spellings, `None` for anything else.
fn on_off(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "on" | "1" | "true" | "yes" => Some(true),
        "off" | "0" | "false" | "no" => Some(false),
        _ => None,
    }
}

/// The smallest `DLS_CHECK_ALPHA`: a significance level below it makes a check that cannot
/// reject (the tests' p-values are not computed that far into the tail).
pub const MIN_ALPHA: f64 = 1e-12;

/// The settings of one runtime, read once by [`init`](crate::init).
///
/// ```
/// use dls_runtime::runtime::settings::Settings;
/// let s = Settings::from_lookup(|k| (k == "DLS_THREADS").then(|| "3".to_string())).unwrap();
/// assert_eq!(s.threads, Some(3));
/// let e = Settings::from_lookup(|k| (k == "DLS_SCHEDULE").then(|| "foo".to_string())).unwrap_err();
/// assert!(e.to_string().starts_with("DLS_SCHEDULE=`foo`"));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    /// `DLS_SCHEDULE`: overrides the technique of every loop.
    pub schedule: Option<Technique>,
    /// `DLS_THREADS`: worker threads of the threads backend, or inside every rank under a
    /// launcher.
    pub threads: Option<usize>,
    /// `DLS_REPORT`.
    pub report: ReportMode,
    /// `DLS_STACK`: stack size in bytes of each worker thread of the threads backend.
    pub stack: Option<usize>,
    /// `DLS_PIN`: each pool thread pinned to one core of the process's CPU mask (`cores`).
    pub pin: bool,
    /// `DLS_CHUNK_MAP`: the most chunks a loop report lists.
    pub chunk_map: Option<usize>,
    /// `DLS_REDUCTION`: overrides every loop's reduction strategy.
    pub reduction: Option<Strategy>,
    /// `DLS_CHECK`: what checked loops do.
    pub check: Option<crate::runtime::loops::options::CheckMode>,
    /// `DLS_CHECK_ALPHA`: the significance level of checked loops.
    pub check_alpha: Option<f64>,
    /// `DLS_INJECT`, as read here: the fault injection of tests of fault checks. The hooks read
    /// the variable themselves, once per process; this copy checks the value (and that its
    /// worker exists) when the runtime starts.
    pub inject: Option<crate::runtime::check::inject::Injection>,
    /// `DLS_PROGRESS`: how the progress of long loops is shown.
    pub progress: crate::runtime::observe::progress::ProgressMode,
    /// `DLS_REEXECUTE`: `Some(false)` turns re-execution of unfinished chunks off (default on).
    pub reexecute: Option<bool>,
    /// `DLS_SPLIT`: `Some(false)` turns off the splitting of chunks in progress for idle
    /// workers in re-executing loops (default on; `runtime/tolerance/split.rs`).
    pub split: Option<bool>,
    /// `DLS_CHECKPOINT`: the folder of loops' checkpoints (none: no checkpoints).
    pub checkpoint: Option<PathBuf>,
    /// `DLS_CHECKPOINT_EVERY`: the interval between two checkpoints of a worker.
    pub checkpoint_every: Option<std::time::Duration>,
    /// `DLS_DELAY`: synthetic delays per region, as read here. The hooks read the variable
    /// themselves, once per process ([`delay::active`](crate::runtime::observe::delay::active)); this copy checks
    /// the value when the runtime starts.
    pub delay: crate::runtime::observe::delay::Delays,
}

impl Settings {
    /// Reads the settings from the process environment.
    ///
    /// ```
    /// let _ = dls_runtime::runtime::settings::Settings::from_env();
    /// ```
    pub fn from_env() -> Result<Self, DlsError> {
        Self::from_lookup(|k| std::env::var(k).ok())
    }

    /// Reads the settings through `lookup` (for tests and embedding).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, DlsError> {
        let mut s = Settings::default();
        if let Some(v) = lookup("DLS_SCHEDULE").filter(|v| !v.trim().is_empty()) {
            s.schedule = Some(parse_schedule(&v)?);
        }
        if let Some(v) = lookup("DLS_THREADS").filter(|v| !v.trim().is_empty()) {
            s.threads = Some(parse_threads(&v)?);
        }
        if let Some(v) = lookup("DLS_STACK").filter(|v| !v.trim().is_empty()) {
            s.stack = Some(parse_stack(&v)?);
        }
        if let Some(v) = lookup("DLS_PIN").filter(|v| !v.trim().is_empty()) {
            s.pin = match v.trim().to_ascii_lowercase().as_str() {
                "cores" | "core" => true,
                w => on_off(w).ok_or_else(|| DlsError::Setting {
                    name: "DLS_PIN",
                    value: v.clone(),
                    message: "expected off or cores (pin each pool thread to one core of the \
                              process's CPU mask; default off)"
                        .into(),
                })?,
            };
        }
        if let Some(v) = lookup("DLS_CHUNK_MAP").filter(|v| !v.trim().is_empty()) {
            s.chunk_map = Some(v.trim().parse::<usize>().map_err(|_| {
                DlsError::Setting {
                    name: "DLS_CHUNK_MAP",
                    value: v.clone(),
                    message: "expected a whole number >= 0: the most chunks a loop report lists \
                          (default 1000000)"
                        .into(),
                }
            })?);
        }
        if let Some(v) = lookup("DLS_CHECK").filter(|v| !v.trim().is_empty()) {
            s.check = Some(match v.trim().to_ascii_lowercase().as_str() {
                "off" | "0" => crate::runtime::loops::options::CheckMode::Off,
                "warn" | "on" | "1" => crate::runtime::loops::options::CheckMode::Warn,
                "repair" => crate::runtime::loops::options::CheckMode::Repair,
                _ => {
                    return Err(DlsError::Setting {
                        name: "DLS_CHECK",
                        value: v.clone(),
                        message: "expected off, warn or repair (what a checked loop does)".into(),
                    })
                }
            });
        }
        if let Some(v) = lookup("DLS_CHECK_ALPHA").filter(|v| !v.trim().is_empty()) {
            s.check_alpha = Some(
                v.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|a| (MIN_ALPHA..0.5).contains(a))
                    .ok_or_else(|| DlsError::Setting {
                        name: "DLS_CHECK_ALPHA",
                        value: v.clone(),
                        message: format!(
                            "expected a significance level from {MIN_ALPHA:e} to below 0.5, \
                             e.g. 1e-4 (a smaller one is a check that can never reject)"
                        ),
                    })?,
            );
        }
        if let Some(v) = lookup("DLS_CHECKPOINT").filter(|v| !v.trim().is_empty()) {
            // `off`, `0`, `no`, `false` turn checkpoints off, as for every on/off setting; a
            // folder of that name is `./off`.
            if on_off(&v) != Some(false) {
                s.checkpoint = Some(PathBuf::from(v.trim()));
            }
        }
        if let Some(v) = lookup("DLS_INJECT").filter(|v| !v.trim().is_empty()) {
            s.inject = Some(crate::runtime::check::inject::Injection::parse(&v)?);
        }
        if let Some(v) = lookup("DLS_CHECKPOINT_EVERY").filter(|v| !v.trim().is_empty()) {
            s.checkpoint_every = Some(parse_every(&v)?);
        }
        if let Some(v) = lookup("DLS_SPLIT").filter(|v| !v.trim().is_empty()) {
            s.split = Some(on_off(&v).ok_or_else(|| {
                DlsError::Setting {
                    name: "DLS_SPLIT",
                    value: v.clone(),
                    message: "expected on or off (splitting a long chunk in progress for an idle \
                          worker; default on)"
                        .into(),
                }
            })?);
        }
        if let Some(v) = lookup("DLS_REEXECUTE").filter(|v| !v.trim().is_empty()) {
            s.reexecute = Some(on_off(&v).ok_or_else(|| DlsError::Setting {
                name: "DLS_REEXECUTE",
                value: v.clone(),
                message:
                    "expected on or off (re-execution of unfinished chunks; default on)".into(),
            })?);
        }
        if let Some(v) = lookup("DLS_REDUCTION").filter(|v| !v.trim().is_empty()) {
            s.reduction = Some(parse_reduction(&v)?);
        }
        if let Some(v) = lookup("DLS_DELAY") {
            s.delay = crate::runtime::observe::delay::Delays::parse(&v)?;
        }
        if let Some(v) = lookup("DLS_PROGRESS") {
            s.progress = crate::runtime::observe::progress::ProgressMode::parse(&v)?;
        }
        if let Some(v) = lookup("DLS_REPORT") {
            s.report = ReportMode::parse(&v)?;
        }
        Ok(s)
    }
}

/// Every setting dls reads from the environment. Under MPI every rank must see the same value of
/// each (or none on every rank): `dls::init` compares them across ranks once, right after MPI is
/// initialised and before any is parsed, and a disagreement ends the job naming the setting and
/// each rank's value (an environment variable set without `mpirun -x`, or differently per node,
/// would otherwise make ranks schedule, check, combine or checkpoint differently: a hang or a
/// silently wrong result).
///
/// ```
/// use dls_runtime::runtime::settings::SETTINGS;
/// assert!(SETTINGS.contains(&"DLS_SCHEDULE") && SETTINGS.contains(&"DLS_CHECKPOINT"));
/// ```
pub const SETTINGS: &[&str] = &[
    "DLS_SCHEDULE",
    "DLS_REDUCTION",
    "DLS_CHECK",
    "DLS_CHECK_ALPHA",
    "DLS_INJECT",
    "DLS_PROGRESS",
    "DLS_REEXECUTE",
    "DLS_SPLIT",
    "DLS_CHECKPOINT",
    "DLS_CHECKPOINT_EVERY",
    "DLS_DELAY",
    "DLS_THREADS",
    "DLS_CHUNK_MAP",
    "DLS_STACK",
    "DLS_PIN",
    "DLS_REPORT",
    "DLS_RACKS",
];

/// The settings of [`SETTINGS`] that differ between processes, in words, given each process's
/// values (in rank order, each `(name, value)` for the settings that are set): one line per
/// setting, naming the value each rank saw (`unset` where it had none), ranks with the same value
/// grouped. Empty when all agree.
///
/// ```
/// use dls_runtime::runtime::settings::differing_settings;
/// let a = vec![("DLS_CHECK".to_string(), "off".to_string())];
/// let lines = differing_settings(&[a, Vec::new()]);
/// assert_eq!(lines, vec!["DLS_CHECK: rank 0 `off`, rank 1 unset".to_string()]);
/// ```
pub fn differing_settings(per_rank: &[Vec<(String, String)>]) -> Vec<String> {
    let mut names: Vec<&str> = per_rank.iter().flatten().map(|(n, _)| n.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let mut lines = Vec::new();
    for name in names {
        let values: Vec<Option<&str>> = per_rank
            .iter()
            .map(|r| r.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str()))
            .collect();
        if values.iter().all(|v| *v == values[0]) {
            continue;
        }
        let mut groups: Vec<(Option<&str>, Vec<usize>)> = Vec::new();
        for (rank, v) in values.iter().enumerate() {
            match groups.iter_mut().find(|(g, _)| g == v) {
                Some((_, ranks)) => ranks.push(rank),
                None => groups.push((*v, vec![rank])),
            }
        }
        let parts: Vec<String> = groups
            .iter()
            .map(|(v, ranks)| {
                let who = if ranks.len() == 1 { "rank" } else { "ranks" };
                let list: Vec<String> = ranks.iter().map(usize::to_string).collect();
                let value = v.map_or("unset".to_string(), |v| format!("`{v}`"));
                format!("{who} {} {value}", list.join(", "))
            })
            .collect();
        lines.push(format!("{name}: {}", parts.join(", ")));
    }
    lines
}

/// The settings of [`SETTINGS`] whose value now differs from `at_start` (this process's
/// [`settings_set`] when its runtime started), in words: one line per setting with both values.
/// dls reads its settings once, at [`init`](crate::init), so a change after it has no effect
/// (issue 43 R4-3: `set_var("DLS_DELAY", …)` on one rank after `init` hung the job at its end).
pub(crate) fn changed_since(
    at_start: &[(String, String)],
    lookup: impl Fn(&str) -> Option<String>,
) -> Vec<String> {
    let now = settings_set(lookup);
    let value = |set: &[(String, String)], name: &str| {
        set.iter()
            .find(|(n, _)| n == name)
            .map_or("unset".to_string(), |(_, v)| format!("`{v}`"))
    };
    SETTINGS
        .iter()
        .filter(|name| value(at_start, name) != value(&now, name))
        .map(|name| {
            format!(
                "{name}: {} at dls::init, {} now",
                value(at_start, name),
                value(&now, name)
            )
        })
        .collect()
}

/// The error (or, on one process, warning) text for settings changed after the start, given
/// [`changed_since`]'s lines per rank (`None`: one process).
pub(crate) fn changed_message(lines: &[String]) -> String {
    let mut out = String::from(
        "dls reads its settings once, at dls::init, but the program changed some afterwards \
         (std::env::set_var), so the change had no effect; set them before dls::init, or in the \
         environment of the run (`DLS_X=… cargo run`, `mpirun -x DLS_X`):",
    );
    for line in lines {
        out.push_str(&format!("\ndls:   {line}"));
    }
    out
}

/// This process's values of [`SETTINGS`] that are set, `(name, value)`.
pub(crate) fn settings_set(lookup: impl Fn(&str) -> Option<String>) -> Vec<(String, String)> {
    SETTINGS
        .iter()
        .filter_map(|name| lookup(name).map(|v| (name.to_string(), v)))
        .collect()
}

/// Parses a `DLS_CHECKPOINT_EVERY` value: a duration with a unit (`60s`, `5min`, `500ms`) or
/// seconds; the error names the setting.
///
/// ```
/// use dls_runtime::runtime::settings::parse_every;
/// assert_eq!(parse_every("90").unwrap().as_secs(), 90);
/// assert_eq!(parse_every("500ms").unwrap().as_millis(), 500);
/// assert!(parse_every("soon").unwrap_err().to_string().starts_with("DLS_CHECKPOINT_EVERY=`soon`"));
/// ```
pub fn parse_every(value: &str) -> Result<std::time::Duration, DlsError> {
    let v = value.trim();
    let minutes = v
        .strip_suffix("min")
        .and_then(|m| m.trim().parse::<f64>().ok())
        .map(|m| m * 60.0);
    v.parse::<f64>()
        .ok()
        .or(minutes)
        .or_else(|| crate::technique::parse_duration(v))
        .filter(|s| s.is_finite() && *s >= 1e-3 && *s < 1e9)
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| DlsError::Setting {
            name: "DLS_CHECKPOINT_EVERY",
            value: value.to_string(),
            message: "expected a duration of at least 1 ms: seconds (`90`) or with a unit \
                      (`60s`, `5min`, `500ms`); default 60 s"
                .into(),
        })
}

/// Parses a `DLS_SCHEDULE` value; the error names the variable and lists the valid techniques.
///
/// ```
/// use dls_runtime::runtime::settings::parse_schedule;
/// assert_eq!(parse_schedule("FAC2").unwrap().to_string(), "fac2");
/// assert!(parse_schedule("nope").unwrap_err().to_string().contains("gss"));
/// ```
pub fn parse_schedule(value: &str) -> Result<Technique, DlsError> {
    value.trim().parse::<Technique>().map_err(|e| {
        let mut message = e.to_string();
        if !message.contains("valid techniques") {
            message.push_str(&format!("; valid techniques: {}", Technique::valid_names()));
        }
        DlsError::Setting {
            name: "DLS_SCHEDULE",
            value: value.to_string(),
            message,
        }
    })
}

/// Parses a `DLS_REDUCTION` value; the error names the variable and lists the strategies.
///
/// ```
/// use dls_runtime::{runtime::settings::parse_reduction, Strategy};
/// assert_eq!(parse_reduction(" Tree ").unwrap(), Strategy::Tree);
/// let e = parse_reduction("fast").unwrap_err().to_string();
/// assert!(e.starts_with("DLS_REDUCTION=`fast`") && e.contains("master, tree, pipeline"), "{e}");
/// ```
pub fn parse_reduction(value: &str) -> Result<Strategy, DlsError> {
    value.parse::<Strategy>().map_err(|_| DlsError::Setting {
        name: "DLS_REDUCTION",
        value: value.to_string(),
        message: format!(
            "unknown reduction strategy; valid strategies: {}",
            Strategy::NAMES.join(", ")
        ),
    })
}

/// The most worker threads `DLS_THREADS` accepts: more only adds switching (and each thread
/// reserves a stack), and a typo such as `1000000` should not start a million threads.
pub const MAX_THREADS: usize = 1024;

/// Parses a `DLS_THREADS` value: a whole number from 1 to [`MAX_THREADS`].
///
/// ```
/// use dls_runtime::runtime::settings::parse_threads;
/// assert_eq!(parse_threads(" 4 ").unwrap(), 4);
/// assert!(parse_threads("0").unwrap_err().to_string().contains("DLS_THREADS"));
/// assert!(parse_threads("1000000").unwrap_err().to_string().contains("1024"));
/// ```
pub fn parse_threads(value: &str) -> Result<usize, DlsError> {
    match value.trim().parse::<usize>() {
        Ok(t) if (1..=MAX_THREADS).contains(&t) => Ok(t),
        _ => Err(DlsError::Setting {
            name: "DLS_THREADS",
            value: value.to_string(),
            message: format!(
                "expected a whole number of threads >= 1 and <= {MAX_THREADS} (or unset for one \
                 per core)"
            ),
        }),
    }
}

/// Parses a `DLS_STACK` value: bytes, or a number with a unit `K`/`KiB`, `M`/`MiB`, `G`/`GiB`
/// (binary multiples, case-insensitive), at least 64 KiB and at most 1 GiB (each worker thread
/// reserves that much address space; more fails to start threads).
///
/// ```
/// use dls_runtime::runtime::settings::parse_stack;
/// assert_eq!(parse_stack("16M").unwrap(), 16 << 20);
/// assert_eq!(parse_stack("1GiB").unwrap(), 1 << 30);
/// assert_eq!(parse_stack("131072").unwrap(), 128 << 10);
/// assert!(parse_stack("tiny").unwrap_err().to_string().starts_with("DLS_STACK=`tiny`"));
/// ```
pub fn parse_stack(value: &str) -> Result<usize, DlsError> {
    let v = value.trim();
    let split = v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len());
    let (digits, unit) = v.split_at(split);
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => Some(0),
        "k" | "kb" | "kib" => Some(10),
        "m" | "mb" | "mib" => Some(20),
        "g" | "gb" | "gib" => Some(30),
        _ => None,
    };
    let bytes = digits
        .parse::<usize>()
        .ok()
        .zip(shift)
        .and_then(|(d, s)| d.checked_mul(1usize << s));
    match bytes {
        Some(b) if (64 << 10..=1usize << 30).contains(&b) => Ok(b),
        _ => Err(DlsError::Setting {
            name: "DLS_STACK",
            value: value.to_string(),
            message: "expected a stack size from 64K to 1G: bytes, or a number with K, M or G \
                      (binary multiples), e.g. 16M"
                .into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(name: &str, value: &str) -> Result<Settings, DlsError> {
        Settings::from_lookup(|k| (k == name).then(|| value.to_string()))
    }

    /// Issue 43 R4-3: a setting changed after the start is named with both values.
    #[test]
    fn a_setting_changed_after_the_start_is_named() {
        let start = settings_set(|k| (k == "DLS_CHECK").then(|| "off".to_string()));
        let same = changed_since(&start, |k| (k == "DLS_CHECK").then(|| "off".to_string()));
        assert!(same.is_empty(), "{same:?}");
        let now = |k: &str| match k {
            "DLS_CHECK" => Some("off".to_string()),
            "DLS_DELAY" => Some("body:1ms".to_string()),
            _ => None,
        };
        let lines = changed_since(&start, now);
        assert_eq!(
            lines,
            vec!["DLS_DELAY: unset at dls::init, `body:1ms` now".to_string()]
        );
        assert!(changed_message(&lines).contains("once, at dls::init"));
    }

    /// Issue 27: hostile values are refused naming the setting, or mean what they say.
    #[test]
    fn hostile_values_are_refused_naming_the_setting() {
        // Off is off, never a folder named `off`.
        for off in ["off", "0", "no", "false", "OFF"] {
            assert_eq!(
                one("DLS_CHECKPOINT", off).unwrap().checkpoint,
                None,
                "{off}"
            );
        }
        assert_eq!(
            one("DLS_CHECKPOINT", "ckpt").unwrap().checkpoint,
            Some(PathBuf::from("ckpt"))
        );
        for (name, value) in [
            ("DLS_CHECK_ALPHA", "5e-324"),
            ("DLS_CHECK_ALPHA", "0"),
            ("DLS_CHECKPOINT_EVERY", "1e-300"),
            ("DLS_CHECKPOINT_EVERY", "0.0001"),
            ("DLS_REPORT", "x."),
            ("DLS_REPORT", "runs/"),
            ("DLS_STACK", "64G"),
            ("DLS_INJECT", "worker=1,worker=2,nan"),
            ("DLS_INJECT", "worker=1,bias=3,scale=2"),
            ("DLS_INJECT", "worker=1,nan,prob=0.5,prob=0.6"),
        ] {
            let e = one(name, value).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("{name}=`{value}`")),
                "{name}={value}: {e}"
            );
        }
        assert!(one("DLS_CHECK_ALPHA", "1e-12").is_ok());
        assert!(one("DLS_CHECKPOINT_EVERY", "1ms").is_ok());
        assert!(one("DLS_REPORT", "x.jsonl").is_ok());
        assert!(one("DLS_STACK", "1G").is_ok());
    }

    /// Issue 27: `DLS_INJECT` naming a worker that does not exist is refused when the runtime
    /// starts (it injected nothing, and a test of the fault check passed for the wrong reason).
    #[test]
    fn an_injection_for_a_missing_worker_is_refused() {
        let s = one("DLS_INJECT", "worker=5,bias=3").unwrap();
        let e = match crate::Runtime::threads(2, s) {
            Ok(_) => panic!("accepted"),
            Err(e) => e.to_string(),
        };
        assert!(
            e.starts_with("DLS_INJECT=`worker=5`") && e.contains("0 to 1"),
            "{e}"
        );
        let s = one("DLS_INJECT", "worker=1,bias=3").unwrap();
        assert!(crate::Runtime::threads(2, s).is_ok());
    }

    /// `Launch::detect` over a map of variables.
    fn launch(vars: &[(&str, &str)]) -> Option<Launch> {
        let map: std::collections::HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Launch::detect(|k| map.get(k).cloned())
    }

    #[test]
    fn launchers_are_detected_from_their_variables() {
        let l = launch(&[("OMPI_COMM_WORLD_SIZE", "4"), ("OMPI_COMM_WORLD_RANK", "2")]).unwrap();
        assert_eq!(
            (l.variable, l.rank, l.size),
            ("OMPI_COMM_WORLD_SIZE", Some(2), Some(4))
        );
        // MPICH's Hydra mpiexec sets PMI_* and the per-node MPI_LOCAL*.
        let hydra = [
            ("PMI_RANK", "0"),
            ("PMI_SIZE", "3"),
            ("MPI_LOCALNRANKS", "3"),
            ("MPI_LOCALRANKID", "0"),
        ];
        let l = launch(&hydra).unwrap();
        assert_eq!((l.variable, l.rank, l.size), ("PMI_SIZE", Some(0), Some(3)));
        assert!(l.multi_process());
        // srun --mpi=pmix: PMIx gives the rank, Slurm the step's size.
        let srun = [
            ("PMIX_RANK", "0"),
            ("PMIX_NAMESPACE", "slurm.pmix.42.0"),
            ("SLURM_PROCID", "0"),
            ("SLURM_STEP_NUM_TASKS", "2"),
            ("SLURM_NTASKS", "2"),
        ];
        let l = launch(&srun).unwrap();
        assert_eq!(
            (l.variable, l.rank, l.size),
            ("PMIX_RANK", Some(0), Some(2))
        );
        assert!(l.multi_process());
        // A PMIx launch of one process is not a multi-process job.
        let l = launch(&[("PMIX_RANK", "0"), ("SLURM_STEP_NUM_TASKS", "1")]).unwrap();
        assert!(!l.multi_process());
        // PMIx outside Slurm (prterun): no size, so it may be several processes.
        let l = launch(&[("PMIX_RANK", "0")]).unwrap();
        assert_eq!(l.size, None);
        assert!(l.multi_process());
        // Rank 1 is a multi-process job whatever the size variables say.
        assert!(launch(&[("PMI_RANK", "1")]).unwrap().multi_process());
        // srun --mpi=pmi2 in a step of 4 tasks.
        let l = launch(&[("PMI_RANK", "3"), ("SLURM_STEP_NUM_TASKS", "4")]).unwrap();
        assert_eq!((l.rank, l.size), (Some(3), Some(4)));
        let l = launch(&[("MV2_COMM_WORLD_SIZE", "2"), ("MV2_COMM_WORLD_RANK", "1")]).unwrap();
        assert_eq!((l.rank, l.size), (Some(1), Some(2)));
        // Hydra's per-node variables alone.
        assert!(
            launch(&[("MPI_LOCALNRANKS", "2"), ("MPI_LOCALRANKID", "0")])
                .unwrap()
                .multi_process()
        );
        assert!(!launch(&[("MPI_LOCALNRANKS", "1")]).unwrap().multi_process());
        // Slurm alone (sbatch, or srun of a program that is not MPI) is no MPI launch: srun
        // starts single-task steps of ordinary programs all the time.
        assert_eq!(
            launch(&[("SLURM_NTASKS", "4"), ("SLURM_PROCID", "0")]),
            None
        );
        assert_eq!(launch(&[]), None);
    }

    #[test]
    fn bad_values_name_the_variable_and_list_values() {
        let e = parse_schedule("fac3").unwrap_err().to_string();
        assert!(e.starts_with("DLS_SCHEDULE=`fac3`"), "{e}");
        assert!(e.contains("fac2") && e.contains("awf-b"), "{e}");
        for bad in ["x", "-1", "0", "1.5", "1000000"] {
            let e = parse_threads(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("DLS_THREADS=`{bad}`")), "{e}");
            assert!(e.contains(">= 1"), "{e}");
        }
    }

    #[test]
    fn empty_values_mean_unset() {
        let s = Settings::from_lookup(|k| match k {
            "DLS_SCHEDULE"
            | "DLS_THREADS"
            | "DLS_REPORT"
            | "DLS_STACK"
            | "DLS_CHUNK_MAP"
            | "DLS_REDUCTION"
            | "DLS_CHECK"
            | "DLS_CHECK_ALPHA"
            | "DLS_REEXECUTE"
            | "DLS_CHECKPOINT"
            | "DLS_CHECKPOINT_EVERY"
            | "DLS_SPLIT"
            | "DLS_PIN"
            | "DLS_DELAY" => Some(" ".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(s, Settings::default());
    }

    #[test]
    fn pin_is_read_and_a_bad_value_names_the_setting() {
        let get = |v: &'static str| {
            Settings::from_lookup(move |k| (k == "DLS_PIN").then(|| v.to_string()))
        };
        assert!(get("cores").unwrap().pin);
        assert!(get("ON").unwrap().pin);
        assert!(!get("off").unwrap().pin);
        let e = get("numa").unwrap_err().to_string();
        assert!(
            e.starts_with("DLS_PIN=`numa`") && e.contains("off or cores"),
            "{e}"
        );
    }

    #[test]
    fn split_is_read_and_a_bad_value_names_the_setting() {
        let get = |v: &'static str| {
            Settings::from_lookup(move |k| (k == "DLS_SPLIT").then(|| v.to_string()))
        };
        assert_eq!(Settings::default().split, None);
        assert_eq!(get("off").unwrap().split, Some(false));
        assert_eq!(get("ON").unwrap().split, Some(true));
        let e = get("half").unwrap_err().to_string();
        assert!(e.starts_with("DLS_SPLIT=`half`"), "{e}");
        assert!(e.contains("on or off"), "{e}");
    }

    #[test]
    fn reexecute_is_read_and_a_bad_value_names_the_setting() {
        let get = |v: &'static str| {
            Settings::from_lookup(move |k| (k == "DLS_REEXECUTE").then(|| v.to_string()))
        };
        assert_eq!(Settings::default().reexecute, None);
        assert_eq!(get("OFF").unwrap().reexecute, Some(false));
        assert_eq!(get("on").unwrap().reexecute, Some(true));
        let e = get("sometimes").unwrap_err().to_string();
        assert!(e.starts_with("DLS_REEXECUTE=`sometimes`"), "{e}");
        assert!(e.contains("on or off"), "{e}");
    }

    #[test]
    fn progress_is_read_and_a_bad_value_names_the_setting() {
        use crate::runtime::observe::progress::ProgressMode;
        let get = |v: &'static str| {
            Settings::from_lookup(move |k| (k == "DLS_PROGRESS").then(|| v.to_string()))
        };
        assert_eq!(Settings::default().progress, ProgressMode::Auto);
        assert_eq!(get("LINES").unwrap().progress, ProgressMode::Lines);
        assert_eq!(get("off").unwrap().progress, ProgressMode::Off);
        let e = get("always").unwrap_err().to_string();
        assert!(e.starts_with("DLS_PROGRESS=`always`"), "{e}");
        assert!(e.contains("auto, bar, lines or off"), "{e}");
    }

    #[test]
    fn delay_is_read_and_a_bad_value_names_the_setting() {
        let get = |v: &'static str| {
            Settings::from_lookup(move |k| (k == "DLS_DELAY").then(|| v.to_string()))
        };
        let s = get("body:20us,setup:1ms:sleep").unwrap();
        assert_eq!(s.delay.body.unwrap().seconds, 20e-6);
        assert!(s.delay.region("setup").is_some());
        assert!(Settings::default().delay.is_empty());
        for bad in [
            "body",
            "body:2x",
            "body:1ms:wait",
            "body;1ms",
            "body:1ms,body:1ms",
        ] {
            let e = get(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("DLS_DELAY=`{bad}`")), "{e}");
            assert!(e.contains("body, chunk, merge, gather"), "{e}");
        }
    }

    #[test]
    fn schedule_with_parameters() {
        let t = parse_schedule("gss,min=3").unwrap();
        assert_eq!(t.params.min_chunk, 3);
        let t = parse_schedule("fsc,h=200us,sigma=50us").unwrap();
        assert_eq!(t.to_string(), "fsc,h=200us,sigma=50us");
    }

    #[test]
    fn report_words_and_paths() {
        for (v, want) in [
            ("1", ReportMode::Stderr),
            ("TRUE", ReportMode::Stderr),
            ("Yes", ReportMode::Stderr),
            ("stdout", ReportMode::Stdout),
            ("-", ReportMode::Stdout),
            ("OFF", ReportMode::Off),
            ("run.jsonl", ReportMode::JsonLines("run.jsonl".into())),
            ("/tmp/r", ReportMode::JsonLines("/tmp/r".into())),
        ] {
            assert_eq!(ReportMode::parse(v).unwrap(), want, "{v}");
        }
        for bad in ["2", "ture", "report", "stdErr2"] {
            let e = ReportMode::parse(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("DLS_REPORT=`{bad}`")), "{e}");
            assert!(e.contains("stdout") && e.contains("run.jsonl"), "{e}");
        }
    }

    #[test]
    fn stack_sizes() {
        assert_eq!(parse_stack("64k").unwrap(), 64 << 10);
        assert_eq!(parse_stack(" 8 MiB ").unwrap(), DEFAULT_STACK);
        for bad in ["", "1", "63K", "65G", "12Q", "-8M", "99999999999999999999G"] {
            let e = parse_stack(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("DLS_STACK=`{bad}`")), "{e}");
        }
        let s = Settings::from_lookup(|k| (k == "DLS_STACK").then(|| "32M".into())).unwrap();
        assert_eq!(s.stack, Some(32 << 20));
    }
}
