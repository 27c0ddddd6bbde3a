//! What a finished loop returns ([`LoopStats`], Cariño & Banicescu's (2007) `DLS_EndLoop(info, iIters, iTime)`) and
//! where its report goes (`DLS_REPORT`).

use std::fs::OpenOptions;
use std::io::Write;

use std::path::PathBuf;

use crate::report::LoopReport;
use crate::runtime::error::DlsError;

/// Where loop reports go (`DLS_REPORT`).
///
/// ```
/// use dls_runtime::runtime::settings::ReportMode;
/// assert_eq!(ReportMode::parse("1").unwrap(), ReportMode::Stderr);
/// assert_eq!(ReportMode::parse("").unwrap(), ReportMode::Off);
/// assert!(matches!(ReportMode::parse("out.json").unwrap(), ReportMode::JsonLines(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ReportMode {
    /// No report (unset, empty or `0`).
    #[default]
    Off,
    /// A human-readable summary on stderr (`1`, `on`, `true`, `yes` or `stderr`).
    Stderr,
    /// A human-readable summary on stdout (`stdout` or `-`).
    Stdout,
    /// One JSON object per loop, one per line, appended to the file.
    JsonLines(PathBuf),
}

impl ReportMode {
    /// Parses a `DLS_REPORT` value. Words are case-insensitive; a file path must contain a path
    /// separator or an extension, so that a mistyped word (`ture`, `2`) is an error naming the
    /// setting instead of a file of that name.
    ///
    /// ```
    /// use dls_runtime::runtime::settings::ReportMode;
    /// assert_eq!(ReportMode::parse("TRUE").unwrap(), ReportMode::Stderr);
    /// assert_eq!(ReportMode::parse("-").unwrap(), ReportMode::Stdout);
    /// assert!(matches!(ReportMode::parse("runs/a").unwrap(), ReportMode::JsonLines(_)));
    /// let e = ReportMode::parse("2").unwrap_err().to_string();
    /// assert!(e.starts_with("DLS_REPORT=`2`") && e.contains("stderr"), "{e}");
    /// ```
    pub fn parse(value: &str) -> Result<Self, DlsError> {
        let v = value.trim();
        Ok(match v.to_ascii_lowercase().as_str() {
            "" | "0" | "off" | "false" | "no" => ReportMode::Off,
            "1" | "on" | "true" | "yes" | "stderr" => ReportMode::Stderr,
            "stdout" | "-" => ReportMode::Stdout,
            _ if looks_like_path(v) => ReportMode::JsonLines(PathBuf::from(v)),
            _ => {
                return Err(DlsError::Setting {
                    name: "DLS_REPORT",
                    value: value.to_string(),
                    message: "expected 1/on/true/yes/stderr (summary on stderr), stdout or - \
                              (summary on stdout), 0/off/false/no (none), or a file path with a \
                              `/` or an extension, e.g. `run.jsonl` (JSON Lines)"
                        .into(),
                })
            }
        })
    }
}

/// A `DLS_REPORT` value that names a file: it has a path separator, or a file name with an
/// extension (`run.jsonl`, `./out`), not a bare word.
pub(crate) fn looks_like_path(v: &str) -> bool {
    let p = std::path::Path::new(v);
    // A file name must not end in `.` (`x.` is a typo, not a file with an extension); a path
    // with a separator must name a file, not a folder.
    if v.ends_with('.') || v.ends_with('/') {
        return false;
    }
    v.contains(std::path::MAIN_SEPARATOR)
        || v.contains('/')
        || p.extension().is_some_and(|e| !e.is_empty())
}

