// Clauses that compose: an order-keeping merge in a checked loop (`.ordered().check(..)`), in
// both levels of a two-level loop, and `shared(...)` with a `reduction` strategy.
#[dls::parallel]
fn words(v: &[String]) -> String {
    let mut text = String::new();
    #[par_doall(schedule = "fac2", check(anova: y), reduce(support::concat: text))]
    for i in 0..v.len() {
        let y = v[i].len() as f64;
        text = v[i].clone();
    }
    text
}

#[dls::parallel]
fn rows(m: usize, n: usize) -> String {
    let mut text = String::new();
    #[par_doall(schedule = "af", reduction = "tree", group(min = 2, max = 4), reduce(support::concat: text))]
    for j in 0..m {
        let mut row = String::new();
        #[par_doall(schedule = "gss", reduce(support::concat: row))]
        for i in 0..n {
            row = format!("{j}.{i} ");
        }
        text = row;
    }
    text
}

#[dls::parallel]
fn counted(n: u64, seen: &std::sync::Mutex<u64>) -> u64 {
    let mut total = 0_u64;
    #[par_doall(reduction = "tree", shared(seen), reduce(+: total))]
    for i in 0..n {
        *seen.lock().unwrap() += 1;
        total += i;
    }
    total
}
