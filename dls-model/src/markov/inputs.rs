//! The inputs of the model: per-processor update times, message times per ordered pair, the
//! constants A_i and B_i of Casanova, Thomason & Dongarra (1999, Def. 3.1), and the size of the
//! state space they give.

use super::distribution::Discrete;
use super::error::MarkovError;

/// The model's inputs, all times in whole ticks of `tick_s` seconds. Processors are numbered from
/// 0; processor 0 is the reference of the wavefront (the paper's processor 1).
///
/// ```
/// use dls_model::markov::{Discrete, MarkovInputs};
/// let u = Discrete::new(vec![(1, 0.5), (3, 0.5)]).unwrap();
/// let inputs = MarkovInputs::new(vec![u.clone(), u], Discrete::constant(1), 1.0);
/// assert_eq!(inputs.p(), 2);
/// assert!(inputs.is_synchronous());
/// let asynchronous = inputs.with_asynchrony(vec![1, 1], vec![2, 2]);
/// assert!(!asynchronous.is_synchronous());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct MarkovInputs {
    /// Time of one update of processor i's piece of the solution vector, u_i.
    pub update_time: Vec<Discrete>,
    /// `links[j][i]`: time of the message from processor j to processor i, n_{j→i}. The diagonal
    /// is the constant 0 (the paper's convention n_{i→i} = 0).
    pub links: Vec<Vec<Discrete>>,
    /// A_i ≥ 1: updates in the α sub-phase (the α sub-phase lasts the sum of A_i draws of u_i).
    pub a: Vec<u32>,
    /// B_i ≥ 0: most updates in the β sub-phase, while the processor waits for the messages.
    pub b: Vec<u32>,
    /// Length of one tick in seconds (for display: the model works in ticks).
    pub tick_s: f64,
}

impl MarkovInputs {
    /// Synchronous inputs (A_i = 1, B_i = 0) with the same message-time distribution on every
    /// ordered pair of distinct processors.
    ///
    /// ```
    /// use dls_model::markov::{Discrete, MarkovInputs};
    /// let i = MarkovInputs::new(vec![Discrete::constant(2); 3], Discrete::constant(1), 1e-3);
    /// assert_eq!(i.links[0][0], Discrete::constant(0));
    /// assert_eq!(i.links[0][2], Discrete::constant(1));
    /// ```
    pub fn new(update_time: Vec<Discrete>, network: Discrete, tick_s: f64) -> MarkovInputs {
        let p = update_time.len();
        let links = (0..p)
            .map(|j| {
                (0..p)
                    .map(|i| {
                        if i == j {
                            Discrete::constant(0)
                        } else {
                            network.clone()
                        }
                    })
                    .collect()
            })
            .collect();
        MarkovInputs {
            update_time,
            links,
            a: vec![1; p],
            b: vec![0; p],
            tick_s,
        }
    }

    /// The same inputs with the message time from `from` to `to` replaced.
    ///
    /// ```
    /// use dls_model::markov::{Discrete, MarkovInputs};
    /// let two = Discrete::new(vec![(1, 0.5), (2, 0.5)]).unwrap();
    /// let i = MarkovInputs::new(vec![Discrete::constant(2); 3], Discrete::constant(1), 1.0)
    ///     .with_link(2, 0, two.clone());
    /// assert_eq!(i.links[2][0], two);
    /// ```
    pub fn with_link(mut self, from: usize, to: usize, time: Discrete) -> MarkovInputs {
        self.links[from][to] = time;
        self
    }

    /// The same inputs with the given A_i and B_i (one per processor).
    ///
    /// ```
    /// use dls_model::markov::{Discrete, MarkovInputs};
    /// let i = MarkovInputs::new(vec![Discrete::constant(2); 2], Discrete::constant(1), 1.0)
    ///     .with_asynchrony(vec![1, 2], vec![1, 0]);
    /// assert_eq!(i.alpha(1), Discrete::constant(4));
    /// ```
    pub fn with_asynchrony(mut self, a: Vec<u32>, b: Vec<u32>) -> MarkovInputs {
        self.a = a;
        self.b = b;
        self
    }

    /// The number of processors p.
    ///
    /// ```
    /// use dls_model::markov::{Discrete, MarkovInputs};
    /// assert_eq!(MarkovInputs::new(vec![Discrete::constant(1); 4], Discrete::constant(0), 1.0).p(), 4);
    /// ```
    pub fn p(&self) -> usize {
        self.update_time.len()
    }

    /// True when every A_i = 1 and B_i = 0: the synchronous algorithm.
    ///
    /// ```
    /// use dls_model::markov::{Discrete, MarkovInputs};
    /// assert!(MarkovInputs::new(vec![Discrete::constant(1)], Discrete::constant(0), 1.0).is_synchronous());
    /// ```
    pub fn is_synchronous(&self) -> bool {
        self.a.iter().all(|&a| a == 1) && self.b.iter().all(|&b| b == 0)
    }

