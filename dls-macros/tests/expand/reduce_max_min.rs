// `reduce(max: ..)` and `reduce(min: ..)`, one clause with two variables and one with one.
#[dls::parallel]
fn extremes(v: &[f64]) -> (f64, f64, f64) {
    let mut hi = f64::NEG_INFINITY;
    let mut hi2 = f64::NEG_INFINITY;
    let mut lo = f64::INFINITY;
    #[par_doall(schedule = "af", reduce(max: hi, hi2), reduce(min: lo))]
    for i in 0..v.len() {
        hi = hi.max(v[i]);
        hi2 = hi2.max(2.0 * v[i]);
        lo = lo.min(v[i]);
    }
    (hi, hi2, lo)
}
