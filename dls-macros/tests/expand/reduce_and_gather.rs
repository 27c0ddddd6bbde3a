// `reduce` and `gather` together: one accumulator tuple, reductions first.
#[dls::parallel]
fn both(n: usize) -> (u64, Vec<u64>) {
    let mut total = 0_u64;
    let mut out = vec![0_u64; n];
    #[par_doall(schedule = "fac2", reduce(+: total), gather(out))]
    for i in 0..n {
        out[i] = i as u64;
        total += i as u64;
    }
    (total, out)
}
