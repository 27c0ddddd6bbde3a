// Issue 43, item 1: the in-place gather's `Place::new` is `unsafe`, and the generated code calls
// it in an `unsafe` block; that block carries the macro's span, so a crate that forbids unsafe
// code still uses `gather` (rustc does not report `unsafe_code` in an external macro's code).
// Both in-place forms: a body that only assigns (`GatherWriter`), and one that reads and
// updates at the index (`GatherAccess`); and a logged one (used beyond the index).
#![forbid(unsafe_code)]

#[dls::parallel]
fn fill(n: usize) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
    let mut assigned = vec![0_u64; n];
    let mut updated = vec![1_u64; n];
    let mut logged = vec![0_u64; n];
    #[par_doall(schedule = "ss", gather(assigned, updated, logged))]
    for i in 0..n {
        assigned[i] = 2 * i as u64;
        updated[i] += i as u64;
        if i + 1 < n {
            logged[i + 1] = i as u64;
        }
    }
    (assigned, updated, logged)
}

fn main() {
    let (assigned, updated, logged) = fill(100);
    assert!(assigned.iter().enumerate().all(|(i, &x)| x == 2 * i as u64));
    assert!(updated.iter().enumerate().all(|(i, &x)| x == 1 + i as u64));
    assert!(logged.iter().enumerate().all(|(i, &x)| x == i.saturating_sub(1) as u64));
}
