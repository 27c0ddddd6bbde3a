//! `dls simulate`: one simulated loop and its report.

use clap::Args;
use dls::Technique;
use dls_model::sim::simulate;

use std::path::PathBuf;

use crate::args::{technique, LoopArgs};
use crate::output::{print, CliError};
use crate::plot::{write_charts, Format};

/// Simulate a loop of N iterates on P ranks under one technique and print its report.
///
/// Model: rank 0 also computes; a progress thread on rank 0 serves chunk requests one at a time,
/// each in --overhead; messages between rank 0 and the others take --latency each way. Adaptive
/// techniques learn from the timing each rank reports with its next request. --hand-out tree:F
/// puts a scheduler tree in place of the one scheduler.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dls simulate --technique fac2 --n 100000 --p 4 --iterate-time exp:1ms --speeds 1,1,1,3 --overhead 5us\n  dls simulate --technique af --n 100000 --p 8 --iterate-time gamma:0.5:2ms --slowdown 2@0.5x4 --json\n  dls simulate --technique ss --n 1000 --p 4 --iterate-time file:times.txt --latency 2us\n  dls simulate --technique gss --n 10000 --p 4 --iterate-time exp:1ms --plot plots --plot-format png\n  dls simulate --technique fac2 --n 100000000 --p 100000 --iterate-time exp:100us --overhead 2us --latency 2us --hand-out tree:316\n\nThe report gives the makespan, its lower bound max(total work / total speed, longest iterate), the efficiency total work / (p x makespan), the number of chunks, and per rank the iterates, chunks, work time and idle time. --json prints the same as a LoopReport (the runtime's field names: parallel_time_s, lower_bound_s, efficiency, ranks[].iterates, ranks[].work_time_s, ...)."
)]
pub(crate) struct SimulateArgs {
    /// The technique and its parameters, as "name,key=value,...". Unless given, FSC, FAC and TAP
    /// take mu and sigma from the iterate-time model (FSC h from --overhead) and WF its weights
    /// from --speeds.
    /// Example: --technique fac2,min=4
    #[arg(long, short = 't', value_name = "SPEC", value_parser = technique)]
    pub technique: Technique,

    #[command(flatten)]
    pub simulated: LoopArgs,

    /// Who hands out the chunks. central (default): every rank asks rank 0. threads:K: ranks of
    /// K threads, each rank asking rank 0 for up to K chunks at once (--p counts ranks).
    /// tree:F: a scheduler tree: rank 0's top scheduler hands batches to sub-schedulers, one
    /// per group of F consecutive ranks on the group's first rank (which also computes, its
    /// requests served by a progress thread in --overhead each; messages in the group take
    /// --latency); a sub-scheduler asks for its next batch when its batch is handed out.
    /// Across levels a technique sizes batches over the groups (GSS: remaining / groups;
    /// FAC2: half the remaining over the groups) and chunks of a batch over the group's ranks;
    /// adaptive techniques learn per group at the top, per rank in the group. SS, FSC and mFSC
    /// take blocks of whole chunks (the left over 2 x groups) and hand their own chunk size.
    /// --service applies to every scheduler. Example: --hand-out tree:32
    #[arg(long, value_name = "MODE", default_value = "central")]
    pub hand_out: dls_model::sim::HandOut,

    /// Print the report as JSON (a LoopReport) instead of text.
    #[arg(long)]
    pub json: bool,

    /// Include every chunk as [start, size, rank] in the JSON report's chunk_map, and its
    /// simulated [start, end] in chunk_times.
    #[arg(long)]
    pub chunk_map: bool,

    /// Draw the simulated loop's charts into DIR, as `dls plot` draws a real run's (work and
    /// idle per rank, chunk sizes, chunk timeline); records the chunk map. The files written are
    /// listed after the report (on stderr with --json). Example: --plot plots
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,

    /// The image format of --plot. Example: --plot-format png
    #[arg(long, value_enum, default_value_t = Format::Svg, requires = "plot")]
    pub plot_format: Format,
}

/// Runs `dls simulate`.
pub(crate) fn run(a: &SimulateArgs) -> Result<(), CliError> {
    let mut config = a.simulated.config(a.technique.clone());
    config.chunk_map = a.chunk_map || a.plot.is_some();
    config.hand_out = a.hand_out;
    let note = config.fill_technique_params();
    let outcome = simulate(&config)?;
    let charts = match &a.plot {
        Some(dir) => write_charts(&[&outcome.report], dir, a.plot_format)?,
        None => Vec::new(),
    };
    let listed: String = charts
        .iter()
        .map(|p| format!("chart: {}\n", p.display()))
        .collect();
    if a.json {
        let text = serde_json::to_string_pretty(&outcome.report)
            .map_err(|e| CliError::Message(format!("cannot write JSON: {e}")))?;
        eprint!("{listed}");
        print(&format!("{text}\n"))
    } else {
        let mut text = String::new();
        if let Some(note) = note {
            text.push_str(&format!("note: {note}\n"));
        }
        text.push_str(&outcome.to_string());
        text.push_str(&listed);
        print(&text)
    }
}
