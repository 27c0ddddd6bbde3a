//! `dls check-ranks`: the safety net for what no type check can see (issue 43, R4-1/R4-2). Runs
//! a program on 1 worker, on threads and under `mpirun -np 2` and `-np 3`, and compares what
//! each run prints with the 1-worker run's output. A loop that changes state the runtime does
//! not share (a `static`, a `thread_local!`, a file, an atomic in a closure made before the
//! loop) prints per-thread or per-rank values, where the 1-worker run prints the whole.

use std::fmt::Write as _;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use clap::Args;

use crate::output::{print, CliError};

/// Run a program on 1 worker, on threads and under mpirun, and compare what each run prints
/// with the 1-worker run: the safety net for state that no type check sees (statics,
/// thread-locals, files, state a loop changes that no clause names).
///
/// Each rank of an MPI job has its own memory: a `static` counter that a loop bumps counts only
/// the iterates its rank ran, and a `thread_local!` only its thread's. Such a program is right
/// on 1 worker and wrong in parallel, with no error. This command finds the difference in the
/// output, at the cost of running the program 3 to 5 times.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dls check-ranks -- target/release/my_program --size 1000\n  dls check-ranks --threads 2,4 --ranks 2 --timeout 120 -- ./my_program\n  dls check-ranks --no-mpi --ignore 'elapsed' -- ./my_program\n\nRuns: the program with DLS_THREADS=1 (the reference), with DLS_THREADS=t for every t of --threads, and, when `mpirun` is found and --no-mpi is not given, `mpirun -np r --oversubscribe PROGRAM` for every r of --ranks (with DLS_THREADS unset, and OMPI_ALLOW_RUN_AS_ROOT set when run as root). Standard output is compared line by line; lines that start with `dls: ` (the runtime's own messages) and lines that contain an --ignore text are left out. A run that fails, times out, or prints differently is reported with the lines it changed. Exit status: 0 when every run printed what the reference printed, 1 otherwise.\n\nWhat it cannot see: output that does not depend on the difference (print the values your loops compute), and differences that only some schedules produce (run it more than once, or with DLS_SCHEDULE set to other techniques)."
)]
pub(crate) struct CheckRanksArgs {
    /// Thread counts to run with (DLS_THREADS), beside the 1-worker reference.
    #[arg(long, value_name = "T1,T2,...", value_delimiter = ',', default_values_t = [2u64, 3], value_parser = clap::value_parser!(u64).range(2..=1024))]
    pub threads: Vec<u64>,

    /// Rank counts to run with under `mpirun -np r --oversubscribe`.
    #[arg(long, value_name = "R1,R2,...", value_delimiter = ',', default_values_t = [2u64, 3], value_parser = clap::value_parser!(u64).range(2..=1024))]
    pub ranks: Vec<u64>,

    /// Do not run under mpirun (the program was built without MPI, or mpirun is not wanted).
    #[arg(long)]
    pub no_mpi: bool,

    /// Leave out of the comparison the lines that contain TEXT (timings, dates). Repeatable.
    #[arg(long, value_name = "TEXT")]
    pub ignore: Vec<String>,

    /// Compare the lines as sorted sets instead of in order (a program whose lines come in an
    /// order that varies from run to run).
    #[arg(long)]
    pub sort: bool,

    /// The longest one run may take, in seconds; a run that takes longer is killed with its
    /// processes and reported.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0, value_parser = positive)]
    pub timeout: f64,

    /// The program and its arguments, after `--`.
    #[arg(last = true, required = true, value_name = "PROGRAM [ARGS]")]
    pub command: Vec<String>,
}

fn positive(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "`{text}` is not a number of seconds > 0 (e.g. 120)"
        )),
    }
}

/// How one run is launched.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Launch {
    /// `DLS_THREADS=t PROGRAM` (t = 1: the reference).
    Threads(u64),
    /// `mpirun -np r --oversubscribe PROGRAM`.
    Ranks(u64),
}

impl Launch {
    fn label(self) -> String {
        match self {
            Launch::Threads(1) => "1 worker (DLS_THREADS=1)".to_string(),
            Launch::Threads(t) => format!("{t} threads (DLS_THREADS={t})"),
            Launch::Ranks(r) => format!("mpirun -np {r}"),
        }
    }
}

