// `reduce(path::to::merge_fn: x)`: a user merge function.
#[dls::parallel]
fn histogram(v: &[u8]) -> Vec<u64> {
    let mut counts: Vec<u64> = Vec::new();
    #[par_doall(schedule = "ss", reduce(support::add_counts: counts))]
    for i in 0..v.len() {
        counts = support::one(v[i]);
    }
    counts
}
