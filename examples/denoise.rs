//! The parameter study of Cariño & Banicescu (2007, §4.1, fig. 4.1): denoise a synthetic noisy
//! image with the generalised Laplacian mean-curvature (GLMC) model for every combination of the
//! model parameters (β, σ, α) and the algorithm parameters (Δt, n), compute the PSNR of each
//! restored image, and report the best combination.
//!
//! The model (Cariño & Banicescu 2007, eq. 4.2) is `u_t − σ κ̃(u) + Δκ̃(u) = β (f − u)` with
//! `κ̃(u) = |∇u| ∇·(∇u / |∇u|)`; here `|∇u|` is regularised as `sqrt(u_x² + u_y² + α²)` (α is the
//! third model parameter), and `n` explicit Euler steps of size `Δt` are taken from `u = f`, with
//! grey levels clamped to [0, 255] after each step. `PSNR = 10 log10(Σ 255² / Σ (g − u)²)` dB.
//! The amount of work per combination varies with `n` (and with the image), so the loop over the
//! combinations is irregular, as in the paper.
//!
//! The study runs twice, serially and as a `#[par_doall]` loop; the program checks that both give
//! the same PSNR for every combination and the same best one, and exits with status 1 if not.
//!
//! ```text
//! cargo run --release --example denoise
//! cargo build --release --features mpi --example denoise
//! mpirun -n 4 --oversubscribe target/release/examples/denoise
//! ```

use std::error::Error;

use serde::{Deserialize, Serialize};

/// Image side in pixels.
const SIDE: usize = 40;
/// Standard deviation of the added Gaussian noise, in grey levels.
const NOISE: f64 = 20.0;

const BETA: [f64; 3] = [0.0, 0.02, 0.08];
const SIGMA: [f64; 3] = [0.0, 0.5, 1.0];
const ALPHA: [f64; 2] = [1.0, 4.0];
const DT: [f64; 3] = [0.01, 0.03, 0.06];
const STEPS: [usize; 4] = [10, 20, 40, 80];

/// One parameter combination.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Params {
    beta: f64,
    sigma: f64,
    alpha: f64,
    dt: f64,
    steps: usize,
}

/// Number of combinations.
const COMBINATIONS: usize = BETA.len() * SIGMA.len() * ALPHA.len() * DT.len() * STEPS.len();

/// The `k`-th combination (mixed-radix decoding of `k`).
fn params(k: usize) -> Params {
    let (k, s) = (k / STEPS.len(), k % STEPS.len());
    let (k, d) = (k / DT.len(), k % DT.len());
    let (k, a) = (k / ALPHA.len(), k % ALPHA.len());
    let (b, g) = (k / SIGMA.len(), k % SIGMA.len());
    Params {
        beta: BETA[b],
        sigma: SIGMA[g],
        alpha: ALPHA[a],
        dt: DT[d],
        steps: STEPS[s],
    }
}

/// The clean image g: a bright disc and a dark square on a horizontal gradient.
fn clean_image() -> Vec<f64> {
    let mut g = vec![0.0; SIDE * SIDE];
    for y in 0..SIDE {
        for x in 0..SIDE {
            let (fx, fy) = (x as f64, y as f64);
            let mut v = 60.0 + 100.0 * fx / SIDE as f64;
            if (fx - 26.0).powi(2) + (fy - 14.0).powi(2) < 64.0 {
                v = 220.0;
            }
            if (6..18).contains(&x) && (22..34).contains(&y) {
                v = 30.0;
            }
            g[y * SIDE + x] = v;
        }
    }
    g
}

/// The contaminated image f = g + Gaussian noise (Box–Muller over a fixed-seed generator).
fn noisy_image(g: &[f64]) -> Vec<f64> {
    let mut state = 0x2545_F491_4F6C_DD1D_u64;
    let mut uniform = || {
        // xorshift64*: deterministic, so every rank builds the same image.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1_u64 << 53) as f64
    };
    g.iter()
        .map(|&v| {
            let (u1, u2) = (uniform().max(1e-300), uniform());
            let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
            v + NOISE * z
        })
        .collect()
}

/// Value at (x, y) with the borders replicated (Neumann boundary).
fn at(u: &[f64], x: isize, y: isize) -> f64 {
    let c = |v: isize| v.clamp(0, SIDE as isize - 1) as usize;
    u[c(y) * SIDE + c(x)]
}

