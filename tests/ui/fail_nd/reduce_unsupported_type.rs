// Types the built-in operators cannot combine: `+` on a String, `max` on a type with `Add` (only
// `+` accepts those), `append` into something that is not a Vec. Each error is at the variable.
use serde::{Deserialize, Serialize};

#[derive(Debug, Default, Clone, Copy, Serialize, Deserialize)]
struct Meters(f64);

impl std::ops::Add for Meters {
    type Output = Meters;
    fn add(self, o: Meters) -> Meters {
        Meters(self.0 + o.0)
    }
}

#[dls::parallel]
fn text(words: &[&str]) -> String {
    let mut all = String::new();
    #[par_doall(reduce(+: all))]
    for w in words {
        all.push_str(w);
    }
    all
}

#[dls::parallel]
fn longest(v: &[f64]) -> Meters {
    let mut best = Meters(0.0);
    #[par_doall(reduce(max: best))]
    for &x in v {
        if x > best.0 {
            best = Meters(x);
        }
    }
    best
}

#[dls::parallel]
fn count(n: u64) -> u64 {
    let mut total = 0_u64;
    #[par_doall(reduce(append: total))]
    for i in 0..n {
        total.push(i);
    }
    total
}

fn main() {
    println!("{} {:?} {}", text(&["a"]), longest(&[1.0]), count(3));
}
