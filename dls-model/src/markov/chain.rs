//! The wavefront Markov chain of Casanova, Thomason & Dongarra (1999, §3.3): built by
//! breadth-first search from X(0) = 0 over every joint outcome of the phase and message times,
//! its stationary distribution π, and the long-run moments of Φ and N.

use std::collections::HashMap;

use serde::Serialize;

use super::distribution::Discrete;
use super::error::MarkovError;
use super::inputs::{ChainLimit, MarkovInputs, StateSpaceSize};
use super::performance::PhaseMoments;
use super::wavefront::{step, IterationCount};

/// Chains up to this many states are solved by Gaussian elimination; larger ones iteratively.
const DENSE_STATES: usize = 600;

/// Wavefront states by their number in base 2M + 1.
enum StateIndex {
    Table(Vec<u32>),
    Map(HashMap<u128, usize>),
}

impl StateIndex {
    fn new(states_bound: u128) -> StateIndex {
        if states_bound <= 1 << 22 {
            StateIndex::Table(vec![u32::MAX; states_bound as usize])
        } else {
            StateIndex::Map(HashMap::new())
        }
    }

    fn get(&self, key: u128) -> Option<usize> {
        match self {
            StateIndex::Table(t) => Some(t[key as usize])
                .filter(|&v| v != u32::MAX)
                .map(|v| v as usize),
            StateIndex::Map(m) => m.get(&key).copied(),
        }
    }

    fn insert(&mut self, key: u128, state: usize) {
        match self {
            StateIndex::Table(t) => t[key as usize] = state as u32,
            StateIndex::Map(m) => {
                m.insert(key, state);
            }
        }
    }
}

/// Conditional moments of one phase given the state it starts from (ticks).
#[derive(Debug, Clone, Default, PartialEq)]
struct StateMoments {
    phi: f64,
    phi2: f64,
    n: f64,
    n2: f64,
    n_phi: f64,
    /// The distribution of Φ from this state: (ticks, probability), sorted.
    phi_dist: Vec<(i64, f64)>,
}

/// The wavefront chain: its states, transition probabilities and the conditional moments of a
/// phase from each state.
///
/// ```
/// use dls_model::markov::{build_chain, ChainLimit, Discrete, MarkovInputs};
/// // The worked example of the project's notes: p = 2, one-tick messages.
/// let u0 = Discrete::new(vec![(1, 0.5), (3, 0.5)]).unwrap();
/// let u1 = Discrete::new(vec![(1, 0.25), (2, 0.75)]).unwrap();
/// let chain = build_chain(&MarkovInputs::new(vec![u0, u1], Discrete::constant(1), 1.0),
///                         &ChainLimit::default()).unwrap();
/// assert_eq!(chain.states().len(), 3);
/// let (zero, up) = (chain.index_of(&[0, 0]).unwrap(), chain.index_of(&[0, 1]).unwrap());
/// assert_eq!(chain.probability(zero, up), 0.5);
/// ```
#[derive(Debug, Clone)]
pub struct Chain {
    states: Vec<Vec<i64>>,
    rows: Vec<Vec<(usize, f64)>>,
    moments: Vec<StateMoments>,
    tick_s: f64,
    size: StateSpaceSize,
}

/// Advances the odometer `digits` by one outcome, digit `k` counting `radix(k)` values (digit 0
/// fastest); false once it has gone past its last outcome (every digit back at 0).
fn advance(digits: &mut [usize], radix: impl Fn(usize) -> usize) -> bool {
    for (k, digit) in digits.iter_mut().enumerate() {
        *digit += 1;
        if *digit < radix(k) {
            return true;
        }
        *digit = 0;
    }
    false
}

