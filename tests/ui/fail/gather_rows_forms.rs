// `gather(v: rows(n))` (issue 42): an unknown form, and a body that uses the vector whole.
#[dls::main]
fn main() {
    let n = 4_usize;
    let mut v = vec![0.0_f64; n * n];
    #[par_doall(gather(v: cols(n)))]
    for i in 0..n {
        v[i] = 1.0;
    }
    #[par_doall(gather(v: rows(n)))]
    for i in 0..n {
        for j in 0..n {
            v[i * n + j] = v.len() as f64;
        }
    }
}
