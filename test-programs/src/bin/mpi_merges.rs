//! The built-in merges of `reduce` across ranks: the N-body forces with `reduce(+: forces)` on a
//! `Vec<f64>` (and exactly on a `Vec<[i64; 3]>`), word counts with `reduce(+: counts)` on a
//! `HashMap<String, u64>`, `reduce(append: v)` keeping the iteration order while iterates sleep
//! different times, and a user merge started from `identity = vec![0.0; bins]`; each equals the
//! serial loop on every rank. Prints `merges OK: P=<ranks>` on rank 0.
//!
//! ```text
//! cargo build -p test-programs --features mpi --bin mpi_merges
//! mpirun -n 3 --oversubscribe target/debug/mpi_merges
//! ```

use std::collections::HashMap;
use std::time::Duration;

#[dls::parallel]
fn nbody_forces(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut forces = vec![0.0; n];
    #[par_doall(schedule = "gss", reduce(+: forces))]
    for i in 0..n {
        for j in (i + 1)..n {
            let f = 1.0 / (x[j] - x[i]);
            forces[i] += f;
            forces[j] -= f;
        }
    }
    forces
}

fn nbody_forces_serial(x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let mut forces = vec![0.0; n];
    for i in 0..n {
        for j in (i + 1)..n {
            let f = 1.0 / (x[j] - x[i]);
            forces[i] += f;
            forces[j] -= f;
        }
    }
    forces
}

#[dls::parallel]
fn nbody_exact(p: &[[i64; 3]]) -> Vec<[i64; 3]> {
    let n = p.len();
    let mut forces = vec![[1, 2, 3]; n];
    #[par_doall(schedule = "af", reduce(+: forces))]
    for i in 0..n {
        for j in (i + 1)..n {
            for d in 0..3 {
                let f = p[j][d] - p[i][d];
                forces[i][d] += f;
                forces[j][d] -= f;
            }
        }
    }
    forces
}

fn nbody_exact_serial(p: &[[i64; 3]]) -> Vec<[i64; 3]> {
    let n = p.len();
    let mut forces = vec![[1, 2, 3]; n];
    for i in 0..n {
        for j in (i + 1)..n {
            for d in 0..3 {
                let f = p[j][d] - p[i][d];
                forces[i][d] += f;
                forces[j][d] -= f;
            }
        }
    }
    forces
}

#[dls::parallel]
fn word_counts(lines: &[&str]) -> HashMap<String, u64> {
    let mut counts: HashMap<String, u64> = HashMap::from([("the".to_string(), 100)]);
    #[par_doall(schedule = "fac2", reduce(+: counts))]
    for line in lines {
        for word in line.split_whitespace() {
            *counts.entry(word.to_lowercase()).or_insert(0) += 1;
        }
    }
    counts
}

fn word_counts_serial(lines: &[&str]) -> HashMap<String, u64> {
    let mut counts: HashMap<String, u64> = HashMap::from([("the".to_string(), 100)]);
    for line in lines {
        for word in line.split_whitespace() {
            *counts.entry(word.to_lowercase()).or_insert(0) += 1;
        }
    }
    counts
}

/// The items iterate `i` pushes: none, one or two.
fn items_of(i: usize) -> impl Iterator<Item = (usize, u8)> {
    (0..(i % 3) as u8).map(move |k| (i, k))
}

#[dls::parallel]
fn append_items(n: usize) -> Vec<(usize, u8)> {
    let mut v = vec![(usize::MAX, 9)];
    #[par_doall(schedule = "ss", reduce(append: v))]
    for i in 0..n {
        // Early iterates sleep longest, so that ranks finish them out of order.
        if i % 4 == 0 {
            std::thread::sleep(Duration::from_micros(300 * (n - i) as u64));
        }
        for item in items_of(i) {
            v.push(item);
        }
    }
    v
}

fn add_vecs(mut a: Vec<f64>, b: Vec<f64>) -> Vec<f64> {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    a
}

#[dls::parallel]
fn histogram(v: &[f64], bins: usize) -> Vec<f64> {
    let mut hist = vec![0.5; bins];
    #[par_doall(schedule = "fac2", reduce(add_vecs, identity = vec![0.0; bins]: hist))]
    for &x in v {
        hist[(x.abs() as usize) % bins] += 1.0;
    }
    hist
}

fn histogram_serial(v: &[f64], bins: usize) -> Vec<f64> {
    let mut hist = vec![0.5; bins];
    for &x in v {
        hist[(x.abs() as usize) % bins] += 1.0;
    }
    hist
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;

    let x: Vec<f64> = (0..400)
        .map(|k| k as f64 + 0.25 * ((k * 7) % 3) as f64)
        .collect();
    let (par, serial) = (nbody_forces(&x), nbody_forces_serial(&x));
    assert_eq!(par.len(), serial.len());
    for (a, b) in par.iter().zip(&serial) {
        assert!(
            (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs())),
            "N-body: {a} vs {b}"
        );
    }

    let p: Vec<[i64; 3]> = (0..150_i64).map(|k| [k * k % 97, -k, k % 7]).collect();
    assert_eq!(
        nbody_exact(&p),
        nbody_exact_serial(&p),
        "exact N-body forces"
    );

    let lines = [
        "the quick brown fox",
        "jumps over the lazy dog",
        "The dog sleeps",
        "a fox is quick and the fox is brown",
        "",
        "To be or not to be",
    ];
    let lines: Vec<&str> = lines.iter().cycle().take(60).copied().collect();
    assert_eq!(
        word_counts(&lines),
        word_counts_serial(&lines),
        "word counts"
    );

    let n = 30;
    let mut serial = vec![(usize::MAX, 9)];
    serial.extend((0..n).flat_map(items_of));
    assert_eq!(append_items(n), serial, "append order");

    let data: Vec<f64> = (0..600).map(|k| ((k * 131) % 211) as f64 - 100.0).collect();
    assert_eq!(
        histogram(&data, 7),
        histogram_serial(&data, 7),
        "identity = vec![0.0; bins]"
    );

    if rt.rank() == 0 {
        println!("merges OK: P={}", rt.size());
    }
    Ok(())
}
