// `reduce(+: forces)` on a vector (each worker starts from the identity shaped like it, `pick`
// chooses the element-wise operator), `reduce(max: best)` on a map.
#[dls::parallel]
fn nbody(x: &[f64]) -> (Vec<f64>, std::collections::BTreeMap<u8, f64>) {
    let n = x.len();
    let mut forces = vec![0.0; n];
    let mut best = std::collections::BTreeMap::new();
    #[par_doall(schedule = "gss", reduce(+: forces), reduce(max: best))]
    for i in 0..n {
        for j in (i + 1)..n {
            let f = 1.0 / (x[j] - x[i]);
            forces[i] += f;
            forces[j] -= f;
        }
        let b = best.entry((i % 2) as u8).or_insert(f64::MIN);
        *b = b.max(x[i]);
    }
    (forces, best)
}
