// Issue 17 case 4: changes through an atomic or a Mutex are per rank under mpirun; the macro
// names the clause to use (reduce, or shared(...) for intended per-process state).
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

#[dls::parallel]
fn count(n: u64) -> u64 {
    let hits = AtomicU64::new(0);
    let found = Mutex::new(Vec::new());
    #[par_doall(schedule = "ss")]
    for i in 0..n {
        if i % 3 == 0 {
            hits.fetch_add(1, Ordering::Relaxed);
            found.lock().unwrap().push(i);
        }
    }
    hits.into_inner()
}

fn main() {
    println!("{}", count(10));
}
