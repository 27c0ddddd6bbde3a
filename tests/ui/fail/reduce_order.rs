// `unordered` goes with a merge function only; a two-level loop combines in any order, so its
// merge functions must say `unordered`.
fn add(a: u64, b: u64) -> u64 {
    a + b
}

#[dls::parallel]
fn builtin(n: u64) -> u64 {
    let mut total = 0;
    #[par_doall(reduce(+, unordered: total))]
    for i in 0..n {
        total += i;
    }
    total
}

#[dls::parallel]
fn two_level(m: u64) -> u64 {
    let mut total = 0;
    #[par_doall(schedule = "gss", group(min = 1, max = 2), reduce(add: total))]
    for j in 0..m {
        let mut s = 0;
        #[par_doall(reduce(+: s))]
        for i in 0..j {
            s += i;
        }
        total += s;
    }
    total
}

fn main() {
    println!("{} {}", builtin(3), two_level(3));
}
