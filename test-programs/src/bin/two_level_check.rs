//! A self-checking two-level loop: runs every pair (outer × inner) of the given techniques on a
//! small 2D loop and checks that every (j, i) pair ran exactly once, that the reductions and
//! gathers at both levels equal the serial results, and that the report adds up. Used by the
//! `test-programs/tests/mpi_groups_*.rs` tests under mpirun; also a compact tour of the explicit
//! API.
//!
//! ```text
//! cargo build -p test-programs --features mpi --bins
//! DLS_RACKS="ranks:0-3=a,4=b" mpirun -n 5 target/debug/two_level_check \
//!     --min 1 --max 3 --outer static,ss,gss,fac2,af --inner static,ss,gss,fac2,af --m 24
//! ```
//!
//! Prints `layout: …` and one `ok …` line per pair on rank 0; exits 1 on the first mismatch.
//! `--panic-at J` makes inner iterate 0 of outer iterate J panic (to test that the job ends).

use std::process::ExitCode;
use std::sync::OnceLock;

use dls::group::{GroupSpec, InnerLoops};
use dls::reduce::Sum;
use dls::Technique;

/// The outer iterate whose first inner iterate panics (`--panic-at`).
static PANIC_AT: OnceLock<Option<u64>> = OnceLock::new();

/// Inner loop length of outer iterate `j` (0 included, some longer than a group).
fn inner_len(j: u64) -> u64 {
    (j * 7) % 13
}

/// What one outer iterate returns: the visited inner indices of its first inner loop (sorted),
/// and the sums of its second and third inner loops.
type Visit = (u64, Vec<u64>, u64, u64);

fn outer_iterate(
    j: u64,
    inner: &mut InnerLoops<'_>,
    tech: &Technique,
) -> Result<Visit, dls::DlsError> {
    // Part A (redundant on every rank of the group).
    let n = inner_len(j);
    // Inner loop 1: which i ran, each reported by the rank that ran it.
    let mut seen: Vec<u64> = inner.fold(
        0..n,
        tech,
        Vec::new,
        |mut a, mut b| {
            a.append(&mut b);
            a
        },
        |i, acc: &mut Vec<u64>| {
            if i == 0 && PANIC_AT.get().copied().flatten() == Some(j) {
                panic!("planted panic at (j, i) = ({j}, {i})");
            }
            acc.push(i)
        },
    )?;
    seen.sort_unstable();
    // Inner loop 2: a reduction; inner loop 3: a gather, summed in part B.
    let weighted: u64 =
        inner.doall_reduce(0..n, tech, &Sum, |i, s: &mut u64| *s += (i + 1) * (j + 1))?;
    let squares: Vec<u64> = inner.gather(0..=n, tech, |i| i * i)?;
    // Part B.
    Ok((j, seen, weighted, squares.iter().sum()))
}

fn arg(args: &[String], name: &str, default: &str) -> String {
    args.iter()
        .position(|a| a == name)
        .and_then(|k| args.get(k + 1))
        .cloned()
        .unwrap_or_else(|| default.to_string())
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("two_level_check: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<bool, Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let min: usize = arg(&args, "--min", "1").parse()?;
    let max: usize = arg(&args, "--max", "3").parse()?;
    let m: u64 = arg(&args, "--m", "24").parse()?;
    let panic_at = match arg(&args, "--panic-at", "") {
        s if s.is_empty() => None,
        s => Some(s.parse::<u64>()?),
    };
    PANIC_AT.get_or_init(|| panic_at);
    let parse = |list: String| -> Result<Vec<Technique>, dls::TechniqueError> {
        list.split(';').map(str::parse).collect()
    };
    let outers = parse(arg(&args, "--outer", "af"))?;
    let inners = parse(arg(&args, "--inner", "fac2"))?;

    let rt = dls::init()?.with_statistics(true);
    let mut groups = rt.group_setup(GroupSpec::new(min, max))?;
    let root = rt.rank() == 0;
    if root {
        match groups.layout() {
            Some(l) => println!("layout: {}", l.describe()),
            None => println!("layout: one-level"),
        }
    }
    let pairs: u64 = (0..m).map(inner_len).sum();
    let mut good = true;
    for outer in &outers {
        for inner in &inners {
            let (visits, stats) =
                groups.gather_2d(0..m, outer.clone(), |j, ctx| outer_iterate(j, ctx, inner))?;
            let (total, _) =
                groups.doall_2d_reduce(0..m, outer.clone(), &Sum, |j, ctx, acc: &mut u64| {
                    *acc += ctx.doall_reduce(0..inner_len(j), inner, &Sum, |i, s: &mut u64| {
                        *s += i * 1000 + j
                    })?;
                    Ok(())
                })?;
            let mut problems = Vec::new();
            if visits.len() as u64 != m {
                problems.push(format!(
                    "{} outer results for {m} outer iterates",
                    visits.len()
                ));
            }
            for (k, (j, seen, weighted, squares)) in visits.iter().enumerate() {
                let n = inner_len(*j);
                if *j != k as u64 {
                    problems.push(format!("outer result {k} is for j = {j}"));
                }
                if *seen != (0..n).collect::<Vec<_>>() {
                    problems.push(format!("j = {j}: inner iterates run {seen:?}, want 0..{n}"));
                }
                if *weighted != (j + 1) * n * (n + 1) / 2 {
                    problems.push(format!("j = {j}: inner reduction {weighted}"));
                }
                if *squares != (0..=n).map(|i| i * i).sum::<u64>() {
                    problems.push(format!("j = {j}: inner gather sums to {squares}"));
                }
            }
            let want: u64 = (0..m)
                .map(|j| (0..inner_len(j)).map(|i| i * 1000 + j).sum::<u64>())
                .sum();
            if total != want {
                problems.push(format!("outer reduction {total}, want {want}"));
            }
            let r = &stats.report;
            if groups.is_two_level() {
                let outer_done: u64 = r.groups.iter().map(|g| g.outer_iterates).sum();
                // Three inner loops per outer iterate: n + n + (n + 1) inner iterates.
                let inner_done: u64 = r.ranks.iter().map(|x| x.iterates).sum();
                if outer_done != m || inner_done != 3 * pairs + m {
                    problems.push(format!(
                        "report: {outer_done} outer iterates (want {m}), {inner_done} inner iterates (want {})",
                        3 * pairs + m
                    ));
                }
                let mapped: u64 = r.chunk_map.iter().map(|c| c[1]).sum();
                if mapped != m {
                    problems.push(format!("chunk map covers {mapped} outer iterates"));
                }
            }
            if root {
                if problems.is_empty() {
                    println!(
                        "ok outer={outer} inner={inner} pairs={pairs} groups={} efficiency={:.3}",
                        r.groups.len(),
                        r.efficiency
                    );
                } else {
                    println!("FAIL outer={outer} inner={inner}: {}", problems.join("; "));
                }
            }
            good &= problems.is_empty();
        }
    }
    Ok(good)
}
