//! The Markov model of synchronous and asynchronous iterative algorithms of Casanova, Thomason &
//! Dongarra (1999), "Stochastic performance prediction for iterative algorithms in distributed
//! environments", *Journal of Parallel and Distributed Computing* 58(1), as pure functions.
//!
//! An iterative algorithm x(t+1) = Op(x(t)) runs on p processors, each updating a fixed piece of
//! x (static scheduling). A **phase** of processor i is an α sub-phase of A_i updates, a broadcast
//! of its piece, and a β sub-phase in which it waits for the p − 1 other pieces, performing up
//! to B_i more updates on stale data. Synchronous iterations are A_i = 1, B_i = 0. Update times
//! and message times are independent random variables with finite discrete distributions.
//!
//! The **wavefront** X(k) = (0, T^1(k) − T^0(k), ..., T^{p−1}(k) − T^0(k)) of the phases' start
//! times (processor 0 is the reference, the paper's processor 1) is a Markov chain (eq. 7):
//!
//! X_i(k+1) = max_j [X_j(k) + α^j(k) + n_{j→i}(k)] − max_j [X_j(k) + α^j(k) + n_{j→0}(k)],
//!
//! and processor 0's phase lasts Φ(k) = max_j [X_j(k) + α^j(k) + n_{j→0}(k)]. Its states are
//! bounded by the largest message time M (Lemma B.1: |X_i| ≤ M), so with times in whole ticks
//! the chain is finite. This module gives:
//!
//! - the inputs ([`MarkovInputs`], [`Discrete`] distributions on a tick, [`common_tick`],
//!   [`Discretisation`] of measured times) and the chain's size before it is built
//!   ([`StateSpaceSize`], checked against a [`ChainLimit`]);
//! - one phase, eq. 7 ([`phase`]), and the iterations N(k) of a phase ([`IterationCount`], this
//!   project's convention: the paper leaves N(k) undefined for B_i > 0);
//! - the chain ([`build_chain`], [`Chain`]), its stationary distribution π and the long-run
//!   moments of Φ and N ([`solve_chain`], [`PhaseMoments`]);
//! - the performance figures: the speed S = E\[N\]/E\[Φ\] and, given ω and R\*, Θ1 (Level 1) and σ
//!   (Level 2) ([`PhaseMoments::convergence`], [`Convergence`]);
//! - a seeded Monte Carlo simulation of the same process ([`simulate_phases`]), for checking the
//!   chain and for chains too large to build.
//!
//! Where the paper leaves a choice open this module takes one and says so: α^i for A_i > 1 is the
//! sum of A_i update times; a β update counts when it ends no later than the last message; N(k)
//! = max_i (A_i + b_i(k)); R\* is an input; Level 2 uses σ = σ_Y when N is constant.
//!
//! ```
//! use dls_model::markov::{simulate_phases, solve_chain, ChainLimit, Discrete, MarkovInputs};
//! // p = 2: update times {1, 3} and {1, 2} ticks, one-tick messages (times in seconds here).
//! let u0 = Discrete::new(vec![(1, 0.5), (3, 0.5)]).unwrap();
//! let u1 = Discrete::new(vec![(1, 0.25), (2, 0.75)]).unwrap();
//! let inputs = MarkovInputs::new(vec![u0, u1], Discrete::constant(1), 1.0);
//! let chain = solve_chain(&inputs, &ChainLimit::default()).unwrap();
//! assert!((chain.moments.mean_phi - 2941.0 / 960.0).abs() < 1e-12);
//! let level = chain.moments.convergence(6.0, 0.05).unwrap();
//! assert!((level.theta1 - 367.625).abs() < 1e-9);
//! let sim = simulate_phases(&inputs, 100_000, 1, false).unwrap();
//! assert!((sim.moments.mean_phi / chain.moments.mean_phi - 1.0).abs() < 0.01);
//! ```

mod chain;
mod discretise;
mod distribution;
mod error;
mod inputs;
mod performance;
mod simulation;
mod wavefront;

pub use chain::{build_chain, solve_chain, Chain, ChainResult};
pub use discretise::Discretisation;
pub use distribution::{common_tick, Discrete};
pub use error::MarkovError;
pub use inputs::{ChainLimit, MarkovInputs, StateSpaceSize};
pub use performance::{Convergence, PhaseMoments};
pub use simulation::{simulate_phases, SimulationResult, WARM_UP_PHASES};
pub use wavefront::{phase, IterationCount, Phase};
