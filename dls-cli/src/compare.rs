//! `dls compare`: the same simulated loop under several techniques, side by side, the best one
//! marked; its iterate times given by a model or measured in a real run's report.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use dls::technique::Kind;
use dls::{LoopReport, Technique};
use dls_model::sim::{format_duration, measured_iterate_times, simulate, SimConfig};

use crate::args::{technique, ModelArgs};
use crate::output::{print, CliError};

/// Simulate the same loop (same iterate times: same seed) under several techniques and print one
/// line per technique: makespan, makespan / lower bound, efficiency, chunks, imbalance. The
/// technique with the smallest makespan is marked "<- best".
///
/// With --from-report, the iterate times are those a real run measured: each chunk of the
/// report's loop gives its iterates its mean time per iterate (chunk_times / chunk sizes), and N
/// and P come from the report (--p may change P).
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dls compare --n 100000 --p 16 --iterate-time exp:1ms --overhead 20us\n  dls compare -t static ss gss fac fac2 --n 4096 --p 16 --iterate-time gamma:0.25:4ms --overhead 100us\n  dls compare -t af awf-b fac2 --n 100000 --p 4 --speeds 1,1,1,3\n  DLS_REPORT=run.jsonl cargo run --release --example mandelbrot && dls compare --from-report run.jsonl --overhead 2us\n  dls compare --from-report run.jsonl --loop 'src/main.rs:12:5' --p 32\n\nA technique whose settings are invalid shows its error in its row. Lower makespan / lower bound is better (1 is perfect).\n\nWithout --overhead, each chunk is assumed to cost 2us to serve (dls's cost per chunk is about 0.5us on threads and 1.3-10us a request under mpirun): with no cost at all, self-scheduling would always look best. The header says when the cost is assumed.\n\nMeasured times (--from-report) have the resolution of the run's chunks: the iterates of one chunk share its mean, so variation inside large chunks is averaged away; they are wall times, so they include the run's rank speeds and any wait for a core (the note says when the run's workers ran on a core for less than 80% of their work time); the simulation replays them exactly, whatever --seed."
)]
pub(crate) struct CompareArgs {
    /// Techniques to compare, each as "name,key=value,..." (default: every technique).
    /// Example: --technique static ss gss fac2,min=4
    #[arg(long, short = 't', value_name = "SPEC", num_args = 1.., value_parser = technique)]
    pub technique: Vec<Technique>,

    /// Number of iterates N of the loop (with --from-report: the report's, which --n must
    /// equal). Example: --n 100000
    #[arg(long, value_name = "N", required_unless_present = "from_report", value_parser = clap::value_parser!(u64).range(0..=crate::args::MAX_SIMULATED))]
    pub n: Option<u64>,

    /// Number of ranks P that execute iterates (rank 0 also serves the scheduler; with
    /// --from-report: the report's unless given). Example: --p 16
    #[arg(long, value_name = "P", required_unless_present = "from_report", value_parser = clap::value_parser!(u64).range(1..=dls_model::sim::MAX_RANKS as u64))]
    pub p: Option<u64>,

    /// Take the iterate times, N and P from a loop of this report file (JSON Lines, as written
    /// with DLS_REPORT=FILE; the last report of the loop if it ran several times).
    /// Example: --from-report run.jsonl
    #[arg(long, value_name = "FILE", conflicts_with = "iterate_time")]
    pub from_report: Option<PathBuf>,

    /// With --from-report: the loop to take (its "name" in the report); needed when the file
    /// holds several loops. Example: --loop 'src/main.rs:12:5'
    #[arg(long = "loop", value_name = "NAME", requires = "from_report")]
    pub loop_name: Option<String>,

    #[command(flatten)]
    pub model: ModelArgs,
}

/// Where the loop's iterate times come from.
struct Source {
    n: u64,
    p: usize,
    /// The iterate-time model's text for the header.
    iterate_time: String,
    /// Lines printed above the table.
    preamble: String,
    /// Seconds added to every simulated makespan: the measured run's combining phase (merging
    /// the partial results after the last chunk), which the simulator does not model.
    combine_s: f64,
    /// The settings for one technique.
    config: Box<dyn Fn(Technique) -> SimConfig>,
}

