// Invalid group sizes: min above max, min = 0, an unknown bound, a bound given twice.
#[dls::parallel]
fn a(n: u64) {
    #[par_doall(group(min = 4, max = 2))]
    for j in 0..n {
        #[par_doall]
        for i in 0..j {
            let _ = i;
        }
    }
}

#[dls::parallel]
fn b(n: u64) {
    #[par_doall(group(min = 0))]
    for j in 0..n {
        #[par_doall]
        for i in 0..j {
            let _ = i;
        }
    }
}

#[dls::parallel]
fn c(n: u64) {
    #[par_doall(group(size = 3))]
    for j in 0..n {
        #[par_doall]
        for i in 0..j {
            let _ = i;
        }
    }
}

#[dls::parallel]
fn d(n: u64) {
    #[par_doall(group(max = 3, max = 4))]
    for j in 0..n {
        #[par_doall]
        for i in 0..j {
            let _ = i;
        }
    }
}

fn main() {
    a(1);
    b(1);
    c(1);
    d(1);
}
