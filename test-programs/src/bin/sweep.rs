//! The `sweep` of the book's Slurm batch script for a long job (`book/src/slurm/long_job.sbatch`),
//! which `scripts/slurm.sh` submits to a one-node Slurm: a parameter sweep, converted from its
//! serial loop with one attribute, whose iterates take unequal time.
//!
//! For `N` values of `r` in `[2.5, 4)` it iterates the logistic map `x -> r x (1 - x)` and
//! measures the orbit's Lyapunov exponent (positive where the map is chaotic). A parameter whose
//! orbit settles on a cycle stops when the orbit comes back to where it started; a chaotic one
//! runs the full `STEPS`, so the chaotic end of the range costs far more than the rest. The loop
//! gathers each parameter's exponent and cycle length and reduces the count of chaotic
//! parameters and the most chaotic one. Rank 0 then runs the serial loop, compares every value
//! bit for bit and exits with status 1 if anything differs.
//!
//! `N` is the first argument (default 6000). Run with `DLS_CHECKPOINT=<folder>` it checkpoints its
//! loop (every `DLS_CHECKPOINT_EVERY`, on SIGUSR1 and at the loop's end) and a run after a kill
//! or a requeue continues from the checkpoints; `DLS_REPORT=<file>.jsonl` says what was restored.
//!
//! ```text
//! cargo build --release -p test-programs --features mpi --bin sweep
//! DLS_CHECKPOINT=/tmp/sweep-ckpt mpirun -n 4 --oversubscribe target/release/sweep
//! ```

use std::error::Error;
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// Iterations of the map before the orbit is measured (it forgets its start).
const TRANSIENT: u32 = 2_000;
/// Iterations over which the exponent is averaged, at most.
const STEPS: u32 = 400_000;

/// The parameter `r` of iterate `i` of `n`.
fn parameter(i: usize, n: usize) -> f64 {
    2.5 + 1.5 * i as f64 / n as f64
}

/// The Lyapunov exponent of the logistic map at `r` and the length of the cycle its orbit
/// settled on (0: none found within `STEPS`, a chaotic orbit).
fn lyapunov(r: f64) -> (f64, u32) {
    let mut x = 0.5_f64;
    for _ in 0..TRANSIENT {
        x = r * x * (1.0 - x);
    }
    let start = x;
    let mut sum = 0.0_f64;
    for step in 1..=STEPS {
        x = r * x * (1.0 - x);
        sum += (r * (1.0 - 2.0 * x)).abs().ln();
        if (x - start).abs() < 1e-10 {
            return (sum / f64::from(step), step);
        }
    }
    (sum / f64::from(STEPS), 0)
}

/// The most chaotic parameter seen: the largest exponent, the first index among equals.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct Most {
    exponent: f64,
    at: usize,
}

impl Default for Most {
    fn default() -> Self {
        Most {
            exponent: f64::NEG_INFINITY,
            at: usize::MAX,
        }
    }
}

fn more_chaotic(a: Most, b: Most) -> Most {
    if b.exponent > a.exponent || (b.exponent == a.exponent && b.at < a.at) {
        b
    } else {
        a
    }
}

/// What the sweep computes.
#[derive(Debug, Clone, PartialEq)]
struct Sweep {
    exponents: Vec<f64>,
    cycles: Vec<u32>,
    chaotic: u64,
    most: Most,
}

fn sweep_serial(n: usize) -> Sweep {
    let mut exponents = vec![0.0_f64; n];
    let mut cycles = vec![0_u32; n];
    let mut chaotic = 0_u64;
    let mut most = Most::default();
    for i in 0..n {
        let (exponent, cycle) = lyapunov(parameter(i, n));
        exponents[i] = exponent;
        cycles[i] = cycle;
        if exponent > 0.0 {
            chaotic += 1;
        }
        most = more_chaotic(most, Most { exponent, at: i });
    }
    Sweep {
        exponents,
        cycles,
        chaotic,
        most,
    }
}

#[dls::parallel]
fn sweep_parallel(n: usize) -> Sweep {
    let mut exponents = vec![0.0_f64; n];
    let mut cycles = vec![0_u32; n];
    let mut chaotic = 0_u64;
    let mut most = Most::default();
    #[par_doall(
        name = "sweep",
        schedule = "fac2",
        gather(exponents, cycles),
        reduce(+: chaotic),
        reduce(more_chaotic: most)
    )]
    for i in 0..n {
        let (exponent, cycle) = lyapunov(parameter(i, n));
        exponents[i] = exponent;
        cycles[i] = cycle;
        if exponent > 0.0 {
            chaotic += 1;
        }
        most = more_chaotic(most, Most { exponent, at: i });
    }
    Sweep {
        exponents,
        cycles,
        chaotic,
        most,
    }
}

/// Where two sweeps differ, bit for bit (`None`: nowhere).
fn difference(a: &Sweep, b: &Sweep) -> Option<String> {
    if let Some(i) = (0..a.exponents.len()).find(|&i| {
        a.exponents[i].to_bits() != b.exponents[i].to_bits() || a.cycles[i] != b.cycles[i]
    }) {
        return Some(format!(
            "parameter {i}: ({}, {}) against ({}, {})",
            a.exponents[i], a.cycles[i], b.exponents[i], b.cycles[i]
        ));
    }
    if a.chaotic != b.chaotic {
        return Some(format!("chaotic count {} against {}", a.chaotic, b.chaotic));
    }
    if a.most.exponent.to_bits() != b.most.exponent.to_bits() || a.most.at != b.most.at {
        return Some(format!("most chaotic {:?} against {:?}", a.most, b.most));
    }
    None
}

#[dls::main]
fn main() -> Result<(), Box<dyn Error>> {
    let n: usize = std::env::args().nth(1).map_or(Ok(6000), |a| a.parse())?;
    let rank = dls::current()?.rank();
    if rank == 0 {
        println!("sweep: {n} values of r in [2.5, 4), the parallel loop starts");
    }
    let t = Instant::now();
    let parallel = sweep_parallel(n);
    let parallel_s = t.elapsed().as_secs_f64();
    // The serial loop on one rank only: the others would compute the same.
    if rank == 0 {
        let t = Instant::now();
        let serial = sweep_serial(n);
        let serial_s = t.elapsed().as_secs_f64();
        if let Some(what) = difference(&parallel, &serial) {
            return Err(format!("sweep: parallel differs from serial: {what}").into());
        }
        println!(
            "sweep: {} of {n} values chaotic, the most at r = {:.6} (exponent {:.6}); \
             parallel == serial; parallel {parallel_s:.2} s (this run), serial {serial_s:.2} s",
            parallel.chaotic,
            parameter(parallel.most.at, n),
            parallel.most.exponent
        );
    }
    Ok(())
}
