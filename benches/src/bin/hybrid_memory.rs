//! Memory per node of a loop over a large read-only input: one copy per rank (`mpirun -np P`,
//! one worker per rank) against one copy per node (`mpirun -np 1` with `DLS_THREADS=P`, threads
//! inside the rank). Every rank builds the input (`MB` mebibytes, default 1024: a 1 GB table the
//! program reads, as a parameter study reads its data), runs a `#[par_doall]` loop that sums a
//! strided sample of it, checks the sum against the serial loop's, and rank 0 prints the sum of
//! every rank's peak resident memory (`VmHWM`): what the node holds.
//!
//! ```text
//! cargo build --release -p dls-bench --features mpi --bin hybrid_memory
//! mpirun --oversubscribe -np 2 target/release/hybrid_memory 1024
//! mpirun -np 1 -x DLS_THREADS=2 target/release/hybrid_memory 1024
//! ```

use std::error::Error;

/// This process's peak resident memory in MiB (`VmHWM`).
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0)
}

/// The input: `mb` MiB of bytes from a fixed recipe (every rank builds the same).
fn input(mb: usize) -> Vec<u8> {
    (0..mb << 20)
        .map(|i| {
            (i as u64)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .rotate_left(17) as u8
        })
        .collect()
}

/// What iterate `i` computes: a strided sample of the input.
fn work(data: &[u8], i: u64) -> u64 {
    let stride = 4099;
    (0..256u64)
        .map(|s| data[((i * 256 + s) * stride) as usize % data.len()] as u64)
        .sum()
}

#[dls::parallel]
fn parallel_sum(data: &[u8], n: u64) -> u64 {
    let mut total = 0u64;
    #[par_doall(schedule = "fac2", reduce(+: total))]
    for i in 0..n {
        total += work(data, i);
    }
    total
}

fn main() -> Result<(), Box<dyn Error>> {
    let mb: usize = std::env::args().nth(1).map_or(Ok(1024), |a| a.parse())?;
    let rt = dls::init()?;
    let data = input(mb);
    let n = 200_000u64;
    let serial: u64 = (0..n).map(|i| work(&data, i)).sum();
    let parallel = parallel_sum(&data, n);
    assert_eq!(parallel, serial, "parallel sum != serial sum");
    let mine = peak_mib();
    let all = if rt.size() > 1 {
        use dls::mpi::collective::CommunicatorCollectives;
        use dls::mpi::topology::Communicator;
        let world = dls::mpi::topology::SimpleCommunicator::world();
        let mut all = vec![0.0f64; world.size() as usize];
        world.all_gather_into(&mine, &mut all[..]);
        all
    } else {
        vec![mine]
    };
    if rt.rank() == 0 {
        let threads = rt.workers() / rt.size();
        println!(
            "hybrid_memory: input {mb} MiB, {} ranks x {threads} threads: peak resident memory \
             of all ranks {:.0} MiB (per rank: {}); sum equals the serial loop's",
            rt.size(),
            all.iter().sum::<f64>(),
            all.iter()
                .map(|m| format!("{m:.0}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}
