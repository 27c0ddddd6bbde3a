// A parameter the technique does not take, and a parameter without a value.
#[dls::parallel]
fn sum(n: u64) -> u64 {
    let mut total = 0;
    #[par_doall(schedule = "ss,weights=1:2", reduce(+: total))]
    for i in 0..n {
        total += i;
    }
    total
}

#[dls::parallel]
fn count(n: u64) -> u64 {
    let mut total = 0;
    #[par_doall(schedule = "fac2,min", reduce(+: total))]
    for _ in 0..n {
        total += 1;
    }
    total
}

fn main() {
    println!("{} {}", sum(10), count(10));
}
