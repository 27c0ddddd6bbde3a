//! A Monte Carlo study with an inner bootstrap loop, as in Cariño & Banicescu (2007, §4.2,
//! fig. 4.4): the properties of a test for a functional-coefficient vector autoregression, run as
//! a two-level (2D) loop.
//!
//! Each replication (outer iterate `r`) simulates a bivariate series of length `T` from
//!
//! ```text
//! Y_t = (A + δ_r · exp(−Z_t²) · B) · Y_{t−1} + ε_t,      Z_t = Y_{1,t−1},   ε_t ~ N(0, I)
//! ```
//!
//! with `δ_r = 0` for even `r` (the linear VAR(1), the null hypothesis) and `δ_r = δ` for odd `r`
//! (the alternative). Part A fits the linear VAR(1) by least squares. Inner loop 1 (bandwidth
//! loop, `nh + 1` iterates) computes, for each kernel bandwidth `h`, the leave-one-out prediction
//! error of the functional-coefficient fit (a local least-squares fit of the 2×2 coefficient
//! matrix around `Z_t`, Gaussian kernel). Between the loops the best bandwidth `h*` is chosen.
//! The test statistic is `S = (RSS_linear − RSS_fc(h*)) / RSS_fc(h*)`. Inner loop 2 (bootstrap
//! test, `B` iterates) regenerates series from the fitted linear model with resampled residuals
//! and counts the bootstrap statistics `S_b ≥ S`; part B turns the count into a p-value.
//!
//! Every random number comes from a generator seeded by (replication, bootstrap replicate), so the
//! results do not depend on which rank runs what: the 2D-parallel run must reproduce the serial
//! run bit for bit. The program runs both and exits with status 1 if any replication differs.
//!
//! ```text
//! cargo run --release --example vfcar                      # threads: one-level fallback
//! cargo build --release --features mpi --example vfcar
//! DLS_RACKS="ranks:0-2=rack1,3-4=rack2" DLS_REPORT=1 \
//!     mpirun -n 5 --oversubscribe target/release/examples/vfcar -- --min 2 --max 2
//! ```

use std::error::Error;
use std::time::Instant;

use dls::group::{GroupSpec, InnerLoops};
use dls::reduce::Sum;
use dls::Technique;

/// Settings of the study (command line: `--reps --t --nh --boot --delta --min --max`).
#[derive(Debug, Clone)]
struct Study {
    reps: u64,
    t: usize,
    nh: u64,
    boot: u64,
    delta: f64,
}

/// What one replication gives: fitted A (row-major), best bandwidth index, statistic, exceedances,
/// p-value.
type RepResult = ([f64; 4], u64, f64, u64, f64);

/// SplitMix64 (Steele, Lea & Flood 2014), one generator per (replication, replicate) stream.
struct Rng(u64);

