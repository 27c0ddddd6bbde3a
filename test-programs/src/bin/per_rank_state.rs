//! State that no clause names and no check sees (issue 43 R4-1), for `dls check-ranks`: a
//! global `static` counter that a function the body calls bumps. Modes: `static` (prints the
//! counter: every iterate on 1 worker and on threads, only the iterates of rank 0 under
//! mpirun), `plain` (the same count as a `reduce(+: ...)`: the same everywhere). The iterates
//! sleep 2 ms so that every worker and rank takes part. Prints `count=<C>` on rank 0.
//!
//! `dls check-ranks -- target/debug/per_rank_state static` reports the MPI runs as differing;
//! `... plain` passes (book: clauses.md, "Memory under `mpirun`").

use std::sync::atomic::{AtomicU64, Ordering};

const N: u64 = 200;

static BUMPS: AtomicU64 = AtomicU64::new(0);

fn work() {
    std::thread::sleep(std::time::Duration::from_millis(2));
    BUMPS.fetch_add(1, Ordering::Relaxed);
}

#[dls::main]
fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "plain".into());
    let mut count = 0u64;
    if mode == "static" {
        #[par_doall(schedule = "ss")]
        for _i in 0..N {
            work();
        }
        count = BUMPS.load(Ordering::Relaxed);
    } else {
        #[par_doall(schedule = "ss", reduce(+: count))]
        for _i in 0..N {
            std::thread::sleep(std::time::Duration::from_millis(2));
            count += 1;
        }
    }
    if dls::is_root() {
        println!("count={count}");
    }
}
