//! Mandelbrot with one iterate per pixel: the loop whose iterate cost follows the index that
//! issue 13 measured (cheap rows at the top and bottom, dear ones through the set's middle).
//!
//! 500×500 pixels (`size=1000` anywhere in the arguments: 1000×1000), row-major index, x ∈ [−2, 1), y ∈ [−1.5, 1.5), at most 2000 iterations per
//! pixel; the result is the total iteration count (`doall_reduce`, checked against the serial
//! loop's). Efficiency = the program's own serial time / (P × parallel time), where P is the
//! number of workers (threads or ranks); each of `reps` rounds times the serial loop once, then
//! every technique once (paired), and the median over rounds is printed.
//!
//! ```text
//! cargo run --release -p dls-bench --bin mandelbrot_pixels              # threads (DLS_THREADS)
//! cargo build --release -p dls-bench --features mpi --bin mandelbrot_pixels
//! mpirun --oversubscribe -np 2 target/release/mandelbrot_pixels 5 af awf-b fac2
//! ```
//!
//! The pseudo-techniques `macro-ss` and `macro-fac2` run the same loop written with
//! `#[par_doall(schedule = "ss")]` (`"fac2"`) and `reduce(+: total)`, as a user writes it: its
//! statistics dropped, no report asked for (the rows `ss` and `fac2` are the explicit API's
//! `doall_reduce`, whose report is not read here either: since issue 42 item 6 it builds none,
//! as the handle does not ask for it with `with_statistics`).
//!
//! `profile` instead prints the iterate times for `dls compare --iterate-time file:PATH`.
//!
//! Arguments: the number of rounds (default 5), then the techniques (default: all of
//! STATIC, SS, GSS, TSS, FAC2, WF, mFSC, AF, AWF, AWF-B..E). Under mpirun the serial loop runs on
//! rank 0 while the other ranks wait; with more ranks than cores (P = 4 on 2 cores) the
//! parallel run is oversubscribed: the efficiency is at most cores / P, and a second column
//! gives serial / (cores × parallel time) (lenient: a rank that waits gives its core to another).
//!
//! Under mpirun the pseudo-technique `raw-ss` is a hand-written request-per-iterate scheduler
//! over the same MPI calls, the baseline for SS: rank 0 computes pixels too and, before each of
//! its own, answers every pending request (`MPI_Iprobe`, receive, send the next index); every
//! other rank sends a request and waits for its index, one pixel at a time. Same messages per
//! iterate as dls's SS, no scheduler state, no service thread.

#[path = "../index_cost.rs"]
mod index_cost;

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use index_cost::Special;

const MAX_ITER: u32 = 2000;

/// Iterations of pixel `i` (row-major) of a `w`×`h` image before it escapes, at most
/// `MAX_ITER`.
fn pixel(i: u64, w: u64, h: u64) -> u64 {
    let (px, py) = (i % w, i / w);
    let cx = -2.0 + 3.0 * px as f64 / w as f64;
    let cy = -1.5 + 3.0 * py as f64 / h as f64;
    let (mut x, mut y, mut k) = (0.0f64, 0.0f64, 0u32);
    while k < MAX_ITER && x * x + y * y <= 4.0 {
        let t = x * x - y * y + cx;
        y = 2.0 * x * y + cy;
        x = t;
        k += 1;
    }
    u64::from(k)
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

unsafe extern "C" {
    /// `benches/c/mandelbrot_omp.c`: the total of `pixel` over a `w`×`h` image; `mode` 0 the
    /// serial loop, 1 `schedule(dynamic,1)`, 2 `schedule(guided)` on `threads` threads.
    fn dls_bench_mandelbrot_omp(w: u64, h: u64, maxiter: u32, threads: i32, mode: i32) -> u64;
}

/// The C/OpenMP baseline: C's serial loop, then its parallel loop in `mode`, each timed.
/// C's serial times are pushed onto `serials`.
fn omp(w: u64, h: u64, threads: usize, mode: i32, serials: &RefCell<Vec<f64>>) -> Special {
    let t = Instant::now();
    // SAFETY: a pure C function of plain integers.
    let serial = unsafe { dls_bench_mandelbrot_omp(w, h, MAX_ITER, 1, 0) };
    let serial_s = t.elapsed().as_secs_f64();
    serials.borrow_mut().push(serial_s);
    let t = Instant::now();
    // SAFETY: as above.
    let total = unsafe { dls_bench_mandelbrot_omp(w, h, MAX_ITER, threads as i32, mode) };
    let par_s = t.elapsed().as_secs_f64();
    assert_eq!(serial, total, "the C serial and OpenMP totals differ");
    Special {
        total,
        own_times: Some([serial_s, par_s]),
    }
}

/// The floor of one-pixel-per-request scheduling on threads: `threads` scoped threads claim
/// pixels one at a time with `fetch_add` on a shared counter and sum their iteration counts.
fn atomic_floor(w: u64, h: u64, threads: usize) -> u64 {
    let n = w * h;
    let next = AtomicU64::new(0);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut acc = 0u64;
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break acc;
                        }
                        acc = acc.wrapping_add(pixel(i, w, h));
                    }
                })
            })
            .collect();
        handles.into_iter().fold(0u64, |a, t| {
            a.wrapping_add(t.join().expect("a worker panicked"))
        })
    })
}

