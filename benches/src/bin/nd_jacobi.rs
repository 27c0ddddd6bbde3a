//! A Jacobi stencil on an ndarray `Array2<f64>` (issue 45): 1024 × 1024 grid, 200 sweeps, each
//! sweep writing every interior point of the new grid from its four neighbours in the old one,
//! then swapping the grids. Written as a scientist writes the serial ndarray program
//! (`v[[i, j]] = 0.25 * (u[[i - 1, j]] + …)`), and converted with the attribute only:
//! `#[par_doall(schedule = "af", gather(v))]` on the loop over the rows.
//!
//! Ways, taking turns in every round (the order rotates from round to round), each timed over the
//! 200 sweeps:
//!
//! - `serial`: the plain loop;
//! - `dls`: the converted loop on the runtime's workers (`DLS_THREADS`, 2 by default here);
//! - `dls-1`: the converted loop on 1 thread (the same binary, started with `DLS_THREADS=1`; it
//!   times its own sweeps, so process start-up is not counted, and runs the serial program just
//!   before them, so that dls-1/serial is also a ratio of two runs in one process);
//! - `zip`: ndarray's own parallel form, `Zip::par_for_each` over the interior and its four
//!   shifted slices (ndarray's feature `rayon`), on a rayon pool of as many threads as dls has.
//!
//! Every way's grid must equal the serial one exactly (the same additions in the same order).
//! Prints each way's median and the medians of the per-round ratios. Under mpirun it runs
//! `serial` and `dls` only (every rank runs the loop; rank 0 prints).
//!
//! ```text
//! DLS_THREADS=2 cargo run --release -p dls-bench --bin nd_jacobi [rounds [n [sweeps]]]
//! mpirun -np 2 --oversubscribe target/release/nd_jacobi 3
//! ```

use std::process::Command;
use std::time::Instant;

use dls::ndarray::{s, Array2, Zip};

/// The starting grid: a hot top edge, the rest cold with a small pattern.
fn start(n: usize) -> Array2<f64> {
    Array2::from_shape_fn((n, n), |(i, j)| {
        if i == 0 {
            100.0
        } else {
            ((i * 7 + j * 3) % 11) as f64 * 0.125
        }
    })
}

/// The serial program.
fn serial(mut u: Array2<f64>, sweeps: usize) -> Array2<f64> {
    let n = u.nrows();
    let mut v = u.clone();
    for _ in 0..sweeps {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                v[[i, j]] = 0.25 * (u[[i - 1, j]] + u[[i + 1, j]] + u[[i, j - 1]] + u[[i, j + 1]]);
            }
        }
        std::mem::swap(&mut u, &mut v);
    }
    u
}

/// The same program, converted with the attribute.
#[dls::parallel]
fn with_dls(mut u: Array2<f64>, sweeps: usize) -> Array2<f64> {
    let n = u.nrows();
    let mut v = u.clone();
    for _ in 0..sweeps {
        #[par_doall(schedule = "af", gather(v))]
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                v[[i, j]] = 0.25 * (u[[i - 1, j]] + u[[i + 1, j]] + u[[i, j - 1]] + u[[i, j + 1]]);
            }
        }
        std::mem::swap(&mut u, &mut v);
    }
    u
}