    /// The distribution of processor i's α sub-phase: the sum of A_i independent update times
    /// (the paper's experiments all have A_i = 1, where α^i = u_i).
    ///
    /// ```
    /// use dls_model::markov::{Discrete, MarkovInputs};
    /// let u = Discrete::new(vec![(1, 0.5), (2, 0.5)]).unwrap();
    /// let i = MarkovInputs::new(vec![u.clone()], Discrete::constant(0), 1.0);
    /// assert_eq!(i.alpha(0), u);
    /// ```
    pub fn alpha(&self, i: usize) -> Discrete {
        self.update_time[i].sum_of(self.a[i])
    }

    /// An upper bound of the steps (products of two probabilities) the model takes to build the
    /// distributions of its sub-phases: per processor, the sum of A_i update times (α) and the
    /// sums of 1 to B_i update times (β). The k-fold sum of an update time of m points spanning s
    /// ticks has at most k·s + 1 points, so each costs about m·s·k²/2: asynchronous variants of
    /// large A or B grow quadratically (issue 43 N18: `--async 1000000:1000000` ran past 30 s
    /// with no bound). Check it against a limit before [`alpha`](MarkovInputs::alpha).
    ///
    /// ```
    /// use dls_model::markov::{Discrete, MarkovInputs};
    /// let u = Discrete::new(vec![(1, 0.5), (3, 0.5)]).unwrap();
    /// let sync = MarkovInputs::new(vec![u.clone(); 2], Discrete::constant(1), 1.0);
    /// assert!(sync.convolution_work() < 100);
    /// let large = sync.with_asynchrony(vec![1_000_000; 2], vec![1_000_000; 2]);
    /// assert!(large.convolution_work() > 1_000_000_000_000);
    /// ```
    pub fn convolution_work(&self) -> u128 {
        let sums = |u: &Discrete, k: u32| -> u128 {
            // Σ_{j=1}^{k-1} (j·s + 1)·m: building the j+1-fold sum from the j-fold one.
            let m = u.points().len() as u128;
            let span = u128::from(u.max() - u.min());
            let k = u128::from(k);
            if k < 2 {
                return 0;
            }
            m * (span * (k - 1) * k / 2 + (k - 1))
        };
        self.update_time
            .iter()
            .enumerate()
            .map(|(i, u)| {
                let a = self.a.get(i).copied().unwrap_or(1);
                let b = self.b.get(i).copied().unwrap_or(0);
                sums(u, a) + sums(u, b.saturating_add(1))
            })
            .sum()
    }

    /// Checks the shapes and ranges: p ≥ 1; one A_i ≥ 1 and one B_i per processor; update times
    /// > 0; a p × p table of message times with 0 on the diagonal; a tick > 0.
    ///
    /// ```
    /// use dls_model::markov::{Discrete, MarkovInputs};
    /// let i = MarkovInputs::new(vec![Discrete::constant(1); 2], Discrete::constant(1), 1.0);
    /// assert!(i.validate().is_ok());
    /// let e = i.with_asynchrony(vec![0, 1], vec![0, 0]).validate().unwrap_err();
    /// assert!(e.to_string().starts_with("a:"));
    /// ```
    pub fn validate(&self) -> Result<(), MarkovError> {
        let p = self.p();
        if p == 0 {
            return Err(MarkovError::invalid(
                "p",
                "the model needs at least one processor",
            ));
        }
        if self.a.len() != p || self.b.len() != p {
            return Err(MarkovError::invalid(
                if self.a.len() != p { "a" } else { "b" },
                format!(
                    "give one A_i and one B_i per processor ({p}); got {} and {}",
                    self.a.len(),
                    self.b.len()
                ),
            ));
        }
        if let Some(i) = self.a.iter().position(|&a| a == 0) {
            return Err(MarkovError::invalid(
                "a",
                format!(
                    "A_{i} = 0: each processor performs at least one update per phase (A_i >= 1)"
                ),
            ));
        }
        if let Some(i) = self.update_time.iter().position(|u| u.min() == 0) {
            return Err(MarkovError::invalid(
                "update_time",
                format!("processor {i} has an update time of 0; an update takes time > 0"),
            ));
        }
        if self.links.len() != p || self.links.iter().any(|row| row.len() != p) {
            return Err(MarkovError::invalid(
                "links",
                format!("give a {p} x {p} table of message times"),
            ));
        }
        if let Some(i) = (0..p).find(|&i| self.links[i][i] != Discrete::constant(0)) {
            return Err(MarkovError::invalid(
                "links",
                format!("the message time from processor {i} to itself must be 0"),
            ));
        }
        if !(self.tick_s.is_finite() && self.tick_s > 0.0) {
            return Err(MarkovError::invalid(
                "tick_s",
                format!("{} is not a tick length > 0 (seconds)", self.tick_s),
            ));
        }
        Ok(())
    }

