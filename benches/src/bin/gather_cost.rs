//! The cost of `gather` per element (issue 29): a loop writing `out[i] = f(i)` for cheap
//! iterates (`f(i) = √i`, a few nanoseconds), N = 10^6 … 10^7, on the threads backend. Ways,
//! taking turns in each round (the order rotates from round to round), each allocating its own
//! `f64` vector of N zeros where it has one:
//!
//! - `serial`: the plain loop writing the vector;
//! - `dls gather`: `#[par_doall(schedule = "fac2", gather(out))]`, the vector written on every
//!   worker's behalf after the loop;
//! - `dls no gather`: the same loop with no clause, `f(i)` put into a local (`black_box`): what
//!   the loop costs without its result;
//! - `rayon`: `out.par_iter_mut().enumerate().for_each(..)`, writing in place, on a pool of as
//!   many threads as dls has workers.
//!
//! Prints, per N, each way's median ns per element over the rounds, and the differences
//! gather − no gather and gather − rayon (ns per element: what gathering adds to each iterate).
//! The gathered vectors are checked equal to the serial one.
//!
//! ```text
//! DLS_THREADS=2 cargo run --release -p dls-bench --bin gather_cost [rounds [N ...]]
//! ```

use std::hint::black_box;
use std::time::Instant;

use rayon::prelude::*;

/// The cheap iterate.
#[inline]
fn f(i: usize) -> f64 {
    (i as f64).sqrt()
}

fn serial(n: usize) -> Vec<f64> {
    let mut out = vec![0.0_f64; n];
    for (i, x) in out.iter_mut().enumerate() {
        *x = f(i);
    }
    out
}

#[dls::parallel]
fn with_gather(n: usize) -> Vec<f64> {
    let mut out = vec![0.0_f64; n];
    #[par_doall(schedule = "fac2", gather(out))]
    for i in 0..n {
        out[i] = f(i);
    }
    out
}

#[dls::parallel]
fn without_gather(n: usize) -> Vec<f64> {
    #[par_doall(schedule = "fac2")]
    for i in 0..n {
        let x = f(i);
        black_box(x);
    }
    Vec::new()
}

fn with_rayon(pool: &rayon::ThreadPool, n: usize) -> Vec<f64> {
    let mut out = vec![0.0_f64; n];
    pool.install(|| out.par_iter_mut().enumerate().for_each(|(i, x)| *x = f(i)));
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = match args.first() {
        Some(r) => r
            .parse()
            .map_err(|_| format!("rounds must be a whole number, got `{r}`"))?,
        None => 5,
    };
    let mut sizes: Vec<usize> = args
        .iter()
        .skip(1)
        .map(|a| {
            a.parse()
                .map_err(|_| format!("N must be a whole number, got `{a}`"))
        })
        .collect::<Result<_, _>>()?;
    if sizes.is_empty() {
        sizes = vec![1_000_000, 3_000_000, 10_000_000];
    }
    let rt = dls::init()?;
    if matches!(rt.backend(), dls::Backend::Mpi { .. }) {
        return Err("gather_cost runs on threads; run it without mpirun".into());
    }
    let p = rt.workers();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(p).build()?;
    println!(
        "gather_cost: out[i] = sqrt(i), dls fac2 on {p} thread(s), rayon pool of {p}; this \
         machine has {cores} core(s); {rounds} rounds, ways taking turns; ns per element"
    );
    if p > cores {
        println!("note: {p} workers on {cores} cores (oversubscribed): the times mislead");
    }
    println!("| N | serial | dls gather | dls no gather | rayon par_iter_mut | gather − no gather | gather − rayon |");
    println!("|---|---|---|---|---|---|---|");
    for &n in &sizes {
        type Way<'a> = (&'a str, Box<dyn Fn() -> Vec<f64> + 'a>);
        let ways: Vec<Way> = vec![
            ("serial", Box::new(|| serial(n))),
            ("dls gather", Box::new(|| with_gather(n))),
            ("dls no gather", Box::new(|| without_gather(n))),
            ("rayon", Box::new(|| with_rayon(&pool, n))),
        ];
        let want = serial(n);
        let mut ns = vec![Vec::new(); ways.len()];
        // Round 0 warms up (pools started, results checked) and is not counted.
        for r in 0..=rounds {
            for j in 0..ways.len() {
                let k = (j + r) % ways.len();
                let t = Instant::now();
                let out = (ways[k].1)();
                let s = t.elapsed().as_secs_f64();
                if !out.is_empty() && out != want {
                    return Err(format!("{}: N = {n}: the vector differs", ways[k].0).into());
                }
                drop(out);
                if r > 0 {
                    ns[k].push(s * 1e9 / n as f64);
                }
            }
        }
        let m: Vec<f64> = ns.iter().map(|v| median(v.clone())).collect();
        let diff =
            |a: usize, b: usize| median(ns[a].iter().zip(&ns[b]).map(|(x, y)| x - y).collect());
        println!(
            "| {n} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            m[0],
            m[1],
            m[2],
            m[3],
            diff(1, 2),
            diff(1, 3)
        );
    }
    Ok(())
}