/// ndarray's own parallel form. (`s![1..-1, …]` counts from the end, as ndarray's documentation
/// writes it; clippy reads `1..-1` as an empty range.)
#[allow(clippy::reversed_empty_ranges)]
fn with_zip(pool: &rayon::ThreadPool, mut u: Array2<f64>, sweeps: usize) -> Array2<f64> {
    let mut v = u.clone();
    pool.install(|| {
        for _ in 0..sweeps {
            Zip::from(v.slice_mut(s![1..-1, 1..-1]))
                .and(u.slice(s![..-2, 1..-1]))
                .and(u.slice(s![2.., 1..-1]))
                .and(u.slice(s![1..-1, ..-2]))
                .and(u.slice(s![1..-1, 2..]))
                .par_for_each(|v, &n, &s, &w, &e| *v = 0.25 * (n + s + w + e));
            std::mem::swap(&mut u, &mut v);
        }
    });
    u
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A checksum that differs when any point differs.
fn digest(a: &Array2<f64>) -> u64 {
    a.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, x| {
        (h ^ x.to_bits()).wrapping_mul(0x0100_0000_01b3)
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |k: usize, default: usize| -> Result<usize, String> {
        match args.get(k) {
            Some(a) if a != "child" => a.parse().map_err(|_| format!("not a number: `{a}`")),
            _ => Ok(default),
        }
    };
    // `child n sweeps`: one timed dls run on this process's workers, for the `dls-1` way.
    if args.first().map(String::as_str) == Some("child") {
        let (n, sweeps) = (arg(1, 1024)?, arg(2, 200)?);
        let _rt = dls::init()?;
        // The serial program in the same process, just before, for the paired dls-1/serial
        // ratio: a child process may get another share of a loaded machine than its parent.
        let t = Instant::now();
        let plain = serial(start(n), sweeps);
        let t_serial = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let out = with_dls(start(n), sweeps);
        let t_dls = t.elapsed().as_secs_f64();
        if out != plain {
            return Err("dls-1 differs from the serial grid".into());
        }
        println!("{t_dls} {} {t_serial}", digest(&out));
        return Ok(());
    }
    let (rounds, n, sweeps) = (arg(0, 3)?, arg(1, 1024)?, arg(2, 200)?);
    let rt = dls::init()?;
    if let dls::Backend::Mpi { .. } = rt.backend() {
        let (mut ts, mut td) = (Vec::new(), Vec::new());
        let want = serial(start(n), sweeps);
        for _ in 0..rounds {
            let t = Instant::now();
            let s = serial(start(n), sweeps);
            ts.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let d = with_dls(start(n), sweeps);
            td.push(t.elapsed().as_secs_f64());
            assert!(s == want && d == want, "dls differs from serial");
        }
        if rt.rank() == 0 {
            let r: Vec<f64> = ts.iter().zip(&td).map(|(s, d)| s / d).collect();
            println!(
                "nd_jacobi under mpirun: {} ranks, {n}x{n}, {sweeps} sweeps, {rounds} rounds: serial \
                 {:.3} s, dls {:.3} s, serial/dls {:.3}",
                rt.size(),
                median(ts),
                median(td),
                median(r)
            );
        }
        return Ok(());
    }
    let p = rt.workers();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(p).build()?;
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    println!(
        "nd_jacobi: {n}x{n} Array2<f64>, {sweeps} sweeps; dls af on {p} thread(s), dls-1 on 1, \
         Zip::par_for_each on a rayon pool of {p}; {cores} core(s); {rounds} rounds, ways taking \
         turns"
    );
    let want = serial(start(n), sweeps);
    let exe = std::env::current_exe()?;
    let child = || -> Result<(f64, u64, f64), String> {
        let out = Command::new(&exe)
            .args(["child", &n.to_string(), &sweeps.to_string()])
            .env("DLS_THREADS", "1")
            .output()
            .map_err(|e| e.to_string())?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut f = text.split_whitespace();
        match (
            f.next().map(str::parse),
            f.next().map(str::parse),
            f.next().map(str::parse),
        ) {
            (Some(Ok(t)), Some(Ok(d)), Some(Ok(s))) => Ok((t, d, s)),
            _ => Err(format!(
                "dls-1 child: {text} {}",
                String::from_utf8_lossy(&out.stderr)
            )),
        }
    };
    let names = ["serial", "dls", "dls-1", "zip"];
    let mut times = vec![Vec::new(); names.len()];
    // The child's own serial time, paired with its dls-1 time.
    let mut child_serial = Vec::new();
    for r in 0..rounds {
        for j in 0..names.len() {
            let k = (j + r) % names.len();
            let (t, ok) = match k {
                0 => {
                    let t = Instant::now();
                    let out = serial(start(n), sweeps);
                    (t.elapsed().as_secs_f64(), out == want)
                }
                1 => {
                    let t = Instant::now();
                    let out = with_dls(start(n), sweeps);
                    (t.elapsed().as_secs_f64(), out == want)
                }
                2 => {
                    let (t, d, s) = child()?;
                    child_serial.push(s);
                    (t, d == digest(&want))
                }
                _ => {
                    let t = Instant::now();
                    let out = with_zip(&pool, start(n), sweeps);
                    (t.elapsed().as_secs_f64(), out == want)
                }
            };
            if !ok {
                return Err(format!("{} differs from the serial grid", names[k]).into());
            }
            times[k].push(t);
        }
    }
    println!("| way | median (s) | rounds (s) |");
    println!("|---|---|---|");
    for (name, t) in names.iter().zip(&times) {
        let runs: Vec<String> = t.iter().map(|x| format!("{x:.3}")).collect();
        println!("| {name} | {:.3} | {} |", median(t.clone()), runs.join(" "));
    }
    let ratio =
        |a: usize, b: usize| median(times[a].iter().zip(&times[b]).map(|(x, y)| x / y).collect());
    let in_child = median(
        times[2]
            .iter()
            .zip(&child_serial)
            .map(|(d, s)| d / s)
            .collect(),
    );
    println!(
        "medians of the per-round ratios: zip/dls {:.3} (target >= 0.9), dls-1/serial {:.3} \
         (target <= 1.1; against the serial run in the same child process {:.3}), serial/dls \
         {:.3}, serial/zip {:.3}",
        ratio(3, 1),
        ratio(2, 0),
        in_child,
        ratio(0, 1),
        ratio(0, 3)
    );
    Ok(())
}
