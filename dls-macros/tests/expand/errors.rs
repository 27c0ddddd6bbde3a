// On an error the expansion is the errors followed by the function without its loop attributes.
#[dls::parallel]
fn broken(n: u64) -> u64 {
    let mut total = 0;
    #[par_doall(schedule = "fac2")]
    for i in 0..n {
        total += i;
    }
    total
}
