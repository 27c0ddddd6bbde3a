//! Checkpoints in a time loop (issue 42 part 5): 40 steps of a loop over 2²⁰ `f64` gathered
//! with `gather(u)`, the serial program converted with the attribute only, run as a process of
//! its own without checkpoints, with `DLS_CHECKPOINT` (default interval, 60 s) and with
//! `DLS_CHECKPOINT_EVERY=100ms`, in turn (paired rounds, the order rotating). Each child prints
//! the time of its time loop; the parent watches the checkpoint folder while the child runs
//! (every 2 ms) and keeps its peak size. Prints per configuration the median time, the median
//! ratio to the run without checkpoints (paired per round) and the peak folder size.
//!
//! ```text
//! cargo build --release -p dls-bench --bin checkpoint_time_loop
//! DLS_THREADS=2 target/release/checkpoint_time_loop [rounds]
//! ```

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const N: usize = 1 << 20;
const STEPS: usize = 40;

/// The step's update of one element.
#[inline]
fn f(i: usize, t: usize) -> f64 {
    ((i + t) as f64).sqrt() * 1e-3
}

#[dls::parallel]
fn simulate() -> Vec<f64> {
    let mut u = vec![0.0_f64; N];
    for t in 0..STEPS {
        #[par_doall(schedule = "fac2", gather(u))]
        for i in 0..N {
            u[i] = 0.5 * u[i] + f(i, t);
        }
    }
    u
}

fn serial() -> Vec<f64> {
    let mut u = vec![0.0_f64; N];
    for t in 0..STEPS {
        for (i, x) in u.iter_mut().enumerate() {
            *x = 0.5 * *x + f(i, t);
        }
    }
    u
}

/// Bytes in `dir` and its folders.
fn size_of(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.metadata() {
            Ok(m) if m.is_dir() => size_of(&e.path()),
            Ok(m) => m.len(),
            Err(_) => 0,
        })
        .sum()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("child") {
        let t = Instant::now();
        let u = simulate();
        let took = t.elapsed().as_secs_f64();
        if u != serial() {
            return Err("the time loop's result differs from the serial one".into());
        }
        println!("{took}");
        return Ok(());
    }
    let rounds: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(5);
    let dir = std::env::temp_dir().join(format!("dls-ckpt-time-loop-{}", std::process::id()));
    let configs: [(&str, Option<&str>); 3] = [
        ("none", None),
        ("DLS_CHECKPOINT (every 60 s)", Some("60s")),
        ("DLS_CHECKPOINT_EVERY=100ms", Some("100ms")),
    ];
    let mut times = vec![Vec::new(); configs.len()];
    let mut peaks = vec![0u64; configs.len()];
    for round in 0..rounds {
        for k in 0..configs.len() {
            let c = (k + round) % configs.len();
            let _ = std::fs::remove_dir_all(&dir);
            let mut cmd = Command::new(&args[0]);
            cmd.arg("child").stdout(Stdio::piped());
            cmd.env_remove("DLS_CHECKPOINT")
                .env_remove("DLS_CHECKPOINT_EVERY");
            if let Some(every) = configs[c].1 {
                cmd.env("DLS_CHECKPOINT", &dir)
                    .env("DLS_CHECKPOINT_EVERY", every);
            }
            let mut child = cmd.spawn()?;
            let mut peak = 0;
            while child.try_wait()?.is_none() {
                peak = peak.max(size_of(&dir));
                std::thread::sleep(Duration::from_millis(2));
            }
            let out = child.wait_with_output()?;
            if !out.status.success() {
                return Err(format!("{}: the child failed", configs[c].0).into());
            }
            let took: f64 = String::from_utf8_lossy(&out.stdout).trim().parse()?;
            times[c].push(took);
            peaks[c] = peaks[c].max(peak);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "checkpoint_time_loop: {STEPS} steps of a loop over {N} f64 under gather(u), \
         {rounds} paired rounds (processes of their own, order rotating)"
    );
    println!("| checkpoints | median time (s) | median ratio to none | peak folder (MB) |");
    println!("|---|---|---|---|");
    for (c, (name, _)) in configs.iter().enumerate() {
        let ratios: Vec<f64> = times[c].iter().zip(&times[0]).map(|(t, b)| t / b).collect();
        println!(
            "| {name} | {:.3} | {:.3} | {:.1} |",
            median(times[c].clone()),
            median(ratios),
            peaks[c] as f64 / 1e6
        );
    }
    Ok(())
}
