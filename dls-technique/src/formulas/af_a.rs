//! AF-a, adaptive factoring with sub-chunks and total times (LB4OMP's `af_a`; Korndörfer,
//! Eleliemy, Mohammed, Ciorba & Banicescu, IEEE TPDS 33(4), 2022, after Banicescu & Liu, HPC
//! Symposium 2000).
//!
//! AF's formula (see `adaptive_factoring`): rank i's next chunk is
//! `c_i = (D + 2·T·R − sqrt(D² + 4·D·T·R)) / (2·mu_i)`, `D = Σ_k sigma_k²/mu_k`,
//! `T = (Σ_k 1/mu_k)^−1`, rounded up. LB4OMP's variant differs from AF in two facts:
//!
//! * **Sub-chunks.** A chunk is not handed out at once but in sub-chunks of
//!   `floor(c_i / divider)` iterates (parameter `divider`, LB4OMP's default 10; a chunk smaller
//!   than `divider` goes whole), one per request of rank i; the last sub-chunk takes what is
//!   left of the chunk when that is less than two sub-chunks. Only when a chunk is used up does
//!   the rank compute its next one, so a rank is re-measured about `divider` times per chunk.
//! * **Total times.** A sub-chunk's time is measured from the request that obtained it to the
//!   next request (dls: the elapsed time of [`ChunkTiming`](crate::ChunkTiming), scheduling
//!   overhead and waiting included), where AF takes the work time only.
//!
//! mu_i and sigma_i are estimated from rank i's sub-chunk timings `(n_j, e_j)` as for AF (see
//! [`RankStats`](crate::RankStats)): `mu = Σ e_j / Σ n_j`,
//! `sigma² = (Σ e_j²/n_j − (Σ e_j)²/Σ n_j) / (m − 1)`, and `sigma = 0` after a single timing, as
//! in LB4OMP. (LB4OMP takes the mean and standard deviation of the sub-chunks' per-iterate
//! averages; the standard deviation of an average of n iterates is sigma/sqrt(n), so its sigma
//! is not the per-iterate sigma of AF's formula; dls keeps AF's estimator.) A rank's estimates
//! are published to the others when it finishes a chunk, as in LB4OMP; a rank without them
//! counts with the mean mu and mean sigma² of the ranks that have them (as in `af`). The timings
//! a rank reports between two of its requests count as one sample (the runtime reports one per
//! request).
//!
//! First chunk: LB4OMP starts every thread with a chunk of 100 iterates; dls starts like `af`:
//! FAC2's chunk `ceil(R_j/(2P))` capped at the probe chunk (parameter `probe`, default
//! `ceil(N/(40P))`; `probe=0`: FAC2's chunk), again in sub-chunks. No tail is merged.
//!
//! Test vector (N = 1000, P = 2, `af-a,probe=0,divider=2`), hand-derived in
//! `technique_vectors.rs`: 125, 125, 125, 125 (the two FAC2 chunks of 250, each in two
//! sub-chunks), then, with rank 0's sub-chunks timed at 1.25 s and 1.875 s (elapsed) and rank 1
//! unmeasured, rank 0's chunk 189 in sub-chunks 94 and 95.

use std::sync::Mutex;

use crate::entry::{Entry, LoopPlan, Rule};
use crate::formulas::fac2::batch_chunk;
use crate::formulas::rounding::ceil_chunk;
use crate::learning::probe;
use crate::learning::rank_stats::MIN_TIME;
use crate::spec::error::TechniqueError;
use crate::spec::params::{ParamSpec, Params, ValueKind, PROBE};
use crate::spec::technique::Technique;
use crate::state::LoopState;

/// `divider`: sub-chunks per chunk.
pub(crate) const DIVIDER: ParamSpec = ParamSpec {
    name: "divider",
    value: "whole number >= 1",
    help: "a chunk is handed out in sub-chunks of floor(chunk/divider) iterates (default 10, \
           LB4OMP's; 1: whole chunks)",
    kind: ValueKind::Count,
};

/// One rank's state: its current chunk, its timings and what it has published.
#[derive(Debug, Clone, Default)]
struct Rank {
    /// Iterates of the current chunk not yet handed out.
    chunk_left: u64,
    /// The current chunk's sub-chunk size.
    sub: u64,
    /// Elapsed seconds and iterates reported so far (to take the difference at each request).
    seen_elapsed: f64,
    seen_iterates: u64,
    /// Timing samples: count, `Σ e`, `Σ n`, `Σ e²/n`.
    samples: u64,
    sum_e: f64,
    sum_n: f64,
    sum_e2_over_n: f64,
    /// `(mu, sigma²)` published at the end of the rank's last chunk.
    published: Option<(f64, f64)>,
}

impl Rank {
    /// Takes the timings reported since the last request as one sample.
    fn observe(&mut self, elapsed_s: f64, iterates: u64) {
        let n = iterates.saturating_sub(self.seen_iterates);
        let e = elapsed_s - self.seen_elapsed;
        if n > 0 && e.is_finite() && e >= 0.0 {
            self.samples += 1;
            self.sum_e += e;
            self.sum_n += n as f64;
            self.sum_e2_over_n += e * e / n as f64;
        }
        self.seen_elapsed = elapsed_s;
        self.seen_iterates = iterates;
    }

