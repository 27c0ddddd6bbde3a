//! Exactly-once check under mpirun (used by `test-programs/tests/mpi_exactly_once.rs`).
//!
//! For every technique and several loop sizes N (0, 1, 13, 600, P-1, P, P+1, 1000, 4099), runs the loop
//! twice — with `doall_reduce` and with the explicit `start_loop`/`next_chunk`/`finish` API — and
//! checks on every rank that the count, the sum and the sum of squares of the executed indices
//! equal those of 0..N, that the per-rank counts of the report add up to N and match what each
//! rank executed, and (on rank 0) that the chunk map is a partition of 0..N. Also runs loops over
//! other index types near their limits. Rank 0 prints `exactly-once OK` at the end. With
//! `DLS_THREADS=k` (threads inside ranks) P counts every thread of every rank.
//!
//! ```text
//! cargo build --release -p test-programs --features mpi --bins
//! mpirun --oversubscribe -np 4 target/release/mpi_exactly_once
//! ```

use dls::mpi::collective::{CommunicatorCollectives, SystemOperation};
use dls::mpi::topology::SimpleCommunicator;
use dls::technique::Kind;
use dls::{LoopReport, Technique};

/// Count, sum, sum of squares of indices (as u128 to avoid overflow).
type Sums = (u64, u128, u128);

fn expected(n: u64) -> Sums {
    let n128 = n as u128;
    let sum = if n == 0 { 0 } else { n128 * (n128 - 1) / 2 };
    let sq = if n == 0 {
        0
    } else {
        (n128 - 1) * n128 * (2 * n128 - 1) / 6
    };
    (n, sum, sq)
}

fn check_map(report: &LoopReport, n: u64, what: &str) {
    let mut map = report.chunk_map.clone();
    map.sort();
    let mut next = 0;
    for [start, size, rank] in map {
        assert_eq!(
            start, next,
            "{what}: chunk map has a gap or overlap at {start}"
        );
        assert!(size >= 1, "{what}: empty chunk");
        assert!((rank as usize) < report.p, "{what}: bad rank {rank}");
        next = start + size;
    }
    assert_eq!(next, n, "{what}: chunk map covers {next} of {n} iterates");
}

fn check_report(report: &LoopReport, n: u64, p: usize, what: &str) {
    assert_eq!(report.n, n, "{what}");
    assert_eq!(report.p, p, "{what}");
    assert_eq!(report.ranks.len(), p, "{what}");
    let total: u64 = report.ranks.iter().map(|r| r.iterates).sum();
    assert_eq!(
        total, n,
        "{what}: per-rank counts add up to {total}, not {n}"
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?.with_statistics(true);
    let (rank, p) = (rt.rank(), rt.workers());
    let world = SimpleCommunicator::world();
    let mut ns = vec![
        0u64,
        1,
        13,
        600,
        p as u64 - 1,
        p as u64,
        p as u64 + 1,
        1000,
        4099,
    ];
    ns.sort();
    ns.dedup();
    let mut loops = 0;
    for kind in Kind::ALL {
        for &n in &ns {
            let t = Technique::new(kind);
            let what = format!("{} n={n} p={p}", kind.name());

            // Closure form with a reduction: every rank gets the global sums.
            let (sums, stats) = rt.doall_reduce(
                &format!("reduce {what}"),
                0..n,
                t.clone(),
                || (0u64, 0u128, 0u128),
                |i, s: &mut Sums| {
                    s.0 += 1;
                    s.1 += i as u128;
                    s.2 += (i as u128) * (i as u128);
                },
                |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2),
            )?;
            assert_eq!(sums, expected(n), "doall_reduce {what}");
            check_report(&stats.report, n, p, &what);
            if rank == 0 {
                check_map(&stats.report, n, &what);
            }

            // Explicit API; the global sums through an MPI all-reduce.
            let lp = rt.start_loop_named(&format!("explicit {what}"), 0..n, t)?;
            let mut mine = [0u64; 3];
            while let Some(chunk) = lp.next_chunk() {
                for i in chunk {
                    mine[0] += 1;
                    mine[1] += i;
                    mine[2] = mine[2].wrapping_add(i * i);
                }
            }
            assert!(lp.terminated(), "{what}: terminated after the last chunk");
            let stats = lp.finish();
            assert_eq!(stats.iterates, mine[0], "{what}: my count vs the report");
            check_report(&stats.report, n, p, &what);
            if rank == 0 {
                check_map(&stats.report, n, &what);
            }
            let mut all = [0u64; 3];
            world.all_reduce_into(&mine[..], &mut all[..], SystemOperation::sum());
            let e = expected(n);
            assert_eq!(
                (all[0], all[1], all[2]),
                (e.0, e.1 as u64, e.2 as u64),
                "explicit {what}"
            );
            loops += 2;
        }
    }

    // AWF keeps a history per loop name, on every rank (each AWF loop above ran once).
    let w = rt
        .awf_weights(&format!("reduce awf n=1000 p={p}"))
        .expect("AWF history after one time step");
    assert_eq!(w.len(), p);
    assert!(
        (w.iter().sum::<f64>() - p as f64).abs() < 1e-6,
        "weights sum to P: {w:?}"
    );

    // Other index types, bounds at their limits.
    let fac2: Technique = "fac2".parse()?;
    let (c, _) = rt.doall_reduce(
        "i8",
        i8::MIN..=i8::MAX,
        fac2.clone(),
        || (0u64, 0i64),
        |i, s: &mut (u64, i64)| {
            s.0 += 1;
            s.1 += i as i64
        },
        |a, b| (a.0 + b.0, a.1 + b.1),
    )?;
    assert_eq!(c, (256, -128));
    let (c, _) = rt.doall_reduce(
        "u64 top",
        u64::MAX - 100..u64::MAX,
        fac2.clone(),
        || 0u64,
        |i, s: &mut u64| *s += u64::MAX - i,
        |a, b| a + b,
    )?;
    assert_eq!(c, (1..=100).sum::<u64>());
    let (c, _) = rt.doall_reduce(
        "i128 bottom",
        i128::MIN..=i128::MIN + 9,
        fac2.clone(),
        || 0u64,
        |i, s: &mut u64| *s += (i - i128::MIN) as u64,
        |a, b| a + b,
    )?;
    assert_eq!(c, 45);
    let (c, _) = rt.doall_reduce(
        "empty",
        5u16..5,
        fac2,
        || 0u64,
        |_, s: &mut u64| *s += 1,
        |a, b| a + b,
    )?;
    assert_eq!(c, 0);
    loops += 4;

    if rank == 0 {
        println!(
            "exactly-once OK: P={p}, {loops} loops, {} techniques, N in {ns:?}",
            Kind::ALL.len()
        );
    }
    Ok(())
}
