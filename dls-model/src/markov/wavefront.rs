//! One phase of the algorithm from a wavefront (Casanova, Thomason & Dongarra 1999, eq. 7 and
//! App. A), and the number of iterations N(k) the phase performs.

use super::distribution::Discrete;
use super::inputs::MarkovInputs;

/// What one phase does, from wavefront `x` with α sub-phase times `alpha` and message times `n`.
///
/// ```
/// use dls_model::markov::phase;
/// // p = 2: processor 1 starts 1 tick after processor 0; both compute 2 ticks; messages 1 tick.
/// let ph = phase(&[0, 1], &[2, 2], &[0, 1, 1, 0]);
/// assert_eq!(ph.next, vec![0, -1]); // processor 1 now starts 1 tick before processor 0
/// assert_eq!(ph.phi, 4); // processor 0 waits for processor 1's message: 1 + 2 + 1
/// assert_eq!(ph.beta, vec![2, 0]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phase {
    /// X(k + 1): the next wavefront, eq. 7 (its entry 0 is 0).
    pub next: Vec<i64>,
    /// Φ(k): the duration of the phase on processor 0, max_j [X_j + α^j + n_{j→0}].
    pub phi: i64,
    /// β^i(k): how long each processor waits for its last message after its α sub-phase.
    pub beta: Vec<i64>,
}

/// Eq. 7: `x` the wavefront (x\[0\] = 0), `alpha[i]` the α sub-phase of processor i, `n[j * p + i]`
/// the time of the message from j to i (0 on the diagonal). All in ticks.
///
/// ```
/// use dls_model::markov::phase;
/// // Without message times every processor starts the next phase together.
/// let ph = phase(&[0, 0, 0], &[1, 5, 3], &[0; 9]);
/// assert_eq!((ph.next, ph.phi, ph.beta), (vec![0, 0, 0], 5, vec![4, 0, 2]));
/// ```
pub fn phase(x: &[i64], alpha: &[u64], n: &[u64]) -> Phase {
    let p = x.len();
    let mut next = vec![0; p];
    let mut beta = vec![0; p];
    let phi = step(x, alpha, n, &mut next, &mut beta);
    Phase { next, phi, beta }
}

/// [`phase`] into caller buffers; returns Φ.
pub(crate) fn step(x: &[i64], alpha: &[u64], n: &[u64], next: &mut [i64], beta: &mut [i64]) -> i64 {
    let p = x.len();
    for i in 0..p {
        let mut arrival = i64::MIN;
        for j in 0..p {
            let t = x[j] + alpha[j] as i64 + n[j * p + i] as i64;
            arrival = arrival.max(t);
        }
        next[i] = arrival;
        beta[i] = arrival - x[i] - alpha[i] as i64;
    }
    let phi = next[0];
    for v in next.iter_mut() {
        *v -= phi;
    }
    phi
}

/// The iterations of a phase, N(k), under this project's convention (the paper does not define
/// it operationally): processor i performs its A_i updates, then up to B_i more during β^i, each a
/// fresh draw of its update time, counted when it ends no later than the last message (an update
/// still running then is abandoned); N(k) = max_i (A_i + b_i(k)), the max of App. D. In the
/// synchronous case N(k) = 1.
///
/// ```
/// use dls_model::markov::{Discrete, IterationCount, MarkovInputs};
/// let u = Discrete::new(vec![(1, 0.5), (2, 0.5)]).unwrap();
/// let i = MarkovInputs::new(vec![u.clone(), u], Discrete::constant(1), 1.0)
///     .with_asynchrony(vec![1, 1], vec![2, 2]);
/// let count = IterationCount::new(&i);
/// // Processor 0 waits 1 tick: one more update with probability 1/2; processor 1 does not wait.
/// let (mean, _) = count.moments(&[1, 0]);
/// assert!((mean - 1.5).abs() < 1e-12);
/// ```
#[derive(Debug, Clone)]
pub struct IterationCount {
    a: Vec<u32>,
    /// `sums[i][m - 1]`: the distribution of the sum of m update times of processor i, m ≤ B_i.
    sums: Vec<Vec<Discrete>>,
    update_time: Vec<Discrete>,
}

