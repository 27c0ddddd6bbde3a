// An inner loop of a two-level loop that gathers or reduces into a variable declared outside the
// outer loop: the error is at the variable and says what to write instead (gather/reduce into a
// variable of the outer body, then hand it to the outer loop's clause; see
// tests/ui/pass/two_level.rs for the rewritten form).
#[dls::parallel]
fn table(m: usize, n: usize) -> Vec<u64> {
    let mut out = vec![0_u64; m * n];
    #[par_doall(group(min = 1, max = 2))]
    for j in 0..m {
        #[par_doall(gather(out))]
        for i in 0..n {
            out[j * n + i] = (i * j) as u64;
        }
    }
    out
}

#[dls::parallel]
fn total(m: u64) -> u64 {
    let mut t = 0;
    #[par_doall(group(min = 1, max = 2))]
    for row in 0..m {
        #[par_doall(reduce(+: t))]
        for i in 0..row {
            t += i;
        }
    }
    t
}

fn main() {
    println!("{:?} {}", table(3, 2), total(3));
}
