//! Benchmark (a): per-chunk overhead of self-scheduling (SS) over empty iterates, against a raw
//! MPI ping-pong of the same message sizes, measured in the same run, at any P >= 2.
//!
//! - *raw*: every rank r >= 1 sends a 5-word request to rank 0, whose main thread answers each
//!   (receive from any rank, then a 3-word reply to that rank; blocking calls), `K` times per
//!   rank: a request-per-chunk server with nothing else to do.
//! - *dls*: an SS loop of `K · (P − 1)` empty iterates; every rank r >= 1 times each
//!   `next_chunk` (request with the piggybacked timing → reply from rank 0's service thread,
//!   which also updates the scheduler state, the chunk map and the statistics). Rank 0's own
//!   compute thread takes its chunks through a mutex, ~100× faster than any message, so with
//!   empty iterates it would take nearly all of them; to time remote requests, rank 0 finishes
//!   at once (it leaves every chunk to the other ranks while its service thread keeps
//!   scheduling).
//!
//! Prints, for each of `REPS` repetitions, the mean round trip of each (over all requesting
//! ranks), and the medians and their ratio (target: <= 1.2, issue 29, at P = 2, 8 and 16). With
//! more ranks than cores (P = 4 on a 2-core machine) both sides are oversubscribed: the ratio
//! still compares them under the same conditions, the absolute times mislead.
//!
//! ```text
//! cargo build --release -p dls-bench --features mpi --bin mpi_overhead
//! mpirun --oversubscribe -np 2 target/release/mpi_overhead
//! mpirun --oversubscribe -np 4 target/release/mpi_overhead
//! ```

use std::time::Instant;

use dls::mpi::collective::CommunicatorCollectives;
use dls::mpi::point_to_point::{Destination, Source};
use dls::mpi::topology::{Communicator, SimpleCommunicator};

const K: u64 = 20_000;
const REPS: usize = 7;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::init()?.with_statistics(true);
    let world = SimpleCommunicator::world();
    let p = world.size() as usize;
    if p < 2 {
        eprintln!("mpi_overhead: run with mpirun -np 2 (or more)");
        std::process::exit(2);
    }
    let rank = rt.rank();
    let others = (p - 1) as u64;
    let (mut raw, mut ss, mut share) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..REPS {
        // Raw ping-pong: rank 0 serves K requests of every other rank, in arrival order.
        world.barrier();
        let t = Instant::now();
        let (req, mut rep) = ([7u64; 5], [0u64; 3]);
        if rank == 0 {
            let mut r = [0u64; 5];
            for _ in 0..K * others {
                let status = world.any_process().receive_into_with_tag(&mut r[..], 9);
                world
                    .process_at_rank(status.source_rank())
                    .send_with_tag(&rep[..], 10);
            }
        } else {
            for _ in 0..K {
                world.process_at_rank(0).send_with_tag(&req[..], 9);
                world
                    .process_at_rank(0)
                    .receive_into_with_tag(&mut rep[..], 10);
            }
        }
        let raw_us = t.elapsed().as_secs_f64() * 1e6 / K as f64;

        // dls SS over empty iterates.
        world.barrier();
        let lp = rt.start_loop_named("ss-empty", 0..K * others, "ss".parse()?)?;
        let (mut calls, mut spent) = (0u64, 0.0f64);
        if rank != 0 {
            loop {
                let t = Instant::now();
                let next = lp.next_chunk();
                spent += t.elapsed().as_secs_f64();
                calls += 1;
                let Some(chunk) = next else { break };
                for i in chunk {
                    std::hint::black_box(i);
                }
            }
        }
        let stats = lp.finish();
        let mut v = vec![0.0f64; p];
        let mine = if rank != 0 {
            spent * 1e6 / calls as f64
        } else {
            0.0
        };
        world.all_gather_into(&mine, &mut v[..]);
        let mut r = vec![0.0f64; p];
        world.all_gather_into(&raw_us, &mut r[..]);
        raw.push(r[1..].iter().sum::<f64>() / others as f64);
        ss.push(v[1..].iter().sum::<f64>() / others as f64);
        let workers_chunks: u64 = stats.report.ranks[1..].iter().map(|w| w.chunks).sum();
        share.push(workers_chunks as f64 / (K * others) as f64);
    }
    if rank == 0 {
        let cores = dls::report::Oversubscribed::node_cores(true);
        println!("mpi_overhead: P = {p}, {K} requests per rank, {REPS} repetitions");
        if p > cores {
            println!(
                "note: {p} ranks on {cores} cores: every rank is oversubscribed, so the absolute times mislead; the ratio compares both under the same conditions"
            );
        }
        for i in 0..REPS {
            println!(
                "rep {i}: raw ping-pong {:.2} us, dls SS request {:.2} us (ranks 1.. took {:.0}% of chunks)",
                raw[i],
                ss[i],
                share[i] * 100.0
            );
        }
        let (r, s) = (median(raw), median(ss));
        println!(
            "median: raw ping-pong {r:.2} us, dls SS per-chunk {s:.2} us, ratio {:.2} (target <= 1.2: \
             issue 29, at np 2, 8 and 16, each rank on a core of its own)",
            s / r
        );
    }
    Ok(())
}
