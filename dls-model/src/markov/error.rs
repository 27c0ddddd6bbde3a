//! Why the Markov model cannot give an answer.

use std::fmt;

/// An error of the Markov model: a bad input (named), a state space too large to build, or a
/// chain whose stationary distribution is not unique.
///
/// ```
/// use dls_model::markov::{Discrete, MarkovError};
/// let e = Discrete::new(vec![(1, 0.5), (2, 0.4)]).unwrap_err();
/// assert!(matches!(e, MarkovError::Invalid { .. }));
/// assert!(e.to_string().contains("sum to 1"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum MarkovError {
    /// An input is out of its range.
    Invalid {
        /// The input, as a field name (`update_time`, `links`, `a`, `b`, `p`, `omega`...).
        setting: &'static str,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// The chain would be larger than the limit: computed from Lemma B.1 before anything is built
    /// (or found while building).
    TooLarge {
        /// Upper bound on the number of wavefront states, (2M + 1)^(p − 1).
        states_bound: u128,
        /// Joint outcomes of the phase and message times per state.
        outcomes: u128,
        /// Which limit was exceeded, and its value.
        limit: String,
    },
    /// π P = π has no unique solution (the chain has more than one closed class), or the
    /// iterative solver did not converge.
    NoStationary {
        /// What happened.
        message: String,
    },
}

impl MarkovError {
    pub(crate) fn invalid(setting: &'static str, message: impl Into<String>) -> Self {
        MarkovError::Invalid {
            setting,
            message: message.into(),
        }
    }
}

impl fmt::Display for MarkovError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MarkovError::Invalid { setting, message } => write!(f, "{setting}: {message}"),
            MarkovError::TooLarge {
                states_bound,
                outcomes,
                limit,
            } => write!(
                f,
                "the wavefront chain is too large to build: up to {states_bound} states \
                 (Lemma B.1) x {outcomes} joint outcomes of the phase and message times per \
                 state exceeds {limit}. Use the Monte Carlo simulation of the same process \
                 instead (dls markov --simulate-only), or coarser time bins (fewer values per \
                 distribution, a larger tick)"
            ),
            MarkovError::NoStationary { message } => {
                write!(f, "no unique stationary distribution: {message}")
            }
        }
    }
}

impl std::error::Error for MarkovError {}
