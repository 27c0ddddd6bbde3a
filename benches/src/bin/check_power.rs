//! How large a fault a checked loop sees: `loops` checked loops per shift δ, each worker holding
//! 100 standard-normal values (`schedule = "static"`, n = 100 × workers, each iterate sleeping
//! 50 µs so that every worker takes its one chunk; the values are a hash of the loop and the
//! index), the last worker's values shifted by δ standard errors of a
//! worker's mean (δ / 10 of a value, added where `current_worker` names that worker). For both
//! tests — each worker against the others at alpha / workers (`one-against-rest`, the default)
//! and the one-way ANOVA — at alpha = 0.01 and the default 1e-4 it prints the share of loops
//! that found the fault **and named the right worker** (at δ = 0: the share that rejected at
//! all, the false alarms), with its 95 % Wilson interval. One report gives every column: the
//! global p (ANOVA), the most suspect worker's leave-one-out p (one-against-rest) and the means.
//!
//! ```text
//! DLS_THREADS=64 cargo run --release -p dls-bench --bin check_power 1000 0 3 5 8
//! cargo build --release -p dls-bench --features mpi --bin check_power
//! mpirun --oversubscribe -np 4 target/release/check_power 1000 0 3 5 8
//! check_power csv 1000 0 1 2 3 4 5 6 7 8 9 10 >> curve.csv      # the same, as CSV rows
//! check_power svg curve.csv > book/src/check_power.svg            # the book's detection curve
//! ```

use std::fmt::Write as _;

use dls::runtime::checked::Check;
use dls::runtime::inject::current_worker;
use dls::runtime::options::LoopOptions;

