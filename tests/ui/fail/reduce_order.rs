// `unordered` goes with a merge function only (a built-in operator's merge never depends on
// order). (An order-keeping merge works in every loop kind: tests/ui/pass/combined_clauses.rs.)
#[dls::parallel]
fn builtin(n: u64) -> u64 {
    let mut total = 0;
    #[par_doall(reduce(+, unordered: total))]
    for i in 0..n {
        total += i;
    }
    total
}

fn main() {
    println!("{}", builtin(3));
}
