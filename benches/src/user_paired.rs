//! The harness of the issue 42 programs (`jacobi_flat`, `spmv_powerlaw`, `kmeans_user`,
//! `nbody_step`, `histogram`): each program is written as a user writes the serial function,
//! then the same function converted with `#[par_doall]` only, and rayon's idiom for it. Every
//! round runs, in turn (the order reversed every other round): the serial function; the dls
//! function on a runtime of 2 threads; on a runtime of 1 thread; rayon on a pool of 2 threads.
//! Each round's ratios are paired (same round), and the medians over rounds are printed, with
//! every result checked against the serial one.
//!
//! Under `mpirun` (built with `--features mpi`) a round runs the serial function and the dls
//! function on the job's ranks (each with `DLS_THREADS` threads, 1 by default), every rank
//! checking the result against its own serial run; rank 0 prints the medians and serial/dls.
//! rayon has no cluster form, so it has no column there.

use std::time::Instant;

/// What one way of running a program returns: a checksum compared with the serial one's.
pub(crate) type Run<'a> = &'a (dyn Fn() -> f64 + Sync);

/// Times `f` once: (seconds, its checksum).
fn time(f: Run) -> (f64, f64) {
    let t = Instant::now();
    let c = f();
    (t.elapsed().as_secs_f64(), c)
}

/// `f` on a dls runtime of `threads` threads (made for it, then dropped), with
/// `DLS_REEXECUTE=off` where `reexecute_off`.
pub(crate) fn on_dls(threads: usize, reexecute_off: bool, f: Run) -> (f64, f64) {
    let before = std::env::var_os("DLS_REEXECUTE");
    if reexecute_off {
        // SAFETY: the benchmark's own threads read the environment only through std, which
        // locks it, and the runtime reads its settings at start; a benchmark accepts the race
        // left with an MPI library's own threads under mpirun.
        unsafe { std::env::set_var("DLS_REEXECUTE", "off") };
    }
    let rt = dls::init_with_threads(threads).expect("a dls runtime");
    assert_eq!(rt.workers(), threads, "the runtime of this measurement");
    let r = time(f);
    drop(rt);
    // SAFETY: as above.
    match before {
        Some(v) => unsafe { std::env::set_var("DLS_REEXECUTE", v) },
        None => unsafe { std::env::remove_var("DLS_REEXECUTE") },
    }
    r
}

/// `f` on a rayon pool of `threads` threads.
pub(crate) fn on_rayon(pool: &rayon::ThreadPool, f: Run) -> (f64, f64) {
    pool.install(|| time(f))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1e-300)
}

/// Runs `rounds` paired rounds of the four ways and prints the table; `tol`: the relative
/// difference of checksums allowed (0 where the result is exact); `reexecute_pair`: a fifth
/// column, 2 dls threads with `DLS_REEXECUTE=off`.
pub(crate) fn compare(
    program: &str,
    rounds: usize,
    tol: f64,
    serial: Run,
    dls: Run,
    rayon: Run,
    reexecute_pair: bool,
) {
    if let Some(rt) = under_mpirun() {
        return compare_ranks(&rt, program, rounds, tol, serial, dls);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a rayon pool");
    let mut cols: Vec<(&str, Vec<f64>)> = vec![
        ("serial", vec![]),
        ("dls 2 thr", vec![]),
        ("dls 1 thr", vec![]),
        ("rayon 2 thr", vec![]),
    ];
    if reexecute_pair {
        cols.push(("dls 2 thr, DLS_REEXECUTE=off", vec![]));
    }
    println!("# {program}: {rounds} rounds, seconds per run (order reversed every other round)");
    for round in 0..rounds {
        let mut order: Vec<usize> = (0..cols.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        let mut times = vec![0.0; cols.len()];
        let mut sums = vec![0.0; cols.len()];
        for &w in &order {
            let (t, c) = match w {
                0 => time(serial),
                1 => on_dls(2, false, dls),
                2 => on_dls(1, false, dls),
                3 => on_rayon(&pool, rayon),
                _ => on_dls(2, true, dls),
            };
            times[w] = t;
            sums[w] = c;
        }
        for (w, c) in sums.iter().enumerate() {
            assert!(
                close(*c, sums[0], tol),
                "{program}: {} gave {c}, the serial program {}",
                cols[w].0,
                sums[0]
            );
        }
        let line: Vec<String> = times.iter().map(|t| format!("{t:.4}")).collect();
        println!("round {round}: {}", line.join("  "));
        for (w, t) in times.into_iter().enumerate() {
            cols[w].1.push(t);
        }
    }
    let ratio = |a: usize, b: usize| -> f64 {
        median(
            cols[a]
                .1
                .iter()
                .zip(&cols[b].1)
                .map(|(x, y)| x / y)
                .collect(),
        )
    };
    println!("| program | way | median s |");
    println!("|---|---|---:|");
    for (name, ts) in &cols {
        println!("| {program} | {name} | {:.4} |", median(ts.clone()));
    }
    println!(
        "{program}: serial/dls2 {:.2}x, rayon2/dls2 {:.2} (target >= 0.9), dls1/serial {:.3} (target <= 1.1), serial/rayon2 {:.2}x",
        ratio(0, 1),
        ratio(3, 1),
        ratio(2, 0),
        ratio(0, 3)
    );
    if reexecute_pair {
        println!(
            "{program}: dls2 re-execution on / off {:.3} (paired; target <= 1.03)",
            ratio(1, 4)
        );
    }
}

/// The job's runtime where this process is a rank of an MPI job of more than one rank; `None` on
/// threads (the runtime made to find out is dropped: each measurement makes its own).
fn under_mpirun() -> Option<dls::Runtime> {
    let rt = dls::init().expect("a dls runtime");
    match rt.backend() {
        dls::Backend::Mpi { .. } => Some(rt),
        _ => None,
    }
}

/// Paired rounds of the serial and the dls function on the job's ranks (module documentation).
fn compare_ranks(rt: &dls::Runtime, program: &str, rounds: usize, tol: f64, serial: Run, dls: Run) {
    let (mut ts, mut td) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let ((t_s, c_s), (t_d, c_d)) = if round % 2 == 0 {
            let s = time(serial);
            (s, time(dls))
        } else {
            let d = time(dls);
            (time(serial), d)
        };
        assert!(
            close(c_d, c_s, tol),
            "{program}: rank {} of dls gave {c_d}, the serial program {c_s}",
            rt.rank()
        );
        ts.push(t_s);
        td.push(t_d);
    }
    if rt.rank() == 0 {
        let r: Vec<f64> = ts.iter().zip(&td).map(|(s, d)| s / d).collect();
        println!(
            "{program} under mpirun: {} ranks, {} workers, {rounds} rounds: serial {:.4} s, dls \
             {:.4} s, serial/dls {:.2}x (paired)",
            rt.size(),
            rt.workers(),
            median(ts),
            median(td),
            median(r)
        );
    }
}

/// The number of rounds: the first argument, else `default`.
pub(crate) fn rounds(default: usize) -> usize {
    std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}
