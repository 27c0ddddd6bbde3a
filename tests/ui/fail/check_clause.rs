// The check clause: an unknown test, an unknown option, a merge that depends on order, and a check
// on the outer loop of a two-level loop.
fn cat(a: String, b: String) -> String {
    a + &b
}

#[dls::parallel]
fn unknown_test(n: u64) -> f64 {
    let mut s = 0.0;
    #[par_doall(reduce(+: s), check(kruskal: y))]
    for i in 0..n {
        let y = i as f64;
        s += y;
    }
    s
}

#[dls::parallel]
fn unknown_option(n: u64) -> f64 {
    let mut s = 0.0;
    #[par_doall(reduce(+: s), check(anova, fast: y))]
    for i in 0..n {
        let y = i as f64;
        s += y;
    }
    s
}

#[dls::parallel]
fn on_the_outer_loop(m: u64) -> f64 {
    let mut total = 0.0;
    #[par_doall(group(min = 1, max = 2), reduce(+: total), check(anova: y))]
    for j in 0..m {
        let mut s = 0.0;
        #[par_doall(reduce(+: s))]
        for i in 0..j {
            s += i as f64;
        }
        let y = s;
        total += y;
    }
    total
}

fn main() {
    println!(
        "{} {} {}",
        unknown_test(3),
        unknown_option(3),
        on_the_outer_loop(3)
    );
}
