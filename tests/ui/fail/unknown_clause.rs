// An unknown clause, an unknown reduction operator, and #[par_doall] on something not a `for`.
#[dls::parallel]
fn a(v: &[f64]) -> f64 {
    let mut s = 0.0;
    #[par_doall(schedule = "gss", private(s))]
    for x in v {
        s += x;
    }
    s
}

#[dls::parallel]
fn b(v: &[u32]) -> u32 {
    let mut s = 0;
    #[par_doall(reduce(-: s))]
    for x in v {
        s -= x;
    }
    s
}

#[dls::parallel]
fn c(mut n: u32) -> u32 {
    #[par_doall]
    while n > 1 {
        n /= 2;
    }
    n
}

fn main() {
    println!("{} {} {}", a(&[1.0]), b(&[1]), c(8));
}
