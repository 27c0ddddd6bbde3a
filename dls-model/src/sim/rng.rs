//! Deterministic pseudo-random numbers for the iterate-time models.
//!
//! xoshiro256** (Blackman & Vigna 2018) seeded through SplitMix64, with hand-written samplers:
//! exponential by inversion, normal by Marsaglia's polar method, gamma by Marsaglia & Tsang (2000)
//! (with the `U^(1/k)` boost for shape `k < 1`). Written here rather than taken from `rand_distr`
//! so that a seed gives the same simulated loop in every version of dls: `rand`'s value streams
//! may change between minor releases.

/// The generator. Same seed, same stream, on every platform.
#[derive(Debug, Clone)]
pub(crate) struct SimRng {
    s: [u64; 4],
    spare_normal: Option<f64>,
}

impl SimRng {
    /// A generator seeded from `seed` (SplitMix64 expands it to 256 bits).
    pub(crate) fn new(seed: u64) -> Self {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        SimRng {
            s: [next(), next(), next(), next()],
            spare_normal: None,
        }
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in the open interval (0, 1): never exactly 0 or 1.
    pub(crate) fn open01(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) * (1.0 / (1u64 << 53) as f64)
    }

    /// Exponential with mean 1: `-ln U`.
    pub(crate) fn exp1(&mut self) -> f64 {
        -self.open01().ln()
    }

    /// Standard normal (mean 0, standard deviation 1), Marsaglia's polar method.
    pub(crate) fn normal(&mut self) -> f64 {
        if let Some(z) = self.spare_normal.take() {
            return z;
        }
        loop {
            let u = 2.0 * self.open01() - 1.0;
            let v = 2.0 * self.open01() - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                let f = (-2.0 * s.ln() / s).sqrt();
                self.spare_normal = Some(v * f);
                return u * f;
            }
        }
    }

    /// Gamma with shape `k > 0` and scale 1 (mean `k`), Marsaglia & Tsang (2000).
    pub(crate) fn gamma(&mut self, k: f64) -> f64 {
        if k < 1.0 {
            // G(k) = G(k + 1) * U^(1/k).
            let u = self.open01();
            return self.gamma(k + 1.0) * u.powf(1.0 / k);
        }
        let d = k - 1.0 / 3.0;
        let c = 1.0 / (9.0 * d).sqrt();
        loop {
            let x = self.normal();
            let v = 1.0 + c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = self.open01();
            if u < 1.0 - 0.0331 * x * x * x * x || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
                return d * v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moments(mut f: impl FnMut() -> f64, n: usize) -> (f64, f64) {
        let xs: Vec<f64> = (0..n).map(|_| f()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        (mean, var.sqrt())
    }

    #[test]
    fn same_seed_same_stream_other_seed_other_stream() {
        let a: Vec<u64> = (0..8)
            .map({
                let mut r = SimRng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..8)
            .map({
                let mut r = SimRng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..8)
            .map({
                let mut r = SimRng::new(8);
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn open01_stays_inside() {
        let mut r = SimRng::new(1);
        for _ in 0..100_000 {
            let u = r.open01();
            assert!(u > 0.0 && u < 1.0);
        }
    }

    #[test]
    fn samplers_have_the_right_moments() {
        let mut r = SimRng::new(42);
        let (m, s) = moments(|| r.open01(), 200_000);
        assert!((m - 0.5).abs() < 0.005 && (s - (1.0f64 / 12.0).sqrt()).abs() < 0.005);
        let (m, s) = moments(|| r.exp1(), 200_000);
        assert!((m - 1.0).abs() < 0.01 && (s - 1.0).abs() < 0.02, "{m} {s}");
        let (m, s) = moments(|| r.normal(), 200_000);
        assert!(m.abs() < 0.01 && (s - 1.0).abs() < 0.01, "{m} {s}");
        for k in [0.25, 1.0, 4.0] {
            let (m, s) = moments(|| r.gamma(k), 200_000);
            assert!((m - k).abs() < 0.02 * k.max(1.0), "k={k}: mean {m}");
            assert!(
                (s - k.sqrt()).abs() < 0.03 * k.sqrt().max(1.0),
                "k={k}: sd {s}"
            );
        }
    }
}
