/* The OpenMP baseline of `mandelbrot_pixels` (issue 29): the same kernel as `pixel()` in
 * benches/src/bin/mandelbrot_pixels.rs, one iterate per pixel of a w x h image, row-major,
 * x in [-2, 1), y in [-1.5, 1.5), at most `maxiter` iterations per pixel, the total of the
 * iteration counts as the result. Compiled by benches/build.rs with `-fopenmp -O2` (gcc's
 * libgomp).
 *
 * mode 0: the serial loop (no OpenMP); 1: `schedule(dynamic,1)`; 2: `schedule(guided)`;
 * both parallel modes on `threads` threads with `reduction(+: total)`. */
#include <stdint.h>

static uint64_t pixel(uint64_t i, uint64_t w, uint64_t h, uint32_t maxiter)
{
    uint64_t px = i % w, py = i / w;
    double cx = -2.0 + 3.0 * (double)px / (double)w;
    double cy = -1.5 + 3.0 * (double)py / (double)h;
    double x = 0.0, y = 0.0;
    uint32_t k = 0;
    while (k < maxiter && x * x + y * y <= 4.0) {
        double t = x * x - y * y + cx;
        y = 2.0 * x * y + cy;
        x = t;
        k++;
    }
    return k;
}

uint64_t dls_bench_mandelbrot_omp(uint64_t w, uint64_t h, uint32_t maxiter, int threads,
                                  int mode)
{
    long long n = (long long)(w * h);
    uint64_t total = 0;
    if (mode == 1) {
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(+ : total)
        for (long long i = 0; i < n; i++)
            total += pixel((uint64_t)i, w, h, maxiter);
    } else if (mode == 2) {
#pragma omp parallel for num_threads(threads) schedule(guided) reduction(+ : total)
        for (long long i = 0; i < n; i++)
            total += pixel((uint64_t)i, w, h, maxiter);
    } else {
        for (long long i = 0; i < n; i++)
            total += pixel((uint64_t)i, w, h, maxiter);
    }
    return total;
}
