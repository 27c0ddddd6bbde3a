// `gather(v)` on an ndarray view: a compile error that says to gather into an owned copy.
use dls::ndarray::{Array2, ArrayViewMut2};

#[dls::parallel]
fn fill(mut v: ArrayViewMut2<'_, f64>) {
    #[par_doall(gather(v))]
    for i in 0..v.nrows() {
        v[[i, 0]] = 1.0;
    }
}

fn main() {
    let mut a = Array2::<f64>::zeros((3, 3));
    fill(a.view_mut());
}
