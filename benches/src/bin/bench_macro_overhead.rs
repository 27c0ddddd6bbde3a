//! Overhead of `#[par_doall]` on one worker: the same compute-bound loop runs serially and as an
//! annotated loop on a threads runtime with one thread (`DLS_THREADS=1`), alternately, several
//! times in the same process. Prints the median time of each and the median of the per-run ratios
//! (each annotated run against the serial run just before it, so both see the same machine load;
//! target: at most 1.02, i.e. 2 % overhead), for two body sizes.
//!
//! ```text
//! cargo run --release -p dls-bench --bin bench_macro_overhead [runs]
//! ```

use std::hint::black_box;
use std::time::Instant;

/// A compute-bound iterate: `steps` rounds of a logistic map started from the index.
fn work(i: u64, steps: u32) -> f64 {
    let mut x = 0.1 + (i % 1000) as f64 * 0.0008;
    for _ in 0..steps {
        x = 3.9 * x * (1.0 - x);
    }
    x
}

fn serial(n: u64, steps: u32) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        total += work(i, steps);
    }
    total
}

#[dls::parallel]
fn annotated(n: u64, steps: u32) -> f64 {
    let mut total = 0.0;
    #[par_doall(schedule = "fac2", reduce(+: total))]
    for i in 0..n {
        total += work(i, steps);
    }
    total
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // One worker: the comparison is the loop machinery against the bare loop, not parallelism.
    // SAFETY: the benchmark's own threads read the environment only through std, which
    // locks it, and the runtime reads its settings at start; a benchmark accepts the race
    // left with an MPI library's own threads under mpirun.
    unsafe {
        std::env::set_var("DLS_THREADS", "1");
        std::env::remove_var("DLS_SCHEDULE");
    }
    let runs: usize = match std::env::args().nth(1) {
        Some(r) => r
            .parse()
            .map_err(|_| format!("runs must be a whole number, got `{r}`"))?,
        None => 21,
    };
    let rt = dls::current()?;
    println!(
        "bench_macro_overhead: {} worker(s), {runs} alternating runs each, median times",
        rt.workers()
    );
    println!(
        "{:>10} {:>8} {:>12} {:>12} {:>8}",
        "iterates", "us/iter", "serial s", "par_doall s", "ratio"
    );
    for (n, steps) in [(20_000_u64, 2_000_u32), (200_000, 200)] {
        // Warm up both paths (page faults, pool start-up).
        black_box(annotated(black_box(n / 10), steps));
        black_box(serial(black_box(n / 10), steps));
        let (mut ts, mut tp) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let t = Instant::now();
            let s = black_box(serial(black_box(n), steps));
            ts.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let p = black_box(annotated(black_box(n), steps));
            tp.push(t.elapsed().as_secs_f64());
            // Summation order differs between the chunks: compare with a relative tolerance.
            if (s - p).abs() > 1e-9 * s.abs() {
                return Err(format!("results differ: serial {s}, par_doall {p}").into());
            }
        }
        let ratio = median(tp.iter().zip(&ts).map(|(p, s)| p / s).collect());
        let (ms, mp) = (median(ts), median(tp));
        println!(
            "{n:>10} {:>8.3} {ms:>12.5} {mp:>12.5} {ratio:>8.4}",
            ms / n as f64 * 1e6
        );
    }
    Ok(())
}
