//! The fixed cost of a small loop (issue 28): a `#[par_doall(schedule = "fac2", reduce(+:
//! total))]` loop of 10 iterates on 2 threads (`DLS_THREADS=2`), with `DLS_PROGRESS` and the
//! other settings at whatever the environment says (unset: the defaults), beside the serial loop
//! of the same 10 iterates and rayon's `(0..10).into_par_iter().sum()` on a pool of 2 threads, in
//! the same run. Each loop is timed on its own; the three ways take turns in blocks of 1,000 loops
//! (after a warm-up), so that all see the same machine load, until each has 20,000 times. Prints
//! the median, 10th and 90th percentile in µs per loop, and the ratios of the medians against the
//! serial loop and against rayon.
//!
//! ```text
//! cargo run --release -p dls-bench --bin loop_fixed_cost [loops]
//! ```

use std::hint::black_box;
use std::time::Instant;

use rayon::prelude::*;

/// The annotated loop: 10 iterates, a sum.
#[dls::parallel]
fn annotated(n: u64) -> u64 {
    let mut total = 0;
    #[par_doall(schedule = "fac2", reduce(+: total))]
    for i in 0..n {
        total += black_box(i);
    }
    total
}

/// The serial loop of the same iterates.
fn serial(n: u64) -> u64 {
    let mut total = 0;
    for i in 0..n {
        total += black_box(i);
    }
    total
}

/// The `q`-quantile of sorted times.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    const N: u64 = 10;
    const BLOCK: usize = 1_000;
    // SAFETY: the benchmark's own threads read the environment only through std, which
    // locks it, and the runtime reads its settings at start; a benchmark accepts the race
    // left with an MPI library's own threads under mpirun.
    unsafe { std::env::set_var("DLS_THREADS", "2") };
    let loops: usize = match std::env::args().nth(1) {
        Some(r) => r
            .parse()
            .map_err(|_| format!("loops must be a whole number, got `{r}`"))?,
        None => 20_000,
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let rt = dls::current()?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build()?;
    println!(
        "loop_fixed_cost: {N} iterates, {} dls worker(s), rayon pool of 2; this machine has \
         {cores} core(s); DLS_PROGRESS={}; {loops} loops each, µs per loop",
        rt.workers(),
        std::env::var("DLS_PROGRESS").unwrap_or_else(|_| "(unset: auto)".into()),
    );
    if std::env::var_os("DLS_REPORT").is_some() {
        println!("note: DLS_REPORT is set; every loop writes its report");
    }
    let expected = N * (N - 1) / 2;
    type Way<'a> = (&'a str, Box<dyn Fn() -> u64 + 'a>);
    let ways: Vec<Way> = vec![
        ("serial for loop", Box::new(|| serial(black_box(N)))),
        (
            "rayon (0..10).into_par_iter().sum()",
            Box::new(|| pool.install(|| (0..black_box(N)).into_par_iter().sum::<u64>())),
        ),
        (
            "#[par_doall] fac2, reduce(+), 2 threads",
            Box::new(|| annotated(black_box(N))),
        ),
    ];
    // Warm-up: pools started, pages touched, the loop's history entry made.
    for (name, f) in &ways {
        for _ in 0..BLOCK {
            let got = f();
            if got != expected {
                return Err(format!("{name}: sum {got}, expected {expected}").into());
            }
        }
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::with_capacity(loops); ways.len()];
    while times[0].len() < loops {
        let block = BLOCK.min(loops - times[0].len());
        for ((_, f), t) in ways.iter().zip(&mut times) {
            for _ in 0..block {
                let start = Instant::now();
                black_box(f());
                t.push(start.elapsed().as_secs_f64() * 1e6);
            }
        }
    }
    let mut medians = Vec::new();
    println!("| loop | median | p10 | p90 |");
    println!("|---|---|---|---|");
    for ((name, _), t) in ways.iter().zip(&mut times) {
        t.sort_by(f64::total_cmp);
        let m = quantile(t, 0.5);
        medians.push(m);
        println!(
            "| {name} | {m:.2} | {:.2} | {:.2} |",
            quantile(t, 0.1),
            quantile(t, 0.9)
        );
    }
    let (serial, rayon, dls) = (medians[0], medians[1], medians[2]);
    println!(
        "ratios of medians: par_doall / serial = {:.0}, par_doall / rayon = {:.2}",
        dls / serial.max(1e-3),
        dls / rayon
    );
    Ok(())
}
