//! `dls scaltest`: the designed-experiment scalability test of Lyon & Kacker (1994). Runs a
//! program as a 2^k factorial (a synthetic delay on or off per region, two worker counts), or
//! analyses the responses of an experiment run elsewhere (`--from-table`). The analysis is
//! `dls_model::scaltest`.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

use clap::Args;
use dls::runtime::delay::{DelayKind, Delays, BUILT_IN_REGIONS};
use dls_model::scaltest::{from_table, run_order, to_table, Analysis, Experiment, Se};
use serde::Serialize;

use crate::output::{print, CliError};

/// Will it scale? A 2^k factorial experiment (Lyon & Kacker 1994): a synthetic delay on or off
/// in each chosen region, the program run at two worker counts, every trial repeated, in a
/// seeded random order. Prints μ, every main effect and interaction (half-effects), their
/// standard error from the replicates, the noise band and a verdict per region.
///
/// The response is the wall time of the whole process, from start to exit: it is what the user
/// waits for, it includes code outside the loops (the `between` regions a program marks with
/// `dls::region`, which no loop report sees) and it works alike for threads and mpirun.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dls scaltest --regions body,between --delay body:1ms,between:50ms --delay-kind sleep --workers 2,4 --replicates 3 -- target/release/examples/scaling_probe\n  dls scaltest --mpi --regions body,merge --delay 200us --workers 2,8 -- ./my_program --size 4096\n  dls scaltest --from-table runs.csv\n  dls scaltest --from-table table4.csv --se 0.10\n\nRegions: body (per iterate), chunk (per chunk the scheduler hands out), merge (per combine of two partial results), gather (per gathered element), or the name of a dls::region(\"name\", || ...) in the program (per entry). Each run gets DLS_DELAY with the delayed regions of its trial and, without --mpi, DLS_THREADS=s; with --mpi it runs under `mpirun -n s --oversubscribe`. Use --delay-kind sleep when the larger worker count exceeds the cores: sleeping workers overlap, spinning ones queue for the cores.\n\nTable format (--from-table, --save-table): `#` starts a comment line; a header names one column per region, a column `s` and the response column last; then one run per line, levels -1/+1 (or -/+), runs with the same levels are replicates. Columns are separated by commas (or by spaces). Example:\n  cd, s, seconds\n  -1, -1, 40\n  +1, -1, 44\n  -1, +1, 24\n  +1, +1, 29"
)]
pub(crate) struct ScaltestArgs {
    /// Regions to test, comma-separated: body, chunk, merge, gather or a dls::region name.
    /// Example: --regions body,between
    #[arg(
        long,
        value_name = "R1,R2,...",
        value_delimiter = ',',
        required_unless_present = "from_table"
    )]
    pub regions: Vec<String>,

    /// The delay of a delayed region: one duration for every region (2ms), or region:duration
    /// pairs, each optionally with :spin or :sleep (body:1ms,between:50ms:sleep).
    #[arg(long, value_name = "DELAY", required_unless_present = "from_table")]
    pub delay: Option<String>,

    /// How delays are spent where --delay does not say: spin (busy-wait, models computation) or
    /// sleep (models waiting; lets more workers than cores overlap).
    #[arg(long, value_name = "KIND", default_value = "spin", value_parser = delay_kind)]
    pub delay_kind: DelayKind,

    /// The two worker counts p < p' (threads, or ranks with --mpi). Example: --workers 2,4
    #[arg(long, value_name = "P,P'", value_parser = workers, required_unless_present = "from_table")]
    pub workers: Option<WorkerCounts>,

    /// Runs of every trial (the standard error comes from their spread).
    #[arg(long, value_name = "R", default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=100))]
    pub replicates: u64,

    /// Seed of the random run order.
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    pub seed: u64,

    /// Runs before the experiment whose times are discarded (caches, page cache, CPU clock).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub warmup: u64,

    /// Launch every run as `mpirun -n s --oversubscribe PROGRAM ARGS` (instead of threads).
    #[arg(long)]
    pub mpi: bool,

    /// Analyse the responses of an experiment run elsewhere (see the table format below).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["regions", "delay", "workers", "mpi", "command", "save_table"])]
    pub from_table: Option<PathBuf>,

    /// The standard error of an effect from prior experience, instead of the replicates' (the
    /// noise band is then ± 2 SE). Example: --se 0.10
    #[arg(long, value_name = "SE", value_parser = positive)]
    pub se: Option<f64>,

    /// Also write the runs as a table (the --from-table format), to redo the analysis.
    #[arg(long, value_name = "FILE")]
    pub save_table: Option<PathBuf>,

    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,

    /// The longest a run may take, in seconds, before it is killed and the experiment fails
    /// (default: 20 times the longest warm-up run, at least 60 s; 600 s for the warm-up runs
    /// themselves and for every run without a warm-up run). A limit always applies.
    #[arg(long, value_name = "SECONDS", value_parser = positive)]
    pub timeout: Option<f64>,

    /// The program and its arguments, after `--`.
    #[arg(last = true, value_name = "PROGRAM [ARGS]")]
    pub command: Vec<String>,
}

