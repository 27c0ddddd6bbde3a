// A method the macro cannot tell from a change, on a variable declared `mut`: refused, with the
// form that compiles (`tests/ui/pass/reads_of_a_mut_buffer.rs` compiles it).
struct Grid(Vec<f64>);

impl Grid {
    fn energy(&self, i: usize) -> f64 {
        self.0[i] * self.0[i]
    }
}

#[dls::main]
fn main() {
    let n = 4_usize;
    let mut g = Grid(vec![1.0; n]);
    let mut total = 0.0;
    #[par_doall(reduce(+: total))]
    for i in 0..n {
        total += g.energy(i);
    }
    g.0[0] = total;
}