/// What one run printed, or why it has no output to compare.
#[derive(Debug)]
enum Outcome {
    /// The run ended with exit status 0: its compared lines.
    Lines(Vec<String>),
    /// The run failed: its status and the last lines of its standard error.
    Failed(String),
}

/// Runs `dls check-ranks`.
pub(crate) fn run(a: &CheckRanksArgs) -> Result<(), CliError> {
    let mut launches = vec![Launch::Threads(1)];
    launches.extend(a.threads.iter().map(|&t| Launch::Threads(t)));
    let mut notes = Vec::new();
    if a.no_mpi {
        notes.push("not run under mpirun (--no-mpi)".to_string());
    } else if mpirun_found() {
        launches.extend(a.ranks.iter().map(|&r| Launch::Ranks(r)));
    } else {
        notes.push("mpirun not found on PATH: the MPI runs were left out".to_string());
    }
    let limit = Duration::from_secs_f64(a.timeout);
    let mut outcomes = Vec::with_capacity(launches.len());
    for &launch in &launches {
        eprintln!("dls check-ranks: running on {}", launch.label());
        outcomes.push(run_once(&a.command, launch, limit, a)?);
    }
    let (text, differs) = compare(&launches, &outcomes, &notes);
    print(&text)?;
    if differs {
        Err(CliError::Message(
            "the runs differ (above): the program's output depends on how many workers ran it"
                .to_string(),
        ))
    } else {
        Ok(())
    }
}

/// Whether `mpirun` is an executable file in a folder of `PATH`.
fn mpirun_found() -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join("mpirun"))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    })
}

/// Whether this process runs as root (Open MPI then refuses to start without its two
/// variables).
fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// Runs the program once as `launch`, within `limit`.
fn run_once(
    command: &[String],
    launch: Launch,
    limit: Duration,
    a: &CheckRanksArgs,
) -> Result<Outcome, CliError> {
    use std::os::unix::process::CommandExt;
    let mut cmd = match launch {
        Launch::Threads(t) => {
            let mut c = Command::new(&command[0]);
            c.args(&command[1..]).env("DLS_THREADS", t.to_string());
            c
        }
        Launch::Ranks(r) => {
            let mut c = Command::new("mpirun");
            c.args(["-np", &r.to_string(), "--oversubscribe"])
                .args(command)
                .env_remove("DLS_THREADS");
            if is_root() {
                for var in ["OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] {
                    if std::env::var_os(var).is_none() {
                        c.env(var, "1");
                    }
                }
            }
            c
        }
    };
    // A process group of its own: a run past the limit is ended with all its processes.
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let program = match launch {
        Launch::Threads(_) => command[0].as_str(),
        Launch::Ranks(_) => "mpirun",
    };
    let mut child = cmd
        .spawn()
        .map_err(|e| CliError::Message(format!("cannot start `{program}`: {e}")))?;
    let readers = [
        reader(
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        ),
        reader(
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        ),
    ];
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| CliError::Message(e.to_string()))?
        {
            break Some(status);
        }
        if started.elapsed() > limit {
            crate::scaltest::end_group(&mut child);
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let [out, err] = readers.map(|r| r.join().unwrap_or_default());
    let out = String::from_utf8_lossy(&out);
    let err = String::from_utf8_lossy(&err);
    let tail = |err: &str| -> String {
        let lines: Vec<&str> = err.lines().rev().take(10).collect();
        lines.into_iter().rev().collect::<Vec<_>>().join("\n")
    };
    Ok(match status {
        None => Outcome::Failed(format!(
            "did not finish within {:.0} s (--timeout): killed it and its processes{}",
            limit.as_secs_f64(),
            indented(&tail(&err))
        )),
        Some(s) if !s.success() => {
            Outcome::Failed(format!("failed ({s}){}", indented(&tail(&err))))
        }
        Some(_) => Outcome::Lines(compared_lines(&out, &a.ignore, a.sort)),
    })
}

/// A thread that reads `stream` to its end (so that a full pipe never blocks the program).
fn reader(stream: Option<Box<dyn Read + Send>>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut s) = stream {
            let _ = s.read_to_end(&mut bytes);
        }
        bytes
    })
}

