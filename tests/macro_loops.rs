//! `#[par_doall]` loops give the serial result: every loop form (ranges of every integer type
//! with run-time bounds, `&v`, `v.iter()`, `v.iter().enumerate()` on Vec, slices and arrays),
//! every clause (reduce with +, *, max, min and user merge functions, gather) and `continue`.
//! Each parallel function is compared with the same loop without the attribute.

use std::collections::HashMap;

#[dls::parallel]
fn range_sum_i8(lo: i8, hi: i8) -> i64 {
    let mut total = 0_i64;
    #[par_doall(schedule = "ss", reduce(+: total))]
    for i in lo..=hi {
        total += i as i64 * 3;
    }
    total
}

#[dls::parallel]
fn range_sum_u128(lo: u128, n: u128) -> u128 {
    let mut total = 7_u128;
    #[par_doall(schedule = "gss", reduce(+: total))]
    for i in lo..lo + n {
        total += i % 1000;
    }
    total
}

#[dls::parallel]
fn range_sum_isize(lo: isize, hi: isize) -> isize {
    let mut total = 0;
    #[par_doall(schedule = "static", reduce(+: total))]
    for i in lo..hi {
        total += i;
    }
    total
}

#[test]
fn ranges_of_every_integer_type_with_run_time_bounds() {
    let serial = |lo: i8, hi: i8| (lo..=hi).map(|i| i as i64 * 3).sum::<i64>();
    for (lo, hi) in [(-128, 127), (5, 4), (0, 0), (-3, 9)] {
        assert_eq!(range_sum_i8(lo, hi), serial(lo, hi), "{lo}..={hi}");
    }
    let big = u128::MAX - 5000;
    let serial = 7 + (big..big + 3000).map(|i| i % 1000).sum::<u128>();
    assert_eq!(range_sum_u128(big, 3000), serial);
    assert_eq!(range_sum_u128(0, 0), 7);
    assert_eq!(range_sum_isize(-50, 77), (-50..77).sum::<isize>());
    assert_eq!(range_sum_isize(10, -10), 0);
}

#[dls::parallel]
fn all_operators(v: &[i64]) -> (i64, i64, i64, i64, f64) {
    let mut sum = 100;
    let mut product = 1_i64;
    let mut hi = i64::MIN;
    let mut lo = 0_i64;
    let mut fsum = 0.5_f64;
    #[par_doall(schedule = "fac2", reduce(+: sum, fsum), reduce(*: product), reduce(max: hi), reduce(min: lo))]
    for (i, &x) in v.iter().enumerate() {
        sum -= x;
        fsum += x as f64 * 0.25;
        if i % 10 == 0 {
            product *= x % 3 + 2;
        }
        if x > hi {
            hi = x;
        }
        lo = lo.min(x);
    }
    (sum, product, hi, lo, fsum)
}

#[test]
fn reduce_plus_times_max_min_combine_with_the_value_before_the_loop() {
    let v: Vec<i64> = (0..500).map(|k| (k * 7919) % 1013 - 300).collect();
    let (mut sum, mut product, mut hi, mut lo, mut fsum) = (100, 1_i64, i64::MIN, 0_i64, 0.5_f64);
    for (i, &x) in v.iter().enumerate() {
        sum -= x;
        fsum += x as f64 * 0.25;
        if i % 10 == 0 {
            product *= x % 3 + 2;
        }
        if x > hi {
            hi = x;
        }
        lo = lo.min(x);
    }
    let got = all_operators(&v);
    assert_eq!((got.0, got.1, got.2, got.3), (sum, product, hi, lo));
    // Quarters of integers are exact in f64, so even the float sum is identical.
    assert_eq!(got.4, fsum);
    assert_eq!(all_operators(&[]), (100, 1, i64::MIN, 0, 0.5));
}

fn merge_sorted(a: Vec<u32>, b: Vec<u32>) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] <= b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

mod counting {
    use std::collections::HashMap;

    pub(crate) fn add_counts(
        mut a: HashMap<String, u32>,
        b: HashMap<String, u32>,
    ) -> HashMap<String, u32> {
        for (word, n) in b {
            *a.entry(word).or_insert(0) += n;
        }
        a
    }
}

#[dls::parallel]
fn user_merges(words: &[&str]) -> (Vec<u32>, HashMap<String, u32>) {
    let mut lengths = Vec::new();
    let mut counts = HashMap::new();
    #[par_doall(schedule = "af", reduce(merge_sorted: lengths), reduce(counting::add_counts: counts))]
    for w in words.iter() {
        // Each iterate contributes a sorted (one-element) vector; merging keeps it sorted.
        lengths = merge_sorted(lengths, vec![w.len() as u32]);
        *counts.entry(w.to_string()).or_insert(0) += 1;
    }
    (lengths, counts)
}

