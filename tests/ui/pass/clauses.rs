// Every clause together in one loop, with `continue`, a labelled inner loop, other attributes on
// the loop, and a loop that no attribute touches.
fn merge_max_len(a: Vec<u8>, b: Vec<u8>) -> Vec<u8> {
    if a.len() >= b.len() {
        a
    } else {
        b
    }
}

#[dls::parallel]
fn work(n: usize) -> (u64, f64, i32, Vec<u8>, Vec<usize>) {
    let mut sum = 0_u64;
    let mut prod = 1.0_f64;
    let mut lo = i32::MAX;
    let mut longest: Vec<u8> = Vec::new();
    let mut out = vec![0_usize; n];
    #[allow(unused_labels)]
    #[par_doall(
        schedule = "fac2",
        name = "all clauses",
        reduce(+: sum),
        reduce(*: prod),
        reduce(min: lo),
        reduce(merge_max_len: longest),
        gather(out)
    )]
    'outer: for i in 0..n {
        if i == 3 {
            continue;
        }
        'inner: for j in 0..i {
            if j == 2 {
                break 'inner;
            }
        }
        sum += i as u64;
        prod *= 1.0;
        lo = lo.min(i as i32);
        longest = vec![0; i];
        out[i] = i * 2;
    }
    let mut serial = 0;
    for i in 0..n {
        serial += i;
    }
    assert_eq!(sum as usize, serial - 3);
    (sum, prod, lo, longest, out)
}

fn main() {
    let (sum, prod, lo, longest, out) = work(10);
    assert_eq!((sum, prod, lo, longest.len()), (42, 1.0, 0, 9));
    assert_eq!(out[3], 0);
    assert_eq!(out[9], 18);
}
