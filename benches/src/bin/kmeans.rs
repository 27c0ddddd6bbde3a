//! A k-means-shaped fine-grained loop (issue 29): Lloyd's algorithm on 200,000 points in the
//! plane, 8 clusters, 20 iterations. Each iteration is one loop over the points whose iterate
//! finds the nearest centroid (8 distances, a few nanoseconds), records the point's cluster and
//! adds the point into that cluster's sums; the new centroids are the sums over the counts.
//!
//! The points come from a seeded xorshift generator (8 blobs of uniform noise, the same on
//! every run); the first centroids are the first 8 points. Ways, taking turns in every round
//! (the order rotates from round to round), each timed over the whole 20-iteration run:
//!
//! - `serial`: the plain loop;
//! - `dls`: the same loop under `#[par_doall(schedule = "fac2", reduce(+: sums_x, sums_y,
//!   counts), gather(assign))]` (the sums and counts `Vec`s reduced element by element, the
//!   assignments gathered); a technique given as the second argument replaces `fac2` (through
//!   `DLS_SCHEDULE`, set before the runtime starts);
//! - `dls-nogather`: the same without `gather(assign)` (the assignments are not kept): the
//!   difference from `dls` is the gather's cost;
//! - `rayon`: as a rayon user writes it, on a pool of as many threads as dls has workers:
//!   `par_iter_mut()` over the assignments, then `par_iter().fold().reduce()` for the sums;
//! - `floor`: by hand on std threads (scoped threads per iteration claiming chunks of 1000
//!   points with one `fetch_add`, assignments written in place, per-thread sums): what the
//!   machine allows, the ceiling of any parallel way.
//!
//! The results are checked against the serial run's: the assignments identical, the counts
//! equal and the centroids within 1e-9 relative (the parallel sums add in another order).
//! Prints each way's median time over the rounds and the medians of the per-round speed-up
//! ratios (> 1: the first named is faster): serial/dls, serial/rayon, rayon/dls, serial/floor,
//! floor/dls. Issue 29's
//! targets at 2 threads: serial/dls ≥ 1.7 and rayon/dls ≥ 0.95.
//!
//! ```text
//! DLS_THREADS=2 cargo run --release -p dls-bench --bin kmeans [rounds [technique]]
//! ```

use std::time::Instant;

use rayon::prelude::*;

/// Points, clusters, iterations.
const N: usize = 200_000;
const K: usize = 8;
const ITERS: usize = 20;

/// xorshift64* (Vigna 2016): a small seeded generator for the points.
struct XorShift(u64);

impl XorShift {
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in [0, 1).
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1_u64 << 53) as f64
    }
}

/// `N` points in 8 blobs: centre `b` at (b mod 4, b div 4) × 3, noise uniform in ±1.5 (a sum of
/// two uniforms, so the blobs touch).
fn points() -> Vec<[f64; 2]> {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    (0..N)
        .map(|_| {
            let b = (rng.next_u64() % 8) as f64;
            let (cx, cy) = ((b % 4.0).floor() * 3.0, (b / 4.0).floor() * 3.0);
            let nx = rng.next_f64() + rng.next_f64() - 1.0;
            let ny = rng.next_f64() + rng.next_f64() - 1.0;
            [cx + 1.5 * nx, cy + 1.5 * ny]
        })
        .collect()
}

/// The nearest centroid to `p` (the first of equals). Never inlined, so that every way runs the
/// same machine code: inlined into the serial loop, LLVM compiled the comparisons as branches and
/// that loop ran 3.2× slower (0.100 s against 0.031 s for the 20 iterations) than with this one
/// function, whose comparisons it compiles without branches; the ratios would have measured the
/// inlining decisions, not the parallel loops.
#[inline(never)]
fn nearest(p: &[f64; 2], c: &[[f64; 2]; K]) -> usize {
    let mut best = 0;
    let mut best_d = f64::INFINITY;
    for (k, q) in c.iter().enumerate() {
        let (dx, dy) = (p[0] - q[0], p[1] - q[1]);
        let d = dx * dx + dy * dy;
        if d < best_d {
            best_d = d;
            best = k;
        }
    }
    best
}

/// The new centroids: sums over counts (an empty cluster keeps its centroid).
fn update(c: &mut [[f64; 2]; K], sx: &[f64], sy: &[f64], counts: &[u64]) {
    for k in 0..K {
        if counts[k] > 0 {
            c[k] = [sx[k] / counts[k] as f64, sy[k] / counts[k] as f64];
        }
    }
}

/// What a run gives: the last centroids and counts, and the last assignments (empty when the
/// way keeps none).
struct Outcome {
    centroids: [[f64; 2]; K],
    counts: Vec<u64>,
    assign: Vec<u32>,
}

fn first_centroids(pts: &[[f64; 2]]) -> [[f64; 2]; K] {
    std::array::from_fn(|k| pts[k])
}

