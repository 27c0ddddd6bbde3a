// Only two levels of #[par_doall] loops are supported.
#[dls::parallel]
fn a(n: u64) -> u64 {
    let mut t = 0;
    #[par_doall(reduce(+: t))]
    for k in 0..n {
        let mut u = 0;
        #[par_doall(reduce(+: u))]
        for j in 0..k {
            let mut s = 0;
            #[par_doall(reduce(+: s))]
            for i in 0..j {
                s += i;
            }
            u += s;
        }
        t += u;
    }
    t
}

fn main() {
    println!("{}", a(3));
}
