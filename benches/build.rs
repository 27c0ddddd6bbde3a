//! Compiles the C baselines of the benchmarks (issue 29): `c/mandelbrot_omp.c`, with OpenMP
//! (`-fopenmp -O2`, gcc's libgomp), for the `omp-dynamic1` and `omp-guided` rows of
//! `mandelbrot_pixels`.

fn main() {
    println!("cargo:rerun-if-changed=c/mandelbrot_omp.c");
    cc::Build::new()
        .file("c/mandelbrot_omp.c")
        .opt_level(2)
        .flag("-fopenmp")
        .compile("dls_bench_omp");
    println!("cargo:rustc-link-lib=gomp");
}
