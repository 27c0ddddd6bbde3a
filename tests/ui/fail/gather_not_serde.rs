// A gathered vector whose elements cannot travel between workers (no serde Serialize and
// Deserialize): the error is at the variable, names the clause and how to derive them.
#[derive(Debug, Default, Clone)]
struct Pixel(u8);

#[dls::parallel]
fn image(n: usize) -> Vec<Pixel> {
    let mut out = vec![Pixel(0); n];
    #[par_doall(gather(out))]
    for i in 0..n {
        out[i] = Pixel(i as u8);
    }
    out
}

fn main() {
    println!("{:?}", image(3));
}
