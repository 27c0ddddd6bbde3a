// Outer variables changed in the body but named in no clause.
struct Lcg(u64);

impl Lcg {
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[dls::main]
fn main() {
    let n = 1000_usize;
    let mut hits = 0_u64;
    let mut best = 0.0_f64;
    let mut out = vec![0.0; n];
    let mut rng = Lcg(42);
    #[par_doall(schedule = "fac2")]
    for i in 0..n {
        let x = rng.next_f64();
        if x < 0.5 {
            hits += 1;
        }
        best = x;
        out[i] = x;
    }
    println!("{hits} {best} {}", out[0]);
}
