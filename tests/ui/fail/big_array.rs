// Issue 27 (a new user's trial): an array of more than 32 elements in reduce(...) failed with
// "derive Serialize for a type of your own", which cannot help: the note now says that serde
// serialises arrays of at most 32 elements and to use a Vec.
#[dls::main]
fn main() {
    let mut hist = [0_u64; 64];
    #[par_doall(schedule = "fac2", reduce(+: hist))]
    for i in 0..1000_usize {
        hist[i % 64] += 1;
    }
    println!("{}", hist[0]);
}
