//! Reproduces the qualitative result of Hummel, Schonberg & Flynn, "Factoring: a method for
//! scheduling parallel loops" (CACM 35(8), 1992): across a grid of iterate-time variance and
//! scheduling overhead, FAC stays near the best, SS collapses under overhead and STATIC collapses
//! under variance.
//!
//! Run: `cargo run --release --example hsf_ranking [-- N P REPLICATIONS]`
//! (default 16384 16 5). The same grid is `dls hsf`.

use dls::sim::HsfGrid;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| {
            a.parse().unwrap_or_else(|_| {
                eprintln!("usage: hsf_ranking [N P REPLICATIONS] (whole numbers), got `{a}`");
                std::process::exit(2)
            })
        })
        .collect();
    let mut grid = HsfGrid::default();
    if let Some(&n) = args.first() {
        grid.n = n;
    }
    if let Some(&p) = args.get(1) {
        grid.p = p as usize;
    }
    if let Some(&r) = args.get(2) {
        grid.replications = r as u32;
    }
    match grid.run() {
        Ok(table) => {
            println!("{table}");
            let worst_fac = table
                .cells
                .iter()
                .map(|c| table.ratio(c.cov, c.overhead, "fac").unwrap_or(f64::NAN) / c.best_ratio())
                .fold(1.0, f64::max);
            println!(
                "FAC is within {:.1} % of the best technique in every cell.",
                100.0 * (worst_fac - 1.0)
            );
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
