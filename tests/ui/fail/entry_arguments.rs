// #[dls::main] and #[dls::parallel] take no arguments.
#[dls::parallel(threads = 4)]
fn total(n: u64) -> u64 {
    let mut s = 0;
    #[par_doall(reduce(+: s))]
    for i in 0..n {
        s += i;
    }
    s
}

#[dls::main(schedule = "af")]
fn main() {
    println!("{}", total(3));
}
