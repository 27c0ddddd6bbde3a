// check(...) tests numbers: a checked value or predictor of another type is an error at it.
#[dls::parallel]
fn text(n: u64) -> u64 {
    let mut s = 0;
    #[par_doall(reduce(+: s), check(anova: y))]
    for i in 0..n {
        let y = format!("{i}");
        s += i;
    }
    s
}

#[dls::parallel]
fn wide(n: u64) -> f64 {
    let mut s = 0.0;
    #[par_doall(reduce(+: s), check(regression(x): y))]
    for i in 0..n {
        let x = i;
        let y = 2.0 * i as f64;
        s += y;
    }
    s
}

fn main() {
    println!("{} {}", text(3), wide(3));
}
