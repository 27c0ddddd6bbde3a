//! Gathered rows written in place on each rank and exchanged between the ranks after the loop
//! (issues 42 and 45: `gather(v: rows(w))` and an ndarray array's own rows, each row one range of
//! `gather::Place::exchanged`), against the serial loop, on every rank:
//!
//! - a Jacobi sweep of a flat grid, `v[i * n + j] = …` in `gather(v: rows(n))` (loop `rows_flat`),
//!   20 sweeps;
//! - rows of `u32` under fac2, gss, ss and static, one writing whole rows;
//! - a sweep whose iterate 1 also writes an element of row 0, no iterate's (loop
//!   `rows_boundary`: that one write is logged and checked, the rows travel);
//! - a body that reads its row (`v[i * w + j] *= 3`) and rows of `String`: logged, as before;
//! - a rank that stalls in its first iterate (rank 1, 1.5 s; loop `rows_slow`), so that with
//!   `DLS_REEXECUTE=on` its rows are re-executed by another rank;
//! - with the feature `ndarray`: the Jacobi sweep on an `Array2<f64>`, `v[[i, j]] = …` (loop
//!   `rows_nd`), and an `Array3<u32>` written by its rows of axis 0.
//!
//! Prints `rows-in-place OK: P=<ranks>` on rank 0. With `DLS_REPORT=<file>.jsonl` the loops'
//! reports say how many writes were logged (`tests/mpi_rows_in_place.rs` reads them).
//!
//! ```text
//! cargo build -p test-programs --features mpi,ndarray --bin mpi_rows_in_place
//! mpirun -n 2 --oversubscribe target/debug/mpi_rows_in_place
//! ```

// Written as a user writes the serial loops, index by index (the form the attribute converts).
#![allow(clippy::needless_range_loop)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Whether rank 1 has stalled in `slow` (once per run).
static STALLED: AtomicBool = AtomicBool::new(false);

/// An iterate of `slow`: 100 µs of work, and 1.5 s more the first time rank 1 comes here (a
/// rank's own state, on purpose: only rank 1 stalls).
fn stall(rank: usize) {
    if rank == 1 && !STALLED.swap(true, Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(1500));
    }
    let t = Instant::now();
    while t.elapsed() < Duration::from_micros(100) {}
}

/// The starting grid, `n × n`: a hot top edge, the rest a small pattern.
fn grid(n: usize) -> Vec<f64> {
    (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            if i == 0 {
                100.0
            } else {
                ((i * 7 + j * 3) % 11) as f64 * 0.125
            }
        })
        .collect()
}

/// One Jacobi sweep of the interior, serial.
fn sweep_serial(u: &[f64], v: &mut [f64], n: usize) {
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            v[i * n + j] = 0.25
                * (u[(i - 1) * n + j] + u[(i + 1) * n + j] + u[i * n + j - 1] + u[i * n + j + 1]);
        }
    }
}

#[dls::parallel]
fn jacobi_flat(n: usize, sweeps: usize) -> Vec<f64> {
    let mut u = grid(n);
    let mut v = u.clone();
    for _ in 0..sweeps {
        #[par_doall(schedule = "af", name = "rows_flat", gather(v: rows(n)))]
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                v[i * n + j] = 0.25
                    * (u[(i - 1) * n + j]
                        + u[(i + 1) * n + j]
                        + u[i * n + j - 1]
                        + u[i * n + j + 1]);
            }
        }
        std::mem::swap(&mut u, &mut v);
    }
    u
}

fn jacobi_flat_serial(n: usize, sweeps: usize) -> Vec<f64> {
    let mut u = grid(n);
    let mut v = u.clone();
    for _ in 0..sweeps {
        sweep_serial(&u, &mut v, n);
        std::mem::swap(&mut u, &mut v);
    }
    u
}

#[dls::parallel]
fn numbered(rows: usize, w: usize, schedule: &str) -> Vec<u32> {
    let mut v = vec![7_u32; rows * w];
    match schedule {
        "fac2" =>
        {
            #[par_doall(schedule = "fac2", gather(v: rows(w)))]
            for i in 0..rows {
                for j in 0..w {
                    v[i * w + j] = (i * w + j) as u32 * 3;
                }
            }
        }
        "gss" =>
        {
            #[par_doall(schedule = "gss", gather(v: rows(w)))]
            for i in 0..rows {
                for j in 0..w {
                    v[i * w + j] = (i * w + j) as u32 * 3;
                }
            }
        }
        "ss" =>
        {
            #[par_doall(schedule = "ss", gather(v: rows(w)))]
            for i in 0..rows {
                for j in 0..w {
                    v[i * w + j] = (i * w + j) as u32 * 3;
                }
            }
        }
        _ =>
        {
            #[par_doall(schedule = "static", gather(v: rows(w)))]
            for i in 0..rows {
                for j in 0..w {
                    v[i * w + j] = (i * w + j) as u32 * 3;
                }
            }
        }
    }
    v
}

#[dls::parallel]
fn boundary(rows: usize, w: usize) -> Vec<i64> {
    let mut v = vec![-1_i64; rows * w];
    #[par_doall(schedule = "gss", name = "rows_boundary", gather(v: rows(w)))]
    for i in 1..rows - 1 {
        for j in 0..w {
            v[i * w + j] = (i * 1000 + j) as i64;
        }
        if i == 1 {
            v[2] = 42;
        }
    }
    v
}

