//! A triangular loop: iterate i costs ∝ i (the inner loop of an N-body force sum over the
//! bodies before i), the other loop whose cost follows the index that issue 13 measured.
//!
//! N = 25,000 iterates; iterate i runs i steps of an integer recurrence (the result, combined
//! with wrapping addition, is checked against the serial loop's). Efficiency = the program's
//! own serial time / (P × parallel time), P the workers (threads or ranks); each of `reps`
//! rounds times the serial loop once, then every technique once (paired); medians are printed.
//!
//! ```text
//! cargo run --release -p dls-bench --bin triangular                     # threads (DLS_THREADS)
//! cargo build --release -p dls-bench --features mpi --bin triangular
//! mpirun --oversubscribe -np 2 target/release/triangular 5 af fac2
//! ```
//!
//! `profile` instead prints the iterate times for `dls compare --iterate-time file:PATH`.
//!
//! Arguments: the number of rounds (default 5), then the techniques (default: all of STATIC,
//! SS, GSS, TSS, FAC2, WF, mFSC, AF, AWF, AWF-B..E). Under mpirun the serial loop runs on rank
//! 0 while the other ranks wait.

#[path = "../index_cost.rs"]
mod index_cost;

const N: u64 = 25_000;

/// Iterate i: i steps of a 64-bit linear congruential recurrence seeded with i.
fn body(i: u64) -> u64 {
    let mut h = i;
    for j in 0..i {
        h = h
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(j | 1);
    }
    h
}

const DEFAULT: [&str; 14] = [
    "static",
    "ss",
    "gss",
    "tss",
    "fac2",
    "wf",
    "mfsc",
    "af",
    "awf",
    "awf-b",
    "awf-c",
    "awf-d",
    "awf-e",
    "fsc,h=1us,sigma=5us",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("profile") {
        index_cost::profile(N, body, |i| (i + 1) as f64);
        return Ok(());
    }
    let reps: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(5);
    let mut techniques: Vec<&str> = args.iter().skip(1).map(|s| s.as_str()).collect();
    if techniques.is_empty() {
        techniques = DEFAULT.to_vec();
    }
    let title = format!("triangular: N = {N}");
    index_cost::paired_rounds(&rt, &title, N, reps, &techniques, body, |_| None)
}
