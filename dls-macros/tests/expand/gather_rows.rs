// `gather(v: rows(n))`: a sweep that only assigns its row, and one that reads it too.
#[dls::parallel]
fn sweep(u: &[f64], n: usize) -> Vec<f64> {
    let mut v = vec![0.0; n * n];
    #[par_doall(gather(v: rows(n)))]
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            v[i * n + j] = u[i * n + j - 1] + u[i * n + j + 1];
        }
    }
    #[par_doall(gather(v: rows(n)))]
    for i in 0..n {
        for j in 0..n {
            v[i * n + j] *= 0.5;
        }
    }
    v
}