fn serial(pts: &[[f64; 2]]) -> Outcome {
    let mut c = first_centroids(pts);
    let mut assign = vec![0u32; pts.len()];
    let mut counts = vec![0u64; K];
    for _ in 0..ITERS {
        let mut sums_x = vec![0.0f64; K];
        let mut sums_y = vec![0.0f64; K];
        counts = vec![0u64; K];
        for i in 0..pts.len() {
            let k = nearest(&pts[i], &c);
            assign[i] = k as u32;
            sums_x[k] += pts[i][0];
            sums_y[k] += pts[i][1];
            counts[k] += 1;
        }
        update(&mut c, &sums_x, &sums_y, &counts);
    }
    Outcome {
        centroids: c,
        counts,
        assign,
    }
}

#[dls::parallel]
fn with_dls(pts: &[[f64; 2]]) -> Outcome {
    let mut c = first_centroids(pts);
    let mut assign = vec![0u32; pts.len()];
    let mut counts = vec![0u64; K];
    for _ in 0..ITERS {
        let mut sums_x = vec![0.0f64; K];
        let mut sums_y = vec![0.0f64; K];
        counts = vec![0u64; K];
        let cur = c;
        #[par_doall(schedule = "fac2", reduce(+: sums_x, sums_y, counts), gather(assign))]
        for i in 0..pts.len() {
            let k = nearest(&pts[i], &cur);
            assign[i] = k as u32;
            sums_x[k] += pts[i][0];
            sums_y[k] += pts[i][1];
            counts[k] += 1;
        }
        update(&mut c, &sums_x, &sums_y, &counts);
    }
    Outcome {
        centroids: c,
        counts,
        assign,
    }
}

#[dls::parallel]
fn with_dls_nogather(pts: &[[f64; 2]]) -> Outcome {
    let mut c = first_centroids(pts);
    let mut counts = vec![0u64; K];
    for _ in 0..ITERS {
        let mut sums_x = vec![0.0f64; K];
        let mut sums_y = vec![0.0f64; K];
        counts = vec![0u64; K];
        let cur = c;
        #[par_doall(schedule = "fac2", reduce(+: sums_x, sums_y, counts))]
        for i in 0..pts.len() {
            let k = nearest(&pts[i], &cur);
            sums_x[k] += pts[i][0];
            sums_y[k] += pts[i][1];
            counts[k] += 1;
        }
        update(&mut c, &sums_x, &sums_y, &counts);
    }
    Outcome {
        centroids: c,
        counts,
        assign: Vec::new(),
    }
}

/// Per-cluster sums of x, of y, and counts.
type Sums = ([f64; K], [f64; K], [u64; K]);

fn with_rayon(pool: &rayon::ThreadPool, pts: &[[f64; 2]]) -> Outcome {
    pool.install(|| {
        let mut c = first_centroids(pts);
        let mut assign = vec![0u32; pts.len()];
        let mut counts = [0u64; K];
        for _ in 0..ITERS {
            let cur = c;
            assign
                .par_iter_mut()
                .zip(pts.par_iter())
                .for_each(|(a, p)| *a = nearest(p, &cur) as u32);
            let zero = || -> Sums { ([0.0; K], [0.0; K], [0; K]) };
            let (sx, sy, n) = pts
                .par_iter()
                .zip(assign.par_iter())
                .fold(zero, |mut s, (p, &a)| {
                    let k = a as usize;
                    s.0[k] += p[0];
                    s.1[k] += p[1];
                    s.2[k] += 1;
                    s
                })
                .reduce(zero, |mut a, b| {
                    for k in 0..K {
                        a.0[k] += b.0[k];
                        a.1[k] += b.1[k];
                        a.2[k] += b.2[k];
                    }
                    a
                });
            counts = n;
            update(&mut c, &sx, &sy, &n);
        }
        Outcome {
            centroids: c,
            counts: counts.to_vec(),
            assign,
        }
    })
}

/// The floor: what a hand-written loop on std threads costs, as issue 29 asks beside every
/// baseline. Per iteration, `p` scoped threads claim chunks of 1000 points with one `fetch_add`,
/// write their assignments in place and keep per-thread sums, added up after the join.
fn with_floor(p: usize, pts: &[[f64; 2]]) -> Outcome {
    use std::sync::atomic::{AtomicUsize, Ordering};
    /// The assignments' base pointer, shared by the threads: each writes only the points of its
    /// own chunks.
    struct Out(*mut u32);
    // SAFETY: the chunks the threads claim are disjoint, so no element is written twice.
    unsafe impl Sync for Out {}
    const CHUNK: usize = 1000;
    let mut c = first_centroids(pts);
    let mut assign = vec![0u32; pts.len()];
    let mut counts = [0u64; K];
    for _ in 0..ITERS {
        let cur = c;
        let next = AtomicUsize::new(0);
        let out = Out(assign.as_mut_ptr());
        let work = || {
            let out = &out;
            // Each thread reads its own copy of the centroids at every point: the caller's copy
            // would share a cache line with the sums the calling thread writes at every point
            // (both on its stack), which then moves between the cores at every point.
            let centroids = cur;
            let mut s: Sums = ([0.0; K], [0.0; K], [0; K]);
            loop {
                let from = next.fetch_add(CHUNK, Ordering::Relaxed);
                if from >= pts.len() {
                    return s;
                }
                for (i, q) in pts.iter().enumerate().take(from + CHUNK).skip(from) {
                    let k = nearest(q, &centroids);
                    // SAFETY: `i` is in this thread's chunk, within the vector.
                    unsafe { *out.0.add(i) = k as u32 };
                    s.0[k] += q[0];
                    s.1[k] += q[1];
                    s.2[k] += 1;
                }
            }
        };
        let parts: Vec<Sums> = std::thread::scope(|scope| {
            let others: Vec<_> = (1..p).map(|_| scope.spawn(work)).collect();
            let mut parts = vec![work()];
            parts.extend(
                others
                    .into_iter()
                    .map(|h| h.join().expect("a floor thread")),
            );
            parts
        });
        let (mut sx, mut sy) = ([0.0; K], [0.0; K]);
        counts = [0; K];
        for part in &parts {
            for k in 0..K {
                sx[k] += part.0[k];
                sy[k] += part.1[k];
                counts[k] += part.2[k];
            }
        }
        update(&mut c, &sx, &sy, &counts);
    }
    Outcome {
        centroids: c,
        counts: counts.to_vec(),
        assign,
    }
}

