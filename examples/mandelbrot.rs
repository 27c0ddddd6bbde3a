//! Mandelbrot set: rows near the set take far longer than rows outside it, so the loop over rows
//! is irregular, which dynamic loop scheduling balances. The serial loop and the parallel loop
//! (the same loop with one attribute) are both run; the program checks that the images are
//! identical, exits with status 1 if not, and writes the image as a PGM file.
//!
//! ```text
//! cargo run --release --example mandelbrot [output.pgm]
//! cargo build --release --features mpi --example mandelbrot
//! mpirun -n 4 --oversubscribe target/release/examples/mandelbrot
//! ```
//!
//! `DLS_SCHEDULE=gss` changes the technique, `DLS_REPORT=1` prints the loop statistics.

use std::error::Error;
use std::time::Instant;

/// Image width and height in pixels, and the iteration limit.
const WIDTH: usize = 480;
const HEIGHT: usize = 320;
const MAX_ITER: u32 = 1500;

// ANCHOR: escape
/// Number of iterations of z -> z² + c before |z| > 2, for the pixel (x, y);
/// `MAX_ITER` inside the set.
fn escape_time(x: usize, y: usize) -> u32 {
    let cr = -2.2 + 3.0 * x as f64 / WIDTH as f64;
    let ci = -1.0 + 2.0 * y as f64 / HEIGHT as f64;
    let (mut zr, mut zi) = (0.0_f64, 0.0_f64);
    let mut k = 0;
    while k < MAX_ITER && zr * zr + zi * zi <= 4.0 {
        let t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        k += 1;
    }
    k
}

/// Grey level of an escape time: black inside the set, brighter for slower escape.
fn shade(k: u32) -> u8 {
    if k >= MAX_ITER {
        0
    } else {
        (255.0 * (k as f64).sqrt() / (MAX_ITER as f64).sqrt()) as u8
    }
}
// ANCHOR_END: escape

// ANCHOR: serial
fn render_serial() -> Vec<u8> {
    let mut image = vec![0_u8; WIDTH * HEIGHT];
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            image[y * WIDTH + x] = shade(escape_time(x, y));
        }
    }
    image
}
// ANCHOR_END: serial

// ANCHOR: parallel
#[dls::parallel]
fn render_parallel() -> Vec<u8> {
    let mut image = vec![0_u8; WIDTH * HEIGHT];
    #[par_doall(schedule = "fac2", gather(image))]
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            image[y * WIDTH + x] = shade(escape_time(x, y));
        }
    }
    image
}
// ANCHOR_END: parallel

/// Writes a binary PGM (P5) image.
fn write_pgm(path: &str, image: &[u8]) -> std::io::Result<()> {
    let mut bytes = format!("P5\n{WIDTH} {HEIGHT}\n255\n").into_bytes();
    bytes.extend_from_slice(image);
    std::fs::write(path, bytes)
}

// ANCHOR: main
#[dls::main]
fn main() -> Result<(), Box<dyn Error>> {
    let rank = dls::current()?.rank();

    let t = Instant::now();
    let serial = render_serial();
    let serial_s = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let parallel = render_parallel();
    let parallel_s = t.elapsed().as_secs_f64();

    if parallel != serial {
        let wrong = serial.iter().zip(&parallel).filter(|(a, b)| a != b).count();
        let what = "pixels differ between serial and parallel";
        return Err(format!("rank {rank}: {wrong} {what}").into());
    }
    if rank == 0 {
        let default = std::env::temp_dir().join("mandelbrot.pgm");
        let path = std::env::args()
            .nth(1)
            .unwrap_or_else(|| default.display().to_string());
        write_pgm(&path, &parallel)?;
        println!(
            "mandelbrot {WIDTH}x{HEIGHT}: parallel image == serial image; \
             serial {serial_s:.3} s, parallel {parallel_s:.3} s; wrote {path}"
        );
    }
    Ok(())
}
// ANCHOR_END: main
