//! A program to try `dls scaltest` on (Lyon & Kacker 1994): two parallel loops with a serial
//! step between them, marked as the region `between`.
//!
//! Stage 1 scores every item (a parallel loop, gathered). Between the loops, a running total of
//! the scores is computed: each total needs the one before, so this step is serial on purpose
//! and marked with `dls::region("between", ...)`. Stage 2 turns every item's running total into
//! its share of the whole (a parallel loop with a sum). The same computation runs serially
//! first; the program exits with status 1 if the results differ.
//!
//! Under `dls scaltest` a `body` delay slows every iterate of both loops, so its cost is shared
//! by the workers and should be found to scale; a `between` delay slows the serial step, whose
//! cost does not shrink with more workers:
//!
//! ```text
//! cargo build --release --example scaling_probe
//! dls scaltest --regions body,between --delay body:1ms,between:50ms --delay-kind sleep \
//!     --workers 2,4 --replicates 3 -- target/release/examples/scaling_probe
//! ```
//!
//! (Sleeping delays, because with 4 workers on a machine of 2 cores spinning ones would queue
//! for the cores.) Under mpirun every rank runs the serial step, as every rank runs the code
//! outside a loop:
//!
//! ```text
//! cargo build --release --features mpi --example scaling_probe
//! dls scaltest --mpi --regions body,between --delay body:1ms,between:50ms --delay-kind sleep \
//!     --workers 2,4 -- target/release/examples/scaling_probe
//! ```

use std::error::Error;

/// Number of items.
const ITEMS: usize = 200;

/// The score of item `i`: a few hundred rounds of a logistic map started from the index.
fn score(i: usize) -> f64 {
    let mut x = 0.1 + (i % 97) as f64 * 0.008;
    for _ in 0..300 {
        x = 3.9 * x * (1.0 - x);
    }
    x
}

/// Running totals: `totals[i]` is the sum of the scores of items `0..=i`.
fn running_totals(scores: &[f64]) -> Vec<f64> {
    let mut sum = 0.0;
    scores
        .iter()
        .map(|s| {
            sum += s;
            sum
        })
        .collect()
}

fn serial() -> (Vec<f64>, f64) {
    let scores: Vec<f64> = (0..ITEMS).map(score).collect();
    let totals = running_totals(&scores);
    let whole = totals[ITEMS - 1];
    let mut shares = vec![0.0; ITEMS];
    let mut check = 0.0;
    for i in 0..ITEMS {
        shares[i] = totals[i] / whole;
        check += shares[i];
    }
    (shares, check)
}

#[dls::parallel]
fn parallel() -> (Vec<f64>, f64) {
    let mut scores = vec![0.0; ITEMS];
    #[par_doall(schedule = "runtime", gather(scores))]
    for i in 0..ITEMS {
        scores[i] = score(i);
    }
    // Serial on purpose: each running total needs the previous one.
    let totals = dls::region("between", || running_totals(&scores));
    let whole = totals[ITEMS - 1];
    let mut shares = vec![0.0; ITEMS];
    let mut check = 0.0;
    #[par_doall(schedule = "runtime", gather(shares), reduce(+: check))]
    for i in 0..ITEMS {
        shares[i] = totals[i] / whole;
        check += shares[i];
    }
    (shares, check)
}

#[dls::main]
fn main() -> Result<(), Box<dyn Error>> {
    let rank = dls::current()?.rank();
    let (want, want_check) = serial();
    let (got, got_check) = parallel();
    if got != want {
        return Err(format!("rank {rank}: parallel shares differ from the serial ones").into());
    }
    // The sum's terms are added in another order in parallel: equal up to rounding.
    if (got_check - want_check).abs() > 1e-9 * want_check {
        return Err(format!("rank {rank}: parallel sum {got_check} != serial {want_check}").into());
    }
    if rank == 0 {
        println!("scaling_probe: {ITEMS} items, parallel == serial (sum of shares {got_check:.6})");
    }
    Ok(())
}