/// Builds the chain of `inputs`, first checking its size (Lemma B.1's bound on the states times
/// the joint outcomes per state) against `limit`, so that a chain too large is an error before
/// any memory is spent on it.
///
/// ```
/// use dls_model::markov::{build_chain, ChainLimit, Discrete, MarkovError, MarkovInputs};
/// let u = Discrete::new((1..=8).map(|v| (v, 0.125)).collect()).unwrap();
/// let n = Discrete::new((1..=50).map(|v| (v, 0.02)).collect()).unwrap();
/// let e = build_chain(&MarkovInputs::new(vec![u; 6], n, 1e-3), &ChainLimit::default()).unwrap_err();
/// assert!(matches!(e, MarkovError::TooLarge { .. }));
/// ```
pub fn build_chain(inputs: &MarkovInputs, limit: &ChainLimit) -> Result<Chain, MarkovError> {
    inputs.validate()?;
    let size = inputs.size();
    limit.check(&size)?;
    let p = inputs.p();
    let alphas: Vec<Discrete> = (0..p).map(|i| inputs.alpha(i)).collect();
    let count = IterationCount::new(inputs);

    // The random components (support > 1) vary in an odometer; the constants are set once.
    let mut alpha = vec![0u64; p];
    let mut n = vec![0u64; p * p];
    let mut components: Vec<(usize, bool, &Discrete)> = Vec::new(); // (slot, is_alpha, dist)
    for (i, d) in alphas.iter().enumerate() {
        alpha[i] = d.min();
        if d.points().len() > 1 {
            components.push((i, true, d));
        }
    }
    for j in 0..p {
        for i in 0..p {
            let d = &inputs.links[j][i];
            n[j * p + i] = d.min();
            if d.points().len() > 1 {
                components.push((j * p + i, false, d));
            }
        }
    }

    // A state is a number in base 2M + 1 (Lemma B.1: every |X_i| <= M); small bounds index a
    // table, large ones a hash map.
    let m_bound = size.m as i64;
    let side = 2 * size.m as u128 + 1;
    let key = |x: &[i64]| -> Option<u128> {
        let mut k = 0u128;
        for &v in x[1..].iter().rev() {
            if v.abs() > m_bound {
                return None;
            }
            k = k * side + (v + m_bound) as u128;
        }
        Some(k)
    };
    let mut index = StateIndex::new(size.states_bound);
    let mut states = vec![vec![0i64; p]];
    index.insert(key(&states[0]).expect("X(0) = 0"), 0);
    // Scratch accumulators of one row and of Phi's distribution from one state.
    let mut row_acc: Vec<f64> = Vec::new();
    let mut row_touched: Vec<usize> = Vec::new();
    let max_alpha = alphas.iter().map(Discrete::max).max().unwrap_or(0) as i64;
    let phi_span = (2 * m_bound + max_alpha + 1) as usize;
    let mut phi_acc = vec![0.0f64; phi_span];
    let mut rows = Vec::new();
    let mut moments = Vec::new();
    let mut next = vec![0i64; p];
    let mut beta = vec![0i64; p];
    let mut digits = vec![0usize; components.len()];
    let mut s = 0;
    while s < states.len() {
        let x = states[s].clone();
        let mut m = StateMoments::default();
        digits.iter_mut().for_each(|d| *d = 0);
        loop {
            let mut prob = 1.0;
            for (k, &(slot, is_alpha, d)) in components.iter().enumerate() {
                let (v, q) = d.points()[digits[k]];
                prob *= q;
                if is_alpha {
                    alpha[slot] = v;
                } else {
                    n[slot] = v;
                }
            }
            let phi = step(&x, &alpha, &n, &mut next, &mut beta);
            let k = key(&next).ok_or_else(|| MarkovError::NoStationary {
                message: format!("state {next:?} lies outside Lemma B.1's bound M = {m_bound}"),
            })?;
            let target = match index.get(k) {
                Some(t) => t,
                None => {
                    let t = states.len();
                    if t as u128 >= limit.max_states {
                        return Err(MarkovError::TooLarge {
                            states_bound: size.states_bound,
                            outcomes: size.outcomes,
                            limit: format!("the limit of {} states", limit.max_states),
                        });
                    }
                    states.push(next.clone());
                    index.insert(k, t);
                    t
                }
            };
            if target >= row_acc.len() {
                row_acc.resize(target + 1, 0.0);
            }
            if row_acc[target] == 0.0 {
                row_touched.push(target);
            }
            row_acc[target] += prob;
            phi_acc[phi as usize] += prob;
            let (en, en2) = count.moments(&beta);
            let f = phi as f64;
            m.phi += prob * f;
            m.phi2 += prob * f * f;
            m.n += prob * en;
            m.n2 += prob * en2;
            m.n_phi += prob * en * f;
            // Advance the odometer; stop after the last outcome.
            if !advance(&mut digits, |k| components[k].2.points().len()) {
                break;
            }
        }
        row_touched.sort_unstable();
        let row: Vec<(usize, f64)> = row_touched
            .drain(..)
            .map(|t| (t, std::mem::take(&mut row_acc[t])))
            .collect();
        rows.push(row);
        m.phi_dist = phi_acc
            .iter_mut()
            .enumerate()
            .filter(|(_, q)| **q > 0.0)
            .map(|(v, q)| (v as i64, std::mem::take(q)))
            .collect();
        moments.push(m);
        s += 1;
    }
    Ok(Chain {
        states,
        rows,
        moments,
        tick_s: inputs.tick_s,
        size,
    })
}

