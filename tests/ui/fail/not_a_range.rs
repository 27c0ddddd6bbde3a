// Loops over an iterator that cannot be split, over `&mut`, and over an endless range.
#[dls::parallel]
fn f(v: &mut Vec<u32>, words: &str) -> u32 {
    let mut total = 0;
    #[par_doall(reduce(+: total))]
    for w in words.split(' ') {
        total += w.len() as u32;
    }
    #[par_doall]
    for x in v.iter_mut() {
        *x += 1;
    }
    #[par_doall(reduce(+: total))]
    for i in 0.. {
        total += i;
    }
    total
}

fn main() {
    println!("{}", f(&mut vec![1], "a b"));
}
