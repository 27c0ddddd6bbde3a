// A variable in two clauses, and a schedule given twice.
#[dls::parallel]
fn f(n: usize) -> (u64, Vec<u64>) {
    let mut total = 0;
    let mut out = vec![0; n];
    #[par_doall(reduce(+: total), gather(out, total))]
    for i in 0..n {
        total += i as u64;
        out[i] = i as u64;
    }
    #[par_doall(schedule = "ss", schedule = "gss")]
    for i in 0..n {
        out[i] = 0;
    }
    (total, out)
}

fn main() {
    println!("{:?}", f(3));
}
