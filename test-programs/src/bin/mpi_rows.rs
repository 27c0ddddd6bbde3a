//! `gather(v: rows(w))` under mpirun (issue 42): a Jacobi sweep of a flat grid, iterate `i`
//! assigning row `i` (`v[i * w + j] = …`), and an update that reads and writes its row
//! (`v[i * w + j] += …`), each in a time loop, and a write into row 0 (no iterate's), against
//! the serial program's grids. On MPI every write is logged and travels; the result must be the
//! serial one at any number of ranks. Prints `rows OK: P=<ranks>` on rank 0 and exits 0.
//!
//! ```text
//! cargo build -p test-programs --features mpi --bin mpi_rows
//! mpirun -n 3 --oversubscribe target/debug/mpi_rows
//! ```

// Written as a user writes the serial loop, index by index (the form the attribute converts).
#![allow(clippy::needless_range_loop)]

fn start(n: usize, w: usize) -> Vec<f64> {
    (0..n * w).map(|k| ((k * 7) % 11) as f64).collect()
}

/// The serial program: `sweeps` Jacobi sweeps, each followed by an update of every row that
/// reads it; iterate 1 also writes element 0.
fn serial(n: usize, w: usize, sweeps: usize) -> Vec<f64> {
    let mut u = start(n, w);
    let mut v = u.clone();
    for s in 0..sweeps {
        for i in 1..n - 1 {
            for j in 1..w - 1 {
                v[i * w + j] = 0.25
                    * (u[(i - 1) * w + j]
                        + u[(i + 1) * w + j]
                        + u[i * w + j - 1]
                        + u[i * w + j + 1]);
            }
            if i == 1 {
                v[0] = s as f64;
            }
        }
        for i in 0..n {
            for j in 0..w {
                v[i * w + j] += (i + j) as f64 * 0.5;
            }
        }
        std::mem::swap(&mut u, &mut v);
    }
    u
}

/// The same, converted with the attribute only.
#[dls::parallel]
fn with_rows(n: usize, w: usize, sweeps: usize) -> Vec<f64> {
    let mut u = start(n, w);
    let mut v = u.clone();
    for s in 0..sweeps {
        #[par_doall(schedule = "fac2", gather(v: rows(w)))]
        for i in 1..n - 1 {
            for j in 1..w - 1 {
                v[i * w + j] = 0.25
                    * (u[(i - 1) * w + j]
                        + u[(i + 1) * w + j]
                        + u[i * w + j - 1]
                        + u[i * w + j + 1]);
            }
            if i == 1 {
                v[0] = s as f64;
            }
        }
        #[par_doall(schedule = "ss", gather(v: rows(w)))]
        for i in 0..n {
            for j in 0..w {
                v[i * w + j] += (i + j) as f64 * 0.5;
            }
        }
        std::mem::swap(&mut u, &mut v);
    }
    u
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    let (n, w, sweeps) = (37, 23, 4);
    let want = serial(n, w, sweeps);
    let got = with_rows(n, w, sweeps);
    if got != want {
        let k = (0..want.len()).find(|&k| got[k] != want[k]).unwrap_or(0);
        eprintln!(
            "rows: rank {} element {k}: {} against the serial {}",
            rt.rank(),
            got[k],
            want[k]
        );
        std::process::exit(1);
    }
    if rt.rank() == 0 {
        println!("rows OK: P={}", rt.size());
    }
    Ok(())
}
