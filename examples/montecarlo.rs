//! Monte Carlo estimate of π, a reduction: count the random points of the unit square that fall
//! inside the quarter circle. Each sample draws from its own generator, seeded from the loop
//! index (a generator shared by all iterates would be an outer variable mutated in the body,
//! which `#[par_doall]` rejects), so the serial and the parallel loop draw the same points and
//! must count the same hits exactly; the program exits with status 1 if they do not.
//!
//! ```text
//! cargo run --release --example montecarlo
//! cargo build --release --features mpi --example montecarlo
//! mpirun -n 4 --oversubscribe target/release/examples/montecarlo
//! ```

use std::error::Error;

/// Number of samples.
const SAMPLES: u64 = 4_000_000;

/// SplitMix64 (Steele, Lea & Flood 2014): a small, fast generator, here one per sample.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1_u64 << 53) as f64
    }
}

fn inside(sample: u64) -> bool {
    let mut rng = SplitMix64(sample);
    let (x, y) = (rng.next_f64(), rng.next_f64());
    x * x + y * y < 1.0
}

#[dls::parallel]
fn count_parallel(n: u64) -> (u64, f64) {
    let mut hits = 0_u64;
    let mut farthest = 0.0_f64;
    #[par_doall(schedule = "runtime", reduce(+: hits), reduce(max: farthest))]
    for s in 0..n {
        if inside(s) {
            hits += 1;
        }
        let mut rng = SplitMix64(s);
        let r2 = rng.next_f64().powi(2) + rng.next_f64().powi(2);
        farthest = farthest.max(r2);
    }
    (hits, farthest)
}

fn count_serial(n: u64) -> (u64, f64) {
    let mut hits = 0_u64;
    let mut farthest = 0.0_f64;
    for s in 0..n {
        if inside(s) {
            hits += 1;
        }
        let mut rng = SplitMix64(s);
        let r2 = rng.next_f64().powi(2) + rng.next_f64().powi(2);
        farthest = farthest.max(r2);
    }
    (hits, farthest)
}

#[dls::main]
fn main() -> Result<(), Box<dyn Error>> {
    let rank = dls::current()?.rank();
    let serial = count_serial(SAMPLES);
    let parallel = count_parallel(SAMPLES);
    if parallel != serial {
        return Err(format!("rank {rank}: parallel {parallel:?} != serial {serial:?}").into());
    }
    if rank == 0 {
        let pi = 4.0 * parallel.0 as f64 / SAMPLES as f64;
        println!(
            "montecarlo: {} of {SAMPLES} samples inside, pi ~ {pi:.5}; largest r^2 {:.6}; \
             parallel == serial",
            parallel.0, parallel.1
        );
    }
    Ok(())
}
