//! Gathered vectors written or read across iterates (issue 17 cases 1 and 2). The first argument
//! picks the loop:
//!
//! - `interleaved`: each iterate writes two elements, reads them back and updates the first
//!   again (`out[2i] = a; out[2i+1] = b; out[2i] += out[2i+1]`); the result must equal the serial
//!   loop's (prints `gather: OK`);
//! - `written-twice`: iterate `i` also writes element `i + 1` (the N-body loop's Newton's third
//!   law, written so that the macro cannot see it): the program must stop with an error naming the
//!   element and `reduce(+: out)`;
//! - `read-written`: iterate `i` reads element `i - 1`, which iterate `i - 1` writes: the program
//!   must stop with an error naming the element.
//!
//! Runs on threads, or under mpirun when built with the `mpi` feature.

#[dls::parallel]
fn interleaved(n: usize) -> Vec<u64> {
    let mut out = vec![0_u64; 2 * n];
    #[par_doall(schedule = "fac2", gather(out))]
    for i in 0..n {
        out[2 * i] = i as u64;
        out[2 * i + 1] = 10 * i as u64;
        out[2 * i] += out[2 * i + 1];
        out[2 * i + 1] += out[2 * i];
    }
    out
}

#[dls::parallel]
fn written_twice(n: usize) -> Vec<f64> {
    let mut out = vec![0.0_f64; n + 1];
    let neighbour = |i: usize| i + 1;
    #[par_doall(schedule = "ss", gather(out))]
    for i in 0..n {
        out[i] += 1.0;
        out[neighbour(i)] -= 1.0;
    }
    out
}

#[dls::parallel]
fn read_written(n: usize) -> Vec<u64> {
    let mut out = vec![1_u64; n];
    #[par_doall(schedule = "gss", gather(out))]
    for i in 1..n {
        out[i] = out[i - 1] + 1;
    }
    out
}

#[dls::main]
fn main() {
    let n = 50;
    match std::env::args().nth(1).as_deref() {
        Some("interleaved") => {
            let got = interleaved(n);
            let serial: Vec<u64> = (0..n as u64).flat_map(|i| [11 * i, 21 * i]).collect();
            assert_eq!(got, serial);
            if dls::is_root() {
                println!("gather: OK");
            }
        }
        Some("written-twice") => println!("{:?}", written_twice(n)),
        Some("read-written") => println!("{:?}", read_written(n)),
        other => panic!("unknown case {other:?}"),
    }
}
