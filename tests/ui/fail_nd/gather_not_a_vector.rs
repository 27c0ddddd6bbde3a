// gather(...) writes into a Vec, an array or a slice, not into a map.
use std::collections::HashMap;

#[dls::parallel]
fn squares(n: u32) -> HashMap<u32, u32> {
    let mut out: HashMap<u32, u32> = HashMap::new();
    #[par_doall(gather(out))]
    for i in 0..n {
        out.insert(i, i * i);
    }
    out
}

fn main() {
    println!("{:?}", squares(3));
}
