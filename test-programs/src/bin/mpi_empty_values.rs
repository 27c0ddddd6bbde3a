//! Reductions whose values serialise to no bytes, under mpirun (issue 17 case 0): a clause-less
//! `#[par_doall]` loop and `doall_reduce` over `()` used to die with `MPI_ERR_ARG` in
//! `MPI_Allgatherv` (an empty buffer's dangling pointer is read by Open MPI as `MPI_IN_PLACE`).
//! Prints `empty-values OK: P=<ranks>` on rank 0 and exits 0.
//!
//! ```text
//! cargo build -p test-programs --features mpi --bin mpi_empty_values
//! mpirun -n 4 --oversubscribe target/debug/mpi_empty_values
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

/// An annotated loop with no result clause: each rank counts the iterates it ran (per-process
/// state, declared with `shared`).
#[dls::parallel]
fn clause_less(n: u64, ran: &AtomicU64) {
    #[par_doall(schedule = "fac2", shared(ran))]
    for _i in 0..n {
        ran.fetch_add(1, Ordering::Relaxed);
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?.with_statistics(true);
    let ran = AtomicU64::new(0);
    clause_less(1000, &ran);
    // `()` as the reduction value, twice (empty loops too), and a zero-sized struct.
    for n in [0_u64, 1, 1000] {
        let ((), stats) =
            rt.doall_reduce("unit", 0..n, "gss".parse()?, || (), |_, _| {}, |(), ()| ())?;
        assert_eq!(
            stats.report.ranks.iter().map(|r| r.iterates).sum::<u64>(),
            n
        );
    }
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Nothing;
    let (v, _) = rt.doall_reduce(
        "zst",
        0..100u32,
        "ss".parse()?,
        || Nothing,
        |_, _| {},
        |a, _| a,
    )?;
    assert_eq!(v, Nothing);
    // Every rank's count of the clause-less loop adds up to n: a loop of no iterates whose
    // workers start from their count combines the counts of every rank.
    let mine = ran.load(Ordering::Relaxed);
    let (ran_total, _) = rt.doall_reduce(
        "ran",
        0..0u8,
        "ss".parse()?,
        || mine,
        |_, _| {},
        |a, b| a + b,
    )?;
    if ran_total != 1000 {
        eprintln!("empty-values: the clause-less loop ran {ran_total} iterates, not 1000");
        std::process::exit(1);
    }
    if rt.rank() == 0 {
        println!("empty-values OK: P={}", rt.size());
    }
    Ok(())
}