/// Statistics of one finished loop, returned on every rank.
///
/// `iterates` and `work_time_s` are Cariño & Banicescu's (2007) `iIters` and `iTime` for the calling rank (on the
/// threads backend: the whole process). `report` is the loop report of Cariño & Banicescu (2007) §4: per rank
/// iterates, work time and chunks, parallel time, estimated sequential cost, efficiency and AAD.
/// The chunk map and chunk times (`report.chunk_map`, `report.chunk_times`) are filled only on the
/// scheduler (rank 0; on threads: always). The report is built only for a caller that reads it
/// (`Runtime::with_statistics`, `LoopOptions::statistics`, `start_loop`'s `finish`); otherwise
/// it is empty (`LoopReport::default()`) and only `rank`, `iterates`, `work_time_s` and `chunks`
/// are filled.
///
/// ```
/// let rt = dls_runtime::init().unwrap().with_statistics(true);
/// let stats = rt.doall(0..100u32, "fac2".parse().unwrap(), |_| {}).unwrap();
/// assert_eq!(stats.report.n, 100);
/// assert_eq!(stats.report.ranks.iter().map(|r| r.iterates).sum::<u64>(), 100);
/// assert_eq!(stats.iterates, 100); // threads: the whole process
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LoopStats {
    /// The loop report (identical on every rank, except that only the scheduler has the chunk map
    /// and chunk times).
    pub report: LoopReport,
    /// The calling rank (0 on threads).
    pub rank: usize,
    /// Iterates executed by the calling rank (`iIters`).
    pub iterates: u64,
    /// Seconds the calling rank spent executing iterates (`iTime`).
    pub work_time_s: f64,
    /// Chunks executed by the calling rank.
    pub chunks: u64,
}

impl LoopStats {
    /// Stats of `rank` from the loop report; on the threads backend (`whole_process`) the sums
    /// over all threads, and under threads inside ranks the sums over the rank's threads.
    pub(crate) fn from_report(report: LoopReport, rank: usize, whole_process: bool) -> Self {
        let k = report.threads_per_rank.max(1);
        let mine = report
            .ranks
            .iter()
            .filter(|r| whole_process || r.rank / k == rank);
        let (mut iterates, mut work, mut chunks) = (0, 0.0, 0);
        for r in mine {
            iterates += r.iterates;
            work += r.work_time_s;
            chunks += r.chunks;
        }
        LoopStats {
            report,
            rank,
            iterates,
            work_time_s: work,
            chunks,
        }
    }
}

/// A human-readable summary of a loop report (what `DLS_REPORT=1` prints): the loop's figures,
/// then one line per worker ("worker" on threads, "rank" on MPI and in simulations; under threads
/// inside ranks one per rank, its threads summed) with its CPU time beside its work time when measured, and notes when the workers shared cores or ran
/// on a core for clearly less than their work time.
///
/// ```
/// let r = dls_runtime::LoopReport { name: "l".into(), ..Default::default() };
/// assert!(dls_runtime::runtime::stats::summary(&r).starts_with("dls: loop `l`"));
/// ```
pub fn summary(r: &LoopReport) -> String {
    let p = match r.p.checked_div(r.threads_per_rank) {
        Some(ranks) => format!("{} ({ranks} ranks x {} threads)", r.p, r.threads_per_rank),
        None => r.p.to_string(),
    };
    let mut s = format!(
        "dls: loop `{}` technique={} n={} p={}: parallel time {:.6} s, sequential cost {:.6} s, \
         efficiency {:.4}, AAD {:.4}, {} chunks\n",
        r.name,
        r.technique,
        r.n,
        p,
        r.parallel_time_s,
        r.sequential_cost_s,
        r.efficiency,
        r.aad,
        r.chunks
    );
    let word = r.worker_word();
    let cpu_measured = r.ranks.iter().any(|k| k.cpu_time_s > 0.0);
    // Threads inside ranks: one line per rank, its threads' figures summed (the scheduler sees
    // a rank's batches, not which of its threads ran each chunk).
    let k = r.threads_per_rank.max(1);
    for (rank, rows) in r.ranks.chunks(k).enumerate() {
        let sum = |f: fn(&crate::report::RankReport) -> f64| rows.iter().map(f).sum::<f64>();
        let cpu = if cpu_measured {
            format!(" (cpu {:.6} s)", sum(|x| x.cpu_time_s))
        } else {
            String::new()
        };
        let (who, number) = if r.threads_per_rank > 0 {
            (format!("rank ({k} threads)"), rank)
        } else {
            (word.to_string(), rows[0].rank)
        };
        s.push_str(&format!(
            "dls:   {who} {number:>4}: {:>10} iterates, work {:.6} s{cpu}, idle {:.6} s, {} \
             chunks\n",
            rows.iter().map(|x| x.iterates).sum::<u64>(),
            sum(|x| x.work_time_s),
            sum(|x| x.idle_time_s),
            rows.iter().map(|x| x.chunks).sum::<u64>(),
        ));
    }
    if r.combine_time_s > 0.0 {
        s.push_str(&format!(
            "dls:   combining the partial results: {:.6} s after the last chunk (merges and \
             messages; every {word}, and not in its idle time)\n",
            r.combine_time_s
        ));
    }
    if let Some(q) = &r.scheduler {
        s.push_str(&format!(
            "dls:   scheduler: {} requests at {:.2} us each, busy {:.6} s: {:.1}% of the loop's \
             time (one scheduler limits a loop as this nears 100%)\n",
            q.requests,
            q.request_cost_s * 1e6,
            q.busy_s,
            100.0 * q.utilisation
        ));
    }
    if r.logged_writes > 0 {
        s.push_str(&format!(
            "dls:   gather: {} writes logged and copied into the vectors after the loop, each \
             about 0.1-0.35 µs more than a write in place (the forms that write in place: \
             `v[i]` under gather(v), row i of a flat grid under gather(v: rows(w)))\n",
            r.logged_writes
        ));
    }
    if let Some(c) = r.check.as_ref().filter(|c| c.untested_runs > 0) {
        s.push_str(&format!(
            "dls:   check: {} of {} checked runs of this loop could not test (this run: {}); \
             see the warning printed at the first\n",
            c.untested_runs, c.checked_runs, c.outcome
        ));
    }
    if let Some(o) = r.oversubscribed {
        s.push_str(&format!(
            "dls:   note: {} workers shared this node's {} cores, so these times and the \
             efficiency mislead (run at most one worker per core to measure)\n",
            o.workers, o.cores
        ));
    }
    if let Some(share) = r.cpu_share().filter(|&x| x < CPU_SHARE_NOTE) {
        s.push_str(&format!(
            "dls:   note: the workers ran on a core for {:.0}% of their work time: they waited \
             (for a core shared with other workers or programs, or for I/O or locks)\n",
            100.0 * share
        ));
    }
    s
}

