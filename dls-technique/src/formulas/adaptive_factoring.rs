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
//! see [`RankStats`](crate::RankStats)); sigma needs two chunks. Ranks not yet measured enter D
//! and T with the mean mu and mean sigma² of the measured ranks, so they count as average ranks.
//! A chunk that would leave at most the minimum chunk behind takes that remainder too.
//!
//! Before its first two chunks are measured a rank has no mu and sigma. The published AF hands
//! it FAC2's chunk `ceil(R_j/(2P))` of the current batch. dls caps that chunk at the probe chunk
//! (parameter `probe`, default `ceil(N/(40P))`): a slow rank then cannot take on more work than
//! the whole loop's lower bound before AF has measured it. This sampling phase is a dls choice,
//! explained in the `probe` module of [`technique`](crate); `af,probe=0` turns it off and gives
//! the published FAC2 chunks. By default (`local=1`) mu and sigma are estimated from timings
//! compared with the other ranks' on neighbouring iterates, so cost that follows the index is
//! not taken for speed, and a measured rank's chunk grows at most as fast as its measured time
//! (the `local_speed` module of [`technique`](crate)); `local=0` takes raw times per iterate.

use crate::entry::{Entry, Rule};
use crate::spec::params::{LOCAL, PROBE};
use crate::formulas::fac2::batch_chunk;
use crate::learning::probe;
use crate::formulas::rounding::ceil_chunk;
use crate::state::LoopState;

/// AF's chunk for the requesting rank.
pub(crate) fn chunk(s: &LoopState) -> u64 {
    let agg = s.aggregates;
    let Some((mu_i, _)) = s.stats.get(s.rank).and_then(|r| r.moments()) else {
        return probe::limit(s, false, batch_chunk(s));
    };
    if agg.af_known == 0 {
        // Unreachable while the aggregates count the requesting rank; a probe chunk is safe.
        return probe::limit(s, false, batch_chunk(s));
    }
    let known = agg.af_known as f64;
    let unknown = s.p.saturating_sub(agg.af_known) as f64;
    let mean_mu = agg.af_sum_mu / known;
    let mean_var = (agg.af_sum_var / known).max(0.0);
    let d = (agg.af_sum_var_over_mu + unknown * mean_var / mean_mu).max(0.0);
    let t = 1.0 / (agg.af_sum_inv_mu + unknown / mean_mu);
    let tr = t * s.remaining as f64;
    let numerator = 4.0 * tr * tr / (d + 2.0 * tr + (d * d + 4.0 * d * tr).sqrt());
    probe::limit(s, true, ceil_chunk(numerator / (2.0 * mu_i)))
}

/// The registry entry of `af`.
pub(crate) const ENTRY: Entry = Entry {
    merges_tail: true,
    adaptive: true,
    ..Entry::new(
        "af",
        "adaptive factoring: chunks from per-rank mu and sigma measured during the loop \
     (Banicescu & Liu, HPC Symposium 2000)",
        &[PROBE, LOCAL],
        Rule::Formula(chunk),
    )
};
