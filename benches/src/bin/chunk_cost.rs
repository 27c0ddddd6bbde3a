//! The cost of one chunk (issue 29): self-scheduling (`ss`, one iterate per chunk) over cheap
//! iterates, as nanoseconds per iterate, beside the serial loop and the floor of a hand-written
//! loop on std threads that claims one iterate at a time with a `fetch_add` (what OpenMP's
//! `schedule(dynamic,1)` does), in the same run: dls both through the explicit API
//! (`doall_reduce`, which returns the loop's statistics: every chunk timed and mapped) and as a
//! user writes it (`#[par_doall]` without `DLS_REPORT`: no chunk map, the clock read at some
//! claims only). Each of `rounds` rounds runs the four ways once
//! (paired); the medians over rounds are printed, and per-chunk costs (time per iterate minus the
//! serial loop's, times the workers).
//!
//! The iterate is a short dependent chain of floating-point operations (about 30 ns), so the
//! figures are the hand-out's cost, not the work's. With re-execution on (the default) and off
//! (`DLS_REEXECUTE=off`), the loop keeps each chunk's sum apart until it is confirmed or not.
//!
//! ```text
//! DLS_THREADS=2 cargo run --release -p dls-bench --bin chunk_cost [rounds] [iterates]
//! ```

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// About 30 ns of dependent arithmetic.
#[inline(always)]
fn work(i: u64) -> f64 {
    let mut x = i as f64 * 1e-9;
    for _ in 0..8 {
        x = x * 1.000_001 + 0.5;
    }
    x
}

/// The same loop as a user writes it: `#[par_doall(schedule = "ss")]`, no report asked for.
#[dls::parallel]
fn macro_ss(n: u64) -> f64 {
    let mut sum = 0.0f64;
    #[par_doall(schedule = "ss", reduce(+: sum))]
    for i in 0..n {
        sum += work(black_box(i));
    }
    sum
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().map_or(Ok(9), |a| a.parse())?;
    let n: u64 = args.next().map_or(Ok(2_000_000), |a| a.parse())?;
    let rt = dls::current()?;
    let p = rt.workers();
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    println!(
        "chunk_cost: ss over {n} iterates of ~30 ns, {p} worker(s), {cores} core(s){}; \
         re-execution {}",
        if p > cores {
            " (more workers than cores: the figures mislead)"
        } else {
            ""
        },
        if rt.effective_reexecution() {
            "on"
        } else {
            "off"
        }
    );
    let ss: dls::Technique = "ss".parse()?;
    let serial = || (0..n).map(|i| work(black_box(i))).sum::<f64>();
    let floor = || {
        let next = AtomicU64::new(0);
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..p)
                .map(|_| {
                    s.spawn(|| {
                        let mut sum = 0.0;
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= n {
                                break sum;
                            }
                            sum += work(black_box(i));
                        }
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum::<f64>()
        })
    };
    let dls_loop = || -> Result<f64, dls::DlsError> {
        let (sum, _) = rt.doall_reduce(
            "chunk_cost",
            0..n,
            ss.clone(),
            || 0.0f64,
            |i, acc| *acc += work(black_box(i)),
            |a, b| a + b,
        )?;
        Ok(sum)
    };
    let want = serial();
    let mut times = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..rounds {
        let t = Instant::now();
        black_box(serial());
        times[0].push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let got = floor();
        times[1].push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let got_dls = dls_loop()?;
        times[2].push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let got_macro = macro_ss(black_box(n));
        times[3].push(t.elapsed().as_secs_f64());
        for (way, v) in [
            ("floor", got),
            ("dls", got_dls),
            ("#[par_doall]", got_macro),
        ] {
            if (v - want).abs() > 1e-6 * want.abs() {
                return Err(format!("{way}: sum {v}, serial {want}").into());
            }
        }
    }
    let m: Vec<f64> = times.iter_mut().map(|t| median(t)).collect();
    let per = |t: f64| t / n as f64 * 1e9;
    println!("| way | ns per iterate (median) | per-chunk cost, ns (x workers, minus serial) |");
    println!("|---|---|---|");
    println!("| serial loop | {:.1} | |", per(m[0]));
    for (name, t) in [
        ("fetch_add floor (std threads)", m[1]),
        ("dls ss (doall_reduce: statistics returned)", m[2]),
        ("dls ss (#[par_doall], no report asked)", m[3]),
    ] {
        println!(
            "| {name} | {:.1} | {:.1} |",
            per(t),
            per(t) * p as f64 - per(m[0])
        );
    }
    Ok(())
}
