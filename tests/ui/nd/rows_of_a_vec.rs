// `for row in x.rows()` on a type that is no ndarray array: the error names what works.
struct Table(Vec<Vec<f64>>);

impl Table {
    fn rows(&self) -> std::slice::Iter<'_, Vec<f64>> {
        self.0.iter()
    }
}

#[dls::parallel]
fn total(t: &Table) -> f64 {
    let mut s = 0.0;
    #[par_doall(reduce(+: s))]
    for row in t.rows() {
        s += row.iter().sum::<f64>();
    }
    s
}

fn main() {
    let _ = total(&Table(vec![vec![1.0]]));
}
