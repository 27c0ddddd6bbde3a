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

use std::hint::black_box;
use std::time::Instant;

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

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    let (rank, p) = (rt.rank(), rt.workers());
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("profile") {
        return profile();
    }
    let reps: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(5);
    let mut techniques: Vec<&str> = args.iter().skip(1).map(|s| s.as_str()).collect();
    if techniques.is_empty() {
        techniques = DEFAULT.to_vec();
    }
    let mut effs = vec![Vec::new(); techniques.len()];
    let mut serials = Vec::new();
    for _ in 0..reps {
        let mut serial_s = 0.0;
        let mut want = 0;
        if rank == 0 {
            let t = Instant::now();
            want = (0..N).fold(0u64, |a, i| a.wrapping_add(body(black_box(i))));
            serial_s = t.elapsed().as_secs_f64();
            serials.push(serial_s);
        }
        for (k, name) in techniques.iter().enumerate() {
            let t = Instant::now();
            let (total, _) = rt.doall_reduce(
                name,
                0..N,
                name.parse()?,
                || 0u64,
                |i, acc: &mut u64| *acc = acc.wrapping_add(body(i)),
                |a: u64, b| a.wrapping_add(b),
            )?;
            let par_s = t.elapsed().as_secs_f64();
            if rank == 0 {
                assert_eq!(total, want, "{name}: result differs from the serial loop's");
                effs[k].push(serial_s / (p as f64 * par_s));
            }
        }
    }
    if rank == 0 {
        println!(
            "triangular: N = {N}, P = {p} ({:?}), serial median {:.3} s, {reps} paired rounds",
            rt.backend(),
            median(serials)
        );
        println!("| technique | efficiency (median) | rounds |");
        println!("|---|---|---|");
        for (name, e) in techniques.iter().zip(effs) {
            let runs: Vec<String> = e.iter().map(|x| format!("{x:.3}")).collect();
            println!("| {name} | {:.3} | {} |", median(e.clone()), runs.join(" "));
        }
    }
    Ok(())
}

/// `profile`: prints the loop's iterate times for the simulator (`dls compare --iterate-time
/// file:PATH`), one per line in nanoseconds: the serial loop's measured time (median of 5)
/// shared out in proportion to each iterate's modelled cost.
fn profile() -> Result<(), Box<dyn std::error::Error>> {
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let mut acc = 0u64;
        for i in 0..N {
            acc = acc.wrapping_add(body(black_box(i)));
        }
        black_box(acc);
        times.push(t.elapsed().as_secs_f64());
    }
    let serial = median(times);
    let cost = |i: u64| -> f64 { (i + 1) as f64 };
    let total: f64 = (0..N).map(cost).sum();
    println!("# serial time {serial:.4} s, shared in proportion to each iterate's cost");
    for i in 0..N {
        println!("{:.1}ns", serial * 1e9 * cost(i) / total);
    }
    Ok(())
}
