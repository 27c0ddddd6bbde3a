//! AF, adaptive factoring (Banicescu & Liu, HPC Symposium 2000): the chunk of rank i follows
//! from every rank's mean mu_k and standard deviation sigma_k of iterate time, measured while
//! the loop runs:
//!
//! `c_i = (D + 2·T·R − sqrt(D² + 4·D·T·R)) / (2·mu_i)`,
//! `D = Σ_k sigma_k² / mu_k`, `T = (Σ_k 1/mu_k)^−1`, R the iterates remaining.
//!
//! D uses `sigma²/mu` as published (one public implementation uses `sigma/mu`, which is not
//! even dimensionally a time). The numerator is evaluated in the cancellation-free form
//! `4·T²·R² / (D + 2·T·R + sqrt(D² + 4·D·T·R))` (the same value: multiply by the conjugate).
//! With `sigma = 0` everywhere it gives `T·R/mu_i`, each rank's share of the remainder by speed.
//!
//! Measurements: mu and sigma per rank are estimated from the rank's chunk timings (work time;
//! see [`RankStats`](super::RankStats)); sigma needs two chunks. Until the requesting rank has
//! both, it gets FAC2's chunk `ceil(R_j/(2P))` of the current batch: the first chunks are sized
//! as in FAC2, large enough to measure and small enough to leave room for adaptation. Ranks
//! not yet measured enter D and T with the mean mu and mean sigma² of the measured ranks.
//! A chunk that would leave at most the minimum chunk behind takes that remainder too.

use super::fac2::batch_chunk;
use super::rounding::ceil_chunk;
use super::state::LoopState;

/// AF's chunk for the requesting rank.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    let agg = s.aggregates;
    let Some((mu_i, _)) = s.stats.get(s.rank).and_then(|r| r.moments()) else {
        return batch_chunk(s);
    };
    if agg.af_known == 0 {
        return batch_chunk(s);
    }
    let known = agg.af_known as f64;
    let unknown = s.p.saturating_sub(agg.af_known) as f64;
    let mean_mu = agg.af_sum_mu / known;
    let mean_var = (agg.af_sum_var / known).max(0.0);
    let d = (agg.af_sum_var_over_mu + unknown * mean_var / mean_mu).max(0.0);
    let t = 1.0 / (agg.af_sum_inv_mu + unknown / mean_mu);
    let tr = t * s.remaining as f64;
    let numerator = 4.0 * tr * tr / (d + 2.0 * tr + (d * d + 4.0 * d * tr).sqrt());
    ceil_chunk(numerator / (2.0 * mu_i))
}
