::core::compile_error! {
    "`total` is declared outside the #[par_doall] loop and changed in its body, but iterates run in parallel on different workers; if it accumulates a result, add the clause reduce(+: total)"
}
fn broken(n: u64) -> u64 {
    let mut total = 0;
    for i in 0..n {
        total += i;
    }
    total
}