/// A standard normal value from (loop, index): Box–Muller over two SplitMix64 draws.
fn normal(seed: u64, i: u64) -> f64 {
    let mix = |mut z: u64| {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let a = mix(seed.wrapping_mul(1_000_003) ^ i);
    let b = mix(a);
    let u1 = ((a >> 11) as f64 + 0.5) / (1_u64 << 53) as f64;
    let u2 = (b >> 11) as f64 / (1_u64 << 53) as f64;
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The 95 % Wilson interval of `k` successes in `n` trials.
fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n, z) = (k as f64, n as f64, 1.959_964);
    let p = k / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The worker whose mean is farthest from the mean of the others (equal counts per worker: the
/// smallest leave-one-out p).
fn most_suspect(means: &[f64]) -> usize {
    let total: f64 = means.iter().sum();
    let k = means.len() as f64;
    (0..means.len())
        .max_by(|&a, &b| {
            let off = |w: usize| (means[w] - (total - means[w]) / (k - 1.0)).abs();
            off(a).total_cmp(&off(b))
        })
        .unwrap_or(0)
}

const TESTS: [&str; 2] = ["one-against-rest", "anova"];
const ALPHAS: [f64; 2] = [0.01, 1e-4];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("svg") {
        return svg(&args[1..]);
    }
    let csv = args.first().map(String::as_str) == Some("csv");
    if csv {
        args.remove(0);
    }
    let loops: u64 = args.first().map_or(Ok(1000), |a| a.parse())?;
    let deltas: Vec<f64> = if args.len() > 1 {
        args[1..]
            .iter()
            .map(|a| a.parse())
            .collect::<Result<_, _>>()?
    } else {
        vec![0.0, 3.0, 5.0, 8.0]
    };
    let rt = dls::init()?.with_statistics(true);
    let workers = rt.workers();
    let faulty = workers - 1;
    let per_worker = 100_u64;
    let n = per_worker * workers as u64;
    let backend = if rt.size() > 1 { "mpirun" } else { "threads" };
    if rt.rank() == 0 && !csv {
        println!(
            "check_power: {loops} checked loops per shift, {workers} workers ({backend}), \
             {per_worker} values each, worker {faulty} shifted by delta standard errors of a \
             worker's mean{}",
            if workers > 2 {
                "; more workers than this machine's 2 cores: the rates do not depend on it"
            } else {
                ""
            }
        );
        println!("| P | delta | test | alpha | found, right worker named (delta = 0: any rejection) | 95 % interval |");
        println!("|---|---|---|---|---|---|");
    }
    for &delta in &deltas {
        let bias = delta / (per_worker as f64).sqrt();
        // [test][alpha] counts.
        let mut hits = [[0_u64; 2]; 2];
        let mut untested = 0;
        // Loops in which the shifted worker did not hold exactly its 100 values.
        let mut uneven = 0;
        for k in 0..loops {
            let check = Check {
                seed: k,
                alpha: 0.01,
                ..Check::default()
            };
            // Without re-execution: a late chunk's copy (or a split part) would move some of a
            // worker's iterates to another, and the shares per worker would vary.
            let options = LoopOptions::new("power", "static".parse()?)
                .reexecute(false)
                .check(check);
            let (_, stats) = rt.run(
                &options,
                0..n,
                || 0.0,
                |i, s: &mut f64| {
                    // A short sleep, so that every worker (64 threads on 2 cores too) takes its
                    // chunk before another worker could take a second one.
                    std::thread::sleep(std::time::Duration::from_micros(50));
                    let mut y = normal(k, i);
                    if bias != 0.0 && current_worker() == Some(faulty) {
                        y += bias;
                    }
                    *s += y;
                    y
                },
                |a, b| a + b,
            )?;
            let c = stats.report.check.expect("a check");
            if c.worker_values.get(faulty).copied().unwrap_or(0) != per_worker {
                uneven += 1;
                if std::env::var_os("CHECK_POWER_DEBUG").is_some() && uneven < 3 {
                    eprintln!("values per worker: {:?}", c.worker_values);
                }
            }
            let (Some(p), Some(q)) = (c.p, c.suspect_p) else {
                untested += 1;
                continue;
            };
            let right = most_suspect(&c.worker_means) == faulty;
            for (a, &alpha) in ALPHAS.iter().enumerate() {
                let named = q < alpha / workers as f64 && (right || delta == 0.0);
                // One against the rest decides by the suspect's p; the ANOVA by the global p
                // (and names the suspect by the same bound).
                if named {
                    hits[0][a] += 1;
                }
                if p < alpha && (named || delta == 0.0) {
                    hits[1][a] += 1;
                }
            }
        }
        if rt.rank() != 0 {
            continue;
        }
        let tested = loops - untested;
        for (t, test) in TESTS.iter().enumerate() {
            for (a, alpha) in ALPHAS.iter().enumerate() {
                let k = hits[t][a];
                let (lo, hi) = wilson(k, tested);
                let rate = k as f64 / tested.max(1) as f64;
                if csv {
                    println!("{workers},{delta},{test},{alpha},{k},{tested}");
                } else {
                    println!(
                        "| {workers} | {delta} | {test} | {alpha} | {rate:.3} ({k} of {tested}) | {lo:.3}–{hi:.3} |"
                    );
                }
            }
        }
        if (untested > 0 || uneven > 0) && !csv {
            println!(
                "({untested} loops untested: a worker without values; in {uneven} the shifted \
                 worker held other than {per_worker} values)"
            );
        }
    }
    Ok(())
}

/// Draws the detection curves of CSV rows (`P,delta,test,alpha,k,tested`) at alpha = 0.01 as an
/// SVG chart: one line per (P, test), share found and named against delta.
fn svg(files: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let mut rows: Vec<(usize, f64, String, f64, f64)> = Vec::new();
    for f in files {
        for line in std::fs::read_to_string(f)?.lines() {
            let v: Vec<&str> = line.trim().split(',').collect();
            if v.len() != 6 {
                continue;
            }
            let (k, n): (f64, f64) = (v[4].parse()?, v[5].parse()?);
            rows.push((
                v[0].parse()?,
                v[1].parse()?,
                v[2].into(),
                v[3].parse()?,
                k / n.max(1.0),
            ));
        }
    }
    // `right` holds the legend: its longest label, "P = 64, one-against-rest", needs about 170
    // px after the 46 px of its line; `left` holds the ticks and the y axis's label.
    let (w, h, left, bottom, top, right) = (720.0, 400.0, 60.0, 50.0, 40.0, 250.0);
    let x = |d: f64| left + d / 10.0 * (w - left - right);
    let y = |r: f64| h - bottom - r * (h - bottom - top);
    let mut s = String::new();
    writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">"#
    )?;
    writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#)?;
    writeln!(
        s,
        r#"<text x="{}" y="22" font-size="14">Faults found with the right worker named, alpha = 0.01, 100 values per worker</text>"#,
        left
    )?;
    for i in 0..=10 {
        let xi = x(i as f64);
        writeln!(
            s,
            r##"<line x1="{xi}" y1="{}" x2="{xi}" y2="{}" stroke="#ddd"/>"##,
            y(0.0),
            y(1.0)
        )?;
        writeln!(
            s,
            r#"<text x="{xi}" y="{}" text-anchor="middle">{i}</text>"#,
            y(0.0) + 16.0
        )?;
    }
    for j in 0..=5 {
        let r = j as f64 / 5.0;
        writeln!(
            s,
            r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#ddd"/>"##,
            x(0.0),
            y(r),
            x(10.0),
            y(r)
        )?;
        writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{r:.1}</text>"#,
            x(0.0) - 6.0,
            y(r) + 4.0
        )?;
    }
    writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">shift of one worker, standard errors of a worker's mean</text>"#,
        (x(0.0) + x(10.0)) / 2.0,
        h - 12.0
    )?;
    let mid = (y(0.0) + y(1.0)) / 2.0;
    writeln!(
        s,
        r#"<text transform="translate(18,{mid}) rotate(-90)" text-anchor="middle">share of loops: fault found, worker named</text>"#
    )?;
    let colours = ["#1b6ca8", "#d1495b", "#2e933c"];
    let mut ps: Vec<usize> = rows.iter().map(|r| r.0).collect();
    ps.sort_unstable();
    ps.dedup();
    let mut legend = 0;
    for (pi, p) in ps.iter().enumerate() {
        for test in TESTS {
            let mut pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.0 == *p && r.2 == test && (r.3 - 0.01).abs() < 1e-12)
                .map(|r| (r.1, r.4))
                .collect();
            if pts.is_empty() {
                continue;
            }
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            let path: Vec<String> = pts
                .iter()
                .map(|(d, r)| format!("{:.1},{:.1}", x(*d), y(*r)))
                .collect();
            let dash = if test == "anova" {
                r#" stroke-dasharray="6 4""#
            } else {
                ""
            };
            let c = colours[pi % colours.len()];
            writeln!(
                s,
                r#"<polyline fill="none" stroke="{c}" stroke-width="2"{dash} points="{}"/>"#,
                path.join(" ")
            )?;
            let ly = top + 20.0 + legend as f64 * 20.0;
            writeln!(
                s,
                r#"<line x1="{}" y1="{ly}" x2="{}" y2="{ly}" stroke="{c}" stroke-width="2"{dash}/>"#,
                w - right + 10.0,
                w - right + 40.0
            )?;
            writeln!(
                s,
                r#"<text x="{}" y="{}">P = {p}, {test}</text>"#,
                w - right + 46.0,
                ly + 4.0
            )?;
            legend += 1;
        }
    }
    writeln!(s, "</svg>")?;
    print!("{s}");
    Ok(())
}
