// A two-level loop: `group(min, max)` on the outer loop, an inner loop with its own clauses.
#[dls::parallel]
fn nested(sizes: &[u64]) -> u64 {
    let mut total = 0_u64;
    #[par_doall(schedule = "af", group(min = 2, max = 4), reduce(+: total))]
    for j in 0..sizes.len() {
        let n = sizes[j];
        let mut s = 0_u64;
        #[par_doall(schedule = "fac2", reduce(+: s))]
        for i in 0..n {
            s += i;
        }
        total += s;
    }
    total
}

// Without bounds: one group per rack (max unbounded).
#[dls::parallel]
fn nested_default(m: u64, n: u64) {
    #[par_doall]
    for j in 0..m {
        #[par_doall]
        for i in 0..n {
            work(j, i);
        }
    }
}
