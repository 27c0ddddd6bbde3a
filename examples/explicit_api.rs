//! The explicit DLS API of Cariño & Banicescu (2007) on a Mandelbrot image, on threads or under
//! mpirun.
//!
//! 1. `DLS_Setup` … `DLS_EndLoop` by hand: `start_loop`, `next_chunk` until `None`, `finish`,
//!    printing each rank's `iIters` and `iTime` (the rows it computed and the time it spent).
//! 2. The same loop in closure form with a reduction (`doall_reduce`), whose result every rank
//!    receives; rank 0 checks it against a serial computation and prints the loop report.
//!
//! ```text
//! cargo run --release --example explicit_api                     # threads
//! DLS_SCHEDULE=gss DLS_REPORT=1 cargo run --release --example explicit_api
//! cargo build --release --features mpi --example explicit_api    # MPI
//! mpirun --oversubscribe -np 4 target/release/examples/explicit_api af
//! ```
//!
//! The optional argument is the technique (default `af`).

const WIDTH: usize = 640;
const HEIGHT: u32 = 480;
const MAX_ITER: u32 = 1000;

#[path = "support/mandelbrot_rows.rs"]
mod mandelbrot_rows;

/// Total escape iterations of row `y` of this example's image.
fn row(y: u32) -> u64 {
    mandelbrot_rows::row_escape_sum(y, WIDTH, HEIGHT, MAX_ITER)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let technique: dls::Technique = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "af".into())
        .parse()?;
    let rt = dls::init()?.with_statistics(true); // DLS_Setup
    println!(
        "rank {} of {}: backend {:?}",
        rt.rank(),
        rt.size(),
        rt.backend()
    );

    // 1. Explicit API.
    let lp = rt.start_loop_named("mandelbrot rows (explicit)", 0..HEIGHT, technique.clone())?; // DLS_StartLoop
    let mut mine = 0u64;
    while let Some(chunk) = lp.next_chunk() {
        // DLS_StartChunk; the next call is DLS_EndChunk
        for y in chunk {
            mine += row(y);
        }
    }
    let stats = lp.finish(); // DLS_EndLoop
    println!(
        "rank {}: iIters = {} rows, iTime = {:.4} s, {} chunks, partial sum {mine}",
        stats.rank, stats.iterates, stats.work_time_s, stats.chunks
    );

    // 2. Closure form with a reduction: every rank gets the total.
    let (total, stats) = rt.doall_reduce(
        "mandelbrot rows (reduce)",
        0..HEIGHT,
        technique,
        || 0u64,
        |y, acc| *acc += row(y),
        |a, b| a + b,
    )?;
    if rt.rank() == 0 {
        let serial: u64 = (0..HEIGHT).map(row).sum();
        let r = &stats.report;
        println!(
            "total escape iterations {total} (serial {serial}): {}",
            if total == serial { "OK" } else { "MISMATCH" }
        );
        println!(
            "loop `{}`: technique {}, p = {}, parallel time {:.4} s, efficiency {:.3}, {} chunks",
            r.name, r.technique, r.p, r.parallel_time_s, r.efficiency, r.chunks
        );
        if total != serial {
            std::process::exit(1);
        }
    }
    Ok(())
}