impl Chain {
    /// The states X = (0, X_1, ..., X_{p−1}) in ticks, in the order the search found them (state 0
    /// is X(0) = 0).
    ///
    /// ```
    /// use dls_model::markov::{build_chain, ChainLimit, Discrete, MarkovInputs};
    /// let i = MarkovInputs::new(vec![Discrete::constant(1); 3], Discrete::constant(0), 1.0);
    /// assert_eq!(build_chain(&i, &ChainLimit::default()).unwrap().states(), &[vec![0, 0, 0]]);
    /// ```
    pub fn states(&self) -> &[Vec<i64>] {
        &self.states
    }

    /// The index of a state (its entries in ticks, entry 0 being 0), if the chain reaches it.
    ///
    /// ```
    /// use dls_model::markov::{build_chain, ChainLimit, Discrete, MarkovInputs};
    /// let i = MarkovInputs::new(vec![Discrete::constant(1); 2], Discrete::constant(1), 1.0);
    /// let c = build_chain(&i, &ChainLimit::default()).unwrap();
    /// assert_eq!((c.index_of(&[0, 0]), c.index_of(&[0, 5])), (Some(0), None));
    /// ```
    pub fn index_of(&self, state: &[i64]) -> Option<usize> {
        self.states.iter().position(|s| s == state)
    }

    /// The size computed before building.
    ///
    /// ```
    /// use dls_model::markov::{build_chain, ChainLimit, Discrete, MarkovInputs};
    /// let i = MarkovInputs::new(vec![Discrete::constant(1); 3], Discrete::constant(2), 1.0);
    /// assert_eq!(build_chain(&i, &ChainLimit::default()).unwrap().size().states_bound, 25);
    /// ```
    pub fn size(&self) -> StateSpaceSize {
        self.size
    }

    /// P\[from\]\[to\], the transition probability between two states (by index).
    ///
    /// ```
    /// use dls_model::markov::{build_chain, ChainLimit, Discrete, MarkovInputs};
    /// let i = MarkovInputs::new(vec![Discrete::constant(1); 2], Discrete::constant(1), 1.0);
    /// assert_eq!(build_chain(&i, &ChainLimit::default()).unwrap().probability(0, 0), 1.0);
    /// ```
    pub fn probability(&self, from: usize, to: usize) -> f64 {
        self.rows[from]
            .iter()
            .find(|e| e.0 == to)
            .map_or(0.0, |e| e.1)
    }

    /// The stationary distribution π: the solution of π P = π with Σ π = 1, by Gaussian
    /// elimination with partial pivoting up to 600 states, else by iterating the lazy chain
    /// (P + I)/2 (same π, aperiodic) to a change below 1e-14. States the chain leaves for good
    /// (X(0) can be one) get π = 0. Several closed classes are an error.
    ///
    /// ```
    /// use dls_model::markov::{build_chain, ChainLimit, Discrete, MarkovInputs};
    /// let u0 = Discrete::new(vec![(1, 0.5), (3, 0.5)]).unwrap();
    /// let u1 = Discrete::new(vec![(1, 0.25), (2, 0.75)]).unwrap();
    /// let c = build_chain(&MarkovInputs::new(vec![u0, u1], Discrete::constant(1), 1.0),
    ///                     &ChainLimit::default()).unwrap();
    /// let pi = c.stationary().unwrap();
    /// let down = c.index_of(&[0, -1]).unwrap();
    /// assert!((pi[0] - 0.3).abs() < 1e-14 && (pi[down] - 37.0 / 120.0).abs() < 1e-14);
    /// ```
    pub fn stationary(&self) -> Result<Vec<f64>, MarkovError> {
        let s = self.states.len();
        let mut pi = if s <= DENSE_STATES {
            self.stationary_dense()?
        } else {
            self.stationary_iterative()?
        };
        // Rounding leaves states the chain leaves for good with ~1e-17: they are 0.
        for v in &mut pi {
            if *v < 1e-14 {
                *v = 0.0;
            }
        }
        let total: f64 = pi.iter().sum();
        pi.iter_mut().for_each(|v| *v /= total);
        Ok(pi)
    }

