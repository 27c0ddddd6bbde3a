// shared(x): per-process state changed through an atomic on purpose (a progress counter); on
// threads every worker shares it.
use std::sync::atomic::{AtomicU64, Ordering};

#[dls::parallel]
fn run(n: u64) -> (u64, u64) {
    let progress = AtomicU64::new(0);
    let mut total = 0;
    #[par_doall(schedule = "ss", reduce(+: total), shared(progress))]
    for i in 0..n {
        total += i;
        progress.fetch_add(1, Ordering::Relaxed);
    }
    (total, progress.into_inner())
}

fn main() {
    assert_eq!(run(100), (4950, 100));
}
