// `#[par_doall]` without clauses: schedule "runtime", a unit accumulator.
#[dls::parallel]
fn touch(n: u64) {
    #[par_doall]
    for i in 0..n {
        work(i);
    }
}
