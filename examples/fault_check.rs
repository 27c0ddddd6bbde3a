//! A loop that checks itself: a Monte Carlo estimate of ∫∫ over the unit square of
//! exp(−(x² + y²)) (about 0.5577), with `check(anova: value)`. The samples run in a seeded
//! random order, so each worker's samples are a random sample of the loop's; after the loop a
//! one-way ANOVA across the workers (ranks under mpirun, threads otherwise) tests that their
//! values agree, as Wegman (c. 2000) proposes, and names a worker that computes wrongly.
//!
//! ```text
//! DLS_THREADS=4 cargo run --release --example fault_check          # clean: the check passes
//! DLS_THREADS=4 DLS_INJECT=worker=1,bias=0.5 cargo run --release --example fault_check
//!     # worker 1's values are off by half a standard deviation: the check names it
//! DLS_THREADS=4 DLS_CHECK=repair DLS_INJECT=worker=1,bias=0.5 cargo run --release --example fault_check
//!     # worker 1's samples run again on the others: the serial result
//! cargo build --release --features mpi --example fault_check
//! DLS_CHECK=repair DLS_INJECT=worker=2,scale=1.01 mpirun -n 4 --oversubscribe \
//!     -x DLS_CHECK -x DLS_INJECT target/release/examples/fault_check
//! ```
//!
//! Naming the faulty worker needs at least three workers: with two, each differs from the other
//! alike, so `repair` stops with an error instead of returning a result that failed its check.
//! Exits with status 1 when the parallel result differs from the serial one (as it does with an
//! injected fault and no repair).

/// Number of samples.
const SAMPLES: u64 = 400_000;

/// SplitMix64 (Steele, Lea & Flood 2014), one generator per sample, seeded by its index.
fn uniform_pair(sample: u64) -> (f64, f64) {
    let mut state = sample;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1_u64 << 53) as f64
    };
    (next(), next())
}

/// The integrand at one sample.
fn f(sample: u64) -> f64 {
    let (x, y) = uniform_pair(sample);
    (-(x * x + y * y)).exp()
}

fn serial() -> f64 {
    let mut sum = 0.0;
    for s in 0..SAMPLES {
        sum += f(s);
    }
    sum / SAMPLES as f64
}

#[dls::parallel]
fn parallel() -> f64 {
    let mut sum = 0.0;
    #[par_doall(schedule = "fac2", reduce(+: sum), check(anova: value))]
    for s in 0..SAMPLES {
        // `dls::inject` returns its argument unless DLS_INJECT makes this worker faulty.
        let value = dls::inject(f(s));
        sum += value;
    }
    sum / SAMPLES as f64
}

#[dls::main]
fn main() {
    let p = parallel();
    let s = serial();
    if dls::is_root() {
        println!("estimate {p:.9} (serial {s:.9})");
    }
    // The sums run in different orders: equal up to rounding.
    if (p - s).abs() > 1e-12 {
        if dls::is_root() {
            eprintln!("the parallel estimate differs from the serial one");
        }
        std::process::exit(1);
    }
}