#[test]
fn reduce_with_user_merge_functions() {
    let text = "the quick brown fox jumps over the lazy dog the end";
    let words: Vec<&str> = text.split(' ').cycle().take(333).collect();
    let (lengths, counts) = user_merges(&words);
    let mut serial_lengths: Vec<u32> = words.iter().map(|w| w.len() as u32).collect();
    serial_lengths.sort();
    let mut serial_counts = HashMap::new();
    for w in &words {
        *serial_counts.entry(w.to_string()).or_insert(0) += 1;
    }
    assert_eq!(lengths, serial_lengths);
    assert_eq!(counts, serial_counts);
}

#[dls::parallel]
fn gather_forms(v: &[f64], rows: usize, cols: usize) -> (Vec<f64>, [u8; 5], Vec<Vec<u16>>) {
    let mut squares = vec![-1.0; v.len()];
    #[par_doall(schedule = "tss", gather(squares))]
    for (i, x) in v.iter().enumerate() {
        if i % 4 == 3 {
            continue;
        }
        squares[i] = x * x;
    }
    let mut small = [9_u8; 5];
    #[par_doall(gather(small))]
    for i in 1..small.len() {
        small[i] += i as u8;
    }
    let mut grid = vec![vec![0_u16; cols]; rows];
    #[par_doall(schedule = "fac2", gather(grid))]
    for r in 0..rows {
        for c in 0..cols {
            grid[r][c] = (r * cols + c) as u16;
        }
    }
    (squares, small, grid)
}

#[test]
fn gather_writes_at_the_loop_index_including_rows_and_arrays() {
    let v: Vec<f64> = (0..257).map(|k| k as f64 / 8.0).collect();
    let (squares, small, grid) = gather_forms(&v, 13, 7);
    let serial: Vec<f64> = v
        .iter()
        .enumerate()
        .map(|(i, x)| if i % 4 == 3 { -1.0 } else { x * x })
        .collect();
    assert_eq!(squares, serial);
    assert_eq!(small, [9, 10, 11, 12, 13]);
    for (r, row) in grid.iter().enumerate() {
        for (c, &x) in row.iter().enumerate() {
            assert_eq!(x as usize, r * 7 + c);
        }
    }
}

#[dls::parallel]
fn gather_into_slice(out: &mut [i32], scale: i32) {
    #[par_doall(gather(out))]
    for i in 0..out.len() {
        out[i] *= scale;
    }
}

#[test]
fn gather_into_a_mutable_slice_parameter() {
    let mut v: Vec<i32> = (0..100).collect();
    gather_into_slice(&mut v[10..20], -2);
    let serial: Vec<i32> = (0..100)
        .map(|k| if (10..20).contains(&k) { -2 * k } else { k })
        .collect();
    assert_eq!(v, serial);
}

#[dls::parallel]
fn collections(v: &Vec<u64>, s: &[u64], a: [u64; 6]) -> (u64, u64, u64, u64) {
    let (mut x, mut y, mut z, mut w) = (0, 0, 0, 0);
    #[par_doall(reduce(+: x))]
    for e in v {
        x += e;
    }
    #[par_doall(reduce(+: y))]
    for e in s.iter() {
        y += *e * 2;
    }
    #[par_doall(reduce(+: z))]
    for (i, e) in a.iter().enumerate() {
        z += i as u64 * e;
    }
    #[par_doall(reduce(+: w))]
    for e in &a[2..] {
        w += e;
    }
    (x, y, z, w)
}

#[test]
fn vec_slice_and_array_by_reference_iter_and_enumerate() {
    let v: Vec<u64> = (1..=50).collect();
    let a = [3, 1, 4, 1, 5, 9];
    let got = collections(&v, &v[5..], a);
    assert_eq!(got.0, v.iter().sum::<u64>());
    assert_eq!(got.1, v[5..].iter().map(|e| e * 2).sum::<u64>());
    assert_eq!(
        got.2,
        a.iter().enumerate().map(|(i, e)| i as u64 * e).sum::<u64>()
    );
    assert_eq!(got.3, 4 + 1 + 5 + 9);
    assert_eq!(collections(&Vec::new(), &[], [0; 6]), (0, 0, 0, 0));
}

#[dls::parallel]
fn control_flow_inside(n: u32) -> (u32, u32) {
    let mut kept = 0;
    let mut inner = 0;
    #[par_doall(schedule = "ss", reduce(+: kept, inner))]
    'outer: for i in 0..n {
        if i % 2 == 0 {
            continue;
        }
        for j in 0..i {
            if j == 3 {
                break;
            }
            if j == 1 {
                continue;
            }
            if i % 5 == 0 {
                continue 'outer;
            }
            inner += 1;
        }
        let add = |k: u32| -> u32 {
            if k > 100 {
                return 0;
            }
            k
        };
        kept += add(i);
    }
    (kept, inner)
}

