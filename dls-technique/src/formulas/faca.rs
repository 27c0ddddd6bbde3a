//! FACa, factoring with the remainder computed instead of measured (LB4OMP's `faca`;
//! Korndörfer, Eleliemy, Mohammed, Ciorba & Banicescu, IEEE TPDS 33(4), 2022, after Hummel,
//! Schonberg & Flynn, CACM 35(8), 1992).
//!
//! FAC's formula (see `factoring`), with mu and sigma known before the loop (LB4OMP reads them
//! from a profiling run; here the parameters `mu` and `sigma`, or the simulator's model), but
//! the remainder R_j at the start of batch j is not measured: LB4OMP lets every thread compute
//! the batch chunk on its own, without a lock, from the previous batch,
//!
//! * `R̂_0 = N`, `R̂_j = R̂_{j−1} − P·c_{j−1}`;
//! * `b_j = P·sigma / (2·mu·sqrt(R̂_j))`;
//! * `x_0 = 1 + b_0² + b_0·sqrt(b_0² + 2)`, `x_j = 2 + b_j² + b_j·sqrt(b_j² + 4)` for j >= 1;
//! * `c_j = ceil(R̂_j / (x_j·P))`.
//!
//! So FACa is not an adaptive variant: like FAC it uses statistics given in advance. In LB4OMP
//! it saves FAC's lock; in dls's scheduler R_j is known at every request anyway, and FACa hands
//! out FAC's chunks unless the handed-out chunks differ from the formula. Raising a chunk to
//! `min` makes no difference (once the formula falls below `min` it stays there); lowering it to
//! `max` does: R̂_j then underestimates R_j and FACa's chunks are smaller than FAC's. If R̂ runs
//! out before the loop does, the rest is sized by FAC's formula from the measured remainder
//! (LB4OMP has no `max`; its threads would stop there). Without `mu` and `sigma`, `x_j = 2` for
//! every batch, as for `fac`. As in LB4OMP, no tail is merged.
//!
//! Test vector (N = 1000, P = 4, mu = sigma), hand-derived in `technique_vectors.rs`: FAC's
//! 229×4, 9×4, 5×4, 3×4, 2×4, 1×8. With `max=100`: 100×4, then 9×4, 5×4, 3×4, 2×4, 1×8 from
//! R̂ (R̂_1 = 84, ..., R̂_7 = 0), then FAC from the measured R = 516: 60×4, 31×4, ...; FAC itself
//! gives 100×4, 70×4 (from R_1 = 600), 36×4, ...

use crate::entry::{Entry, Learnt, LoopPlan, ModelFacts, Rule};
use crate::formulas::factoring::fill_moments;
use crate::formulas::rounding::ceil_chunk;
use crate::spec::error::TechniqueError;
use crate::spec::params::{Params, MU, SIGMA};
use crate::spec::technique::{require_together, Technique};
use crate::state::LoopState;

/// The batch recurrence of one loop: the current computed remainder and chunk.
#[derive(Debug, Clone)]
struct Recurrence {
    /// `P·sigma / (2·mu)`, 0 without statistics.
    b_factor: f64,
    /// Whether mu and sigma are given (else x = 2 for every batch).
    with_stats: bool,
    p: usize,
    /// Batch index j.
    batch: u64,
    /// R̂_j.
    remaining: f64,
    /// c_j from R̂_j; `None` once R̂_j <= 0.
    chunk: Option<u64>,
}

impl Recurrence {
    /// `c_j = ceil(R̂_j / (x_j·P))` for the current batch.
    fn size(&self) -> Option<u64> {
        if self.remaining <= 0.0 {
            return None;
        }
        Some(ceil_chunk(
            self.remaining / (self.x(self.batch, self.remaining) * self.p as f64),
        ))
    }

    /// FAC's x for batch `j` and remainder `r`.
    fn x(&self, j: u64, r: f64) -> f64 {
        if !self.with_stats {
            return 2.0;
        }
        let b = self.b_factor / r.sqrt();
        if j == 0 {
            1.0 + b * b + b * (b * b + 2.0).sqrt()
        } else {
            2.0 + b * b + b * (b * b + 4.0).sqrt()
        }
    }
}

impl LoopPlan for Recurrence {
    fn chunk(&self, s: &LoopState) -> u64 {
        match self.chunk {
            Some(c) => c,
            // R̂ ran out before the loop did (only with `max`): FAC from the measured R_j.
            None => {
                let r = s.batch.remaining_at_start as f64;
                ceil_chunk(r / (self.x(s.batch.index.max(1), r) * s.p as f64))
            }
        }
    }

    fn new_batch(&mut self, _learnt: &Learnt) {
        let handed = self.chunk.unwrap_or(0) as f64 * self.p as f64;
        self.remaining -= handed;
        self.batch += 1;
        self.chunk = self.size();
    }

    fn clone_box(&self) -> Box<dyn LoopPlan> {
        Box::new(self.clone())
    }
}

/// The plan of one loop: R̂_0 = N and c_0.
fn start(params: &Params, n: u64, p: usize) -> Box<dyn LoopPlan> {
    let (with_stats, b_factor) = match (params.mu, params.sigma) {
        (Some(mu), Some(sigma)) if mu > 0.0 => (true, p as f64 * sigma / (2.0 * mu)),
        _ => (false, 0.0),
    };
    let mut plan = Recurrence {
        b_factor,
        with_stats,
        p: p.max(1),
        batch: 0,
        remaining: n as f64,
        chunk: None,
    };
    plan.chunk = plan.size();
    Box::new(plan)
}

/// The registry entry of `faca`.
pub(crate) const ENTRY: Entry = Entry {
    example: "faca,mu=1ms,sigma=500us",
    check: Some(check),
    fill_from_model: Some(fill_from_model),
    ..Entry::new(
        "faca",
        "factoring with the batch remainder computed, not measured: R_j = R_{j-1} − P·c_{j-1} \
         (LB4OMP, Korndörfer et al., IEEE TPDS 33(4), 2022; Hummel, Schonberg & Flynn 1992)",
        &[MU, SIGMA],
        Rule::PerLoop(start),
    )
};

/// mu and sigma work together.
fn check(t: &Technique, p: Option<usize>) -> Result<(), TechniqueError> {
    require_together(t, p, ["mu", "sigma"])
}

/// mu and sigma from the iterate-time model.
fn fill_from_model(params: &mut Params, facts: &ModelFacts) -> Option<String> {
    fill_moments("faca", params, facts)
}
