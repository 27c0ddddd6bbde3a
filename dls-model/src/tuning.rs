//! The runtime's timing constants that the simulator mirrors: when a chunk in progress is worth
//! splitting, how often a worker of another rank looks for an ask to split, and how many chunks
//! a rank of threads keeps in hand. The runtime (`dls-runtime`) reads them from here, so the
//! simulator and the runtime cannot drift apart.
//!
//! ```
//! use dls_model::tuning::{block_target, SPLIT_MIN};
//! assert!(SPLIT_MIN.as_micros() > 0);
//! assert_eq!(block_target(4, None, 1e-3), 4);
//! ```

use std::time::Duration;

/// A chunk is split only if its iterates not yet started would take at least this long at the
/// chunk's pace so far: a split costs the asking worker one more request (about 2 µs under MPI
/// on one node) and gains about half the remainder.
///
/// ```
/// assert_eq!(dls_model::tuning::SPLIT_MIN.as_micros(), 200);
/// ```
pub const SPLIT_MIN: Duration = Duration::from_micros(200);

/// How often a worker of another MPI rank looks for the scheduler's asks to split its chunk
/// (one `MPI_Improbe`, at a claim).
///
/// ```
/// assert_eq!(dls_model::tuning::SPLIT_POLL.as_micros(), 200);
/// ```
pub const SPLIT_POLL: Duration = Duration::from_micros(200);

/// The most chunks per thread a rank asks for at once.
///
/// ```
/// use dls_model::tuning::{block_target, MAX_BLOCK_CHUNKS};
/// assert_eq!(block_target(4, Some(0.0), 1e-3), 4 * MAX_BLOCK_CHUNKS);
/// ```
pub const MAX_BLOCK_CHUNKS: u64 = 256;

/// The fewest chunks per thread a block holds once its chunks are timed: the chunks of 50 µs of
/// a thread's work, at least 8 and at most 32, so that a fetch (the lock of rank 0's scheduler or
/// a message, and the refill of the claim word) comes at most once per 8 chunks and, on cheap
/// chunks, once per 50 µs of a thread's work. Mandelbrot 500×500 SS (1.5 µs a pixel), 1 rank ×
/// 2 threads: 0.569-0.583 with blocks of 1-2 chunks a thread, 0.615-0.632 with 8 (the rank's
/// threads sharing them under a mutex); with the claims, 0.80 with 8 and 0.89-0.92 with 32
/// (`#[par_doall]`; threads on one machine 0.91). The floor of 8 is the simulator's (fewer
/// requests to a busy rank 0 on dear chunks: `sim_hierarchy`, BENCHMARKS.md). The end of the loop
/// stays balanced by the cap on a block (the iterates left over 2P).
const MIN_BLOCK_WORK_S: f64 = 50e-6;
const MIN_BLOCK_CHUNKS: (u64, u64) = (8, 32);

/// The fewest chunks a rank of `k` threads asks for once its chunks take `chunk_s` each: per
/// thread, the chunks of 50 µs of work, 8 to 32. A rank of one thread has nobody to wait for:
/// one chunk, as a rank without threads takes.
///
/// ```
/// use dls_model::tuning::min_block_chunks;
/// assert_eq!(min_block_chunks(1, 1e-3), 1);
/// assert_eq!(min_block_chunks(2, 1e-3), 16);
/// assert_eq!(min_block_chunks(2, 1e-9), 64);
/// ```
pub fn min_block_chunks(k: u64, chunk_s: f64) -> u64 {
    if k <= 1 {
        return 1;
    }
    let (least, most) = MIN_BLOCK_CHUNKS;
    let per_thread = if chunk_s > 0.0 {
        ((MIN_BLOCK_WORK_S / chunk_s).ceil() as u64).clamp(least, most)
    } else {
        most
    };
    k * per_thread
}

/// The chunks a rank of `k` threads keeps in hand: `clamp(⌈2k × round trip / chunk time⌉,
/// min_block_chunks(k, chunk time), 256·k)` (256·k for chunks of no time), `k` while no chunk has
/// been timed.
///
/// ```
/// use dls_model::tuning::block_target;
/// assert_eq!(block_target(4, None, 1e-3), 4);
/// assert_eq!(block_target(4, Some(0.5), 5.0), 80);
/// assert_eq!(block_target(1, Some(1e-3), 1e-6), 1);
/// ```
pub fn block_target(k: u64, chunk_s: Option<f64>, round_trip_s: f64) -> u64 {
    match chunk_s {
        Some(t) if t > 0.0 => ((2.0 * k as f64 * round_trip_s / t).ceil() as u64)
            .clamp(min_block_chunks(k, t), MAX_BLOCK_CHUNKS * k),
        Some(_) => MAX_BLOCK_CHUNKS * k,
        None => k,
    }
}