/// The value of `--workers`: two worker counts, the lower first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct WorkerCounts(pub u64, pub u64);

fn workers(text: &str) -> Result<WorkerCounts, String> {
    let parts: Vec<Option<u64>> = text
        .split(',')
        .map(|p| {
            p.trim()
                .parse::<u64>()
                .ok()
                .filter(|&w| (1..=1024).contains(&w))
        })
        .collect();
    match parts.as_slice() {
        [Some(p), Some(q)] if p < q => Ok(WorkerCounts(*p, *q)),
        _ => Err(format!(
            "`{text}` is not two worker counts p,p' with 1 <= p < p' <= 1024, e.g. 2,4"
        )),
    }
}

fn delay_kind(text: &str) -> Result<DelayKind, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "spin" => Ok(DelayKind::Spin),
        "sleep" => Ok(DelayKind::Sleep),
        _ => Err(format!("`{text}` is not spin or sleep")),
    }
}

fn positive(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("`{text}` is not a number > 0 (e.g. 0.10)")),
    }
}

/// Runs `dls scaltest`.
pub(crate) fn run(a: &ScaltestArgs) -> Result<(), CliError> {
    let se = a.se.map_or(Se::Replicates, Se::Given);
    if let Some(path) = &a.from_table {
        let text = dls::input::read_text(path, dls::input::MAX_INPUT).map_err(CliError::Message)?;
        let experiment =
            from_table(&text).map_err(|e| CliError::Message(format!("{}: {e}", path.display())))?;
        let analysis = experiment.analyse(se).map_err(message)?;
        return if a.json {
            print_json(&FromTable {
                table: path.display().to_string(),
                analysis,
            })
        } else {
            print(&analysis.to_text())
        };
    }
    let design = Design::from_args(a)?;
    let runs = design.run_all(a)?;
    let mut responses = vec![Vec::new(); 1 << (design.regions.len() + 1)];
    for r in &runs {
        responses[r.trial].push(r.seconds);
    }
    let experiment = Experiment::new(design.regions.clone(), responses).map_err(message)?;
    let analysis = experiment.analyse(se).map_err(message)?;
    if let Some(path) = &a.save_table {
        let comments = design.comments();
        let refs: Vec<&str> = comments.iter().map(String::as_str).collect();
        std::fs::write(path, to_table(&experiment, "seconds", &refs))
            .map_err(|e| CliError::Message(format!("cannot write {}: {e}", path.display())))?;
    }
    if a.json {
        print_json(&Report {
            design: &design,
            runs: &runs,
            analysis,
        })
    } else {
        let mut text = String::new();
        for c in design.comments() {
            let _ = writeln!(text, "{c}");
        }
        let _ = writeln!(text);
        text.push_str(&analysis.to_text());
        print(&text)
    }
}

fn message(e: impl std::fmt::Display) -> CliError {
    CliError::Message(e.to_string())
}

fn print_json<T: Serialize>(value: &T) -> Result<(), CliError> {
    let mut text = serde_json::to_string_pretty(value).map_err(message)?;
    text.push('\n');
    print(&text)
}

/// `--json` with `--from-table`.
#[derive(Debug, Serialize)]
struct FromTable {
    table: String,
    analysis: Analysis,
}

/// `--json` of an experiment this command ran.
#[derive(Debug, Serialize)]
struct Report<'a> {
    design: &'a Design,
    runs: &'a [RunRecord],
    analysis: Analysis,
}