    fn stationary_dense(&self) -> Result<Vec<f64>, MarkovError> {
        let s = self.states.len();
        // Rows: (P^T - I) π = 0, the last equation replaced by Σ π = 1.
        let mut a = vec![vec![0.0f64; s + 1]; s];
        for (from, row) in self.rows.iter().enumerate() {
            for &(to, q) in row {
                a[to][from] += q;
            }
        }
        for (k, r) in a.iter_mut().enumerate() {
            r[k] -= 1.0;
        }
        for v in a[s - 1].iter_mut().take(s) {
            *v = 1.0;
        }
        a[s - 1][s] = 1.0;
        for col in 0..s {
            let pivot = (col..s)
                .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
                .expect("rows");
            if a[pivot][col].abs() < 1e-12 {
                return Err(MarkovError::NoStationary {
                    message: "the chain has more than one closed class of states".into(),
                });
            }
            a.swap(col, pivot);
            let (top, rest) = a.split_at_mut(col + 1);
            let prow = &top[col];
            for r in rest.iter_mut() {
                let f = r[col] / prow[col];
                if f != 0.0 {
                    for c in col..=s {
                        r[c] -= f * prow[c];
                    }
                }
            }
        }
        let mut pi = vec![0.0; s];
        for r in (0..s).rev() {
            let mut v = a[r][s];
            for c in r + 1..s {
                v -= a[r][c] * pi[c];
            }
            pi[r] = v / a[r][r];
        }
        Ok(pi)
    }

    fn stationary_iterative(&self) -> Result<Vec<f64>, MarkovError> {
        let s = self.states.len();
        let mut pi = vec![1.0 / s as f64; s];
        let mut next = vec![0.0; s];
        for _ in 0..200_000 {
            next.iter_mut().for_each(|v| *v = 0.0);
            for (from, row) in self.rows.iter().enumerate() {
                let w = pi[from];
                for &(to, q) in row {
                    next[to] += 0.5 * w * q;
                }
                next[from] += 0.5 * w;
            }
            let change: f64 = pi.iter().zip(&next).map(|(a, b)| (a - b).abs()).sum();
            std::mem::swap(&mut pi, &mut next);
            if change < 1e-14 {
                return Ok(pi);
            }
        }
        Err(MarkovError::NoStationary {
            message: format!(
                "iterating the chain of {s} states did not converge; use the simulation"
            ),
        })
    }

    /// The long-run moments of a phase under `pi` (seconds): E\[Φ\] = Σ_x π_x E\[Φ | x\], and the
    /// same for Φ², N, N², NΦ.
    ///
    /// ```
    /// use dls_model::markov::{build_chain, ChainLimit, Discrete, MarkovInputs};
    /// let u0 = Discrete::new(vec![(1, 0.5), (3, 0.5)]).unwrap();
    /// let u1 = Discrete::new(vec![(1, 0.25), (2, 0.75)]).unwrap();
    /// let c = build_chain(&MarkovInputs::new(vec![u0, u1], Discrete::constant(1), 1.0),
    ///                     &ChainLimit::default()).unwrap();
    /// let m = c.moments(&c.stationary().unwrap());
    /// assert!((m.mean_phi - 2941.0 / 960.0).abs() < 1e-12);
    /// assert_eq!(m.mean_n, 1.0);
    /// ```
    pub fn moments(&self, pi: &[f64]) -> PhaseMoments {
        let (mut phi, mut phi2, mut n, mut n2, mut n_phi) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for (w, m) in pi.iter().zip(&self.moments) {
            phi += w * m.phi;
            phi2 += w * m.phi2;
            n += w * m.n;
            n2 += w * m.n2;
            n_phi += w * m.n_phi;
        }
        let t = self.tick_s;
        PhaseMoments {
            mean_phi: phi * t,
            var_phi: (phi2 - phi * phi).max(0.0) * t * t,
            mean_n: n,
            var_n: (n2 - n * n).max(0.0),
            cov_n_phi: (n_phi - n * phi) * t,
        }
    }

