// `reduce(append: v)`: inside the body `v` is the iterate's `AppendSlot`; after the loop the
// items are appended in iteration order.
#[dls::parallel]
fn evens(v: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    #[par_doall(schedule = "ss", reduce(append: out))]
    for x in v {
        if x % 2 == 0 {
            out.push(*x);
        }
    }
    out
}
