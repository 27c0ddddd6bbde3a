// `reduce(merge, identity = <expr>: x)`: the identity is evaluated once before the loop; each
// worker starts from a clone of it, kept in an `Option` (the type need not be `Default`).
#[dls::parallel]
fn histogram(v: &[usize], bins: usize) -> Vec<f64> {
    let mut hist = vec![0.0; bins];
    #[par_doall(schedule = "fac2", reduce(support::add_vecs, identity = vec![0.0; bins]: hist))]
    for i in 0..v.len() {
        hist[v[i] % bins] += 1.0;
    }
    hist
}