    /// The long-run distribution of Φ under `pi`: (ticks, probability), sorted.
    ///
    /// ```
    /// use dls_model::markov::{build_chain, ChainLimit, Discrete, MarkovInputs};
    /// let i = MarkovInputs::new(vec![Discrete::new(vec![(1, 0.5), (2, 0.5)]).unwrap(); 2],
    ///                           Discrete::constant(0), 1.0);
    /// let c = build_chain(&i, &ChainLimit::default()).unwrap();
    /// assert_eq!(c.phase_time_distribution(&c.stationary().unwrap()), vec![(1, 0.25), (2, 0.75)]);
    /// ```
    pub fn phase_time_distribution(&self, pi: &[f64]) -> Vec<(i64, f64)> {
        let mut acc: HashMap<i64, f64> = HashMap::new();
        for (w, m) in pi.iter().zip(&self.moments) {
            for &(v, q) in &m.phi_dist {
                *acc.entry(v).or_insert(0.0) += w * q;
            }
        }
        let mut out: Vec<(i64, f64)> = acc.into_iter().filter(|e| e.1 > 0.0).collect();
        out.sort_by_key(|e| e.0);
        out
    }
}

/// Everything the chain gives: its states with π, and the long-run moments of a phase.
///
/// ```
/// use dls_model::markov::{solve_chain, ChainLimit, Discrete, MarkovInputs};
/// let u0 = Discrete::new(vec![(1, 0.5), (3, 0.5)]).unwrap();
/// let u1 = Discrete::new(vec![(1, 0.25), (2, 0.75)]).unwrap();
/// let r = solve_chain(&MarkovInputs::new(vec![u0, u1], Discrete::constant(1), 1.0),
///                     &ChainLimit::default()).unwrap();
/// assert_eq!(r.states.len(), 3);
/// assert!((r.moments.var_phi - 550199.0 / 921600.0).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct ChainResult {
    /// The states (ticks), in discovery order.
    pub states: Vec<Vec<i64>>,
    /// π, one per state.
    pub pi: Vec<f64>,
    /// The long-run distribution of Φ: (seconds, probability).
    pub phase_time: Vec<(f64, f64)>,
    /// The long-run moments of a phase.
    pub moments: PhaseMoments,
    /// Lemma B.1's M (ticks).
    pub m: u64,
    /// The bound (2M + 1)^(p − 1) on the states.
    pub states_bound: u128,
    /// Joint outcomes per state.
    pub outcomes: u128,
}

/// Builds the chain, solves for π and computes the moments.
///
/// ```
/// use dls_model::markov::{solve_chain, ChainLimit, Discrete, MarkovInputs};
/// let i = MarkovInputs::new(vec![Discrete::constant(2); 2], Discrete::constant(1), 0.5);
/// let r = solve_chain(&i, &ChainLimit::default()).unwrap();
/// assert_eq!(r.moments.mean_phi, 1.5); // 3 ticks of 0.5 s
/// ```
pub fn solve_chain(inputs: &MarkovInputs, limit: &ChainLimit) -> Result<ChainResult, MarkovError> {
    let chain = build_chain(inputs, limit)?;
    let pi = chain.stationary()?;
    let moments = chain.moments(&pi);
    let phase_time = chain
        .phase_time_distribution(&pi)
        .into_iter()
        .map(|(v, q)| (v as f64 * inputs.tick_s, q))
        .collect();
    let size = chain.size();
    Ok(ChainResult {
        states: chain.states.clone(),
        pi,
        phase_time,
        moments,
        m: size.m,
        states_bound: size.states_bound,
        outcomes: size.outcomes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(points: &[(u64, f64)]) -> Discrete {
        Discrete::new(points.to_vec()).unwrap()
    }

    #[test]
    fn the_iterative_solver_agrees_with_elimination() {
        // Example 2 of the tests (8 states), solved both ways.
        let two = d(&[(1, 0.5), (2, 0.5)]);
        let inputs = MarkovInputs::new(
            vec![
                d(&[(2, 0.5), (4, 0.5)]),
                Discrete::constant(3),
                d(&[(1, 1.0 / 3.0), (5, 2.0 / 3.0)]),
            ],
            Discrete::constant(1),
            1.0,
        )
        .with_link(2, 0, two.clone())
        .with_link(0, 2, two);
        let chain = build_chain(&inputs, &ChainLimit::default()).unwrap();
        let dense = chain.stationary_dense().unwrap();
        let iterative = chain.stationary_iterative().unwrap();
        for (a, b) in dense.iter().zip(&iterative) {
            assert!((a - b).abs() < 1e-12, "{dense:?} {iterative:?}");
        }
    }
}