/// What the experiment varies.
#[derive(Debug, Serialize)]
struct Design {
    /// Region factors, in factor order.
    regions: Vec<String>,
    /// `DLS_DELAY` item of each region when delayed (`region:duration:kind`).
    delays: Vec<String>,
    /// Workers at s = -1 and s = +1.
    workers: [u64; 2],
    replicates: u64,
    seed: u64,
    launcher: &'static str,
    response: &'static str,
    command: Vec<String>,
}

/// One run of the experiment.
#[derive(Debug, Serialize)]
struct RunRecord {
    /// Position in the run order (0 first).
    order: usize,
    trial: usize,
    replicate: usize,
    label: String,
    workers: u64,
    dls_delay: String,
    seconds: f64,
}

impl Design {
    fn from_args(a: &ScaltestArgs) -> Result<Design, CliError> {
        let regions = a.regions.clone();
        if regions.is_empty() || regions.len() > dls_model::scaltest::MAX_REGIONS {
            return Err(CliError::Message(format!(
                "--regions: give 1 to {} regions",
                dls_model::scaltest::MAX_REGIONS
            )));
        }
        // The names: no `s`, no repeats (checked before any run).
        Experiment::new(regions.clone(), vec![vec![0.0]; 1 << (regions.len() + 1)])
            .map_err(|e| CliError::Message(format!("--regions: {e}")))?;
        let spec = a.delay.as_deref().unwrap_or_default();
        let kind = a.delay_kind.name();
        // One duration for every region, or region:duration[:kind] pairs.
        let items: Vec<String> = if spec.contains(':') {
            let given = Delays::parse(spec).map_err(|e| {
                CliError::Message(format!(
                    "--delay: {}",
                    e.to_string().replace("DLS_DELAY=", "")
                ))
            })?;
            let mut items = Vec::new();
            for r in &regions {
                let d = match r.as_str() {
                    "body" => given.body,
                    "chunk" => given.chunk,
                    "merge" => given.merge,
                    "gather" => given.gather,
                    other => given.region(other),
                };
                let Some(d) = d else {
                    return Err(CliError::Message(format!(
                        "--delay `{spec}` gives no delay for region `{r}`"
                    )));
                };
                // The kind is the pair's own if it says one, else --delay-kind.
                let said = spec.split(',').any(|i| {
                    let mut p = i.split(':').map(str::trim);
                    p.next() == Some(r.as_str()) && p.nth(1).is_some()
                });
                let k = if said { d.kind.name() } else { kind };
                items.push(format!(
                    "{r}:{}:{k}",
                    dls::technique::format_duration(d.seconds)
                ));
            }
            items
        } else {
            regions
                .iter()
                .map(|r| format!("{r}:{spec}:{kind}"))
                .collect()
        };
        // Every item must be a valid DLS_DELAY (names, duration).
        Delays::parse(&items.join(",")).map_err(|e| {
            CliError::Message(format!(
                "--regions/--delay: {}",
                e.to_string().replace("DLS_DELAY=", "")
            ))
        })?;
        let Some(WorkerCounts(p, q)) = a.workers else {
            return Err(CliError::Message("--workers p,p' is required".into()));
        };
        if a.command.is_empty() {
            return Err(CliError::Message(
                "no program to run: give it after `--`, e.g. dls scaltest ... -- ./my_program"
                    .into(),
            ));
        }
        Ok(Design {
            regions,
            delays: items,
            workers: [p, q],
            replicates: a.replicates,
            seed: a.seed,
            launcher: if a.mpi {
                "mpirun -n s --oversubscribe"
            } else {
                "DLS_THREADS=s"
            },
            response: "wall time of the process, seconds",
            command: a.command.clone(),
        })
    }

