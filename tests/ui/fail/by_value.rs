// A variable holding a Vec (not a reference to one) would be iterated by value.
#[dls::parallel]
fn total(v: Vec<u64>) -> u64 {
    let mut s = 0;
    #[par_doall(reduce(+: s))]
    for x in v {
        s += x;
    }
    s
}

fn main() {
    println!("{}", total(vec![1, 2]));
}