impl IterationCount {
    /// Tabulates the sums of up to B_i update times of each processor.
    ///
    /// ```
    /// use dls_model::markov::{Discrete, IterationCount, MarkovInputs};
    /// let i = MarkovInputs::new(vec![Discrete::constant(1); 2], Discrete::constant(0), 1.0);
    /// assert_eq!(IterationCount::new(&i).moments(&[0, 0]), (1.0, 1.0));
    /// ```
    pub fn new(inputs: &MarkovInputs) -> IterationCount {
        let sums = inputs
            .update_time
            .iter()
            .zip(&inputs.b)
            .map(|(u, &b)| {
                let mut out = Vec::with_capacity(b as usize);
                let mut acc: Option<Discrete> = None;
                for _ in 0..b {
                    let next = match &acc {
                        None => u.clone(),
                        Some(s) => s.plus(u),
                    };
                    out.push(next.clone());
                    acc = Some(next);
                }
                out
            })
            .collect();
        IterationCount {
            a: inputs.a.clone(),
            sums,
            update_time: inputs.update_time.clone(),
        }
    }

    /// E\[N\] and E\[N²\] of a phase whose processors wait `beta` ticks.
    ///
    /// ```
    /// use dls_model::markov::{Discrete, IterationCount, MarkovInputs};
    /// let i = MarkovInputs::new(vec![Discrete::constant(2); 2], Discrete::constant(0), 1.0)
    ///     .with_asynchrony(vec![1, 1], vec![3, 3]);
    /// // 5 ticks of waiting leave room for 2 more updates of 2 ticks.
    /// assert_eq!(IterationCount::new(&i).moments(&[5, 0]), (3.0, 9.0));
    /// ```
    pub fn moments(&self, beta: &[i64]) -> (f64, f64) {
        let lo = *self.a.iter().max().expect("p >= 1");
        let hi = self
            .a
            .iter()
            .zip(&self.sums)
            .map(|(&a, s)| a + s.len() as u32)
            .max()
            .expect("p >= 1");
        if lo == hi {
            let n = lo as f64;
            return (n, n * n);
        }
        // P(N <= n) = prod_i P(A_i + b_i <= n), with P(b_i >= m) = P(S_m <= beta_i).
        let cdf_n = |n: u32| -> f64 {
            let mut prod = 1.0;
            for (i, &a) in self.a.iter().enumerate() {
                let b = self.sums[i].len() as u32;
                let f = if n < a {
                    0.0
                } else if n >= a + b {
                    1.0
                } else {
                    1.0 - self.sums[i][(n - a) as usize].cdf(beta[i])
                };
                prod *= f;
            }
            prod
        };
        let (mut m1, mut m2) = (0.0, 0.0);
        let mut below = 0.0;
        for n in lo..=hi {
            let c = cdf_n(n);
            let q = c - below;
            below = c;
            m1 += q * n as f64;
            m2 += q * (n as f64) * (n as f64);
        }
        (m1, m2)
    }

    /// A draw of N from uniforms: `draw()` gives a fresh uniform in (0, 1) per update time.
    pub(crate) fn sample(&self, beta: &[i64], mut draw: impl FnMut() -> f64) -> u32 {
        let mut n = 0;
        for (i, &a) in self.a.iter().enumerate() {
            let b = self.sums[i].len() as u32;
            let mut done = 0;
            let mut used = 0i64;
            while done < b {
                used += self.update_time[i].quantile(draw()) as i64;
                if used > beta[i] {
                    break;
                }
                done += 1;
            }
            n = n.max(a + done);
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq7_by_hand_p3() {
        // x = (0, -1, 2); alpha = (2, 3, 1); every message 1 tick.
        let n = [0, 1, 1, 1, 0, 1, 1, 1, 0];
        let ph = phase(&[0, -1, 2], &[2, 3, 1], &n);
        // arrivals: i=0: max(0+2+0, -1+3+1, 2+1+1) = 4; i=1: max(3, 2, 4) = 4; i=2: max(3, 3, 3) = 3.
        assert_eq!(ph.phi, 4);
        assert_eq!(ph.next, vec![0, 0, -1]);
        assert_eq!(ph.beta, vec![2, 2, 0]);
    }

    #[test]
    fn iteration_count_moments_match_sampling() {
        let u = Discrete::new(vec![(1, 0.3), (2, 0.7)]).unwrap();
        let i = MarkovInputs::new(vec![u.clone(), u], Discrete::constant(1), 1.0)
            .with_asynchrony(vec![1, 2], vec![2, 1]);
        let c = IterationCount::new(&i);
        let beta = [3, 1];
        let (m1, m2) = c.moments(&beta);
        let mut rng = crate::sim::rng::SimRng::new(3);
        let k = 200_000;
        let (mut s1, mut s2) = (0.0, 0.0);
        for _ in 0..k {
            let n = c.sample(&beta, || rng.open01()) as f64;
            s1 += n;
            s2 += n * n;
        }
        assert!((s1 / k as f64 - m1).abs() < 0.01, "{} {m1}", s1 / k as f64);
        assert!((s2 / k as f64 - m2).abs() < 0.03, "{} {m2}", s2 / k as f64);
    }
}
