//! Mandelbrot with one iterate per pixel: the loop whose iterate cost follows the index that
//! issue 13 measured (cheap rows at the top and bottom, dear ones through the set's middle).
//!
//! 500×500 pixels, row-major index, x ∈ [−2, 1), y ∈ [−1.5, 1.5), at most 2000 iterations per
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

use std::hint::black_box;
use std::time::Instant;

const W: u64 = 500;
const H: u64 = 500;
const MAX_ITER: u32 = 2000;

/// Iterations of pixel `i` (row-major) before it escapes, at most `MAX_ITER`.
fn pixel(i: u64) -> u64 {
    let (px, py) = (i % W, i / W);
    let cx = -2.0 + 3.0 * px as f64 / W as f64;
    let cy = -1.5 + 3.0 * py as f64 / H as f64;
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

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    let (rank, p) = (rt.rank(), rt.workers());
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("profile") {
        return profile();
    }
    let reps: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(5);
    let mut techniques: Vec<&str> = args.iter().skip(1).map(|s| s.as_str()).collect();
    if techniques.is_empty() {
        techniques = DEFAULT.to_vec();
    }
    let mut effs = vec![Vec::new(); techniques.len()];
    let mut serials = Vec::new();
    for _ in 0..reps {
        let mut serial_s = 0.0;
        let mut want = 0;
        if rank == 0 {
            let t = Instant::now();
            want = (0..W * H).map(|i| pixel(black_box(i))).sum::<u64>();
            serial_s = t.elapsed().as_secs_f64();
            serials.push(serial_s);
        }
        for (k, name) in techniques.iter().enumerate() {
            let t = Instant::now();
            #[cfg(feature = "mpi")]
            if *name == "raw-ss" {
                let total = raw_ss(&rt);
                let par_s = t.elapsed().as_secs_f64();
                if rank == 0 {
                    assert_eq!(total, want, "raw-ss: result differs from the serial loop's");
                    effs[k].push(serial_s / (p as f64 * par_s));
                }
                continue;
            }
            let (total, _) = rt.doall_reduce(
                name,
                0..W * H,
                name.parse()?,
                || 0u64,
                |i, acc: &mut u64| *acc += pixel(i),
                |a, b| a + b,
            )?;
            let par_s = t.elapsed().as_secs_f64();
            if rank == 0 {
                assert_eq!(total, want, "{name}: result differs from the serial loop's");
                effs[k].push(serial_s / (p as f64 * par_s));
            }
        }
    }
    if rank == 0 {
        println!(
            "mandelbrot_pixels: {W}x{H}, maxiter {MAX_ITER}, P = {p} ({:?}), serial median {:.3} s, {reps} paired rounds",
            rt.backend(),
            median(serials)
        );
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
        for (name, e) in techniques.iter().zip(effs) {
            let runs: Vec<String> = e.iter().map(|x| format!("{x:.3}")).collect();
            let m = median(e.clone());
            if over {
                let per_core = m * p as f64 / cores as f64;
                println!("| {name} | {m:.3} | {per_core:.3} | {} |", runs.join(" "));
            } else {
                println!("| {name} | {m:.3} | {} |", runs.join(" "));
            }
        }
    }
    Ok(())
}

/// The baseline for SS under mpirun: a request-per-iterate scheduler written with plain MPI
/// calls. Rank 0 computes pixels and, before each, answers every pending request with the next
/// index (`W·H` means "done"); the other ranks ask for one index at a time. Returns the total
/// on every rank.
#[cfg(feature = "mpi")]
fn raw_ss(rt: &dls::Runtime) -> u64 {
    use dls::mpi::collective::{CommunicatorCollectives, SystemOperation};
    use dls::mpi::point_to_point::{Destination, Source};
    use dls::mpi::topology::{Communicator, SimpleCommunicator};
    const REQ: i32 = 21;
    const IDX: i32 = 22;
    let world = SimpleCommunicator::world();
    let n = W * H;
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
                acc += pixel(next - 1);
            }
        }
    } else {
        loop {
            world.process_at_rank(0).send_with_tag(&0u64, REQ);
            let (i, _) = world.process_at_rank(0).receive_with_tag::<u64>(IDX);
            if i >= n {
                break;
            }
            acc += pixel(i);
        }
    }
    let mut total = 0u64;
    world.all_reduce_into(&acc, &mut total, SystemOperation::sum());
    total
}

/// `profile`: prints the loop's iterate times for the simulator (`dls compare --iterate-time
/// file:PATH`), one per line in nanoseconds: the serial loop's measured time (median of 5)
/// shared out in proportion to each iterate's modelled cost.
fn profile() -> Result<(), Box<dyn std::error::Error>> {
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let mut acc = 0u64;
        for i in 0..W * H {
            acc = acc.wrapping_add(pixel(black_box(i)));
        }
        black_box(acc);
        times.push(t.elapsed().as_secs_f64());
    }
    let serial = median(times);
    let cost = |i: u64| -> f64 { pixel(i) as f64 + 6.7 };
    let total: f64 = (0..W * H).map(cost).sum();
    println!("# serial time {serial:.4} s, shared in proportion to each iterate's cost");
    for i in 0..W * H {
        println!("{:.1}ns", serial * 1e9 * cost(i) / total);
    }
    Ok(())
}
