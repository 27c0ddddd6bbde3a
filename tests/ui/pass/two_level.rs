// A two-level loop with group bounds, and two inner loops in one outer iterate.
#[dls::parallel]
fn nested(m: u64) -> (u64, u64) {
    let mut a = 0_u64;
    let mut b = 0_u64;
    #[par_doall(schedule = "af", group(min = 1, max = 2), reduce(+: a, b))]
    for j in 0..m {
        let mut s = 0_u64;
        #[par_doall(schedule = "gss", reduce(+: s))]
        for i in 0..j {
            s += i;
        }
        let mut t = 0_u64;
        #[par_doall(reduce(max: t))]
        for i in 0..=j {
            t = t.max(i);
        }
        a += s;
        b += t;
    }
    (a, b)
}

// What tests/ui/fail/inner_clause_of_outer_variable.rs is told to write: the inner loops gather
// and reduce into variables of the outer body, which the outer loop's clauses combine.
#[dls::parallel]
fn parts(m: usize, n: usize) -> (Vec<Vec<u64>>, u64) {
    let mut out = vec![Vec::new(); m];
    let mut t = 0_u64;
    #[par_doall(group(min = 1, max = 2), gather(out), reduce(+: t))]
    for j in 0..m {
        let mut part = vec![0_u64; n];
        #[par_doall(gather(part))]
        for i in 0..n {
            part[i] = (i * j) as u64;
        }
        out[j] = part;
        let mut s = 0_u64;
        #[par_doall(reduce(+: s))]
        for i in 0..j as u64 {
            s += i;
        }
        t += s;
    }
    (out, t)
}

#[dls::main]
fn main() {
    assert_eq!(nested(5), (0 + 0 + 1 + 3 + 6, 0 + 1 + 2 + 3 + 4));
    let (out, t) = parts(3, 2);
    assert_eq!(out, [vec![0, 0], vec![0, 1], vec![0, 2]]);
    assert_eq!(t, 0 + 0 + 1);
}