    /// The design as comment lines (text output and saved tables).
    fn comments(&self) -> Vec<String> {
        let built_in = |r: &String| {
            if BUILT_IN_REGIONS.contains(&r.as_str()) {
                ""
            } else {
                " (dls::region)"
            }
        };
        let regions: Vec<String> = self
            .regions
            .iter()
            .map(|r| format!("{r}{}", built_in(r)))
            .collect();
        vec![
            format!("program: {}", self.command.join(" ")),
            format!(
                "regions: {}; delayed (+): DLS_DELAY={}",
                regions.join(", "),
                self.delays.join(",")
            ),
            format!(
                "s: {} workers (-), {} workers (+), {}",
                self.workers[0], self.workers[1], self.launcher
            ),
            format!(
                "{} replicates of {} trials in random order (seed {}); response: {}",
                self.replicates,
                1usize << (self.regions.len() + 1),
                self.seed,
                self.response
            ),
        ]
    }

    /// The `DLS_DELAY` value of trial `t` (its delayed regions).
    fn delay_of(&self, t: usize) -> String {
        let on: Vec<&str> = self
            .delays
            .iter()
            .enumerate()
            .filter(|(f, _)| (t >> f) & 1 == 1)
            .map(|(_, d)| d.as_str())
            .collect();
        on.join(",")
    }

    fn workers_of(&self, t: usize) -> u64 {
        self.workers[(t >> self.regions.len()) & 1]
    }

