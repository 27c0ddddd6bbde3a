//! A two-level loop written with `#[par_doall]`: an annotated loop inside an annotated loop's
//! body. The outer iterates are scheduled among groups of ranks (`group(min, max)`, grouped by
//! rack), every rank of a group runs part A and part B, and the group shares each inner loop.
//! One outer iterate holds two inner loops; `reduce` and `gather` are used at both levels. The
//! program compares the result with the serial loops and exits with status 1 if they differ.
//!
//! ```text
//! cargo run --example two_level_macro                       # threads: one-level fallback
//! cargo build --features mpi --example two_level_macro
//! DLS_RACKS="ranks:0-3=a,4=b" mpirun -n 5 --oversubscribe target/debug/examples/two_level_macro
//! ```

/// Inner loop length of outer iterate `j`.
fn len(j: u64) -> u64 {
    (j * 5) % 11 + 1
}

/// The serial loops: the reference result.
fn serial(m: u64) -> (u64, u64, Vec<u64>, Vec<u64>) {
    let (mut total, mut best) = (0_u64, 0_u64);
    let mut per_j = vec![0_u64; m as usize];
    let mut evens = vec![0_u64; m as usize];
    for j in 0..m {
        let weight = j + 1;
        let mut s = 0_u64;
        for i in 0..len(j) {
            s += i * weight;
        }
        let mut squares = vec![0_u64; len(j) as usize];
        for i in 0..len(j) {
            squares[i as usize] = i * i;
        }
        per_j[j as usize] = s + squares.iter().sum::<u64>();
        evens[j as usize] = squares.iter().filter(|q| *q % 2 == 0).count() as u64;
        total += s;
        best = best.max(s);
    }
    (total, best, per_j, evens)
}

#[dls::main]
fn main() {
    let m = 40_u64;
    let (mut total, mut best) = (0_u64, 0_u64);
    let mut per_j = vec![0_u64; m as usize];
    let mut evens = vec![0_u64; m as usize];
    #[par_doall(schedule = "af", group(min = 1, max = 3), reduce(+: total), reduce(max: best), gather(per_j, evens))]
    for j in 0..m {
        // Part A: on every rank of the group.
        let weight = j + 1;
        let mut s = 0_u64;
        #[par_doall(schedule = "fac2", reduce(+: s))]
        for i in 0..len(j) {
            s += i * weight;
        }
        let mut squares = vec![0_u64; len(j) as usize];
        #[par_doall(schedule = "gss", gather(squares))]
        for i in 0..len(j) {
            squares[i as usize] = i * i;
        }
        // Part B: every rank of the group has `s` and the whole `squares`.
        per_j[j as usize] = s + squares.iter().sum::<u64>();
        evens[j as usize] = squares.iter().filter(|q| *q % 2 == 0).count() as u64;
        total += s;
        best = best.max(s);
    }
    let want = serial(m);
    let rank = dls::current().map(|rt| rt.rank()).unwrap_or(0);
    if (total, best, per_j.clone(), evens.clone()) != want {
        eprintln!(
            "two_level_macro: rank {rank}: parallel ({total}, {best}, {per_j:?}) differs from serial {want:?}"
        );
        std::process::exit(1);
    }
    if rank == 0 {
        println!("two_level_macro: total {total}, best {best}: equal to the serial loops");
    }
}