#[dls::parallel]
fn tripled(rows: usize, w: usize) -> Vec<u64> {
    let mut v: Vec<u64> = (0..(rows * w) as u64).collect();
    #[par_doall(schedule = "fac2", gather(v: rows(w)))]
    for i in 0..rows {
        for j in 0..w {
            v[i * w + j] *= 3;
        }
    }
    v
}

#[dls::parallel]
fn words(rows: usize, w: usize) -> Vec<String> {
    let mut v = vec![String::new(); rows * w];
    #[par_doall(schedule = "fac2", gather(v: rows(w)))]
    for i in 0..rows {
        for j in 0..w {
            v[i * w + j] = format!("{i}.{j}");
        }
    }
    v
}

#[dls::parallel]
fn slow(rows: usize, w: usize, rank: usize) -> Vec<f64> {
    let mut v = vec![0.0_f64; rows * w];
    #[par_doall(schedule = "fac2", name = "rows_slow", gather(v: rows(w)))]
    for i in 0..rows {
        // Rank 1 stalls for 1.5 s in the first iterate it runs: with re-execution on, another
        // rank runs the rest of its chunk too (a chunk is late after 1 s while its holder has
        // finished none). Every iterate takes 100 µs, so that the other ranks do not run all
        // the rows before rank 1 asks for its first chunk.
        stall(rank);
        for j in 0..w {
            v[i * w + j] = (i * w + j) as f64 * 0.5;
        }
    }
    v
}

#[cfg(feature = "ndarray")]
mod nd {
    use dls::ndarray::{Array2, Array3};

    fn start(n: usize) -> Array2<f64> {
        Array2::from_shape_vec((n, n), super::grid(n)).unwrap()
    }

    #[dls::parallel]
    pub(crate) fn jacobi(n: usize, sweeps: usize) -> Array2<f64> {
        let mut u = start(n);
        let mut v = u.clone();
        for _ in 0..sweeps {
            #[par_doall(schedule = "af", name = "rows_nd", gather(v))]
            for i in 1..n - 1 {
                for j in 1..n - 1 {
                    v[[i, j]] =
                        0.25 * (u[[i - 1, j]] + u[[i + 1, j]] + u[[i, j - 1]] + u[[i, j + 1]]);
                }
            }
            std::mem::swap(&mut u, &mut v);
        }
        u
    }

    pub(crate) fn jacobi_serial(n: usize, sweeps: usize) -> Array2<f64> {
        let mut u = start(n);
        let mut v = u.clone();
        for _ in 0..sweeps {
            for i in 1..n - 1 {
                for j in 1..n - 1 {
                    v[[i, j]] =
                        0.25 * (u[[i - 1, j]] + u[[i + 1, j]] + u[[i, j - 1]] + u[[i, j + 1]]);
                }
            }
            std::mem::swap(&mut u, &mut v);
        }
        u
    }

    #[dls::parallel]
    pub(crate) fn cube(n: usize) -> Array3<u32> {
        let mut q = Array3::<u32>::zeros((n, 3, 4));
        #[par_doall(schedule = "gss", name = "rows_nd3", gather(q))]
        for i in 0..n {
            for j in 0..3 {
                for k in 0..4 {
                    q[[i, j, k]] = (i * 100 + j * 10 + k) as u32;
                }
            }
        }
        q
    }

    /// Whether both ndarray loops equal their serial forms.
    pub(crate) fn check(rank: usize) {
        assert_eq!(
            jacobi(64, 20),
            jacobi_serial(64, 20),
            "rank {rank}: Array2 rows"
        );
        let q = cube(301);
        assert!(
            q.indexed_iter()
                .all(|((i, j, k), &x)| x == (i * 100 + j * 10 + k) as u32),
            "rank {rank}: Array3 rows"
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    let rank = rt.rank();
    assert_eq!(
        jacobi_flat(96, 20),
        jacobi_flat_serial(96, 20),
        "rank {rank}: flat Jacobi"
    );
    let (rows, w) = (997, 13);
    for schedule in ["fac2", "gss", "ss", "static"] {
        let v = numbered(rows, w, schedule);
        assert!(
            v.iter().enumerate().all(|(k, &x)| x == k as u32 * 3),
            "rank {rank}: {schedule}: the rows differ from the serial ones"
        );
    }
    let b = boundary(50, 6);
    assert!(
        b.iter().enumerate().all(|(k, &x)| {
            let (i, j) = (k / 6, k % 6);
            x == match i {
                0 if j == 2 => 42,
                0 | 49 => -1,
                _ => (i * 1000 + j) as i64,
            }
        }),
        "rank {rank}: rows with a write outside every row"
    );
    let t = tripled(301, 7);
    assert!(
        t.iter().enumerate().all(|(k, &x)| x == 3 * k as u64),
        "rank {rank}: a body that reads its row"
    );
    let s = words(101, 3);
    assert!(
        s.iter()
            .enumerate()
            .all(|(k, x)| *x == format!("{}.{}", k / 3, k % 3)),
        "rank {rank}: String rows"
    );
    let slow_rows = slow(400, 9, rank);
    assert!(
        slow_rows
            .iter()
            .enumerate()
            .all(|(k, &x)| x == k as f64 * 0.5),
        "rank {rank}: rows of a stalled rank"
    );
    #[cfg(feature = "ndarray")]
    nd::check(rank);
    if rank == 0 {
        println!("rows-in-place OK: P={}", rt.size());
    }
    Ok(())
}
