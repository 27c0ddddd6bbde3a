// An unknown technique name: the error points at the string and lists the valid names.
#[dls::main]
fn main() {
    let mut total = 0_u64;
    #[par_doall(schedule = "fastest", reduce(+: total))]
    for i in 0..10_u64 {
        total += i;
    }
    println!("{total}");
}
