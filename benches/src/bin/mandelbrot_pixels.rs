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

#[path = "../index_cost.rs"]
mod index_cost;

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

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("profile") {
        index_cost::profile(W * H, pixel, |i| pixel(i) as f64 + 6.7);
        return Ok(());
    }
    let reps: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(5);
    let mut techniques: Vec<&str> = args.iter().skip(1).map(|s| s.as_str()).collect();
    if techniques.is_empty() {
        techniques = DEFAULT.to_vec();
    }
    let title = format!("mandelbrot_pixels: {W}x{H}, maxiter {MAX_ITER}");
    index_cost::paired_rounds(&rt, &title, W * H, reps, &techniques, pixel, |name| {
        #[cfg(feature = "mpi")]
        if name == "raw-ss" {
            return Some(raw_ss(&rt));
        }
        let _ = name;
        None
    })
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
