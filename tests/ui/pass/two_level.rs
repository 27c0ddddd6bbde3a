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

#[dls::main]
fn main() {
    assert_eq!(nested(5), (0 + 0 + 1 + 3 + 6, 0 + 1 + 2 + 3 + 4));
}
