// `gather(v)` over a Vec and over a `&mut [T]` parameter.
#[dls::parallel]
fn squares(out: &mut [f64], n: usize) -> Vec<f64> {
    let mut v = vec![0.0; n];
    #[par_doall(schedule = "gss", gather(v, out))]
    for i in 0..n {
        v[i] = (i * i) as f64;
        out[i] += 1.0;
    }
    v
}
