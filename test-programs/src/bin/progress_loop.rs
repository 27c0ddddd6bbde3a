//! A loop of sleeping iterates for the progress display (`DLS_PROGRESS`): `n` iterates (default
//! 100) of `ms` milliseconds each (default 25), scheduled by SS over all workers, in a loop named
//! `sleepy`. Prints `sum=<n(n-1)/2>` on rank 0.
//!
//! ```text
//! DLS_THREADS=2 DLS_PROGRESS=lines target/debug/progress_loop 100 25
//! mpirun -n 3 --oversubscribe -x DLS_PROGRESS=lines target/debug/progress_loop 100 50
//! ```

use std::time::Duration;

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<u64>().unwrap());
    let n = args.next().unwrap_or(100);
    let ms = args.next().unwrap_or(25);
    let rt = dls::init().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let (sum, _stats) = rt
        .doall_reduce(
            "sleepy",
            0..n,
            "ss".parse().unwrap(),
            || 0u64,
            |i, s| {
                std::thread::sleep(Duration::from_millis(ms));
                *s += i;
            },
            |a, b| a + b,
        )
        .unwrap();
    if rt.rank() == 0 {
        println!("sum={sum}");
    }
}
