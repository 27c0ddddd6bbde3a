// `schedule = "runtime"` is passed on as text; the runtime reads DLS_SCHEDULE.
#[dls::parallel]
fn touch(n: u64) {
    #[par_doall(schedule = "runtime")]
    for i in 0..n {
        work(i);
    }
}
