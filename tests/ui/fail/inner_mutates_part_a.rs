// An inner loop that changes a variable of part A without naming it in reduce/gather.
#[dls::parallel]
fn a(n: u64) -> u64 {
    let mut t = 0;
    #[par_doall(group(min = 1, max = 2), reduce(+: t))]
    for j in 0..n {
        let mut s = 0;
        #[par_doall(schedule = "fac2")]
        for i in 0..j {
            s += i;
        }
        t += s;
    }
    t
}

fn main() {
    println!("{}", a(3));
}