#[test]
fn continue_ends_the_iterate_and_inner_loops_keep_their_control_flow() {
    let n = 300;
    let (mut kept, mut inner) = (0, 0);
    'outer: for i in 0..n {
        if i % 2 == 0 {
            continue;
        }
        for j in 0..i {
            if j == 3 {
                break;
            }
            if j == 1 {
                continue;
            }
            if i % 5 == 0 {
                continue 'outer;
            }
            inner += 1;
        }
        kept += if i > 100 { 0 } else { i };
    }
    assert_eq!(control_flow_inside(n), (kept, inner));
}

struct Model {
    weights: Vec<f64>,
}

impl Model {
    #[dls::parallel]
    fn score(&self, scale: f64) -> f64 {
        let mut best = f64::NEG_INFINITY;
        #[par_doall(schedule = "awf-b", reduce(max: best))]
        for (i, w) in self.weights.iter().enumerate() {
            best = best.max(w * scale - i as f64);
        }
        best
    }
}

#[test]
fn methods_reach_self() {
    let m = Model {
        weights: (0..90).map(|k| ((k * 37) % 91) as f64).collect(),
    };
    let serial = m
        .weights
        .iter()
        .enumerate()
        .map(|(i, w)| w * 2.0 - i as f64)
        .fold(f64::NEG_INFINITY, f64::max);
    assert_eq!(m.score(2.0), serial);
}

fn cat(a: String, b: String) -> String {
    a + &b
}

fn add_len(a: usize, b: usize) -> usize {
    a + b
}

#[dls::parallel]
fn ordered_text(n: u64) -> (String, usize) {
    let mut text = String::new();
    let mut chars = 0;
    #[par_doall(schedule = "ss", reduce(cat: text), reduce(add_len, unordered: chars))]
    for i in 0..n {
        if i % 5 == 0 {
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        let piece = format!("{i};");
        chars += piece.len();
        text.push_str(&piece);
    }
    (text, chars)
}

/// Issue 10 item 3: a merge function without `unordered` is combined in the iterates' order
/// (SS on the default threads, uneven iterates: each worker's chunks are far apart).
#[test]
fn a_merge_function_is_combined_in_the_iterates_order() {
    let (text, chars) = ordered_text(300);
    let serial: String = (0..300).map(|i| format!("{i};")).collect();
    assert_eq!(text, serial);
    assert_eq!(chars, serial.len());
}

// LB4OMP's techniques are accepted by the attribute's compile-time check and give the serial
// result (static-steal hands its blocks' pieces out of index order; `gather` still places each
// value at its iterate).
#[dls::parallel]
fn squares_fac2a(n: u64) -> (u64, Vec<u64>) {
    let mut total = 0;
    let mut out = vec![0; n as usize];
    #[par_doall(schedule = "fac2a", reduce(+: total), gather(out))]
    for i in 0..n {
        total += i * i;
        out[i as usize] = i * i;
    }
    (total, out)
}

#[dls::parallel]
fn squares_faca(n: u64) -> (u64, Vec<u64>) {
    let mut total = 0;
    let mut out = vec![0; n as usize];
    #[par_doall(schedule = "faca,mu=1us,sigma=1us", reduce(+: total), gather(out))]
    for i in 0..n {
        total += i * i;
        out[i as usize] = i * i;
    }
    (total, out)
}

#[dls::parallel]
fn squares_af_a(n: u64) -> (u64, Vec<u64>) {
    let mut total = 0;
    let mut out = vec![0; n as usize];
    #[par_doall(schedule = "af-a", reduce(+: total), gather(out))]
    for i in 0..n {
        total += i * i;
        out[i as usize] = i * i;
    }
    (total, out)
}

#[dls::parallel]
fn squares_bold(n: u64) -> (u64, Vec<u64>) {
    let mut total = 0;
    let mut out = vec![0; n as usize];
    #[par_doall(schedule = "bold,mu=1us,sigma=1us,h=1us", reduce(+: total), gather(out))]
    for i in 0..n {
        total += i * i;
        out[i as usize] = i * i;
    }
    (total, out)
}

#[dls::parallel]
fn squares_static_steal(n: u64) -> (u64, Vec<u64>) {
    let mut total = 0;
    let mut out = vec![0; n as usize];
    #[par_doall(schedule = "static-steal,min=3", reduce(+: total), gather(out))]
    for i in 0..n {
        total += i * i;
        out[i as usize] = i * i;
    }
    (total, out)
}

#[test]
fn lb4omp_techniques_give_the_serial_result() {
    for n in [0u64, 1, 7, 1000] {
        let serial: Vec<u64> = (0..n).map(|i| i * i).collect();
        let want = (serial.iter().sum::<u64>(), serial);
        assert_eq!(squares_fac2a(n), want, "fac2a n={n}");
        assert_eq!(squares_faca(n), want, "faca n={n}");
        assert_eq!(squares_af_a(n), want, "af-a n={n}");
        assert_eq!(squares_bold(n), want, "bold n={n}");
        assert_eq!(squares_static_steal(n), want, "static-steal n={n}");
    }
}
