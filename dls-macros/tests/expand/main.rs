//! Input of the expansion snapshots (`src/snapshots.rs`): `#[dls::main]` and a reduction.
// `#[dls::main]` starts the runtime first (or exits with status 1).
#[dls::main]
fn main() {
    let mut total = 0_u64;
    #[par_doall(reduce(+: total))]
    for i in 0..10_u64 {
        total += i;
    }
    println!("{total}");
}
