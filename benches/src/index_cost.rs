//! What `mandelbrot_pixels` and `triangular` share (issue 13's loops whose iterate cost follows
//! the index): paired rounds of the serial loop against every technique, the efficiency table,
//! and the `profile` mode that prints iterate times for `dls compare --iterate-time file:PATH`.
//! Included by both with `#[path]`.

use std::hint::black_box;
use std::time::Instant;

/// The median of `v` (upper median for an even count).
pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// What a pseudo-technique of `paired_rounds` returns: its total (on every rank) and, for a
/// baseline that brings its own serial loop (the C/OpenMP rows of `mandelbrot_pixels`), the
/// times `[serial, parallel]` in seconds of that program, measured in the same call, which then
/// give its efficiency instead of the Rust serial loop and the call's own time.
pub(crate) struct Special {
    pub(crate) total: u64,
    pub(crate) own_times: Option<[f64; 2]>,
}

/// Runs `reps` paired rounds over `0..n`: the serial loop on rank 0, then every technique
/// (`doall_reduce`, wrapping sum of `body`), each checked against the serial result. `special`
/// runs a pseudo-technique by name instead, if it knows the name ([`Special`]). Prints a header line (`title`, the serial median) and one row per technique:
/// efficiency = serial / (P × parallel time), and, with more workers than cores, per core =
/// serial / (cores × parallel time). Where the run has a baseline row (C/OpenMP or the Rust
/// `fetch_add` floor), the other rows are also compared with it round by round.
pub(crate) fn paired_rounds(
    rt: &dls::Runtime,
    title: &str,
    n: u64,
    reps: usize,
    techniques: &[&str],
    body: impl Fn(u64) -> u64 + Sync,
    special: impl Fn(&str) -> Option<Special>,
) -> Result<(), Box<dyn std::error::Error>> {
    let (rank, p) = (rt.rank(), rt.workers());
    let mut effs = vec![Vec::new(); techniques.len()];
    let mut serials = Vec::new();
    for _ in 0..reps {
        let mut serial_s = 0.0;
        let mut want = 0u64;
        if rank == 0 {
            let t = Instant::now();
            want = (0..n).fold(0u64, |a, i| a.wrapping_add(body(black_box(i))));
            serial_s = t.elapsed().as_secs_f64();
            serials.push(serial_s);
        }
        for (k, name) in techniques.iter().enumerate() {
            let t = Instant::now();
            let mut own_times = None;
            let total = match special(name) {
                Some(s) => {
                    own_times = s.own_times;
                    s.total
                }
                None => {
                    rt.doall_reduce(
                        name,
                        0..n,
                        name.parse()?,
                        || 0u64,
                        |i, acc: &mut u64| *acc = acc.wrapping_add(body(i)),
                        |a: u64, b| a.wrapping_add(b),
                    )?
                    .0
                }
            };
            let par_s = t.elapsed().as_secs_f64();
            if rank == 0 {
                assert_eq!(total, want, "{name}: result differs from the serial loop's");
                let (serial_s, par_s) = own_times.map_or((serial_s, par_s), |[s, q]| (s, q));
                effs[k].push(serial_s / (p as f64 * par_s));
            }
        }
    }
    if rank == 0 {
        println!(
            "{title}, P = {p} ({:?}), serial median {:.3} s, {reps} paired rounds",
            rt.backend(),
            median(serials.clone())
        );
        let runs: Vec<String> = serials.iter().map(|x| format!("{x:.4}")).collect();
        println!("serial rounds (s): {}", runs.join(" "));
        let mpi = matches!(rt.backend(), dls::Backend::Mpi { .. });
        let cores = dls::report::Oversubscribed::node_cores(mpi);
        let over = p > cores;
        if over {
            println!(
                "note: {p} workers on {cores} cores (oversubscribed): efficiency is at most {cores}/{p}; per core = serial / ({cores} x parallel time)"
            );
            println!("| technique | efficiency (median) | per core (median) | rounds |");
            println!("|---|---|---|---|");
        } else {
            println!("| technique | efficiency (median) | rounds |");
            println!("|---|---|---|");
        }
        for (name, e) in techniques.iter().zip(&effs) {
            let runs: Vec<String> = e.iter().map(|x| format!("{x:.3}")).collect();
            let m = median(e.clone());
            if over {
                let per_core = m * p as f64 / cores as f64;
                println!("| {name} | {m:.3} | {per_core:.3} | {} |", runs.join(" "));
            } else {
                println!("| {name} | {m:.3} | {} |", runs.join(" "));
            }
        }
        print_paired(techniques, &effs);
    }
    Ok(())
}

/// The rows that other rows are compared with round by round, where the run has them.
const BASELINES: [&str; 3] = ["omp-dynamic1", "omp-guided", "atomic-floor"];

/// For every baseline of [`BASELINES`] in the run, each other row's efficiency divided by the
/// baseline's round by round (both ran in the same round, one after the other): the median and
/// the mean of those ratios and the rounds in which the row was ahead. Pairing by round takes out
/// what the machine's load does to both rows alike, which the medians of the table above keep.
fn print_paired(techniques: &[&str], effs: &[Vec<f64>]) {
    for (b, base) in techniques.iter().enumerate() {
        if !BASELINES.contains(base) || techniques.len() < 2 {
            continue;
        }
        println!("paired by round against {base}: median, mean of the ratios, rounds ahead");
        for (k, name) in techniques.iter().enumerate() {
            if k == b || effs[k].is_empty() {
                continue;
            }
            let ratios: Vec<f64> = effs[k].iter().zip(&effs[b]).map(|(x, y)| x / y).collect();
            let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
            let ahead = ratios.iter().filter(|r| **r > 1.0).count();
            println!(
                "  {name} / {base}: {:.3}, {mean:.3}, {ahead} of {}",
                median(ratios.clone()),
                ratios.len()
            );
        }
    }
}

/// `profile`: prints the loop's iterate times for the simulator, one per line in nanoseconds:
/// the serial loop's measured time (median of 5) shared out in proportion to `cost(i)`.
pub(crate) fn profile(n: u64, body: impl Fn(u64) -> u64, cost: impl Fn(u64) -> f64) {
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let mut acc = 0u64;
        for i in 0..n {
            acc = acc.wrapping_add(body(black_box(i)));
        }
        black_box(acc);
        times.push(t.elapsed().as_secs_f64());
    }
    let serial = median(times);
    let total: f64 = (0..n).map(&cost).sum();
    println!("# serial time {serial:.4} s, shared in proportion to each iterate's cost");
    for i in 0..n {
        println!("{:.1}ns", serial * 1e9 * cost(i) / total);
    }
}
