//! Issue 42: k-means as a user writes it: 200 000 points in 2-D (uniform), 8 clusters, 20 iterations; the
//! assignment loop reads and writes `assign[i]` and sums each cluster's points and counts. The
//! dls version is the same function with `#[par_doall(reduce(+: sums, counts, changed),
//! gather(assign))]`; rayon's folds per-thread sums. The fifth column is the dls loop with
//! re-execution off (`DLS_REEXECUTE=off`), paired with the default.
//!
//! ```text
//! cargo run --release -p dls-bench --bin kmeans_user [rounds] [points] [iterations]
//! ```

// Written as a user writes the serial loop, index by index (the form the attribute converts).
#![allow(clippy::needless_range_loop)]

#[path = "../user_paired.rs"]
mod user_paired;

use rayon::prelude::*;

const K: usize = 8;

fn points(n: usize) -> Vec<[f64; 2]> {
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    // Uniform in the unit square: no clusters to find, so the centres move for many
    // iterations (20 here) and every iteration runs the whole loop.
    (0..n).map(|_| [next(), next()]).collect()
}

fn nearest(p: &[f64; 2], centres: &[[f64; 2]]) -> usize {
    let mut best = (f64::INFINITY, 0);
    for (c, q) in centres.iter().enumerate() {
        let d = (p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2);
        if d < best.0 {
            best = (d, c);
        }
    }
    best.1
}

fn update(centres: &mut [[f64; 2]], sums: &[f64], counts: &[u64]) {
    for c in 0..K {
        if counts[c] > 0 {
            centres[c] = [
                sums[2 * c] / counts[c] as f64,
                sums[2 * c + 1] / counts[c] as f64,
            ];
        }
    }
}

fn result(centres: &[[f64; 2]], assign: &[usize]) -> f64 {
    centres.iter().map(|c| c[0] + c[1]).sum::<f64>() + assign.iter().sum::<usize>() as f64
}

/// The user's serial program.
fn serial(pts: &[[f64; 2]], iterations: usize) -> f64 {
    let n = pts.len();
    let mut centres: Vec<[f64; 2]> = pts[..K].to_vec();
    let mut assign = vec![0_usize; n];
    for _ in 0..iterations {
        let mut sums = vec![0.0_f64; 2 * K];
        let mut counts = vec![0_u64; K];
        let mut changed = 0_u64;
        for i in 0..n {
            let c = nearest(&pts[i], &centres);
            if assign[i] != c {
                assign[i] = c;
                changed += 1;
            }
            sums[2 * c] += pts[i][0];
            sums[2 * c + 1] += pts[i][1];
            counts[c] += 1;
        }
        update(&mut centres, &sums, &counts);
        if changed == 0 {
            break;
        }
    }
    result(&centres, &assign)
}

/// The same, converted with the attribute only.
#[dls::parallel]
fn with_dls(pts: &[[f64; 2]], iterations: usize) -> f64 {
    let n = pts.len();
    let mut centres: Vec<[f64; 2]> = pts[..K].to_vec();
    let mut assign = vec![0_usize; n];
    for _ in 0..iterations {
        let mut sums = vec![0.0_f64; 2 * K];
        let mut counts = vec![0_u64; K];
        let mut changed = 0_u64;
        #[par_doall(reduce(+: sums, counts, changed), gather(assign))]
        for i in 0..n {
            let c = nearest(&pts[i], &centres);
            if assign[i] != c {
                assign[i] = c;
                changed += 1;
            }
            sums[2 * c] += pts[i][0];
            sums[2 * c + 1] += pts[i][1];
            counts[c] += 1;
        }
        update(&mut centres, &sums, &counts);
        if changed == 0 {
            break;
        }
    }
    result(&centres, &assign)
}

/// rayon's idiom: a fold of per-thread sums over the points and their assignments.
fn with_rayon(pts: &[[f64; 2]], iterations: usize) -> f64 {
    let n = pts.len();
    let mut centres: Vec<[f64; 2]> = pts[..K].to_vec();
    let mut assign = vec![0_usize; n];
    for _ in 0..iterations {
        let cs = &centres;
        let (sums, counts, changed) = assign
            .par_iter_mut()
            .enumerate()
            .fold(
                || (vec![0.0_f64; 2 * K], vec![0_u64; K], 0_u64),
                |(mut sums, mut counts, mut changed), (i, a)| {
                    let c = nearest(&pts[i], cs);
                    if *a != c {
                        *a = c;
                        changed += 1;
                    }
                    sums[2 * c] += pts[i][0];
                    sums[2 * c + 1] += pts[i][1];
                    counts[c] += 1;
                    (sums, counts, changed)
                },
            )
            .reduce(
                || (vec![0.0_f64; 2 * K], vec![0_u64; K], 0_u64),
                |(mut s, mut c, x), (s2, c2, x2)| {
                    s.iter_mut().zip(s2).for_each(|(a, b)| *a += b);
                    c.iter_mut().zip(c2).for_each(|(a, b)| *a += b);
                    (s, c, x + x2)
                },
            );
        update(&mut centres, &sums, &counts);
        if changed == 0 {
            break;
        }
    }
    let _ = n;
    result(&centres, &assign)
}

fn main() {
    let rounds = user_paired::rounds(5);
    let arg = |k: usize, d: usize| {
        std::env::args()
            .nth(k)
            .and_then(|a| a.parse().ok())
            .unwrap_or(d)
    };
    let (n, iterations) = (arg(2, 200_000), arg(3, 20));
    let pts = points(n);
    user_paired::compare(
        &format!("kmeans_user {n} points, {K} clusters, {iterations} iterations"),
        rounds,
        1e-9,
        &|| serial(&pts, iterations),
        &|| with_dls(&pts, iterations),
        &|| with_rayon(&pts, iterations),
        true,
    );
}
