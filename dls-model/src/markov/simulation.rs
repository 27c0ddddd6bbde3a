//! Monte Carlo simulation of the process the wavefront chain describes: phases drawn one after
//! the other through eq. 7 (Casanova, Thomason & Dongarra 1999 validate their model the same
//! way). It needs no state space, so it also answers when the chain is too large to build.

use std::collections::HashMap;

use serde::Serialize;

use super::error::MarkovError;
use super::inputs::MarkovInputs;
use super::performance::PhaseMoments;
use super::wavefront::{step, IterationCount};
use crate::sim::rng::SimRng;

/// Phases run before any is counted, so that the start X(0) = 0 does not weigh on the averages.
///
/// ```
/// use dls_model::markov::WARM_UP_PHASES;
/// assert!(WARM_UP_PHASES >= 100);
/// ```
pub const WARM_UP_PHASES: u64 = 1_000;

/// What a simulation measured: moments over the counted phases, and (when asked for) how often
/// each wavefront state was seen.
///
/// ```
/// use dls_model::markov::{simulate_phases, Discrete, MarkovInputs};
/// let u0 = Discrete::new(vec![(1, 0.5), (3, 0.5)]).unwrap();
/// let u1 = Discrete::new(vec![(1, 0.25), (2, 0.75)]).unwrap();
/// let i = MarkovInputs::new(vec![u0, u1], Discrete::constant(1), 1.0);
/// let s = simulate_phases(&i, 200_000, 7, true).unwrap();
/// assert!((s.moments.mean_phi - 2941.0 / 960.0).abs() < 0.02);
/// assert_eq!(s.state_frequencies.len(), 3);
/// ```
#[derive(Debug, Clone, Serialize)]
pub struct SimulationResult {
    /// Phases counted (after [`WARM_UP_PHASES`]).
    pub phases: u64,
    /// The seed.
    pub seed: u64,
    /// Sample moments of Φ (seconds) and N.
    pub moments: PhaseMoments,
    /// Each state's share of the counted phases (the state a phase starts from), most frequent
    /// first; empty unless asked for.
    pub state_frequencies: Vec<(Vec<i64>, f64)>,
}

/// Simulates `phases` phases of `inputs` (after [`WARM_UP_PHASES`] uncounted ones) from seed
/// `seed`; `count_states` also tallies the wavefront states. Same seed, same result.
///
/// ```
/// use dls_model::markov::{simulate_phases, Discrete, MarkovInputs};
/// let i = MarkovInputs::new(vec![Discrete::constant(2); 3], Discrete::constant(1), 1.0);
/// let s = simulate_phases(&i, 1000, 1, false).unwrap();
/// assert_eq!(s.moments.mean_phi, 3.0);
/// assert_eq!(s.moments.var_phi, 0.0);
/// assert!(simulate_phases(&i, 0, 1, false).is_err());
/// ```
pub fn simulate_phases(
    inputs: &MarkovInputs,
    phases: u64,
    seed: u64,
    count_states: bool,
) -> Result<SimulationResult, MarkovError> {
    inputs.validate()?;
    if phases == 0 {
        return Err(MarkovError::invalid(
            "samples",
            "simulate at least one phase",
        ));
    }
    let p = inputs.p();
    let alphas: Vec<_> = (0..p).map(|i| inputs.alpha(i)).collect();
    let count = IterationCount::new(inputs);
    let mut rng = SimRng::new(seed);
    let mut x = vec![0i64; p];
    let mut next = vec![0i64; p];
    let mut beta = vec![0i64; p];
    let mut alpha = vec![0u64; p];
    let mut n = vec![0u64; p * p];
    let mut seen: HashMap<Vec<i64>, u64> = HashMap::new();
    // Sums around a shift (the first counted phase) keep the variances exact in f64.
    let (mut shift_phi, mut shift_n) = (0.0, 0.0);
    let (mut s_phi, mut s_phi2, mut s_n, mut s_n2, mut s_nphi) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for k in 0..WARM_UP_PHASES + phases {
        if count_states && k >= WARM_UP_PHASES {
            match seen.get_mut(x.as_slice()) {
                Some(c) => *c += 1,
                None => {
                    seen.insert(x.clone(), 1);
                }
            }
        }
        for (i, d) in alphas.iter().enumerate() {
            alpha[i] = d.quantile(rng.open01());
        }
        for j in 0..p {
            for i in 0..p {
                let d = &inputs.links[j][i];
                n[j * p + i] = if d.points().len() == 1 {
                    d.min()
                } else {
                    d.quantile(rng.open01())
                };
            }
        }
        let phi = step(&x, &alpha, &n, &mut next, &mut beta) as f64;
        let iterations = count.sample(&beta, || rng.open01()) as f64;
        std::mem::swap(&mut x, &mut next);
        if k < WARM_UP_PHASES {
            continue;
        }
        if k == WARM_UP_PHASES {
            shift_phi = phi;
            shift_n = iterations;
        }
        let (f, m) = (phi - shift_phi, iterations - shift_n);
        s_phi += f;
        s_phi2 += f * f;
        s_n += m;
        s_n2 += m * m;
        s_nphi += m * f;
    }
    let k = phases as f64;
    let (mf, mn) = (s_phi / k, s_n / k);
    let t = inputs.tick_s;
    let moments = PhaseMoments {
        mean_phi: (mf + shift_phi) * t,
        var_phi: (s_phi2 / k - mf * mf).max(0.0) * t * t,
        mean_n: mn + shift_n,
        var_n: (s_n2 / k - mn * mn).max(0.0),
        cov_n_phi: (s_nphi / k - mn * mf) * t,
    };
    let mut state_frequencies: Vec<(Vec<i64>, f64)> =
        seen.into_iter().map(|(s, c)| (s, c as f64 / k)).collect();
    state_frequencies.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(SimulationResult {
        phases,
        seed,
        moments,
        state_frequencies,
    })
}
