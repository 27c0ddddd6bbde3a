//! The built-in merges of `reduce` give the serial loop's result on threads, for the techniques
//! ss, gss, fac2 and af on 1, 2 and 3 threads: element-wise `+` on the N-body forces
//! (`Vec<f64>`, and exactly on `Vec<[i64; 3]>`), `max` on nested vectors, `+` on word counts in a
//! `HashMap<String, u64>` and `max` on a `BTreeMap`, `append` in iteration order while iterates
//! sleep different times, a user merge with an `identity = …` value (a vector the body indexes,
//! and a type without `Default`), and `+` on a type of the program's own with `Add` and
//! `Default`.
//!
//! The thread count and the technique are per process (`DLS_THREADS`, `DLS_SCHEDULE`, read by
//! `init`), so each combination runs in a child process: this test binary re-run with the `child`
//! test selected.

use std::collections::{BTreeMap, HashMap};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The N-body loop of the issue: each pair adds to both of its bodies.
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

/// Integer 3-vectors, so that the comparison is exact; the vector has a value before the loop.
#[dls::parallel]
fn nbody_exact(p: &[[i64; 3]]) -> Vec<[i64; 3]> {
    let n = p.len();
    let mut forces = vec![[1, 2, 3]; n];
    #[par_doall(schedule = "gss", reduce(+: forces))]
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

/// `max` element by element on a nested vector, and `min` on a boxed slice.
#[dls::parallel]
fn row_extremes(rows: &[Vec<u32>]) -> (Vec<Vec<u32>>, Box<[u32]>) {
    let width = rows[0].len();
    let mut hi = vec![vec![0_u32; width]; 2];
    let mut lo: Box<[u32]> = vec![u32::MAX; width].into();
    #[par_doall(schedule = "fac2", reduce(max: hi), reduce(min: lo))]
    for r in rows {
        for (k, &x) in r.iter().enumerate() {
            let parity = x as usize % 2;
            hi[parity][k] = hi[parity][k].max(x);
            lo[k] = lo[k].min(x);
        }
    }
    (hi, lo)
}

fn row_extremes_serial(rows: &[Vec<u32>]) -> (Vec<Vec<u32>>, Box<[u32]>) {
    let width = rows[0].len();
    let mut hi = vec![vec![0_u32; width]; 2];
    let mut lo: Box<[u32]> = vec![u32::MAX; width].into();
    for r in rows {
        for (k, &x) in r.iter().enumerate() {
            let parity = x as usize % 2;
            hi[parity][k] = hi[parity][k].max(x);
            lo[k] = lo[k].min(x);
        }
    }
    (hi, lo)
}

/// Term frequencies (`+` on a `HashMap<String, u64>` that already holds a count) and the longest
/// line of each first letter (`max` on a `BTreeMap`).
#[dls::parallel]
fn word_counts(lines: &[&str]) -> (HashMap<String, u64>, BTreeMap<char, usize>) {
    let mut counts: HashMap<String, u64> = HashMap::from([("the".to_string(), 100)]);
    let mut longest = BTreeMap::new();
    #[par_doall(schedule = "gss", reduce(+: counts), reduce(max: longest))]
    for line in lines {
        for word in line.split_whitespace() {
            *counts.entry(word.to_lowercase()).or_insert(0) += 1;
        }
        if let Some(c) = line.chars().next() {
            let best = longest.entry(c).or_insert(0);
            *best = (*best).max(line.len());
        }
    }
    (counts, longest)
}

fn word_counts_serial(lines: &[&str]) -> (HashMap<String, u64>, BTreeMap<char, usize>) {
    let mut counts: HashMap<String, u64> = HashMap::from([("the".to_string(), 100)]);
    let mut longest = BTreeMap::new();
    for line in lines {
        for word in line.split_whitespace() {
            *counts.entry(word.to_lowercase()).or_insert(0) += 1;
        }
        if let Some(c) = line.chars().next() {
            let best = longest.entry(c).or_insert(0);
            *best = (*best).max(line.len());
        }
    }
    (counts, longest)
}

/// How long iterate `i` sleeps: early iterates longest, so that with SS the workers finish
/// iterates out of order.
fn nap(i: usize, n: usize) -> Duration {
    Duration::from_micros(if i % 4 == 0 { 300 * (n - i) as u64 } else { 0 })
}

/// The items iterate `i` pushes: none, one or two.
fn items_of(i: usize) -> impl Iterator<Item = (usize, u8)> {
    (0..(i % 3) as u8).map(move |k| (i, k))
}

/// `append` with iterates that push 0, 1 or 2 items and sleep different times; also records the
/// order in which iterates finished (per process, `shared`).
#[dls::parallel]
fn append_items(n: usize) -> (Vec<(usize, u8)>, Vec<usize>) {
    let mut v = vec![(usize::MAX, 9)];
    let finished = Mutex::new(Vec::new());
    #[par_doall(schedule = "ss", reduce(append: v), shared(finished))]
    for i in 0..n {
        std::thread::sleep(nap(i, n));
        for item in items_of(i) {
            v.push(item);
        }
        if i % 5 == 0 {
            v.extend(std::iter::empty::<(usize, u8)>());
        }
        finished.lock().unwrap().push(i);
    }
    (v, finished.into_inner().unwrap())
}

/// Adds two vectors element by element (a user merge).
fn add_vecs(mut a: Vec<f64>, b: Vec<f64>) -> Vec<f64> {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    a
}

/// A closed interval without a `Default`: its identity is the empty interval `[+inf, -inf]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct Interval {
    lo: f64,
    hi: f64,
}

