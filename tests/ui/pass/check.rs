// check(anova: y): the loop tests across workers the values of the body's `y`; `continue`
// before `y` is reached yields no value; `exchangeable` keeps the iterates' own order.
#[dls::parallel]
fn sums(n: u64) -> (f64, u64) {
    let mut area = 0.0;
    let mut kept = 0;
    #[par_doall(schedule = "gss", reduce(+: area), check(anova: y))]
    for i in 0..n {
        let y = ((i % 10) as f64).sqrt();
        area += y;
    }
    #[par_doall(reduce(+: kept), check(anova, exchangeable: v))]
    for i in 0..n {
        if i % 3 == 0 {
            continue;
        }
        let v = (i % 5) as u32;
        kept += 1;
    }
    (area, kept)
}

// check(regression(x): y): each iterate yields a row.
#[dls::parallel]
fn fit(n: u64) -> [f64; 2] {
    let mut sums = [0.0; 2];
    #[par_doall(reduce(+: sums), check(regression(x, x2): y))]
    for i in 0..n {
        let x = i as f64;
        let x2 = (i % 7) as f32;
        let y = 1.0 + 2.0 * x;
        sums[0] += x;
        sums[1] += y;
    }
    sums
}

fn main() {
    let (area, kept) = sums(100);
    assert!((area - 10.0 * (0..10).map(|k| (k as f64).sqrt()).sum::<f64>()).abs() < 1e-9);
    assert_eq!(kept, 66);
    assert_eq!(fit(10), [45.0, 100.0]);
}
