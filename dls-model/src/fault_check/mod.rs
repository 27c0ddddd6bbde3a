//! The statistics of per-rank fault checks after Wegman (c. 2000), "On some statistical methods
//! for parallel computation", §3: **stochastic domain decomposition**. Split the iteration space
//! into random samples, one per rank; every rank then estimates the same quantities, their
//! results differ only by sampling variation, and a homogeneity test across ranks replaces the
//! majority vote of redundant execution. A rejection means that some rank's hardware or software
//! is faulty; leave-one-out tests name the rank.
//!
//! This module is pure: it neither runs loops nor talks to ranks. It has:
//!
//! - [`Permutation`]: a seeded pseudo-random bijection of `0..n` in O(1) memory, so that a loop
//!   executes iterate `π(j)` at position `j` and its contiguous chunks become random samples (the
//!   paper's first condition: data assigned to ranks independently of their values);
//! - per-rank sufficient statistics that travel between ranks (serde) and merge exactly in any
//!   order: [`AnovaStats`] (per iterate or per chunk) and [`RegressionStats`] (centred cross
//!   products for `p` predictors);
//! - the tests: [`anova`], the one-way ANOVA across ranks in its weighted (chunk-size) form, and
//!   [`regression`], the paper's F(2,0) homogeneity test with the F(2,1) slopes diagnostic (whose
//!   df the paper misprints as `(k−1)(p+1)`; it is `(k−1)p`). Both name the suspect rank by
//!   leave-one-out F tests and report malformed statistics (NaN, infinity) as faults by
//!   themselves. They return a [`Verdict`] ([`Outcome`], the global [`FTest`], the [`Suspect`]);
//!   [`f_critical`] gives the F a test must exceed;
//! - what one iterate of a checked loop yields: an [`Observation`] (a value, or a row of at most
//!   [`MAX_PREDICTORS`] predictors and a response).
//!
//! The paper names no significance level, only that it should be very small so that only
//! egregious deviations are flagged; the project's recommendation is `alpha = 1e-3` per loop
//! (1e-4 when every loop of a long run is checked), and a suspect is flagged at `alpha / k`
//! (Bonferroni, [`Verdict::flagged`]). Group the statistics by the **executing rank**, not by
//! chunk: a faulty rank spoils every chunk it runs.
//!
//! ```
//! use dls_model::fault_check::{anova, AnovaStats, Permutation};
//!
//! // 4 ranks share 0..4000 in contiguous blocks of permuted positions; iterate i yields a value
//! // that trends with i, so without the permutation the ranks would differ with no fault.
//! let n = 4000u64;
//! let pi = Permutation::new(n, 2024);
//! let value = |i: u64| (i as f64 / n as f64).sqrt();
//! let mut ranks = vec![AnovaStats::default(); 4];
//! for pos in 0..n {
//!     let rank = (pos * 4 / n) as usize;
//!     let faulty = if rank == 3 { 0.05 } else { 0.0 };
//!     ranks[rank].push(value(pi.apply(pos)) + faulty);
//! }
//! let verdict = anova(&ranks);
//! assert!(verdict.rejects(1e-3));
//! assert_eq!(verdict.flagged(1e-3), Some(3));
//! ```

mod anova;
mod observation;
mod permutation;
mod regression;
#[cfg(test)]
mod simulation;
mod stats;
mod verdict;
#[cfg(test)]
mod worked_examples;

pub use anova::anova;
pub use observation::{Observation, MAX_PREDICTORS};
pub use permutation::Permutation;
pub use regression::{regression, RegressionVerdict};
pub use stats::{AnovaStats, RegressionStats};
pub use verdict::{f_critical, CheckTest, FTest, Outcome, Suspect, Verdict};
