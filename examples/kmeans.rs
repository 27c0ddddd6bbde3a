//! k-means clustering (Lloyd's algorithm): a loop of cheap iterates, run again at every step of
//! an outer loop. Each of 20 steps assigns 200,000 points to the nearest of 8 centres (a few
//! nanoseconds a point), adds up the points of each cluster and moves every centre to the mean
//! of its points. The inner loop is the one made parallel: its iterates reduce the per-cluster
//! sums and counts (`reduce(+: …)`) and write each point's cluster (`gather(assign)`).
//!
//! The points lie on an integer grid and the sums are integers, so the workers' partial sums add
//! up to exactly the serial sums in any order: the serial and the parallel program must agree on
//! every assignment and every centre, bit for bit. The program exits with status 1 if they do
//! not, and prints both times.
//!
//! ```text
//! cargo run --release --example kmeans
//! cargo build --release --features mpi --example kmeans
//! mpirun -n 2 target/release/examples/kmeans
//! ```
//!
//! The book's chapter "Cheap loops in a time loop" (`book/src/fine_grained.md`) walks through it.

use std::error::Error;
use std::time::Instant;

/// Points, clusters and steps.
const POINTS: usize = 200_000;
const K: usize = 8;
const STEPS: usize = 20;

/// Where the centres are after each step, and which cluster each point joined at the last.
#[derive(Debug, PartialEq)]
struct Clustering {
    centres: Vec<[f64; 2]>,
    assign: Vec<u32>,
}

/// `POINTS` points with integer coordinates in 8 blobs (centres 3,000 apart, each point within
/// ±1,500 of its blob's centre), from a seeded xorshift generator: the same points on every run
/// and every rank.
fn points() -> Vec<[i64; 2]> {
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32
    };
    (0..POINTS)
        .map(|_| {
            let blob = (next() % 8) as i64;
            let (cx, cy) = ((blob % 4) * 3000, (blob / 4) * 3000);
            let dx = (next() % 1500) as i64 + (next() % 1501) as i64 - 1500;
            let dy = (next() % 1500) as i64 + (next() % 1501) as i64 - 1500;
            [cx + dx, cy + dy]
        })
        .collect()
}

// ANCHOR: nearest
/// The centre nearest to `p` (the first of equals). Never inlined, so that the serial and the
/// parallel loop run the same machine code for it: inlined into the serial loop, the compiler
/// turned the comparisons into branches, and the serial program took 2.4 times as long as the
/// parallel one on one worker, which would have made the times below compare code generation,
/// not loops.
#[inline(never)]
fn nearest(p: &[i64; 2], centres: &[[f64; 2]]) -> usize {
    let (x, y) = (p[0] as f64, p[1] as f64);
    let mut best = 0;
    let mut best_d = f64::INFINITY;
    for (k, c) in centres.iter().enumerate() {
        let d = (x - c[0]) * (x - c[0]) + (y - c[1]) * (y - c[1]);
        if d < best_d {
            best_d = d;
            best = k;
        }
    }
    best
}

/// Every centre moved to the mean of its cluster's points (a cluster without points keeps its
/// centre).
fn move_centres(centres: &mut [[f64; 2]], sum_x: &[i64], sum_y: &[i64], count: &[u64]) {
    for k in 0..centres.len() {
        if count[k] > 0 {
            centres[k] = [
                sum_x[k] as f64 / count[k] as f64,
                sum_y[k] as f64 / count[k] as f64,
            ];
        }
    }
}
// ANCHOR_END: nearest

// ANCHOR: serial
fn kmeans_serial(points: &[[i64; 2]]) -> Clustering {
    let mut centres: Vec<[f64; 2]> = points[..K]
        .iter()
        .map(|p| [p[0] as f64, p[1] as f64])
        .collect();
    let mut assign = vec![0_u32; points.len()];
    for _step in 0..STEPS {
        let mut sum_x = vec![0_i64; K];
        let mut sum_y = vec![0_i64; K];
        let mut count = vec![0_u64; K];
        for i in 0..points.len() {
            let k = nearest(&points[i], &centres);
            assign[i] = k as u32;
            sum_x[k] += points[i][0];
            sum_y[k] += points[i][1];
            count[k] += 1;
        }
        move_centres(&mut centres, &sum_x, &sum_y, &count);
    }
    Clustering { centres, assign }
}
// ANCHOR_END: serial

// ANCHOR: parallel
#[dls::parallel]
fn kmeans_parallel(points: &[[i64; 2]]) -> Clustering {
    let mut centres: Vec<[f64; 2]> = points[..K]
        .iter()
        .map(|p| [p[0] as f64, p[1] as f64])
        .collect();
    let mut assign = vec![0_u32; points.len()];
    for _step in 0..STEPS {
        let mut sum_x = vec![0_i64; K];
        let mut sum_y = vec![0_i64; K];
        let mut count = vec![0_u64; K];
        #[par_doall(schedule = "fac2", reduce(+: sum_x, sum_y, count), gather(assign))]
        for i in 0..points.len() {
            let k = nearest(&points[i], &centres);
            assign[i] = k as u32;
            sum_x[k] += points[i][0];
            sum_y[k] += points[i][1];
            count[k] += 1;
        }
        move_centres(&mut centres, &sum_x, &sum_y, &count);
    }
    Clustering { centres, assign }
}
// ANCHOR_END: parallel

#[dls::main]
fn main() -> Result<(), Box<dyn Error>> {
    let rt = dls::current()?;
    let points = points();

    let t = Instant::now();
    let serial = kmeans_serial(&points);
    let serial_s = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let parallel = kmeans_parallel(&points);
    let parallel_s = t.elapsed().as_secs_f64();

    if parallel != serial {
        let moved = serial
            .assign
            .iter()
            .zip(&parallel.assign)
            .filter(|(a, b)| a != b)
            .count();
        return Err(format!(
            "rank {}: the parallel clustering differs from the serial one ({moved} points in \
             another cluster; centres {:?} against {:?})",
            rt.rank(),
            parallel.centres,
            serial.centres
        )
        .into());
    }
    if rt.rank() == 0 {
        let sizes: Vec<usize> = (0..K as u32)
            .map(|k| parallel.assign.iter().filter(|&&a| a == k).count())
            .collect();
        println!(
            "kmeans: {POINTS} points, {K} clusters, {STEPS} steps: parallel == serial (cluster \
             sizes {sizes:?}); serial {serial_s:.3} s, parallel {parallel_s:.3} s on {} \
             worker(s)",
            rt.workers()
        );
    }
    Ok(())
}
