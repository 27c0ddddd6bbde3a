// The built-in merges: element-wise +, *, max, min on Vec, arrays, Box<[T]> and nested vectors;
// + and max on maps; append; a merge function with an identity value; + on a type with Add and
// Default; a user function named like an operator, reached by its path.
use std::collections::{BTreeMap, HashMap};

fn add(a: Vec<f64>, b: Vec<f64>) -> Vec<f64> {
    a.into_iter().zip(b).map(|(x, y)| x + y).collect()
}

mod ops {
    // Not the built-in `append`: a path names a user function.
    pub fn append(mut a: Vec<u8>, b: Vec<u8>) -> Vec<u8> {
        a.extend(b);
        a.sort();
        a
    }
}

#[derive(Debug, Default, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
struct Meters(u64);

impl std::ops::Add for Meters {
    type Output = Meters;
    fn add(self, o: Meters) -> Meters {
        Meters(self.0 + o.0)
    }
}

type All = (
    Vec<f64>,
    [u32; 3],
    Box<[i64]>,
    Vec<[f64; 2]>,
    Vec<Vec<u8>>,
    HashMap<String, u64>,
    BTreeMap<u8, f32>,
    Vec<usize>,
    Vec<f64>,
    Meters,
    Vec<u8>,
);

#[dls::parallel]
fn all(n: usize) -> All {
    let mut forces = vec![0.0; n];
    let mut prod = [1_u32; 3];
    let mut lo: Box<[i64]> = vec![0; 2].into();
    let mut pairs = vec![[0.0; 2]; n];
    let mut hi = vec![vec![0_u8; 2]; 2];
    let mut counts = HashMap::new();
    let mut best = BTreeMap::new();
    let mut order = Vec::new();
    let mut hist = vec![0.0; 4];
    let mut total = Meters(0);
    let mut merged = Vec::new();
    #[par_doall(
        schedule = "gss",
        reduce(+: forces, pairs, counts, total),
        reduce(*: prod),
        reduce(min: lo),
        reduce(max: hi, best),
        reduce(append: order),
        reduce(add, identity = vec![0.0; 4]: hist),
        reduce(ops::append: merged)
    )]
    for i in 0..n {
        for j in i + 1..n {
            forces[i] += 1.0;
            forces[j] -= 1.0;
        }
        prod[i % 3] *= 2;
        lo[i % 2] = lo[i % 2].min(-(i as i64));
        pairs[i][1] += 0.5;
        hi[i % 2][0] = hi[i % 2][0].max(i as u8);
        *counts.entry(format!("k{}", i % 3)).or_insert(0) += 1;
        let b = best.entry((i % 2) as u8).or_insert(0.0_f32);
        *b = b.max(i as f32);
        if i % 2 == 0 {
            order.push(i);
        }
        hist[i % 4] += 1.0;
        total = total + Meters(i as u64);
        merged.push(i as u8);
    }
    (forces, prod, lo, pairs, hi, counts, best, order, hist, total, merged)
}

fn main() {
    let (forces, prod, lo, pairs, hi, counts, best, order, hist, total, merged) = all(6);
    assert_eq!(forces, [5.0, 3.0, 1.0, -1.0, -3.0, -5.0]);
    assert_eq!(prod, [4, 4, 4]);
    assert_eq!(&*lo, &[-4, -5]);
    assert_eq!(pairs, vec![[0.0, 0.5]; 6]);
    assert_eq!(hi, [vec![4, 0], vec![5, 0]]);
    assert_eq!((counts["k0"], counts["k1"], counts["k2"]), (2, 2, 2));
    assert_eq!(best, BTreeMap::from([(0, 4.0), (1, 5.0)]));
    assert_eq!(order, [0, 2, 4]);
    assert_eq!(hist, [2.0, 2.0, 1.0, 1.0]);
    assert_eq!(total, Meters(15));
    assert_eq!(merged, [0, 1, 2, 3, 4, 5]);
}
