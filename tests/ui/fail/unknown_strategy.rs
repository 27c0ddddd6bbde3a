// An unknown reduction strategy is a compile error at the string, listing the strategies.
#[dls::parallel]
fn sum(n: u64) -> u64 {
    let mut total = 0;
    #[par_doall(schedule = "gss", reduction = "fastest", reduce(+: total))]
    for i in 0..n {
        total += i;
    }
    total
}

fn main() {
    println!("{}", sum(10));
}
