// `schedule = "<spec>"` and `name = "<text>"`, on an inclusive range.
#[dls::parallel]
fn touch(n: u32) {
    #[par_doall(schedule = "gss,min=2", name = "rows")]
    for i in 1..=n {
        work(i);
    }
}
