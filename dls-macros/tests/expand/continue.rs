// `continue` ends the iterate: it becomes `break '__dls_iterate` out of a labelled block.
#[dls::parallel]
fn odd_sum(n: u64) -> u64 {
    let mut total = 0;
    #[par_doall(reduce(+: total))]
    'rows: for i in 0..n {
        if i % 2 == 0 {
            continue;
        }
        for j in 0..3 {
            if j == i {
                continue 'rows;
            }
        }
        total += i;
    }
    total
}
