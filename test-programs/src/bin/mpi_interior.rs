//! Shared mutability one step away from a `#[par_doall]` body (issue 27 case 7), used by
//! `test-programs/tests/mpi_interior.rs`. Modes: `helper` (a function the body calls bumps an
//! `AtomicU64`), `alias` (the body bumps it through a local reference), `mutex` (a helper pushes
//! into an `Arc<Mutex<Vec<u64>>>`), `shared` (the helper, with `shared(counter)`: per-process
//! counts on purpose), `plain` (a `reduce(+: ...)` and a read-only captured vector). Prints
//! `count=<C> sum=<S>` on rank 0.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const N: u64 = 1000;

fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

fn push(log: &Mutex<Vec<u64>>, i: u64) {
    log.lock().unwrap().push(i);
}

#[dls::main]
fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "plain".into());
    let counter = AtomicU64::new(0);
    let log = Arc::new(Mutex::new(Vec::new()));
    let weights: Vec<u64> = (0..N).map(|i| i % 3).collect();
    let mut sum = 0u64;
    match mode.as_str() {
        "helper" =>
        {
            #[par_doall(schedule = "fac2")]
            for _i in 0..N {
                bump(&counter);
            }
        }
        "alias" =>
        {
            #[par_doall(schedule = "fac2")]
            for _i in 0..N {
                let c = &counter;
                c.fetch_add(1, Ordering::Relaxed);
            }
        }
        "mutex" =>
        {
            #[par_doall(schedule = "fac2")]
            for i in 0..N {
                push(&log, i);
            }
        }
        "shared" =>
        {
            #[par_doall(schedule = "fac2", shared(counter))]
            for _i in 0..N {
                bump(&counter);
            }
        }
        _ =>
        {
            #[par_doall(schedule = "fac2", reduce(+: sum))]
            for i in 0..N {
                sum += weights[i as usize];
            }
        }
    }
    if dls::is_root() {
        println!(
            "count={} sum={sum} logged={}",
            counter.load(Ordering::Relaxed),
            log.lock().unwrap().len()
        );
    }
}
