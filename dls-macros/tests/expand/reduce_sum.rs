// `reduce(+: x)`: the value from before the loop is combined with the result.
#[dls::parallel]
fn sum(n: u64) -> u64 {
    let mut total = 0_u64;
    #[par_doall(schedule = "fac2", reduce(+: total))]
    for i in 0..n {
        total += i;
    }
    total
}
