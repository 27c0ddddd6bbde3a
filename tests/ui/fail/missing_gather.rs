// The book's "Your first parallel loop", step 2: the image is written but not gathered.
const WIDTH: usize = 64;
const HEIGHT: usize = 48;

fn escape_time(x: usize, y: usize) -> u32 {
    ((x * 7 + y * 13) % 50) as u32
}

fn shade(k: u32) -> u8 {
    (k * 5) as u8
}

#[dls::parallel]
fn render() -> Vec<u8> {
    let mut image = vec![0_u8; WIDTH * HEIGHT];
    #[par_doall(schedule = "fac2")]
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            image[y * WIDTH + x] = shade(escape_time(x, y));
        }
    }
    image
}

fn main() {
    println!("{}", render().len());
}
