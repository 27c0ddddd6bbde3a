//! The fixed cost of a loop: starting and finishing a loop of zero iterates, and of a handful of
//! empty iterates, on the threads backend (1 and 2 threads, this machine has 2 cores) or under
//! mpirun. Each way of writing the loop runs `reps` times in a row, after a warm-up; the figure is
//! the median over `rounds` rounds of the mean time per loop, beside the cost of a bare
//! `std::hint::black_box` loop of the same iterates measured in the same round (the baseline).
//!
//! ```text
//! cargo run --release -p dls-bench --bin empty_loop
//! cargo build --release -p dls-bench --features mpi --bin empty_loop
//! mpirun --oversubscribe -np 2 target/release/empty_loop
//! ```
//!
//! Under mpirun each loop start is a collective step (the ranks agree on the loop), so the cost
//! there includes a message round between the ranks.

use std::hint::black_box;
use std::time::Instant;

/// A `#[par_doall]` loop with no result clause over `n` iterates.
#[dls::parallel]
fn annotated(n: u64) {
    #[par_doall(schedule = "fac2")]
    for i in 0..n {
        black_box(i);
    }
}

/// A `#[par_doall]` loop with a sum.
#[dls::parallel]
fn annotated_sum(n: u64) -> u64 {
    let mut total = 0;
    #[par_doall(schedule = "fac2", reduce(+: total))]
    for i in 0..n {
        total += black_box(i);
    }
    total
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Mean µs per call of `f` over `reps` calls.
fn per_call(reps: u32, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    t.elapsed().as_secs_f64() * 1e6 / f64::from(reps)
}

#[dls::main]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rt = dls::current()?;
    let mpi = matches!(rt.backend(), dls::Backend::Mpi { .. });
    let (rounds, reps) = (15, if mpi { 2_000 } else { 20_000 });
    if dls::is_root() {
        println!(
            "empty_loop: {} ({} worker(s) per process, {} process(es)); median of {rounds} rounds \
             of {reps} loops, µs per loop",
            if mpi { "MPI" } else { "threads" },
            rt.workers() / rt.size(),
            rt.size(),
        );
        if rt.workers() > 2 {
            println!("note: more workers than this machine's 2 cores; the figures mislead");
        }
        println!("| loop | n = 0 | n = 4 |");
        println!("|---|---|---|");
    }
    let ss: dls::Technique = "ss".parse()?;
    type Way<'a> = (&'a str, Box<dyn Fn(u64) + 'a>);
    let ways: Vec<Way> = vec![
        (
            "bare for loop (baseline)",
            Box::new(|n| {
                for i in 0..n {
                    black_box(i);
                }
            }),
        ),
        ("#[par_doall], no clause", Box::new(annotated)),
        (
            "#[par_doall], reduce(+)",
            Box::new(|n| {
                black_box(annotated_sum(n));
            }),
        ),
        (
            "explicit start_loop / next_chunk / finish",
            Box::new(|n| {
                let lp = rt.start_loop(0..n, ss.clone()).expect("start");
                while let Some(c) = lp.next_chunk() {
                    for i in c {
                        black_box(i);
                    }
                }
                black_box(lp.finish());
            }),
        ),
        (
            "explicit doall_reduce",
            Box::new(|n| {
                let (t, _) = rt
                    .doall_reduce(
                        "empty",
                        0..n,
                        ss.clone(),
                        || 0,
                        |i, s| *s += i,
                        |a, b| a + b,
                    )
                    .expect("doall_reduce");
                black_box(t);
            }),
        ),
    ];
    for (name, f) in &ways {
        let mut cells = Vec::new();
        for n in [0_u64, 4] {
            per_call(reps / 10, || f(n)); // warm-up
            let times: Vec<f64> = (0..rounds).map(|_| per_call(reps, || f(n))).collect();
            cells.push(median(times));
        }
        if dls::is_root() {
            println!("| {name} | {:.2} | {:.2} |", cells[0], cells[1]);
        }
    }
    Ok(())
}
