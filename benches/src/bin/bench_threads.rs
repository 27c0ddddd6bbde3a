//! Benchmark (c): the threads backend against rayon's `par_iter` on an irregular compute loop
//! (the rows of a Mandelbrot image: rows through the set cost up to 100× more than rows outside),
//! in the same run, on the same number of threads.
//!
//! Each technique runs `REPS` times paired with a rayon run (alternating which goes first, so
//! that drifts in machine load hit both alike); the ratio printed is the median over the pairs of
//! `rayon time / dls time` (≥ 1.0: dls is as fast as rayon or faster).
//!
//! ```text
//! cargo run --release -p dls-bench --bin bench_threads
//! ```

use std::time::Instant;

use rayon::prelude::*;

const WIDTH: usize = 800;
const HEIGHT: u32 = 600;
const MAX_ITER: u32 = 2000;
const REPS: usize = 11;

#[path = "../../../examples/support/mandelbrot_rows.rs"]
mod mandelbrot_rows;

/// Total escape iterations of row `y` of this benchmark's image.
fn row(y: u32) -> u64 {
    mandelbrot_rows::row_escape_sum(y, WIDTH, HEIGHT, MAX_ITER)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    let threads = rt.workers();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let expected: u64 = pool.install(|| (0..HEIGHT).into_par_iter().map(row).sum());
    // Techniques to compare: the command-line arguments, or a default set.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let techniques: Vec<&str> = if args.is_empty() {
        vec!["fac2", "gss", "af", "awf-b", "tss"]
    } else {
        args.iter().map(String::as_str).collect()
    };
    let rayon_run = || {
        let t = Instant::now();
        let s: u64 = pool.install(|| (0..HEIGHT).into_par_iter().map(row).sum());
        assert_eq!(s, expected);
        t.elapsed().as_secs_f64()
    };
    let dls_run = |name: &str| -> Result<f64, Box<dyn std::error::Error>> {
        let t = Instant::now();
        let (s, _) = rt.doall_reduce(
            "mandelbrot",
            0..HEIGHT,
            name.parse()?,
            || 0u64,
            |y, acc| *acc += row(y),
            |a, b| a + b,
        )?;
        assert_eq!(s, expected);
        Ok(t.elapsed().as_secs_f64())
    };
    println!(
        "threads: {threads}; Mandelbrot {WIDTH}x{HEIGHT}, max_iter {MAX_ITER}; {REPS} paired runs"
    );
    for name in techniques {
        // Paired runs, alternating which goes first; the ratio of each pair is rayon/dls.
        let (mut r_t, mut d_t, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for rep in 0..REPS {
            let (r, d) = if rep % 2 == 0 {
                let r = rayon_run();
                (r, dls_run(name)?)
            } else {
                let d = dls_run(name)?;
                (rayon_run(), d)
            };
            r_t.push(r);
            d_t.push(d);
            ratios.push(r / d);
        }
        println!(
            "dls {name:>6}: median {:.4} s vs rayon par_iter {:.4} s; median paired rayon/dls = {:.3} (target >= 1.0)",
            median(d_t),
            median(r_t),
            median(ratios)
        );
    }
    Ok(())
}
