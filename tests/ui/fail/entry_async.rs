// The loops of an async fn would run on the executor's thread; the attributes refuse it.
#[dls::parallel]
async fn total(n: u64) -> u64 {
    let mut s = 0;
    #[par_doall(reduce(+: s))]
    for i in 0..n {
        s += i;
    }
    s
}

fn main() {
    let _ = total(3);
}
