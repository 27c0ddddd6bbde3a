// The places the attributes go: `main` returning a Result, a method taking `&mut self`, a generic
// function, and `#[dls::par_doall]` written with its crate path.
struct Stats {
    values: Vec<f64>,
}

impl Stats {
    #[dls::parallel]
    fn scale(&mut self, by: f64) {
        let n = self.values.len();
        let mut values = std::mem::take(&mut self.values);
        #[par_doall(gather(values))]
        for i in 0..n {
            values[i] *= by;
        }
        self.values = values;
    }
}

#[dls::parallel]
fn count<T: Sync>(items: &[T]) -> usize {
    let mut n = 0_usize;
    #[dls::par_doall(schedule = "ss", reduce(+: n))]
    for _item in items {
        n += 1;
    }
    n
}

#[dls::main]
fn main() -> Result<(), String> {
    let mut s = Stats { values: vec![1.0, 2.0, 3.0] };
    s.scale(2.0);
    if s.values != [2.0, 4.0, 6.0] || count(&["a", "b"]) != 2 {
        return Err(format!("wrong: {:?}", s.values));
    }
    Ok(())
}
