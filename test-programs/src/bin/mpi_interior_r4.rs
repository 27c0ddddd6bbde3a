//! Issue 43 R4-1 and R4-2, used by `test-programs/tests/mpi_interior_r4.rs`: shared state the
//! interior-mutability probe did not see, and reads it refused.
//!
//! Changes (refused under MPI, naming the variable): `closure` (a closure defined before the loop
//! bumps an `AtomicU64`), `tuple` (a helper bumps the atomic of a `(AtomicU64, u64)`), `map` (a
//! helper bumps an `AtomicU64` in a `HashMap`), `btree` (the same in a `BTreeMap` of
//! `Vec<AtomicU64>`). A `thread_local!` or a `static` is what no check can see (the book says so;
//! `per_rank_state.rs` shows `dls check-ranks` finding it).
//!
//! Reads (run under MPI, with the serial result): `read_mutex` (an `Arc<Mutex<Vec<u64>>>`
//! indexed), `read_rwlock` (an `RwLock<Vec<u64>>` read and its length), `read_flag` (an
//! `AtomicBool` only loaded), `read_once` (a `OnceLock<u64>` `get`), `read_closure` (a closure
//! defined before the loop that only loads an atomic). `helper_read` (a helper function reads an
//! `Arc<Mutex<Vec<u64>>>`) is still refused: the macro cannot see that the helper only reads.
//!
//! Prints `count=<C> sum=<S>` on rank 0.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

const N: u64 = 1000;

fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

fn first(data: &Mutex<Vec<u64>>) -> u64 {
    data.lock().unwrap()[0]
}

#[dls::main]
fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let counter = AtomicU64::new(0);
    let pair = (AtomicU64::new(0), 7_u64);
    let mut map = HashMap::new();
    map.insert("hits", AtomicU64::new(0));
    let mut tree = BTreeMap::new();
    tree.insert(1_u32, vec![AtomicU64::new(0)]);
    let weights = Arc::new(Mutex::new((0..N).map(|i| i % 3).collect::<Vec<u64>>()));
    let table = RwLock::new((0..N).map(|i| i % 5).collect::<Vec<u64>>());
    let stop = AtomicBool::new(false);
    let scale = OnceLock::new();
    scale.set(2_u64).unwrap();
    let tick = || bump(&counter);
    let peek = || counter.load(Ordering::Relaxed);
    let mut sum = 0_u64;
    match mode.as_str() {
        "closure" =>
        {
            #[par_doall(schedule = "fac2")]
            for _i in 0..N {
                tick();
            }
        }
        "tuple" =>
        {
            #[par_doall(schedule = "fac2")]
            for _i in 0..N {
                bump(&pair.0);
            }
        }
        "map" =>
        {
            #[par_doall(schedule = "fac2")]
            for _i in 0..N {
                bump(&map["hits"]);
            }
        }
        "btree" =>
        {
            #[par_doall(schedule = "fac2")]
            for _i in 0..N {
                bump(&tree[&1][0]);
            }
        }
        "read_mutex" =>
        {
            #[par_doall(schedule = "fac2", reduce(+: sum))]
            for i in 0..N {
                sum += weights.lock().unwrap()[i as usize];
            }
        }
        "read_rwlock" =>
        {
            #[par_doall(schedule = "fac2", reduce(+: sum))]
            for i in 0..N {
                let n = table.read().unwrap().len() as u64;
                sum += table.read().unwrap()[i as usize] + n;
            }
        }
        "read_flag" =>
        {
            #[par_doall(schedule = "fac2", reduce(+: sum))]
            for i in 0..N {
                if !stop.load(Ordering::Relaxed) {
                    sum += i;
                }
            }
        }
        "read_once" =>
        {
            #[par_doall(schedule = "fac2", reduce(+: sum))]
            for i in 0..N {
                sum += *scale.get().unwrap() * i;
            }
        }
        "read_closure" =>
        {
            #[par_doall(schedule = "fac2", reduce(+: sum))]
            for i in 0..N {
                sum += peek() + i;
            }
        }
        "helper_read" =>
        {
            #[par_doall(schedule = "fac2", reduce(+: sum))]
            for _i in 0..N {
                sum += first(&weights);
            }
        }
        other => panic!("unknown mode {other}"),
    }
    let changed = counter.load(Ordering::Relaxed)
        + pair.0.load(Ordering::Relaxed)
        + map["hits"].load(Ordering::Relaxed)
        + tree[&1][0].load(Ordering::Relaxed);
    if dls::is_root() {
        println!("count={changed} sum={sum}");
    }
}
