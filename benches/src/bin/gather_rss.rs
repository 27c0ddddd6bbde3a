//! Peak memory of `gather`, per process, as a multiple of the gathered vector's size: a
//! `#[par_doall(gather(out))]` loop writes every element of an `f64` vector of `n` elements
//! (default 8,000,000: 64 MB). The figure is the process's peak resident memory (`VmHWM` of
//! /proc/self/status) above what it held before the vector was allocated, divided by the
//! vector's size; the serial loop needs 1.0 (the vector itself).
//!
//! ```text
//! cargo run --release -p dls-bench --bin gather_rss [n]                    # threads
//! cargo build --release -p dls-bench --features mpi --bin gather_rss
//! mpirun --oversubscribe -np 2 target/release/gather_rss [n]               # every rank prints
//! ```

use std::error::Error;

/// This process's peak resident memory in bytes (`VmHWM`).
fn peak_bytes() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kib| kib * 1024.0)
}

#[dls::parallel]
fn fill(n: usize) -> Vec<f64> {
    let mut out = vec![0.0_f64; n];
    #[par_doall(schedule = "fac2", gather(out))]
    for i in 0..n {
        out[i] = (i as f64).sqrt();
    }
    out
}

#[dls::main]
fn main() -> Result<(), Box<dyn Error>> {
    let n: usize = std::env::args()
        .nth(1)
        .map_or(Ok(8_000_000), |a| a.parse())?;
    let rt = dls::current()?;
    let before = peak_bytes();
    let out = fill(n);
    let peak = peak_bytes();
    assert!(out.iter().enumerate().all(|(i, &x)| x == (i as f64).sqrt()));
    let size = (n * std::mem::size_of::<f64>()) as f64;
    println!(
        "gather of {n} f64 ({:.0} MB), {} process(es) × {} worker(s): process {} peak {:.2}× the \
         vector (the serial loop: 1.00×)",
        size / 1e6,
        rt.size(),
        rt.workers() / rt.size(),
        rt.rank(),
        (peak - before) / size
    );
    Ok(())
}