/// Below this share of CPU time in the work time, the summary says the workers waited.
const CPU_SHARE_NOTE: f64 = 0.8;

/// Emits `report` as `mode` says: a summary on stderr, or one JSON line appended to a file.
/// A file that cannot be written gives a warning on stderr; the program goes on.
pub(crate) fn emit(report: &LoopReport, mode: &ReportMode) {
    match mode {
        ReportMode::Off => {}
        ReportMode::Stderr => eprint!("{}", summary(report)),
        ReportMode::Stdout => print!("{}", summary(report)),
        ReportMode::JsonLines(path) => {
            let mut line = match serde_json::to_string(report) {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("dls: DLS_REPORT: cannot serialise the loop report: {e}");
                    return;
                }
            };
            line.push('\n');
            let written = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| f.write_all(line.as_bytes()));
            if let Err(e) = written {
                eprintln!("dls: DLS_REPORT={}: cannot append: {e}", path.display());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::summary;

    /// Issue 43 R4-5: the summary counts the checked runs that could not test.
    #[test]
    fn the_summary_counts_checked_runs_that_could_not_test() {
        let mut r = crate::LoopReport {
            name: "l".into(),
            ..Default::default()
        };
        r.check = Some(crate::report::CheckReport {
            outcome: "TooFewRanks".into(),
            checked_runs: 100,
            untested_runs: 58,
            ..Default::default()
        });
        let s = summary(&r);
        assert!(
            s.contains(
                "58 of 100 checked runs of this loop could not test (this run: TooFewRanks)"
            ),
            "{s}"
        );
        r.check.as_mut().unwrap().untested_runs = 0;
        assert!(!summary(&r).contains("could not test"));
    }
    use crate::report::{LoopReport, RankReport};

    fn report(backend: &str, cpu: f64) -> LoopReport {
        LoopReport {
            name: "l".into(),
            backend: backend.into(),
            p: 2,
            ranks: (0..2)
                .map(|rank| RankReport {
                    rank,
                    work_time_s: 1.0,
                    cpu_time_s: cpu,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn workers_on_threads_ranks_on_mpi_and_cpu_beside_work() {
        let s = summary(&report("threads", 0.95));
        assert!(s.contains("dls:   worker    1:"), "{s}");
        assert!(s.contains("work 1.000000 s (cpu 0.950000 s)"), "{s}");
        assert!(!s.contains("note"), "{s}");
        let s = summary(&report("mpi", 0.0));
        assert!(s.contains("dls:   rank    1:") && !s.contains("cpu"), "{s}");
    }

    #[test]
    fn workers_that_waited_for_a_core_get_a_note() {
        let s = summary(&report("mpi", 0.3));
        assert!(
            s.contains("ran on a core for 30% of their work time"),
            "{s}"
        );
    }
}
