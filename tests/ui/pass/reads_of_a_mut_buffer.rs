// Issue 42: methods that only read, called on a buffer declared `mut` (a time loop swaps it
// after the parallel loop), pass; so does the rebinding without `mut` the old error suggested.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct Cell3([f64; 3]);

impl Cell3 {
    /// A method of the program's own that only reads.
    fn energy(&self) -> f64 {
        self.0.iter().map(|x| x * x).sum()
    }
}

#[dls::main]
fn main() {
    let n = 8_usize;
    let mut u = vec![Cell3([1.0; 3]); n];
    let mut v = vec![Cell3::default(); n];
    for _step in 0..2 {
        #[par_doall(gather(v))]
        for i in 0..n {
            let mut c = u[i].clone();
            c.0[0] += u.len() as f64;
            v[i] = c;
        }
        std::mem::swap(&mut u, &mut v);
    }
    let mut w = vec![0.0_f64; n];
    let mut total = 0.0;
    {
        let w = w.clone();
        #[par_doall(reduce(+: total))]
        for i in 0..n {
            total += w.iter().sum::<f64>() + w[i].abs();
        }
    }
    w[0] = total;
    // The form the error on a method it cannot tell suggests: a borrow made before the loop.
    let mut energy = 0.0;
    let u_ref = &u;
    #[par_doall(reduce(+: energy))]
    for i in 0..n {
        energy += u_ref[i].energy();
    }
    assert!(energy > 0.0);
    assert_eq!(u[0].0[0], 1.0 + 2.0 * n as f64);
    assert_eq!(w[0], 0.0);
}