    /// The size of the chain, computed without building it: the bound M of Lemma B.1, the bound
    /// (2M + 1)^(p − 1) on the states, and the joint outcomes per state.
    ///
    /// ```
    /// use dls_model::markov::{Discrete, MarkovInputs};
    /// let u = Discrete::new(vec![(1, 0.5), (3, 0.5)]).unwrap();
    /// let n = Discrete::new(vec![(1, 0.5), (2, 0.5)]).unwrap();
    /// let i = MarkovInputs::new(vec![u.clone(), u.clone(), u], n, 1.0);
    /// let s = i.size();
    /// assert_eq!(s.m, 2);
    /// assert_eq!(s.states_bound, 25);
    /// assert_eq!(s.outcomes, 8 * 64);
    /// ```
    pub fn size(&self) -> StateSpaceSize {
        let p = self.p();
        let m = self
            .links
            .iter()
            .flat_map(|row| row.iter().map(Discrete::max))
            .max()
            .unwrap_or(0);
        let side = 2 * m as u128 + 1;
        let states_bound = (1..p).fold(1u128, |acc, _| acc.saturating_mul(side));
        let mut outcomes = 1u128;
        for i in 0..p {
            outcomes = outcomes.saturating_mul(self.alpha(i).points().len() as u128);
            for j in 0..p {
                outcomes = outcomes.saturating_mul(self.links[j][i].points().len() as u128);
            }
        }
        StateSpaceSize {
            m,
            states_bound,
            outcomes,
        }
    }
}

/// How large a chain is, before it is built.
///
/// ```
/// use dls_model::markov::{Discrete, MarkovInputs};
/// let i = MarkovInputs::new(vec![Discrete::constant(1); 4], Discrete::constant(3), 1.0);
/// assert_eq!(i.size().states_bound, 7 * 7 * 7);
/// assert_eq!(i.size().work(), 343);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateSpaceSize {
    /// M of Lemma B.1: the largest message time, in ticks; every |X_i(k)| ≤ M for k ≥ 1.
    pub m: u64,
    /// (2M + 1)^(p − 1): at most this many wavefront states.
    pub states_bound: u128,
    /// Joint outcomes of (α^1..α^p, n_{j→i}) per state: Π |supp α^i| × Π |supp n_{j→i}|.
    pub outcomes: u128,
}

impl StateSpaceSize {
    /// States × outcomes: the evaluations of eq. 7 that building the chain may take.
    ///
    /// ```
    /// use dls_model::markov::StateSpaceSize;
    /// assert_eq!(StateSpaceSize { m: 1, states_bound: 3, outcomes: 4 }.work(), 12);
    /// ```
    pub fn work(&self) -> u128 {
        self.states_bound.saturating_mul(self.outcomes)
    }
}

/// The largest chain [`build_chain`](super::build_chain) agrees to build.
///
/// ```
/// use dls_model::markov::ChainLimit;
/// let l = ChainLimit::default();
/// assert!(l.max_states >= 100_000 && l.max_work >= 10_000_000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainLimit {
    /// Most wavefront states (the bound of Lemma B.1 is checked against it before building, and
    /// the states found while building too).
    pub max_states: u128,
    /// Most evaluations of eq. 7, states × outcomes.
    pub max_work: u128,
    /// Most joint outcomes per state (they are tabulated once).
    pub max_outcomes: u128,
}

impl Default for ChainLimit {
    /// 200,000 states, 10^8 evaluations of eq. 7 (a few seconds in a release build) and 10^6
    /// outcomes per state.
    fn default() -> Self {
        ChainLimit {
            max_states: 200_000,
            max_work: 100_000_000,
            max_outcomes: 1_000_000,
        }
    }
}

impl ChainLimit {
    /// An error when `size` exceeds a limit.
    ///
    /// ```
    /// use dls_model::markov::{ChainLimit, StateSpaceSize};
    /// let big = StateSpaceSize { m: 100, states_bound: 201u128.pow(5), outcomes: 1 << 20 };
    /// assert!(ChainLimit::default().check(&big).unwrap_err().to_string().contains("--simulate-only"));
    /// ```
    pub fn check(&self, size: &StateSpaceSize) -> Result<(), MarkovError> {
        let too_large = |limit: String| MarkovError::TooLarge {
            states_bound: size.states_bound,
            outcomes: size.outcomes,
            limit,
        };
        if size.outcomes > self.max_outcomes {
            return Err(too_large(format!(
                "the limit of {} outcomes per state",
                self.max_outcomes
            )));
        }
        if size.states_bound > self.max_states {
            return Err(too_large(format!(
                "the limit of {} states",
                self.max_states
            )));
        }
        if size.work() > self.max_work {
            return Err(too_large(format!(
                "the limit of {} evaluations of eq. 7 (states x outcomes)",
                self.max_work
            )));
        }
        Ok(())
    }
}
