// The ndarray forms compile in a crate that forbids unsafe code: gather into an Array2, reduce an
// Array1, loops over rows and outer_iter.
#![forbid(unsafe_code)]
use dls::ndarray::{Array1, Array2};

#[dls::parallel]
fn run(a: &Array2<f64>) -> (Array2<f64>, Array1<f64>, Array1<f64>) {
    let mut b = a.clone();
    #[par_doall(gather(b))]
    for i in 0..a.nrows() {
        for j in 0..a.ncols() {
            b[[i, j]] = 2.0 * a[[i, j]];
        }
    }
    let mut h = Array1::<f64>::zeros(a.ncols());
    #[par_doall(reduce(+: h))]
    for row in a.rows() {
        for (j, x) in row.iter().enumerate() {
            h[j] += x;
        }
    }
    let mut m = Array1::<f64>::zeros(a.nrows());
    #[par_doall(reduce(max: m))]
    for (i, sub) in a.outer_iter().enumerate() {
        m[i] = sub.sum();
    }
    (b, h, m)
}

fn main() {
    let a = Array2::from_shape_fn((4, 3), |(i, j)| (i * 3 + j) as f64);
    let (b, h, m) = run(&a);
    assert_eq!(b, &a * 2.0);
    assert_eq!(h, a.sum_axis(dls::ndarray::Axis(0)));
    assert_eq!(m, a.sum_axis(dls::ndarray::Axis(1)));
}