/// κ̃(u) = |∇u|_α ∇·(∇u / |∇u|_α), by central differences.
fn kappa_tilde(u: &[f64], alpha: f64) -> Vec<f64> {
    let n = SIDE as isize;
    // Unit normal ∇u/|∇u|_α at every pixel, then its divergence.
    let mut nx = vec![0.0; SIDE * SIDE];
    let mut ny = vec![0.0; SIDE * SIDE];
    let mut mag = vec![0.0; SIDE * SIDE];
    for y in 0..n {
        for x in 0..n {
            let ux = (at(u, x + 1, y) - at(u, x - 1, y)) / 2.0;
            let uy = (at(u, x, y + 1) - at(u, x, y - 1)) / 2.0;
            let m = (ux * ux + uy * uy + alpha * alpha).sqrt();
            let i = (y * n + x) as usize;
            nx[i] = ux / m;
            ny[i] = uy / m;
            mag[i] = m;
        }
    }
    let mut k = vec![0.0; SIDE * SIDE];
    for y in 0..n {
        for x in 0..n {
            let div = (at(&nx, x + 1, y) - at(&nx, x - 1, y)) / 2.0
                + (at(&ny, x, y + 1) - at(&ny, x, y - 1)) / 2.0;
            let i = (y * n + x) as usize;
            k[i] = mag[i] * div;
        }
    }
    k
}

/// Five-point Laplacian.
fn laplacian(v: &[f64]) -> Vec<f64> {
    let n = SIDE as isize;
    let mut l = vec![0.0; SIDE * SIDE];
    for y in 0..n {
        for x in 0..n {
            l[(y * n + x) as usize] =
                at(v, x + 1, y) + at(v, x - 1, y) + at(v, x, y + 1) + at(v, x, y - 1)
                    - 4.0 * at(v, x, y);
        }
    }
    l
}

/// n explicit Euler steps of u_t = σ κ̃(u) − Δκ̃(u) + β (f − u), from u = f.
fn denoise(f: &[f64], p: Params) -> Vec<f64> {
    let mut u = f.to_vec();
    for _ in 0..p.steps {
        let k = kappa_tilde(&u, p.alpha);
        let lk = laplacian(&k);
        for i in 0..u.len() {
            let du = p.sigma * k[i] - lk[i] + p.beta * (f[i] - u[i]);
            u[i] = (u[i] + p.dt * du).clamp(0.0, 255.0);
        }
    }
    u
}

/// Peak signal-to-noise ratio of the restored image `u` against the clean image `g`, in dB.
fn psnr(g: &[f64], u: &[f64]) -> f64 {
    let err: f64 = g.iter().zip(u).map(|(a, b)| (a - b) * (a - b)).sum();
    10.0 * (g.len() as f64 * 255.0 * 255.0 / err.max(1e-12)).log10()
}

/// The best combination seen so far: highest PSNR, ties to the lowest index.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
struct Best {
    psnr: f64,
    k: usize,
}

impl Default for Best {
    /// The identity of [`better`]: worse than any combination.
    fn default() -> Self {
        Best {
            psnr: f64::NEG_INFINITY,
            k: usize::MAX,
        }
    }
}

/// The better of two candidates; associative and commutative, so usable in `reduce(...)`.
fn better(a: Best, b: Best) -> Best {
    if b.psnr > a.psnr || (b.psnr == a.psnr && b.k < a.k) {
        b
    } else {
        a
    }
}

// Indexing by `k` keeps the serial loop identical to the parallel one.
#[allow(clippy::needless_range_loop)]
fn study_serial(g: &[f64], f: &[f64]) -> (Vec<f64>, Best) {
    let mut scores = vec![0.0; COMBINATIONS];
    let mut best = Best::default();
    for k in 0..COMBINATIONS {
        let u = denoise(f, params(k));
        scores[k] = psnr(g, &u);
        best = better(best, Best { psnr: scores[k], k });
    }
    (scores, best)
}

#[dls::parallel]
fn study_parallel(g: &[f64], f: &[f64]) -> (Vec<f64>, Best) {
    let mut scores = vec![0.0; COMBINATIONS];
    let mut best = Best::default();
    #[par_doall(schedule = "af", gather(scores), reduce(better: best))]
    for k in 0..COMBINATIONS {
        let u = denoise(f, params(k));
        scores[k] = psnr(g, &u);
        best = better(best, Best { psnr: scores[k], k });
    }
    (scores, best)
}

#[dls::main]
fn main() -> Result<(), Box<dyn Error>> {
    let rank = dls::current()?.rank();
    let g = clean_image();
    let f = noisy_image(&g);
    let serial = study_serial(&g, &f);
    let parallel = study_parallel(&g, &f);
    if parallel != serial {
        return Err(format!("rank {rank}: the parallel study differs from the serial one").into());
    }
    if rank == 0 {
        let (scores, best) = parallel;
        let p = params(best.k);
        println!(
            "denoise: {COMBINATIONS} combinations on a {SIDE}x{SIDE} image, noise sigma {NOISE}; \
             noisy PSNR {:.2} dB",
            psnr(&g, &f)
        );
        println!(
            "best: beta {} sigma {} alpha {} dt {} n {} -> PSNR {:.2} dB (worst {:.2} dB); \
             parallel == serial",
            p.beta,
            p.sigma,
            p.alpha,
            p.dt,
            p.steps,
            best.psnr,
            scores.iter().cloned().fold(f64::INFINITY, f64::min)
        );
    }
    Ok(())
}