fn hull(a: Interval, b: Interval) -> Interval {
    Interval {
        lo: a.lo.min(b.lo),
        hi: a.hi.max(b.hi),
    }
}

/// A user merge started from a value given in the clause: a histogram the body indexes (which
/// would be out of bounds from `Vec::default()`), and an interval that has no `Default`.
#[dls::parallel]
fn histogram_and_hull(v: &[f64], bins: usize) -> (Vec<f64>, Interval) {
    let mut hist = vec![0.5; bins];
    let mut range = Interval { lo: 0.0, hi: 0.0 };
    let empty = Interval {
        lo: f64::INFINITY,
        hi: f64::NEG_INFINITY,
    };
    #[par_doall(
        schedule = "fac2",
        reduce(add_vecs, identity = vec![0.0; bins]: hist),
        reduce(hull, identity = empty: range)
    )]
    for &x in v {
        hist[(x.abs() as usize) % bins] += 1.0;
        range = hull(range, Interval { lo: x, hi: x });
    }
    (hist, range)
}

fn histogram_and_hull_serial(v: &[f64], bins: usize) -> (Vec<f64>, Interval) {
    let mut hist = vec![0.5; bins];
    let mut range = Interval { lo: 0.0, hi: 0.0 };
    for &x in v {
        hist[(x.abs() as usize) % bins] += 1.0;
        range = hull(range, Interval { lo: x, hi: x });
    }
    (hist, range)
}

/// A type of the program's own with `Add` and `Default` keeps working with `+`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct Moments {
    n: u64,
    sum: i64,
    squares: i64,
}

impl std::ops::Add for Moments {
    type Output = Moments;
    fn add(self, o: Moments) -> Moments {
        Moments {
            n: self.n + o.n,
            sum: self.sum + o.sum,
            squares: self.squares + o.squares,
        }
    }
}

#[dls::parallel]
fn moments(v: &[i64]) -> Moments {
    let mut m = Moments::default();
    #[par_doall(schedule = "af", reduce(+: m))]
    for &x in v {
        m = m + Moments {
            n: 1,
            sum: x,
            squares: x * x,
        };
    }
    m
}

fn close(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-9 * (1.0 + x.abs().max(y.abs())))
}