/// One technique's row: its makespan and figures, or its error.
type Row = Result<(f64, String), String>;

/// The cost of serving one chunk `dls compare` assumes when `--overhead` is not given: 2 µs,
/// between dls's cost of a chunk on threads (about 0.5 µs) and that of a request to rank 0 under
/// mpirun (1.3 µs at 2 ranks, several µs at 8-16), the figures of the repository's benchmark
/// document. With no cost at all, self-scheduling (a chunk per iterate) always looks best.
pub(crate) const DEFAULT_OVERHEAD: f64 = 2e-6;

/// Runs `dls compare`.
pub(crate) fn run(a: &CompareArgs) -> Result<(), CliError> {
    let defaulted = a.model.overhead.is_none();
    let mut model = a.model.clone();
    model.overhead = Some(model.overhead.unwrap_or(DEFAULT_OVERHEAD));
    let a = &CompareArgs {
        technique: a.technique.clone(),
        n: a.n,
        p: a.p,
        from_report: a.from_report.clone(),
        loop_name: a.loop_name.clone(),
        model,
    };
    let source = match &a.from_report {
        Some(file) => from_report(a, file)?,
        None => {
            // clap requires --n and --p without --from-report.
            let (n, p) = (a.n.unwrap_or_default(), a.p.unwrap_or(1) as usize);
            let model = a.model.clone();
            Source {
                n,
                p,
                iterate_time: a.model.iterate_time().to_string(),
                preamble: String::new(),
                combine_s: 0.0,
                config: Box::new(move |t| model.config(t, n, p)),
            }
        }
    };
    (source.config)(Technique::new(Kind::Ss)).validate()?;
    let techniques: Vec<Technique> = if a.technique.is_empty() {
        // `auto` is a choice among the others (simulated alone it is FAC2, its measuring run).
        Kind::ALL
            .iter()
            .filter(|k| !k.entry().selects)
            .map(|k| Technique::new(*k))
            .collect()
    } else {
        a.technique.clone()
    };
    let m = &a.model;
    let mut text = source.preamble.clone();
    let _ = writeln!(
        text,
        "n = {}, p = {}, iterate time {}, overhead {}{}, latency {}, seed {}",
        source.n,
        source.p,
        source.iterate_time,
        format_duration(m.overhead.unwrap_or_default()),
        if defaulted {
            " (assumed: dls's cost per chunk is about 0.5 us on threads and 1.3-10 us under \
             mpirun; give yours with --overhead)"
        } else {
            ""
        },
        format_duration(m.latency),
        m.seed
    );
    // (technique, makespan and figures, or error), then aligned on the longest technique text.
    let mut rows: Vec<(String, Row)> = Vec::new();
    for t in techniques {
        let mut config = (source.config)(t);
        config.fill_technique_params();
        let row = match simulate(&config) {
            Ok(o) => {
                let r = &o.report;
                let makespan = r.parallel_time_s + source.combine_s;
                Ok((
                    makespan,
                    format!(
                        "{:>14.6} {:>10.4} {:>10.4} {:>10} {:>8.4}",
                        makespan,
                        o.makespan_over_lower_bound(),
                        r.efficiency,
                        r.chunks,
                        r.aad
                    ),
                ))
            }
            Err(e) => Err(format!("error: {e}")),
        };
        rows.push((config.technique.to_string(), row));
    }
    let best = best_makespan(rows.iter().filter_map(|r| r.1.as_ref().ok().map(|x| x.0)));
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(9);
    let _ = writeln!(
        text,
        "{:<width$} {:>14} {:>10} {:>10} {:>10} {:>8}",
        "technique", "makespan_s", "ms/lb", "efficiency", "chunks", "aad"
    );
    let mut winners = Vec::new();
    for (name, row) in &rows {
        match row {
            Ok((makespan, figures)) => {
                let mark = if Some(*makespan) == best {
                    winners.push(name.as_str());
                    "  <- best"
                } else {
                    ""
                };
                let _ = writeln!(text, "{name:<width$} {figures}{mark}");
            }
            Err(e) => {
                let _ = writeln!(text, "{name:<width$} {e}");
            }
        }
    }
    if let Some(best) = best {
        let _ = writeln!(
            text,
            "best: {} (smallest makespan, {best:.6} s)",
            winners.join(", ")
        );
    }
    print(&text)
}