fn indented(text: &str) -> String {
    if text.trim().is_empty() {
        return String::new();
    }
    let mut s = String::from(":");
    for line in text.lines() {
        let _ = write!(s, "\n      {line}");
    }
    s
}

/// The lines of `out` that are compared: without the runtime's own lines (`dls: ...`) and
/// those that contain an `ignore` text; sorted if `sort`.
pub(crate) fn compared_lines(out: &str, ignore: &[String], sort: bool) -> Vec<String> {
    let mut lines: Vec<String> = out
        .lines()
        .filter(|l| !l.starts_with("dls: "))
        .filter(|l| !ignore.iter().any(|t| l.contains(t.as_str())))
        .map(str::to_string)
        .collect();
    if sort {
        lines.sort();
    }
    lines
}

/// The report: every run against the reference (the first). True when any run differs or
/// failed.
fn compare(launches: &[Launch], outcomes: &[Outcome], notes: &[String]) -> (String, bool) {
    let mut text = String::new();
    let mut differs = false;
    let reference = match &outcomes[0] {
        Outcome::Lines(lines) => Some(lines),
        Outcome::Failed(why) => {
            differs = true;
            let _ = writeln!(
                text,
                "{}: {why}\n  (the reference run failed: nothing to compare with)",
                launches[0].label()
            );
            None
        }
    };
    if let Some(reference) = reference {
        let _ = writeln!(
            text,
            "{}: {} line{} compared (the reference)",
            launches[0].label(),
            reference.len(),
            if reference.len() == 1 { "" } else { "s" }
        );
        for (launch, outcome) in launches.iter().zip(outcomes).skip(1) {
            match outcome {
                Outcome::Failed(why) => {
                    differs = true;
                    let _ = writeln!(text, "{}: {why}", launch.label());
                }
                Outcome::Lines(lines) if lines == reference => {
                    let _ = writeln!(text, "{}: same output", launch.label());
                }
                Outcome::Lines(lines) => {
                    differs = true;
                    let _ = writeln!(text, "{}: DIFFERS", launch.label());
                    text.push_str(&differences(
                        reference,
                        lines,
                        &launches[0].label(),
                        &launch.label(),
                    ));
                }
            }
        }
    }
    for note in notes {
        let _ = writeln!(text, "note: {note}");
    }
    (text, differs)
}

/// The first lines where `other` differs from `reference` (at most 10), each with both texts.
pub(crate) fn differences(reference: &[String], other: &[String], r: &str, o: &str) -> String {
    let mut text = String::new();
    let n = reference.len().max(other.len());
    let mut shown = 0;
    let mut total = 0;
    for i in 0..n {
        let (a, b) = (reference.get(i), other.get(i));
        if a == b {
            continue;
        }
        total += 1;
        if shown == 10 {
            continue;
        }
        shown += 1;
        let show = |l: Option<&String>| l.map_or("(no line)".to_string(), |l| format!("`{l}`"));
        let _ = writeln!(text, "  line {}:", i + 1);
        let _ = writeln!(text, "    {r}: {}", show(a));
        let _ = writeln!(text, "    {o}: {}", show(b));
    }
    if total > shown {
        let _ = writeln!(text, "  ... and {} more differing lines", total - shown);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{compared_lines, differences};

    #[test]
    fn runtime_lines_and_ignored_texts_are_left_out() {
        let out = "sum 10\ndls: loop `a`: 100%\ntook 3 ms\ncount 4\n";
        assert_eq!(
            compared_lines(out, &["took".to_string()], false),
            ["sum 10", "count 4"]
        );
        assert_eq!(compared_lines("b\na\n", &[], true), ["a", "b"]);
    }

    #[test]
    fn differences_name_the_line_and_both_runs() {
        let r = vec!["count 1000".to_string(), "ok".to_string()];
        let o = vec!["count 875".to_string()];
        let text = differences(&r, &o, "1 worker", "mpirun -np 2");
        assert!(
            text.contains("line 1:\n    1 worker: `count 1000`\n    mpirun -np 2: `count 875`"),
            "{text}"
        );
        assert!(
            text.contains("line 2:\n    1 worker: `ok`\n    mpirun -np 2: (no line)"),
            "{text}"
        );
    }
}