/// `got` against the serial run: the same counts and assignments (where kept), centroids
/// within 1e-9 relative.
fn check(name: &str, got: &Outcome, want: &Outcome) -> Result<(), String> {
    if got.counts != want.counts {
        return Err(format!(
            "{name}: counts {:?} != serial {:?}",
            got.counts, want.counts
        ));
    }
    if !got.assign.is_empty() && got.assign != want.assign {
        return Err(format!(
            "{name}: the assignments differ from the serial run's"
        ));
    }
    for (a, b) in got.centroids.iter().zip(&want.centroids) {
        for d in 0..2 {
            if (a[d] - b[d]).abs() > 1e-9 * b[d].abs().max(1e-300) {
                return Err(format!("{name}: centroid {a:?} != serial {b:?}"));
            }
        }
    }
    Ok(())
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
        None => 7,
    };
    let technique = args.get(1).cloned().unwrap_or_else(|| "fac2".into());
    if args.len() > 1 {
        // SAFETY: the benchmark's own threads read the environment only through std, which
        // locks it, and the runtime reads its settings at start; a benchmark accepts the race
        // left with an MPI library's own threads under mpirun.
        unsafe { std::env::set_var("DLS_SCHEDULE", &technique) };
    }
    let rt = dls::init()?;
    if matches!(rt.backend(), dls::Backend::Mpi { .. }) {
        return Err("kmeans runs on threads (rayon is its baseline); run it without mpirun".into());
    }
    let p = rt.workers();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(p).build()?;
    let pts = points();
    println!(
        "kmeans: {N} points, {K} clusters, {ITERS} iterations; dls {technique} on {p} thread(s), \
         rayon pool of {p}; this machine has {cores} core(s); {rounds} rounds, ways taking turns"
    );
    if p > cores {
        println!("note: {p} workers on {cores} cores (oversubscribed): the times mislead");
    }
    let want = serial(&pts);
    type Way<'a> = (&'a str, Box<dyn Fn() -> Outcome + 'a>);
    let ways: Vec<Way> = vec![
        ("serial", Box::new(|| serial(&pts))),
        ("dls", Box::new(|| with_dls(&pts))),
        ("dls-nogather", Box::new(|| with_dls_nogather(&pts))),
        ("rayon", Box::new(|| with_rayon(&pool, &pts))),
        ("floor", Box::new(|| with_floor(p, &pts))),
    ];
    // Warm-up: pools started, pages touched, every result checked once.
    for (name, f) in &ways {
        check(name, &f(), &want)?;
    }
    let mut times = vec![Vec::new(); ways.len()];
    for r in 0..rounds {
        for j in 0..ways.len() {
            let k = (j + r) % ways.len();
            let t = Instant::now();
            let out = (ways[k].1)();
            times[k].push(t.elapsed().as_secs_f64());
            check(ways[k].0, &out, &want)?;
        }
    }
    println!("| way | median (s) | rounds (s) |");
    println!("|---|---|---|");
    for ((name, _), t) in ways.iter().zip(&times) {
        let runs: Vec<String> = t.iter().map(|x| format!("{x:.4}")).collect();
        println!("| {name} | {:.4} | {} |", median(t.clone()), runs.join(" "));
    }
    let ratio =
        |a: usize, b: usize| median(times[a].iter().zip(&times[b]).map(|(x, y)| x / y).collect());
    println!(
        "medians of the per-round ratios: serial/dls {:.2} (target >= 1.7), serial/dls-nogather \
         {:.2}, serial/rayon {:.2}, rayon/dls {:.3} (target >= 0.95), rayon/dls-nogather {:.3}, \
         serial/floor {:.2}, floor/dls {:.3}",
        ratio(0, 1),
        ratio(0, 2),
        ratio(0, 3),
        ratio(3, 1),
        ratio(3, 2),
        ratio(0, 4),
        ratio(4, 1)
    );
    Ok(())
}
