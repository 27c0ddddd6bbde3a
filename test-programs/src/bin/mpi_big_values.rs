//! Values bigger than `STREAM_ABOVE` (8 MiB from all ranks together), which travel one rank at a
//! time (a broadcast per rank) instead of in one all-gather (issue 17 case 14): a `gather` of
//! 3,000,000 `f64` (24 MB) and a reduction of per-rank `Vec`s concatenated in rank order, beside
//! small ones, equal the serial results on every rank. Prints `big-values OK: P=<ranks>` on rank 0.
//!
//! ```text
//! cargo build -p test-programs --features mpi --bin mpi_big_values
//! mpirun -n 3 --oversubscribe target/debug/mpi_big_values
//! ```

#[dls::parallel]
fn roots(n: usize) -> Vec<f64> {
    let mut out = vec![0.0_f64; n];
    #[par_doall(schedule = "fac2", gather(out))]
    for i in 0..n {
        out[i] = (i as f64).sqrt();
    }
    out
}

/// This process's peak resident memory in bytes (`VmHWM` of /proc/self/status).
fn peak_bytes() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kib| kib * 1024.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    for n in [3_000_000, 10] {
        let before = peak_bytes();
        let got = roots(n);
        let peak = (peak_bytes() - before) / (8 * n) as f64;
        assert!(
            got.iter().enumerate().all(|(i, &x)| x == (i as f64).sqrt()),
            "gather of {n}"
        );
        if n > 10 {
            // The whole vector on every rank, plus at most about as much again (it was 3× on
            // threads and 4.3–5.3× under mpirun at P = 2 before values were streamed).
            println!("gather peak: rank {} {peak:.2}x", rt.rank());
        }
    }
    // Every iterate's index in a list (about 14 MB serialised); the merge keeps the
    // order of the workers' partial lists, so sorting gives 0..n.
    for n in [100_u64, 4_000_000] {
        let (mut all, _) = rt.doall_reduce(
            "lists",
            0..n,
            "gss".parse()?,
            Vec::new,
            |i, v: &mut Vec<u64>| v.push(i),
            |mut a, mut b| {
                a.append(&mut b);
                a
            },
        )?;
        all.sort_unstable();
        assert!(all.iter().copied().eq(0..n), "list of {n}");
    }
    if dls::is_root() {
        println!("big-values OK: P={}", rt.size());
    }
    Ok(())
}
