// Clause variables whose type is not `Clone` where the clause copies values: `identity = …` gives
// every worker a copy of the start value, and gathered elements are copied into each worker's
// view. Each error is at the variable and says which clause needs `Clone`.
#[derive(Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct Count(u64);

fn add(a: Count, b: Count) -> Count {
    Count(a.0 + b.0)
}

#[dls::parallel]
fn counted(n: u64) -> Count {
    let mut c = Count(0);
    #[par_doall(reduce(add, identity = Count(0): c))]
    for i in 0..n {
        c = add(c, Count(i));
    }
    c
}

#[dls::parallel]
fn gathered(n: usize) -> Vec<Count> {
    let mut out: Vec<Count> = (0..n).map(|_| Count(0)).collect();
    #[par_doall(gather(out))]
    for i in 0..n {
        out[i] = Count(i as u64);
    }
    out
}

fn main() {
    println!("{:?} {:?}", counted(3), gathered(3));
}
