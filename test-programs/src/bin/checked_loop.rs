//! A checked loop (`Runtime::doall_reduce_checked`): the midpoint rule for ∫₀¹ 4/(1+x²) dx = π
//! over `n` strips (default 4,000, about 20 µs each), each strip's area the checked value, run `loops` times. With `DLS_INJECT`
//! (e.g. `worker=2,bias=3`) one worker's values go wrong through `dls::inject`. Prints one line
//! per loop on rank 0: `check: rejected=<bool> suspect=<worker or none> p=<p> area=<area> …`.
//! With `DLS_CHECK=repair` the suspect's iterates run again elsewhere (`repaired=true`).
//!
//! ```text
//! DLS_THREADS=4 DLS_INJECT=worker=2,bias=3 target/debug/checked_loop 20000 3
//! mpirun -n 4 --oversubscribe -x DLS_INJECT target/debug/checked_loop
//! ```

use dls::runtime::checked::Check;
use dls::runtime::options::LoopOptions;

/// The same loop with the `check(anova: y)` clause of `#[par_doall]`.
#[dls::parallel]
fn area_clause(n: u64) -> f64 {
    let h = 1.0 / n as f64;
    let mut area = 0.0;
    #[par_doall(schedule = "fac2", reduce(+: area), check(anova: y))]
    for i in 0..n {
        let x = (i as f64 + 0.5) * h;
        let f = (0..2000).fold(0.0, |acc, k| {
            acc + std::hint::black_box(4.0 / (1.0 + x * x) + k as f64 * 0.0)
        }) / 2000.0;
        let y = dls::inject(f * h);
        area += y;
    }
    area
}

/// A regression job with the `check(regression(x): y)` clause: rows (x, y = 2 + 3x + noise),
/// the result is the sums (Σx, Σy, Σxy, Σx²) a least-squares fit needs.
#[dls::parallel]
fn fit_clause(n: u64) -> [f64; 4] {
    let mut sums = [0.0_f64; 4];
    #[par_doall(schedule = "gss", reduce(+: sums), check(regression(x): y))]
    for i in 0..n {
        let x = i as f64 / n as f64;
        let noise = (((i.wrapping_mul(2_654_435_761)) % 1000) as f64 / 1000.0 - 0.5) * 0.2;
        let f = (0..2000).fold(0.0, |acc, k| acc + std::hint::black_box(k as f64 * 0.0));
        let y = dls::inject(2.0 + 3.0 * x + noise + f);
        sums[0] += x;
        sums[1] += y;
        sums[2] += x * y;
        sums[3] += x * x;
    }
    sums
}

/// A two-level loop whose inner loop checks itself across its group's ranks.
#[dls::parallel]
fn inner_clause(m: u64, n: u64) -> f64 {
    let mut total = 0.0;
    #[par_doall(schedule = "ss", group(min = 3, max = 3), reduce(+: total))]
    for j in 0..m {
        let mut area = 0.0;
        let h = 1.0 / n as f64;
        #[par_doall(schedule = "fac2", reduce(+: area), check(anova: y))]
        for i in 0..n {
            let x = (i as f64 + 0.5) * h;
            let f = (0..2000).fold(0.0, |acc, k| {
                acc + std::hint::black_box(4.0 / (1.0 + x * x) + k as f64 * 0.0)
            }) / 2000.0;
            let y = dls::inject(f * h * (j + 1) as f64);
            area += y;
        }
        total += area;
    }
    total
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().nth(1).as_deref() == Some("inner") {
        let rt = dls::init()?.with_statistics(true);
        let total = inner_clause(3, 2000);
        if rt.rank() == 0 {
            println!("inner: total={total:.10}");
        }
        return Ok(());
    }
    if std::env::args().nth(1).as_deref() == Some("rows") {
        let rt = dls::init()?.with_statistics(true);
        for _ in 0..3 {
            let [sx, sy, sxy, sxx] = fit_clause(4000);
            let n = 4000.0;
            let slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
            if rt.rank() == 0 {
                println!(
                    "rows: slope={slope:.9} intercept={:.9}",
                    (sy - slope * sx) / n
                );
            }
        }
        return Ok(());
    }
    // Issue 43 R4-5: 20 checked loops that cannot test (one iterate each: one worker holds every
    // value). The check says so once, and the reports count such runs.
    if std::env::args().nth(1).as_deref() == Some("untested") {
        let rt = dls::init()?.with_statistics(true);
        for _ in 0..20 {
            let (_, stats) = rt.run(
                &LoopOptions::new("tiny", "fac2".parse()?).check(Check::default()),
                0..1u64,
                || 0.0,
                |i, s: &mut f64| {
                    *s += i as f64;
                    i as f64
                },
                |a, b| a + b,
            )?;
            let c = stats
                .report
                .check
                .expect("a checked loop reports its check");
            if rt.rank() == 0 {
                println!(
                    "untested: outcome={} checked_runs={} untested_runs={}",
                    c.outcome, c.checked_runs, c.untested_runs
                );
            }
        }
        return Ok(());
    }
    if std::env::args().nth(1).as_deref() == Some("clause") {
        let rt = dls::init()?.with_statistics(true);
        for _ in 0..3 {
            let area = area_clause(4000);
            if rt.rank() == 0 {
                println!("clause: area={area:.12}");
            }
        }
        return Ok(());
    }
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().map_or(Ok(4_000), |a| a.parse())?;
    let loops: u64 = args.next().map_or(Ok(3), |a| a.parse())?;
    let rt = dls::init()?.with_statistics(true);
    let h = 1.0 / n as f64;
    for k in 0..loops {
        let check = Check {
            seed: 1000 + k,
            ..Check::default()
        };
        let (area, stats) = rt.run(
            &LoopOptions::new("pi", "fac2".parse()?).check(check),
            0..n,
            || 0.0,
            |i, s: &mut f64| {
                // Some work per strip (about 20 µs), so that every worker takes part.
                let x = (i as f64 + 0.5) * h;
                let f = (0..2000).fold(0.0, |acc, k| {
                    acc + std::hint::black_box(4.0 / (1.0 + x * x) + k as f64 * 0.0)
                }) / 2000.0;
                let y = dls::inject(f * h);
                *s += y;
                y
            },
            |a, b| a + b,
        )?;
        let c = stats
            .report
            .check
            .expect("a checked loop reports its check");
        if dls::is_root() {
            println!(
                "check: rejected={} suspect={} p={:e} area={area:.12} outcome={} repaired={} \
                 reexecuted={}",
                c.rejected,
                c.suspect.map_or("none".to_string(), |w| w.to_string()),
                c.p.unwrap_or(f64::NAN),
                c.outcome,
                c.repaired,
                c.reexecuted.iter().map(|r| r[1]).sum::<u64>()
            );
        }
    }
    Ok(())
}
