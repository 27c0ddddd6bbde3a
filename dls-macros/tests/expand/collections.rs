// Loops over collections: `.iter()`, `.iter().enumerate()`, `&v` and a reference variable.
#[dls::parallel]
fn collections(v: Vec<u32>, r: &[u32]) -> u32 {
    let mut a = 0;
    let mut b = 0;
    let mut c = 0;
    let mut d = 0;
    #[par_doall(reduce(+: a))]
    for x in v.iter() {
        a += x;
    }
    #[par_doall(reduce(+: b))]
    for (i, x) in v.iter().enumerate() {
        b += x * i as u32;
    }
    #[par_doall(reduce(+: c))]
    for x in &v {
        c += x;
    }
    #[par_doall(reduce(+: d))]
    for x in r {
        d += x;
    }
    a + b + c + d
}
