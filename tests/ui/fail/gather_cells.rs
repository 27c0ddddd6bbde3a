// Issue 27 (a new user's trial): `table[k / cols][k % cols] = ...` under gather(table) from a flat
// loop aborted at run time ("element 0 written by two iterates"): a whole row is one element of
// a vector of rows. It is a compile error naming the forms that work.
#[dls::main]
fn main() {
    let (rows, cols) = (4_usize, 5_usize);
    let mut table = vec![vec![0.0_f64; cols]; rows];
    #[par_doall(schedule = "fac2", gather(table))]
    for k in 0..rows * cols {
        table[k / cols][k % cols] = k as f64;
    }
    println!("{table:?}");
}
