// Issue 27 (a new user's trial): the error for each change names the clause that works.
// `counts[k] += 1` (a histogram) needs reduce(+: counts), not gather; `hits.push(i)` needs
// reduce(append: hits); `seen.insert(i)` a merge function.
use std::collections::HashSet;

#[dls::main]
fn main() {
    let n = 1000_usize;
    let mut counts = vec![0_u64; 10];
    let mut hits = Vec::new();
    let mut seen = HashSet::new();
    #[par_doall(schedule = "fac2")]
    for i in 0..n {
        counts[i % 10] += 1;
        hits.push(i);
        seen.insert(i % 7);
    }
    println!("{counts:?} {} {}", hits.len(), seen.len());
}