/// The same pixels summed by `#[par_doall(schedule = "ss")]`, as a user writes it (its report
/// not asked for: the `macro-ss` row; the `ss` row is the explicit API's `doall_reduce`, which
/// returns the calling process's counters only, no report being asked for).
#[dls::parallel]
fn macro_ss(w: u64, h: u64) -> u64 {
    let mut total = 0u64;
    #[par_doall(schedule = "ss", reduce(+: total))]
    for i in 0..w * h {
        total += pixel(i, w, h);
    }
    total
}

/// The same with `schedule = "fac2"` (the `macro-fac2` row).
#[dls::parallel]
fn macro_fac2(w: u64, h: u64) -> u64 {
    let mut total = 0u64;
    #[par_doall(schedule = "fac2", reduce(+: total))]
    for i in 0..w * h {
        total += pixel(i, w, h);
    }
    total
}

/// The pseudo-techniques that run on threads only.
const THREADS_ONLY: [&str; 3] = ["omp-dynamic1", "omp-guided", "atomic-floor"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut side = 500u64;
    if let Some(k) = args.iter().position(|a| a.starts_with("size=")) {
        let a = args.remove(k);
        side = a["size=".len()..]
            .parse()
            .map_err(|_| format!("`{a}`: size=<pixels per side>, e.g. size=1000"))?;
    }
    let (w, h) = (side, side);
    let pixel = move |i: u64| pixel(i, w, h);
    if args.first().map(String::as_str) == Some("profile") {
        index_cost::profile(w * h, pixel, |i| pixel(i) as f64 + 6.7);
        return Ok(());
    }
    let reps: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(5);
    let mut techniques: Vec<&str> = args.iter().skip(1).map(|s| s.as_str()).collect();
    if techniques.is_empty() {
        techniques = DEFAULT.to_vec();
    }
    let mpi = matches!(rt.backend(), dls::Backend::Mpi { .. });
    if mpi {
        let dropped: Vec<&str> = techniques
            .iter()
            .copied()
            .filter(|t| THREADS_ONLY.contains(t))
            .collect();
        if !dropped.is_empty() && rt.rank() == 0 {
            println!(
                "note: {} run on threads only; left out under mpirun",
                dropped.join(", ")
            );
        }
        techniques.retain(|t| !THREADS_ONLY.contains(t));
    }
    let threads = rt.workers();
    let title = format!("mandelbrot_pixels: {w}x{h}, maxiter {MAX_ITER}");
    let c_serials = RefCell::new(Vec::new());
    index_cost::paired_rounds(&rt, &title, w * h, reps, &techniques, pixel, |name| {
        match name {
            "omp-dynamic1" => return Some(omp(w, h, threads, 1, &c_serials)),
            "omp-guided" => return Some(omp(w, h, threads, 2, &c_serials)),
            "macro-ss" => {
                return Some(Special {
                    total: macro_ss(w, h),
                    own_times: None,
                })
            }
            "macro-fac2" => {
                return Some(Special {
                    total: macro_fac2(w, h),
                    own_times: None,
                })
            }
            "atomic-floor" => {
                return Some(Special {
                    total: atomic_floor(w, h, threads),
                    own_times: None,
                })
            }
            #[cfg(feature = "mpi")]
            "raw-ss" => {
                return Some(Special {
                    total: raw_ss(&rt, w, h),
                    own_times: None,
                })
            }
            _ => {}
        }
        None
    })?;
    let c_serials = c_serials.into_inner();
    if !c_serials.is_empty() {
        println!(
            "C serial loop (gcc -O2, the omp rows' baseline): median {:.3} s over {} runs",
            index_cost::median(c_serials.clone()),
            c_serials.len()
        );
    }
    Ok(())
}

/// The baseline for SS under mpirun: a request-per-iterate scheduler written with plain MPI
/// calls. Rank 0 computes pixels and, before each, answers every pending request with the next
/// index (`w·h` means "done"); the other ranks ask for one index at a time. Returns the total
/// on every rank.
#[cfg(feature = "mpi")]
fn raw_ss(rt: &dls::Runtime, w: u64, h: u64) -> u64 {
    use dls::mpi::collective::{CommunicatorCollectives, SystemOperation};
    use dls::mpi::point_to_point::{Destination, Source};
    use dls::mpi::topology::{Communicator, SimpleCommunicator};
    const REQ: i32 = 21;
    const IDX: i32 = 22;
    let world = SimpleCommunicator::world();
    let n = w * h;
    let mut acc = 0u64;
    world.barrier();
    if rt.rank() == 0 {
        let mut next = 0u64;
        let mut running = world.size() as usize - 1;
        while running > 0 || next < n {
            while let Some(status) = world.any_process().immediate_probe_with_tag(REQ) {
                let (_req, _) = world
                    .process_at_rank(status.source_rank())
                    .receive_with_tag::<u64>(REQ);
                let give = if next < n {
                    next += 1;
                    next - 1
                } else {
                    running -= 1;
                    n
                };
                world
                    .process_at_rank(status.source_rank())
                    .send_with_tag(&give, IDX);
            }
            if next < n {
                next += 1;
                acc += pixel(next - 1, w, h);
            }
        }
    } else {
        loop {
            world.process_at_rank(0).send_with_tag(&0u64, REQ);
            let (i, _) = world.process_at_rank(0).receive_with_tag::<u64>(IDX);
            if i >= n {
                break;
            }
            acc += pixel(i, w, h);
        }
    }
    let mut total = 0u64;
    world.all_reduce_into(&acc, &mut total, SystemOperation::sum());
    total
}