    /// Runs the program once with `delay` and `workers`: its wall time in seconds.
    fn run_once(
        &self,
        mpi: bool,
        delay: &str,
        workers: u64,
        limit: Option<f64>,
    ) -> Result<f64, CliError> {
        use std::os::unix::process::CommandExt;
        let mut cmd = if mpi {
            let mut c = Command::new("mpirun");
            c.args(["-n", &workers.to_string(), "--oversubscribe"])
                .args(&self.command)
                .env_remove("DLS_THREADS");
            c
        } else {
            let mut c = Command::new(&self.command[0]);
            c.args(&self.command[1..])
                .env("DLS_THREADS", workers.to_string());
            c
        };
        // A process group of its own: a run that outlives the limit is ended with all its
        // processes (mpirun and its ranks).
        cmd.env("DLS_DELAY", delay)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0);
        let started = Instant::now();
        let mut child = cmd.spawn().map_err(|e| {
            CliError::Message(format!(
                "cannot start `{}`: {e}",
                if mpi { "mpirun" } else { &self.command[0] }
            ))
        })?;
        let mut stderr = child.stderr.take().expect("piped stderr");
        let reader = std::thread::spawn(move || {
            let mut text = Vec::new();
            let _ = std::io::Read::read_to_end(&mut stderr, &mut text);
            text
        });
        let status = loop {
            if let Some(status) = child
                .try_wait()
                .map_err(|e| CliError::Message(e.to_string()))?
            {
                break status;
            }
            let interrupted = interrupted();
            if interrupted || limit.is_some_and(|l| started.elapsed().as_secs_f64() > l) {
                end_group(&mut child);
                if interrupted {
                    return Err(CliError::Message(format!(
                        "interrupted: ended the run in progress (DLS_DELAY=`{delay}` on {workers} \
                         workers) and its processes"
                    )));
                }
                return Err(CliError::Message(format!(
                    "the program did not finish within {:.1} s (--timeout; the default is 20 \
                     times the longest warm-up run, at least 60 s, and 600 s without one) with DLS_DELAY=`{delay}` on \
                     {workers} workers: killed it and its processes",
                    limit.unwrap_or_default()
                )));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let seconds = started.elapsed().as_secs_f64();
        let err_bytes = reader.join().unwrap_or_default();
        if !status.success() {
            let err = String::from_utf8_lossy(&err_bytes);
            let tail: Vec<&str> = err.lines().rev().take(10).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            return Err(CliError::Message(format!(
                "the program failed ({}) with DLS_DELAY=`{delay}` on {workers} workers:\n{}",
                status,
                tail.join("\n")
            )));
        }
        Ok(seconds)
    }

    /// Every run of the experiment, in the seeded random order, after the warm-up runs.
    ///
    /// Each run is a process group of its own; when `dls scaltest` itself is interrupted or
    /// killed (SIGINT, SIGTERM, SIGHUP), it ends the run in progress with its processes first.
    fn run_all(&self, a: &ScaltestArgs) -> Result<Vec<RunRecord>, CliError> {
        for signal in [
            signal_hook::consts::SIGINT,
            signal_hook::consts::SIGTERM,
            signal_hook::consts::SIGHUP,
        ] {
            let _ = signal_hook::flag::register(signal, std::sync::Arc::clone(&STOP));
        }
        let trials = 1usize << (self.regions.len() + 1);
        let mut longest = 0.0f64;
        let warmup_limit = run_limit(a.timeout, None);
        for _ in 0..a.warmup {
            longest = longest.max(self.run_once(a.mpi, "", self.workers[1], Some(warmup_limit))?);
        }
        let limit = run_limit(a.timeout, (a.warmup > 0).then_some(longest));
        eprintln!(
            "each run may take at most {limit:.1} s ({}); a run that takes longer is killed and \
             the experiment fails",
            if a.timeout.is_some() {
                "--timeout"
            } else if a.warmup > 0 {
                "20 times the longest warm-up run, at least 60 s; set it with --timeout"
            } else {
                "the default without a warm-up run; set it with --timeout"
            }
        );
        let limit = Some(limit);
        let order = run_order(trials, self.replicates as usize, self.seed);
        let total = order.len();
        let mut runs = Vec::with_capacity(total);
        for (k, (trial, replicate)) in order.into_iter().enumerate() {
            let delay = self.delay_of(trial);
            let workers = self.workers_of(trial);
            let seconds = self.run_once(a.mpi, &delay, workers, limit)?;
            let label = trial_label(&self.regions, trial);
            eprintln!(
                "run {}/{total}: {label} replicate {}: {seconds:.4} s",
                k + 1,
                replicate + 1
            );
            runs.push(RunRecord {
                order: k,
                trial,
                replicate,
                label,
                workers,
                dls_delay: delay,
                seconds,
            });
        }
        Ok(runs)
    }
}

/// The longest a run may take without `--timeout` and without a warm-up run to scale it from
/// (issue 43 N8: a hanging run then waited forever), in seconds.
pub(crate) const DEFAULT_RUN_LIMIT_S: f64 = 600.0;

/// The longest a run may take, in seconds: `--timeout` if given, else 20 times the longest
/// warm-up run (at least 60 s) when there was one, else [`DEFAULT_RUN_LIMIT_S`]. Always a limit.
pub(crate) fn run_limit(timeout: Option<f64>, longest_warmup: Option<f64>) -> f64 {
    timeout.unwrap_or_else(|| {
        longest_warmup.map_or(DEFAULT_RUN_LIMIT_S, |longest| (20.0 * longest).max(60.0))
    })
}

/// Set when `dls scaltest` receives SIGINT, SIGTERM or SIGHUP.
static STOP: std::sync::LazyLock<std::sync::Arc<std::sync::atomic::AtomicBool>> =
    std::sync::LazyLock::new(Default::default);

fn interrupted() -> bool {
    STOP.load(std::sync::atomic::Ordering::Relaxed)
}

/// Ends the process group of `child` (a run and every process it started): SIGTERM (mpirun then
/// ends its ranks), up to 3 s, then SIGKILL. `dls check-ranks` ends its runs with it too.
pub(crate) fn end_group(child: &mut std::process::Child) {
    let group = format!("-{}", child.id());
    let _ = Command::new("kill").args(["-TERM", "--", &group]).status();
    let grace = Instant::now();
    while grace.elapsed().as_secs_f64() < 3.0 && child.try_wait().ok().flatten().is_none() {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
    let _ = child.wait();
}

fn trial_label(regions: &[String], t: usize) -> String {
    let parts: Vec<String> = regions
        .iter()
        .map(String::as_str)
        .chain(["s"])
        .enumerate()
        .map(|(f, r)| format!("{r}{}", if (t >> f) & 1 == 1 { '+' } else { '-' }))
        .collect();
    format!("({})", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::{run_limit, DEFAULT_RUN_LIMIT_S};

    /// Issue 43 N8: a limit always applies, with or without `--timeout` and warm-up runs.
    #[test]
    fn a_run_limit_always_applies() {
        assert_eq!(run_limit(Some(2.0), Some(100.0)), 2.0);
        assert_eq!(run_limit(None, Some(1.0)), 60.0);
        assert_eq!(run_limit(None, Some(10.0)), 200.0);
        assert_eq!(run_limit(None, None), DEFAULT_RUN_LIMIT_S);
        assert!(DEFAULT_RUN_LIMIT_S.is_finite());
    }
}
