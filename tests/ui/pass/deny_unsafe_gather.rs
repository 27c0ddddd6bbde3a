// As `forbid_unsafe_gather.rs`, under `#![deny(unsafe_code)]` and `#[dls::main]`: the in-place
// gather's `unsafe` block is the macro's, not the user's.
#![deny(unsafe_code)]

#[dls::main]
fn main() {
    let n = 64_usize;
    let mut out = vec![0.0_f64; n];
    #[par_doall(schedule = "fac2", gather(out))]
    for i in 0..n {
        out[i] = (i * i) as f64;
    }
    assert!(out.iter().enumerate().all(|(i, &x)| x == (i * i) as f64));
}
