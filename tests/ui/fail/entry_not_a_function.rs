// #[dls::main] and #[dls::parallel] go on a function with a body.
#[dls::parallel]
struct Grid {
    cells: Vec<f64>,
}

#[dls::main]
const N: usize = 3;

fn main() {
    let g = Grid { cells: vec![0.0; N] };
    println!("{}", g.cells.len());
}
