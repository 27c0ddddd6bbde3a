//! Loops that check themselves: a Monte Carlo estimate of ∫∫ over the unit square of
//! exp(−(x² + y²)) (about 0.5577), with `check(anova: value)`, and a regression job (a
//! least-squares line through noisy measurements), with `check(regression(x): y)`. The samples run in a seeded
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

/// Number of measurements of the regression job.
const POINTS: u64 = 200_000;

/// Measurement `i`: (x, y) with y = 1.5 + 0.8x plus noise.
fn measurement(i: u64) -> (f64, f64) {
    let (u, v) = uniform_pair(1_000_000_000 + i);
    let x = 10.0 * u;
    (x, 1.5 + 0.8 * x + (v - 0.5))
}

/// The least-squares line (intercept, slope) from Σx, Σy, Σxy, Σx² of n points.
fn line(sums: [f64; 4], n: f64) -> (f64, f64) {
    let [sx, sy, sxy, sxx] = sums;
    let slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    ((sy - slope * sx) / n, slope)
}

fn serial_fit() -> (f64, f64) {
    let mut sums = [0.0_f64; 4];
    for i in 0..POINTS {
        let (x, y) = measurement(i);
        sums[0] += x;
        sums[1] += y;
        sums[2] += x * y;
        sums[3] += x * x;
    }
    line(sums, POINTS as f64)
}

#[dls::parallel]
fn parallel_fit() -> (f64, f64) {
    let mut sums = [0.0_f64; 4];
    #[par_doall(schedule = "gss", reduce(+: sums), check(regression(x): y))]
    for i in 0..POINTS {
        let (x, measured) = measurement(i);
        let y = dls::inject(measured);
        sums[0] += x;
        sums[1] += y;
        sums[2] += x * y;
        sums[3] += x * x;
    }
    line(sums, POINTS as f64)
}

#[dls::main]
fn main() {
    let p = parallel();
    let s = serial();
    let (a, b) = parallel_fit();
    let (sa, sb) = serial_fit();
    if dls::is_root() {
        println!("estimate {p:.9} (serial {s:.9})");
        println!("line y = {a:.6} + {b:.6} x (serial {sa:.6} + {sb:.6} x)");
    }
    // The sums run in different orders: equal up to rounding.
    if (p - s).abs() > 1e-12 || (a - sa).abs() > 1e-9 || (b - sb).abs() > 1e-9 {
        if dls::is_root() {
            eprintln!("the parallel results differ from the serial ones");
        }
        std::process::exit(1);
    }
}
