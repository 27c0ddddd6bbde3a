//! The irregular compute kernel shared by the `explicit_api` example and the `bench_threads`
//! benchmark (`benches/src/bin/bench_threads.rs`, which includes this file by path): the
//! total escape iterations of one row of the Mandelbrot image of [-2.2, 0.8] × [-1.2, 1.2]. Rows
//! through the set cost up to `max_iter` per pixel, rows outside it a few: an irregular loop.

/// Total escape iterations of row `y` of a `width` × `height` image, at most `max_iter` per pixel.
pub(crate) fn row_escape_sum(y: u32, width: usize, height: u32, max_iter: u32) -> u64 {
    let ci = -1.2 + 2.4 * y as f64 / height as f64;
    (0..width)
        .map(|x| {
            let cr = -2.2 + 3.0 * x as f64 / width as f64;
            let (mut zr, mut zi, mut k) = (0.0f64, 0.0f64, 0);
            while k < max_iter && zr * zr + zi * zi <= 4.0 {
                let t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                k += 1;
            }
            k as u64
        })
        .sum()
}
