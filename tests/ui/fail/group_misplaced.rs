// group(...) on a loop without an inner #[par_doall] loop, and on an inner loop.
#[dls::parallel]
fn a(n: u64) -> u64 {
    let mut s = 0;
    #[par_doall(schedule = "af", group(min = 2, max = 4), reduce(+: s))]
    for i in 0..n {
        s += i;
    }
    s
}

#[dls::parallel]
fn b(n: u64) -> u64 {
    let mut t = 0;
    #[par_doall(reduce(+: t))]
    for j in 0..n {
        let mut s = 0;
        #[par_doall(group(max = 2), reduce(+: s))]
        for i in 0..j {
            s += i;
        }
        t += s;
    }
    t
}

fn main() {
    println!("{} {}", a(3), b(3));
}
