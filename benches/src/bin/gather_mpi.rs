//! Gathered data under MPI (issue 42 part 4): a loop writing `out[i] = f(i)` for 10⁶ `f64`
//! (`f(i) = √i`, a few nanoseconds) with `gather(out)` under `mpirun -np 2`, against the
//! hand-written MPI program of the same loop, in the same run. Each round runs, in an order that
//! rotates from round to round, each rank timing between two barriers:
//!
//! - `dls gather`: `#[par_doall(schedule = "fac2", gather(out))]` over the loop as the serial
//!   program writes it; afterwards every rank holds the whole vector;
//! - `dls no gather`: the same loop without the clause, `f(i)` put into a local (`black_box`):
//!   what the loop costs without its result;
//! - `raw`: the program a user writes with rsmpi: each rank computes its block of the vector,
//!   then one `MPI_Allgatherv` into the vector;
//! - `allgatherv`: that `MPI_Allgatherv` alone (the blocks already computed): 8 MB in all.
//!
//! Prints each way's median time over the rounds (rank 0's, after the closing barrier, so the
//! slowest rank's), the gather's cost (`dls gather − dls no gather`, paired per round) over
//! `allgatherv` (target: at most 1.5), and `dls gather` over `raw`. The gathered vector is
//! checked equal to the serial one on every rank.
//!
//! ```text
//! cargo build --release -p dls-bench --features mpi --bin gather_mpi
//! mpirun --oversubscribe -np 2 target/release/gather_mpi [rounds [N [only=K]]]
//! ```

use std::hint::black_box;
use std::time::Instant;

use dls::mpi::collective::CommunicatorCollectives;
use dls::mpi::datatype::PartitionMut;
use dls::mpi::topology::{Communicator, SimpleCommunicator};
use dls::mpi::Count;

/// The cheap iterate.
#[inline]
fn f(i: usize) -> f64 {
    (i as f64).sqrt()
}

#[dls::parallel]
fn with_gather(out: &mut Vec<f64>) {
    let n = out.len();
    #[par_doall(schedule = "fac2", gather(out))]
    for i in 0..n {
        out[i] = f(i);
    }
}

#[dls::parallel]
fn without_gather(n: usize) {
    #[par_doall(schedule = "fac2")]
    for i in 0..n {
        let x = f(i);
        black_box(x);
    }
}

/// Rank `r`'s block of `n` elements among `p` ranks: counts and displacements.
fn blocks(n: usize, p: usize) -> (Vec<Count>, Vec<Count>) {
    let counts: Vec<Count> = (0..p)
        .map(|r| (n / p + usize::from(r < n % p)) as Count)
        .collect();
    let displs = counts
        .iter()
        .scan(0, |acc, &c| {
            let d = *acc;
            *acc += c;
            Some(d)
        })
        .collect();
    (counts, displs)
}

/// The hand-written program: this rank's block, then one `MPI_Allgatherv` into `out`.
fn raw(world: &SimpleCommunicator, out: &mut [f64]) {
    let (p, r) = (world.size() as usize, world.rank() as usize);
    let (counts, displs) = blocks(out.len(), p);
    let first = displs[r] as usize;
    let mine: Vec<f64> = (first..first + counts[r] as usize).map(f).collect();
    allgatherv(world, &mine, out, &counts, &displs);
}

fn allgatherv(
    world: &SimpleCommunicator,
    mine: &[f64],
    out: &mut [f64],
    counts: &[Count],
    displs: &[Count],
) {
    let mut partition = PartitionMut::new(out, counts, displs);
    world.all_gather_varcount_into(mine, &mut partition);
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

const WAYS: [&str; 4] = ["dls gather", "dls no gather", "raw", "allgatherv"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?;
    let world = SimpleCommunicator::world();
    let p = world.size() as usize;
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(11);
    let n: usize = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    // `only=K`: run way K alone (for a profiler).
    let only: Option<usize> = args
        .iter()
        .find_map(|a| a.strip_prefix("only=").and_then(|k| k.parse().ok()));
    let serial: Vec<f64> = (0..n).map(f).collect();
    let mut out = vec![0.0_f64; n];
    let (counts, displs) = blocks(n, p);
    let r = world.rank() as usize;
    let first = displs[r] as usize;
    let mine: Vec<f64> = serial[first..first + counts[r] as usize].to_vec();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); WAYS.len()];
    for round in 0..rounds {
        for k in 0..WAYS.len() {
            let way = (k + round) % WAYS.len();
            if only.is_some_and(|o| o != way) {
                times[way].push(f64::NAN);
                continue;
            }
            out.fill(0.0);
            world.barrier();
            let t = Instant::now();
            match way {
                0 => with_gather(&mut out),
                1 => without_gather(n),
                2 => raw(&world, &mut out),
                _ => allgatherv(&world, &mine, &mut out, &counts, &displs),
            }
            world.barrier();
            times[way].push(t.elapsed().as_secs_f64());
            if way != 1 {
                assert!(
                    out.iter()
                        .zip(&serial)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{}: the vector differs from the serial one on rank {r}",
                    WAYS[way]
                );
            }
        }
    }
    if rt.rank() == 0 {
        println!(
            "gather_mpi: N = {n} f64 ({} MB), {p} ranks, {rounds} rounds (order rotating)",
            n * 8 / 1_000_000
        );
        println!("| way | median time (ms) |");
        println!("|---|---|");
        for (k, name) in WAYS.iter().enumerate() {
            println!("| {name} | {:.3} |", median(times[k].clone()) * 1e3);
        }
        let cost: Vec<f64> = (0..rounds)
            .map(|i| (times[0][i] - times[1][i]) / times[3][i])
            .collect();
        let whole: Vec<f64> = (0..rounds).map(|i| times[0][i] / times[2][i]).collect();
        println!(
            "gather's cost (dls gather − dls no gather) / allgatherv, median of rounds: {:.2} \
             (target ≤ 1.5)",
            median(cost)
        );
        println!(
            "dls gather / raw (compute + allgatherv), median of rounds: {:.2}",
            median(whole)
        );
    }
    Ok(())
}