impl Rng {
    fn new(rep: u64, stream: u64) -> Rng {
        let mut r =
            Rng(rep.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        r.next_u64();
        r
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1_u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

const A: [f64; 4] = [0.4, 0.1, -0.2, 0.3];
const B: [f64; 4] = [0.5, -0.3, 0.4, 0.2];
const BURN_IN: usize = 50;

/// A bivariate series of length `t`, from coefficients `coef(z)` and shocks `shock()`.
fn simulate(
    t: usize,
    coef: impl Fn(f64) -> [f64; 4],
    mut shock: impl FnMut() -> [f64; 2],
) -> Vec<[f64; 2]> {
    let mut y = [0.0, 0.0];
    let mut out = Vec::with_capacity(t);
    for s in 0..t + BURN_IN {
        let c = coef(y[0]);
        let e = shock();
        y = [
            c[0] * y[0] + c[1] * y[1] + e[0],
            c[2] * y[0] + c[3] * y[1] + e[1],
        ];
        if s >= BURN_IN {
            out.push(y);
        }
    }
    out
}

/// Weighted least squares of `y_t` on `y_{t−1}` (no intercept): the 2×2 coefficient matrix, or
/// `None` when the design is singular. `w(s)` weighs pair `s` (target `y[s + 1]`).
fn wls(y: &[[f64; 2]], w: impl Fn(usize) -> f64) -> Option<[f64; 4]> {
    let (mut xx, mut xy) = ([0.0; 4], [0.0; 4]);
    for s in 0..y.len() - 1 {
        let ws = w(s);
        if ws == 0.0 {
            continue;
        }
        let (x, z) = (y[s], y[s + 1]);
        xx[0] += ws * x[0] * x[0];
        xx[1] += ws * x[0] * x[1];
        xx[3] += ws * x[1] * x[1];
        for k in 0..2 {
            xy[2 * k] += ws * x[0] * z[k];
            xy[2 * k + 1] += ws * x[1] * z[k];
        }
    }
    xx[2] = xx[1];
    let det = xx[0] * xx[3] - xx[1] * xx[2];
    if det.abs() < 1e-12 {
        return None;
    }
    let inv = [xx[3] / det, -xx[1] / det, -xx[2] / det, xx[0] / det];
    let mut c = [0.0; 4];
    for k in 0..2 {
        c[2 * k] = inv[0] * xy[2 * k] + inv[1] * xy[2 * k + 1];
        c[2 * k + 1] = inv[2] * xy[2 * k] + inv[3] * xy[2 * k + 1];
    }
    Some(c)
}

fn residual(c: &[f64; 4], x: [f64; 2], z: [f64; 2]) -> [f64; 2] {
    [
        z[0] - c[0] * x[0] - c[1] * x[1],
        z[1] - c[2] * x[0] - c[3] * x[1],
    ]
}

fn bandwidth(k: u64) -> f64 {
    0.15 * 1.3_f64.powi(k as i32)
}

/// Residual sum of squares of the linear fit.
fn rss_linear(y: &[[f64; 2]], c: &[f64; 4]) -> f64 {
    (0..y.len() - 1)
        .map(|s| {
            let e = residual(c, y[s], y[s + 1]);
            e[0] * e[0] + e[1] * e[1]
        })
        .sum()
}

/// Leave-one-out prediction error of the functional-coefficient fit with bandwidth `h`.
fn rss_functional(y: &[[f64; 2]], h: f64) -> f64 {
    let mut total = 0.0;
    for t in 0..y.len() - 1 {
        let zt = y[t][0];
        let fit = wls(y, |s| {
            if s == t {
                0.0
            } else {
                let u = (y[s][0] - zt) / h;
                (-0.5 * u * u).exp()
            }
        });
        let e = match fit {
            Some(c) => residual(&c, y[t], y[t + 1]),
            None => y[t + 1],
        };
        total += e[0] * e[0] + e[1] * e[1];
    }
    total
}

fn statistic(y: &[[f64; 2]], h: f64) -> f64 {
    let c = wls(y, |_| 1.0).unwrap_or([0.0; 4]);
    let fc = rss_functional(y, h);
    (rss_linear(y, &c) - fc) / fc
}

/// Part A: the replication's series and its linear fit.
fn part_a(study: &Study, rep: u64) -> (Vec<[f64; 2]>, [f64; 4]) {
    let delta = if rep % 2 == 0 { 0.0 } else { study.delta };
    let mut rng = Rng::new(rep, u64::MAX);
    let y = simulate(
        study.t,
        |z| {
            let g = delta * (-z * z).exp();
            [
                A[0] + g * B[0],
                A[1] + g * B[1],
                A[2] + g * B[2],
                A[3] + g * B[3],
            ]
        },
        || [rng.normal(), rng.normal()],
    );
    let c = wls(&y, |_| 1.0).unwrap_or([0.0; 4]);
    (y, c)
}

/// One bootstrap replicate `b`: a series from the linear fit with resampled, centred residuals;
/// 1 if its statistic reaches `s`.
fn bootstrap(study: &Study, rep: u64, b: u64, y: &[[f64; 2]], c: &[f64; 4], h: f64, s: f64) -> u64 {
    let res: Vec<[f64; 2]> = (0..y.len() - 1)
        .map(|t| residual(c, y[t], y[t + 1]))
        .collect();
    let mean = res
        .iter()
        .fold([0.0, 0.0], |m, e| [m[0] + e[0], m[1] + e[1]]);
    let mean = [mean[0] / res.len() as f64, mean[1] / res.len() as f64];
    let mut rng = Rng::new(rep, b);
    let yb = simulate(
        study.t,
        |_| *c,
        || {
            let e = res[(rng.next_u64() % res.len() as u64) as usize];
            [e[0] - mean[0], e[1] - mean[1]]
        },
    );
    u64::from(statistic(&yb, h) >= s)
}

/// Part B: the p-value from the bootstrap count.
fn p_value(count: u64, boot: u64) -> f64 {
    (1 + count) as f64 / (1 + boot) as f64
}

fn best(errors: &[f64]) -> u64 {
    let mut k = 0;
    for (i, e) in errors.iter().enumerate() {
        if *e < errors[k] {
            k = i;
        }
    }
    k as u64
}

/// The serial study: three nested loops, as in Cariño & Banicescu (2007), fig. 4.4.
fn serial(study: &Study) -> Vec<RepResult> {
    let mut out = Vec::new();
    for rep in 0..study.reps {
        let (y, c) = part_a(study, rep);
        let mut errors = Vec::new();
        for k in 0..=study.nh {
            errors.push(rss_functional(&y, bandwidth(k)));
        }
        let k = best(&errors);
        let h = bandwidth(k);
        let s = statistic(&y, h);
        let mut count = 0;
        for b in 0..study.boot {
            count += bootstrap(study, rep, b, &y, &c, h, s);
        }
        out.push((c, k, s, count, p_value(count, study.boot)));
    }
    out
}

// ANCHOR: replication
/// One outer iterate of the 2D loop: part A, the bandwidth loop, the bootstrap loop, part B.
fn replication(
    study: &Study,
    rep: u64,
    inner: &mut InnerLoops<'_>,
    tech: &Technique,
) -> Result<RepResult, dls::DlsError> {
    let (y, c) = part_a(study, rep);
    let errors = inner.gather(0..=study.nh, tech, |k| rss_functional(&y, bandwidth(k)))?;
    let k = best(&errors);
    let h = bandwidth(k);
    let s = statistic(&y, h);
    let count = inner.doall_reduce(0..study.boot, tech, &Sum, |b, n: &mut u64| {
        *n += bootstrap(study, rep, b, &y, &c, h, s)
    })?;
    Ok((c, k, s, count, p_value(count, study.boot)))
}
// ANCHOR_END: replication

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> Result<T, String> {
    match args.iter().position(|a| a == name) {
        None => Ok(default),
        Some(k) => args
            .get(k + 1)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{name} needs a value")),
    }
}

fn same(a: &RepResult, b: &RepResult) -> bool {
    a.0.iter()
        .zip(&b.0)
        .all(|(x, y)| x.to_bits() == y.to_bits())
        && a.1 == b.1
        && a.2.to_bits() == b.2.to_bits()
        && a.3 == b.3
        && a.4.to_bits() == b.4.to_bits()
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().collect();
    let study = Study {
        reps: arg(&args, "--reps", 20)?,
        t: arg(&args, "--t", 80)?,
        nh: arg(&args, "--nh", 6)?,
        boot: arg(&args, "--boot", 30)?,
        delta: arg(&args, "--delta", 2.5)?,
    };
    if study.t < 4 {
        return Err("--t must be at least 4".into());
    }
    let spec = GroupSpec::new(arg(&args, "--min", 1)?, arg(&args, "--max", 4)?);

    let rt = dls::init()?.with_statistics(true);
    let mut groups = rt.group_setup(spec)?;
    let root = rt.rank() == 0;
    let inner_tech: Technique = "fac2".parse()?;

    let t0 = Instant::now();
    // ANCHOR: outer
    let (parallel, stats) = groups.gather_2d(0..study.reps, "af".parse()?, |rep, inner| {
        replication(&study, rep, inner, &inner_tech)
    })?;
    // ANCHOR_END: outer
    let parallel_s = t0.elapsed().as_secs_f64();

    if !root {
        return Ok(());
    }
    let t1 = Instant::now();
    let reference = serial(&study);
    let serial_s = t1.elapsed().as_secs_f64();

    let differ: Vec<u64> = (0..study.reps)
        .filter(|&r| !same(&parallel[r as usize], &reference[r as usize]))
        .collect();
    let rejections = |odd: u64| {
        let (mut n, mut hit) = (0, 0);
        for (r, x) in parallel.iter().enumerate() {
            if r as u64 % 2 == odd {
                n += 1;
                hit += u64::from(x.4 <= 0.05);
            }
        }
        (hit, n)
    };
    let (size_hits, size_n) = rejections(0);
    let (power_hits, power_n) = rejections(1);
    println!("vfcar: {study:?}");
    match groups.layout() {
        Some(l) => println!("vfcar: two-level, {}", l.describe()),
        None => println!("vfcar: one-level (threads, or 1-2 ranks)"),
    }
    println!("vfcar: rejections at 5%: null {size_hits}/{size_n}, alternative (delta = {}) {power_hits}/{power_n}", study.delta);
    println!(
        "vfcar: serial {serial_s:.3} s, 2D-parallel {parallel_s:.3} s; efficiency estimate {:.3}, group AAD {:.3}",
        stats.report.efficiency, stats.report.aad
    );
    if differ.is_empty() {
        println!(
            "vfcar: 2D-parallel results equal the serial ones ({} replications)",
            study.reps
        );
        Ok(())
    } else {
        eprintln!("vfcar: replications {differ:?} differ from the serial run");
        std::process::exit(1);
    }
}
