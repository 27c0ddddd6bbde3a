//! `dls chunks`: the chunk sizes a technique hands out, in order.

use std::io::{self, BufWriter, Write};

use clap::Args;
use dls::{ChunkScheduler, Technique};

use crate::args::technique;
use crate::output::CliError;

/// Print the chunk sizes a non-adaptive technique hands out, in order, space-separated on one
/// line.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dls chunks --technique gss --n 1000 --p 4\n    250 188 141 106 79 59 45 33 25 19 14 11 8 6 4 3 3 2 1 1 1 1\n  dls chunks --technique fac2,min=4 --n 1000 --p 4\n\nAdaptive techniques (af, awf, awf-b ... awf-e) size chunks from measured iterate times: use `dls simulate` for them."
)]
pub(crate) struct ChunksArgs {
    /// The technique and its parameters, as "name,key=value,...". Example: --technique fac2,min=4
    #[arg(long, short = 't', value_name = "SPEC", value_parser = technique)]
    pub technique: Technique,

    /// Number of iterates N. Example: --n 1000
    #[arg(long, value_name = "N")]
    pub n: u64,

    /// Number of ranks P. Example: --p 4
    #[arg(long, value_name = "P", value_parser = clap::value_parser!(u64).range(1..))]
    pub p: u64,
}

/// Runs `dls chunks`.
pub(crate) fn run(a: &ChunksArgs) -> Result<(), CliError> {
    let kind = a.technique.kind;
    if kind.is_adaptive() {
        return Err(CliError::Message(format!(
            "technique `{}` is adaptive: its chunk sizes depend on measured iterate times, so they \
             cannot be listed without measurements; simulate a loop instead, e.g. \
             `dls simulate --technique {} --n {} --p {} --iterate-time exp:1ms`",
            kind.name(),
            a.technique,
            a.n,
            a.p
        )));
    }
    let p = usize::try_from(a.p)
        .map_err(|_| CliError::Message(format!("--p: {} ranks is too many", a.p)))?;
    let mut scheduler = ChunkScheduler::new(&a.technique, a.n, p)?;
    let mut out = BufWriter::new(io::stdout().lock());
    // Ranks ask in turn, as ranks that all finish at the same time would.
    let mut rank = 0;
    let mut first = true;
    while let Some(chunk) = scheduler.next_chunk(rank) {
        if first {
            write!(out, "{}", chunk.size)?;
            first = false;
        } else {
            write!(out, " {}", chunk.size)?;
        }
        rank = (rank + 1) % p;
    }
    writeln!(out)?;
    out.flush()?;
    Ok(())
}
