// `reduction = "..."` names how the partial results travel between ranks.
#[dls::parallel]
fn sum(n: u64) -> u64 {
    let mut total = 0;
    #[par_doall(schedule = "gss", reduction = "pipeline", reduce(+: total))]
    for i in 0..n {
        total += i;
    }
    total
}

fn main() {
    assert_eq!(sum(100), 4950);
}
