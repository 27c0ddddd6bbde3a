// An inner loop of a two-level loop combines as its outer loop does: `reduction` belongs there.
#[dls::parallel]
fn nested(m: u64) -> u64 {
    let mut total = 0;
    #[par_doall(schedule = "gss", group(min = 1, max = 2), reduce(+: total))]
    for j in 0..m {
        let mut s = 0;
        #[par_doall(schedule = "fac2", reduction = "tree", reduce(+: s))]
        for i in 0..j {
            s += i;
        }
        total += s;
    }
    total
}

fn main() {
    println!("{}", nested(10));
}
