//! `dls hsf`: Hummel, Schonberg & Flynn's comparison of STATIC, SS, GSS and FAC.

use clap::Args;
use dls::technique::Kind;
use dls_model::sim::{HsfGrid, ServiceModel};

use crate::output::{print, CliError};

/// Reproduce Hummel, Schonberg & Flynn (CACM 35(8), 1992): STATIC, SS, GSS, FAC and FAC2 across
/// a grid of iterate-time variance (coefficient of variation; gamma iterate times) and scheduling
/// overhead (h relative to the mean iterate time), as makespan / lower bound and efficiency.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  dls hsf\n  dls hsf --n 65536 --p 64 --replications 10\n  dls hsf --service serial\n  dls hsf -t static ss gss fac fac2 fac2a faca af-a bold static-steal\n\nExpected ranking (the paper's): FAC stays near the best everywhere; SS collapses as overhead grows; STATIC collapses as variance grows."
)]
pub(crate) struct HsfArgs {
    /// Iterates per loop. Example: --n 4096
    #[arg(long, value_name = "N", default_value_t = 16_384, value_parser = clap::value_parser!(u64).range(1..=crate::args::MAX_SIMULATED))]
    pub n: u64,

    /// Ranks. Example: --p 16
    #[arg(long, value_name = "P", default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=dls_model::sim::MAX_RANKS as u64))]
    pub p: u64,

    /// Loops simulated per cell and technique (the table shows means). Example: --replications 10
    #[arg(long, value_name = "K", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub replications: u32,

    /// Seed of the first replication. Example: --seed 7
    #[arg(long, value_name = "SEED", default_value_t = 1)]
    pub seed: u64,

    /// How chunk requests are served: parallel (each chunk adds the overhead to the rank that
    /// takes it: the paper's model) or serial (dls's central scheduler: requests queue).
    /// Example: --service serial
    #[arg(long, value_name = "MODEL", default_value = "parallel")]
    pub service: ServiceModel,

    /// Techniques compared, by name (default: the paper's static ss gss fac fac2). Techniques
    /// with mu and sigma (fac, faca, tap, bold) get the cell's mean and sd, bold also its
    /// overhead. Example: --technique static ss gss fac fac2 fac2a faca af-a bold static-steal
    #[arg(long, short = 't', value_name = "NAME", num_args = 1.., value_parser = kind)]
    pub technique: Vec<Kind>,
}

/// A technique name (no parameters: the grid sets mu, sigma and h).
fn kind(text: &str) -> Result<Kind, String> {
    Kind::from_name(text).ok_or_else(|| {
        let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        format!(
            "unknown technique `{text}`; valid techniques: {}",
            names.join(", ")
        )
    })
}

/// Runs `dls hsf`.
pub(crate) fn run(a: &HsfArgs) -> Result<(), CliError> {
    let grid = HsfGrid {
        n: a.n,
        p: a.p as usize,
        replications: a.replications,
        seed: a.seed,
        service: a.service,
        ..HsfGrid::default()
    };
    let grid = if a.technique.is_empty() {
        grid
    } else {
        HsfGrid {
            techniques: a.technique.clone(),
            ..grid
        }
    };
    print(&grid.run()?.to_string())
}
