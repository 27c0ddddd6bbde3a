// The ndarray forms: loops over `a.rows()` and `a.outer_iter().enumerate()` become loops over the
// lane's index (`__private::rows_of`, `outer_of`, `Lanes`); a gathered array written at
// `b[[i, j]]` is seen through the view its type picks (`ViewOf`) and a slot per iterate
// (`gather_slot`).
#[dls::parallel]
fn lanes(a: &Array2<f64>) -> f64 {
    let mut s = 0.0;
    #[par_doall(reduce(+: s))]
    for row in a.rows() {
        s += row.sum();
    }
    #[par_doall(reduce(+: s))]
    for (i, sub) in a.outer_iter().enumerate() {
        s += sub[0] * i as f64;
    }
    s
}

#[dls::parallel]
fn stencil(a: &Array2<f64>) -> Array2<f64> {
    let mut b = a.clone();
    #[par_doall(gather(b))]
    for i in 1..a.nrows() - 1 {
        for j in 0..a.ncols() {
            b[[i, j]] = a[[i - 1, j]] + a[[i + 1, j]];
        }
    }
    b
}
