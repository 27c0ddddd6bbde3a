//! Benchmark (a): per-chunk overhead of self-scheduling (SS) over empty iterates at P = 2,
//! against a raw MPI ping-pong of the same message sizes, measured in the same run.
//!
//! - *raw*: rank 1 sends a 5-word request to rank 0, whose main thread answers with a 3-word
//!   reply (blocking receive and send), `K` times.
//! - *dls*: an SS loop of `K` empty iterates; rank 1 times each `next_chunk` (request with the
//!   piggybacked timing → reply from rank 0's service thread, which also updates the scheduler
//!   state, the chunk map and the statistics). Rank 0's own compute thread takes its chunks
//!   through a mutex, ~100× faster than any message, so with empty iterates it would take
//!   nearly all of them; to time `K` remote requests, rank 0 finishes at once (it leaves every
//!   chunk to rank 1 while its service thread keeps scheduling).
//!
//! Prints, for each of `REPS` repetitions, the mean round trip of each, and the medians and
//! their ratio (target ≤ 1.5).
//!
//! ```text
//! cargo build --release -p dls-bench --features mpi --bin mpi_overhead
//! mpirun --oversubscribe -np 2 target/release/mpi_overhead
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
    let rt = dls::init()?;
    let world = SimpleCommunicator::world();
    if world.size() != 2 {
        eprintln!("mpi_overhead: run with mpirun -np 2");
        std::process::exit(2);
    }
    let rank = rt.rank();
    let (mut raw, mut ss, mut share) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..REPS {
        // Raw ping-pong.
        world.barrier();
        let t = Instant::now();
        let (req, mut rep) = ([7u64; 5], [0u64; 3]);
        for _ in 0..K {
            if rank == 1 {
                world.process_at_rank(0).send_with_tag(&req[..], 9);
                world
                    .process_at_rank(0)
                    .receive_into_with_tag(&mut rep[..], 10);
            } else {
                let mut r = [0u64; 5];
                world
                    .process_at_rank(1)
                    .receive_into_with_tag(&mut r[..], 9);
                world.process_at_rank(1).send_with_tag(&rep[..], 10);
            }
        }
        let raw_us = t.elapsed().as_secs_f64() * 1e6 / K as f64;

        // dls SS over empty iterates.
        world.barrier();
        let lp = rt.start_loop_named("ss-empty", 0..K, "ss".parse()?)?;
        let (mut calls, mut spent) = (0u64, 0.0f64);
        if rank == 1 {
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
        let mut v = [0.0f64; 2];
        let mine = if rank == 1 {
            spent * 1e6 / calls as f64
        } else {
            0.0
        };
        world.all_gather_into(&mine, &mut v[..]);
        let mut r = [0.0f64; 2];
        world.all_gather_into(&raw_us, &mut r[..]);
        raw.push(r[1]);
        ss.push(v[1]);
        share.push(stats.report.ranks[1].chunks as f64 / K as f64);
    }
    if rank == 0 {
        for i in 0..REPS {
            println!(
                "rep {i}: raw ping-pong {:.2} us, dls SS request {:.2} us (worker took {:.0}% of chunks)",
                raw[i],
                ss[i],
                share[i] * 100.0
            );
        }
        let (r, s) = (median(raw), median(ss));
        println!(
            "median: raw ping-pong {r:.2} us, dls SS per-chunk {s:.2} us, ratio {:.2} (target <= 1.5)",
            s / r
        );
    }
    Ok(())
}
