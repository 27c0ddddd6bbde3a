//! The cost of a fault check: the same loop of about 1 µs iterates (a busy computation) as
//! `doall_reduce` and as `doall_reduce_checked` (the permutation, one summary update per
//! iterate, the test at the end), alternately in the same process; prints the median times and
//! the median of the paired ratios checked / unchecked (target: at most 1.03).
//!
//! ```text
//! cargo run --release -p dls-bench --bin check_overhead [runs]
//! ```

use std::hint::black_box;
use std::time::Instant;

use dls::runtime::checked::Check;
use dls::runtime::options::LoopOptions;

/// About 1 µs of arithmetic.
fn work(i: u64) -> f64 {
    let mut x = 0.1 + (i % 997) as f64 * 8e-4; // in (0, 1): the map stays there
    for _ in 0..600 {
        x = 3.9 * x * (1.0 - x);
    }
    x
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runs: usize = std::env::args().nth(1).map_or(Ok(21), |a| a.parse())?;
    let rt = dls::init()?;
    let n = 200_000u64;
    let (mut plain, mut checked, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..runs {
        let t = Instant::now();
        let (a, _) = rt.doall_reduce(
            "plain",
            0..n,
            "fac2".parse()?,
            || 0.0,
            |i, s| *s += work(i),
            |a, b| a + b,
        )?;
        let p = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let check = Check {
            seed: k as u64,
            ..Check::default()
        };
        let (b, _) = rt.run(
            &LoopOptions::new("checked", "fac2".parse()?).check(check),
            0..n,
            || 0.0,
            |i, s: &mut f64| {
                let y = work(i);
                *s += y;
                y
            },
            |a, b| a + b,
        )?;
        let c = t.elapsed().as_secs_f64();
        black_box((a, b));
        plain.push(p);
        checked.push(c);
        ratios.push(c / p);
    }
    if rt.rank() == 0 {
        println!(
            "check_overhead: {n} iterates of ~{:.2} µs, {} worker(s), {runs} paired runs: \
             unchecked {:.4} s, checked {:.4} s (medians), checked / unchecked {:.3} (median of \
             paired ratios)",
            median(plain.clone()) * 1e6 / n as f64 * rt.workers() as f64,
            rt.workers(),
            median(plain),
            median(checked),
            median(ratios)
        );
    }
    Ok(())
}
