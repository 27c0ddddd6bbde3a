//! `dls compare`: the same simulated loop under several techniques, side by side.

use std::fmt::Write as _;

use clap::Args;
use dls::sim::simulate;
use dls::technique::Kind;
use dls::Technique;

use crate::args::{technique, LoopArgs};
use crate::output::{print, CliError};

/// Simulate the same loop (same iterate times: same seed) under several techniques and print one
/// line per technique: makespan, makespan / lower bound, efficiency, chunks, imbalance.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dls compare --n 100000 --p 16 --iterate-time exp:1ms --overhead 20us\n  dls compare -t static ss gss fac fac2 --n 4096 --p 16 --iterate-time gamma:0.25:4ms --overhead 100us\n  dls compare -t af awf-b fac2 --n 100000 --p 4 --speeds 1,1,1,3\n\nA technique whose settings are invalid shows its error in its row. Lower makespan / lower bound is better (1 is perfect)."
)]
pub(crate) struct CompareArgs {
    /// Techniques to compare, each as "name,key=value,..." (default: every technique).
    /// Example: --technique static ss gss fac2,min=4
    #[arg(long, short = 't', value_name = "SPEC", num_args = 1.., value_parser = technique)]
    pub technique: Vec<Technique>,

    #[command(flatten)]
    pub simulated: LoopArgs,
}

/// Runs `dls compare`.
pub(crate) fn run(a: &CompareArgs) -> Result<(), CliError> {
    a.simulated.validate()?;
    let techniques: Vec<Technique> = if a.technique.is_empty() {
        Kind::ALL.iter().map(|k| Technique::new(*k)).collect()
    } else {
        a.technique.clone()
    };
    let s = &a.simulated;
    let mut text = format!(
        "n = {}, p = {}, iterate time {}, overhead {}, latency {}, seed {}\n",
        s.n,
        s.p,
        s.iterate_time,
        dls::sim::format_duration(s.overhead),
        dls::sim::format_duration(s.latency),
        s.seed
    );
    // (technique, figures or error), then aligned on the longest technique text.
    let mut rows: Vec<(String, Result<String, String>)> = Vec::new();
    for t in techniques {
        let mut config = s.config(t.clone());
        config.fill_technique_params();
        let row = match simulate(&config) {
            Ok(o) => {
                let r = &o.report;
                Ok(format!(
                    "{:>14.6} {:>10.4} {:>10.4} {:>10} {:>8.4}",
                    r.parallel_time_s,
                    o.makespan_over_lower_bound(),
                    r.efficiency,
                    r.chunks,
                    r.aad
                ))
            }
            Err(e) => Err(format!("error: {e}")),
        };
        rows.push((config.technique.to_string(), row));
    }
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0).max(9);
    let _ = writeln!(
        text,
        "{:<width$} {:>14} {:>10} {:>10} {:>10} {:>8}",
        "technique", "makespan_s", "ms/lb", "efficiency", "chunks", "aad"
    );
    for (name, row) in rows {
        match row {
            Ok(figures) => {
                let _ = writeln!(text, "{name:<width$} {figures}");
            }
            Err(e) => {
                let _ = writeln!(text, "{name:<width$} {e}");
            }
        }
    }
    print(&text)
}