    /// `(mu, sigma²)` from the samples so far (sigma² = 0 after one).
    fn estimate(&self) -> Option<(f64, f64)> {
        if self.samples == 0 || self.sum_n <= 0.0 {
            return None;
        }
        let mu = (self.sum_e / self.sum_n).max(MIN_TIME);
        let var = if self.samples < 2 {
            0.0
        } else {
            ((self.sum_e2_over_n - self.sum_e * self.sum_e / self.sum_n)
                / (self.samples - 1) as f64)
                .max(0.0)
        };
        Some((mu, var))
    }
}

/// Sums over the published estimates (AF's D and T, kept up to date in O(1)).
#[derive(Debug, Clone, Default)]
struct Sums {
    known: usize,
    var_over_mu: f64,
    inv_mu: f64,
    mu: f64,
    var: f64,
}

impl Sums {
    fn apply(&mut self, (mu, var): (f64, f64), sign: f64) {
        if sign > 0.0 {
            self.known += 1;
        } else {
            self.known = self.known.saturating_sub(1);
        }
        self.var_over_mu += sign * var / mu;
        self.inv_mu += sign / mu;
        self.mu += sign * mu;
        self.var += sign * var;
    }
}

#[derive(Debug, Clone)]
struct State {
    ranks: Vec<Rank>,
    sums: Sums,
}

/// AF-a's per-loop state (behind a lock: the plan's `chunk` takes `&self`; the scheduler calls
/// it once per chunk handed out, never concurrently).
#[derive(Debug)]
struct Plan {
    divider: u64,
    state: Mutex<State>,
}

impl Plan {
    /// AF's chunk for rank `i` with estimate `(mu_i, _)`.
    fn af_chunk(sums: &Sums, p: usize, mu_i: f64, remaining: u64) -> u64 {
        let known = sums.known.max(1) as f64;
        let unknown = p.saturating_sub(sums.known) as f64;
        let mean_mu = (sums.mu / known).max(MIN_TIME);
        let mean_var = (sums.var / known).max(0.0);
        let d = (sums.var_over_mu + unknown * mean_var / mean_mu).max(0.0);
        let t = 1.0 / (sums.inv_mu + unknown / mean_mu);
        let tr = t * remaining as f64;
        // (D + 2TR − sqrt(D² + 4DTR)) in its cancellation-free form, as in `af`.
        let numerator = 4.0 * tr * tr / (d + 2.0 * tr + (d * d + 4.0 * d * tr).sqrt());
        ceil_chunk(numerator / (2.0 * mu_i))
    }
}

impl LoopPlan for Plan {
    fn chunk(&self, s: &LoopState) -> u64 {
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let State { ranks, sums } = &mut *guard;
        let Some(rank) = ranks.get_mut(s.rank) else {
            return batch_chunk(s);
        };
        if let Some(st) = s.stats.get(s.rank) {
            rank.observe(st.elapsed_s, st.iterates);
        }
        if rank.chunk_left == 0 {
            // The chunk is used up: publish this rank's estimates and size its next chunk.
            let estimate = rank.estimate();
            if let Some(old) = rank.published.take() {
                sums.apply(old, -1.0);
            }
            if let Some(new) = estimate {
                sums.apply(new, 1.0);
                rank.published = Some(new);
            }
            let c = match estimate {
                Some((mu, _)) => Plan::af_chunk(sums, s.p, mu, s.remaining),
                None => probe::limit(s, false, batch_chunk(s)),
            }
            .max(1);
            rank.chunk_left = c;
            rank.sub = if c >= self.divider { c / self.divider } else { c };
        }
        // The next sub-chunk; the last one takes the rest when less than two are left.
        let left = rank.chunk_left;
        let want = if left > rank.sub && left - rank.sub < rank.sub {
            left
        } else {
            rank.sub.min(left)
        };
        // Clamped here as the scheduler will clamp it, so the chunk's bookkeeping is exact.
        let min = s.params.min_chunk.max(1);
        let max = s.params.max_chunk.unwrap_or(u64::MAX).max(min);
        let size = want.clamp(min, max).min(s.remaining);
        rank.chunk_left = left.saturating_sub(size);
        size
    }

    fn clone_box(&self) -> Box<dyn LoopPlan> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Box::new(Plan {
            divider: self.divider,
            state: Mutex::new(state),
        })
    }
}

/// The plan of one loop: no chunk, no timing yet.
fn start(params: &Params, _n: u64, p: usize) -> Box<dyn LoopPlan> {
    let divider = params.number("divider").map_or(10, |d| d.max(1.0) as u64);
    Box::new(Plan {
        divider,
        state: Mutex::new(State {
            ranks: vec![Rank::default(); p],
            sums: Sums::default(),
        }),
    })
}

/// `divider` must be at least 1.
fn check(t: &Technique, _p: Option<usize>) -> Result<(), TechniqueError> {
    match t.params.number("divider") {
        Some(d) if d < 1.0 => Err(TechniqueError::new(format!(
            "af-a: parameter `divider` must be a whole number >= 1, got `{d}`; for example `{}`",
            ENTRY.example
        ))),
        _ => Ok(()),
    }
}

/// The registry entry of `af-a`.
pub(crate) const ENTRY: Entry = Entry {
    example: "af-a,divider=10",
    adaptive: true,
    check: Some(check),
    ..Entry::new(
        "af-a",
        "adaptive factoring in sub-chunks, timed with scheduling overhead (LB4OMP's AF_a, \
         Korndörfer et al., IEEE TPDS 33(4), 2022; Banicescu & Liu 2000)",
        &[DIVIDER, PROBE],
        Rule::PerLoop(start),
    )
};