/// The smallest makespan (`None` without any).
fn best_makespan(makespans: impl Iterator<Item = f64>) -> Option<f64> {
    makespans.filter(|m| m.is_finite()).reduce(f64::min)
}

/// The loop of `file` that --loop names (or its only loop): its last report.
fn choose_loop(a: &CompareArgs, file: &std::path::Path) -> Result<(LoopReport, usize), CliError> {
    let reports = crate::reports::read(file)?;
    let names = crate::reports::names(&reports);
    let name = match &a.loop_name {
        Some(name) => {
            if !names.contains(&name.as_str()) {
                return Err(CliError::Message(format!(
                    "{}: no loop named {name:?} (its loops: {})",
                    file.display(),
                    names.join(", ")
                )));
            }
            name.as_str()
        }
        None if names.len() == 1 => names[0],
        None => {
            return Err(CliError::Message(format!(
                "{}: holds {} loops ({}); choose one with --loop NAME",
                file.display(),
                names.len(),
                names.join(", ")
            )))
        }
    };
    let runs: Vec<&LoopReport> = reports.iter().filter(|r| r.name == name).collect();
    let last = (*runs.last().expect("the name comes from the reports")).clone();
    Ok((last, runs.len()))
}

/// The loop of `--from-report`: N, P and the measured iterate times.
fn from_report(a: &CompareArgs, file: &std::path::Path) -> Result<Source, CliError> {
    let (report, runs) = choose_loop(a, file)?;
    let measured = measured_iterate_times(&report, &file.display().to_string())?;
    if let Some(n) = a.n.filter(|&n| n != report.n) {
        return Err(CliError::Message(format!(
            "--n {n}: the loop `{}` of {} has n = {} iterates, and its measured times cover those \
             (leave --n out)",
            report.name,
            file.display(),
            report.n
        )));
    }
    let n = report.n;
    let p = a.p.map_or(report.p, |p| p as usize);
    let mut preamble = String::new();
    let _ = writeln!(
        preamble,
        "iterate times measured in {}, loop `{}`{}: {} chunks give {} of {} iterates their mean \
         time per iterate{}",
        file.display(),
        report.name,
        if runs > 1 {
            format!(" (the last of its {runs} runs)")
        } else {
            String::new()
        },
        measured.chunks,
        measured.measured,
        n,
        if measured.measured < n {
            "; the rest take the mean"
        } else {
            ""
        }
    );
    let _ = writeln!(
        preamble,
        "the run: {} on p = {}, parallel time {:.6} s, efficiency {:.4}",
        report.technique, report.p, report.parallel_time_s, report.efficiency
    );
    if report.combine_time_s > 0.0 {
        let _ = writeln!(
            preamble,
            "its partial results took {:.6} s to combine after the last chunk: added to every \
             makespan below",
            report.combine_time_s
        );
    }
    if let Some(share) = measured.cpu_share.filter(|&s| s < 0.8) {
        let _ = writeln!(
            preamble,
            "note: the run's workers ran on a core for {:.0}% of their work time: the measured \
             times include waiting for a core",
            100.0 * share
        );
    }
    let model = a.model.clone();
    let times = measured.model;
    Ok(Source {
        n,
        p,
        iterate_time: "measured".to_string(),
        preamble,
        combine_s: report.combine_time_s,
        config: Box::new(move |t| {
            let mut c = model.config(t, n, p);
            c.iterate_time = times.clone();
            c
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::best_makespan;

    #[test]
    fn the_best_is_the_smallest_finite_makespan() {
        assert_eq!(best_makespan([3.0, 1.5, 2.0].into_iter()), Some(1.5));
        assert_eq!(best_makespan([f64::NAN, 2.0].into_iter()), Some(2.0));
        assert_eq!(best_makespan(std::iter::empty()), None);
    }
}
