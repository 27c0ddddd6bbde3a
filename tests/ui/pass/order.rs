// A merge function's partial results are combined in the iterates' order by default; with
// `unordered` (alone or with `identity =`) in any order.
fn cat(a: String, b: String) -> String {
    a + &b
}

fn add(mut a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    a
}

#[dls::parallel]
fn run(n: u64) -> (String, Vec<u64>, String) {
    let mut text = String::new();
    let mut hist = vec![0_u64; 3];
    let mut any = String::new();
    #[par_doall(
        schedule = "ss",
        reduce(cat: text),
        reduce(add, identity = vec![0; 3], unordered: hist),
        reduce(cat, unordered: any)
    )]
    for i in 0..n {
        text.push_str(&i.to_string());
        hist[(i % 3) as usize] += 1;
        any.push('x');
    }
    (text, hist, any)
}

fn main() {
    let (text, hist, any) = run(12);
    assert_eq!(text, "01234567891011");
    assert_eq!(hist, [4, 4, 4]);
    assert_eq!(any.len(), 12);
}