/// The child: runs every loop on the runtime `init` makes from the environment and compares it
/// with the serial loop; prints `OK workers=<k>` at the end.
#[test]
fn child() {
    if std::env::var_os("DLS_MERGES_TEST_CHILD").is_none() {
        return;
    }
    let rt = dls::init().unwrap();

    let x: Vec<f64> = (0..300)
        .map(|k| k as f64 + 0.25 * ((k * 7) % 3) as f64)
        .collect();
    let par = nbody_forces(&x);
    let serial = nbody_forces_serial(&x);
    assert!(close(&par, &serial), "N-body forces differ");

    let p: Vec<[i64; 3]> = (0..120_i64).map(|k| [k * k % 97, -k, k % 7]).collect();
    assert_eq!(
        nbody_exact(&p),
        nbody_exact_serial(&p),
        "exact N-body forces"
    );

    let rows: Vec<Vec<u32>> = (0..90_u32)
        .map(|r| (0..5).map(|k| (r * 37 + k * 11) % 101).collect())
        .collect();
    assert_eq!(row_extremes(&rows), row_extremes_serial(&rows), "max/min");

    let lines = [
        "the quick brown fox",
        "jumps over the lazy dog",
        "The dog sleeps",
        "a fox is quick and the fox is brown",
        "",
        "lazy days",
        "To be or not to be",
    ];
    let lines: Vec<&str> = lines.iter().cycle().take(70).copied().collect();
    let (counts, longest) = word_counts(&lines);
    let (counts_s, longest_s) = word_counts_serial(&lines);
    assert_eq!(counts, counts_s, "word counts");
    assert_eq!(counts["the"], 100 + 40);
    assert_eq!(longest, longest_s, "longest lines");

    let n = 24;
    let (v, finished) = append_items(n);
    let mut serial = vec![(usize::MAX, 9)];
    serial.extend((0..n).flat_map(items_of));
    assert_eq!(v, serial, "append keeps the iteration order");
    if rt.workers() > 1 && std::env::var("DLS_SCHEDULE").as_deref() == Ok("ss") {
        // The check above is meaningful: the iterates did finish out of order.
        assert!(
            finished.windows(2).any(|w| w[0] > w[1]),
            "iterates finished in order: {finished:?}"
        );
    }

    let data: Vec<f64> = (0..500).map(|k| ((k * 131) % 211) as f64 - 100.0).collect();
    let (hist, range) = histogram_and_hull(&data, 7);
    let (hist_s, range_s) = histogram_and_hull_serial(&data, 7);
    assert_eq!(hist, hist_s, "histogram from identity = vec![0.0; bins]");
    assert_eq!(range, range_s, "hull from identity = empty");

    let ints: Vec<i64> = (0..400).map(|k| (k * 17) % 23 - 11).collect();
    let serial = ints.iter().fold(Moments::default(), |m, &x| {
        m + Moments {
            n: 1,
            sum: x,
            squares: x * x,
        }
    });
    assert_eq!(moments(&ints), serial, "+ on an Add + Default type");

    println!("OK workers={}", rt.workers());
}

#[test]
fn merges_equal_the_serial_loop_for_every_technique_and_thread_count() {
    for technique in ["ss", "gss", "fac2", "af"] {
        for threads in [1, 2, 3] {
            let out = Command::new(std::env::current_exe().unwrap())
                .args(["--exact", "child", "--nocapture", "--test-threads=1"])
                .env("DLS_MERGES_TEST_CHILD", "1")
                .env("DLS_SCHEDULE", technique)
                .env("DLS_THREADS", threads.to_string())
                .env_remove("OMPI_COMM_WORLD_SIZE")
                .env_remove("PMI_SIZE")
                .env_remove("DLS_REPORT")
                .output()
                .unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                out.status.success() && text.contains(&format!("OK workers={threads}")),
                "{technique} on {threads} threads:\n{text}"
            );
        }
    }
}
