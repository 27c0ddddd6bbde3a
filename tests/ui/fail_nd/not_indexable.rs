// `&collection` of a type that cannot be indexed by position, and a range of floats.
use std::collections::HashMap;

#[dls::parallel]
fn f(m: &HashMap<String, u32>) -> u32 {
    let mut total = 0;
    #[par_doall(reduce(+: total))]
    for (_k, v) in m.iter() {
        total += v;
    }
    total
}

fn main() {
    println!("{}", f(&HashMap::new()));
}
