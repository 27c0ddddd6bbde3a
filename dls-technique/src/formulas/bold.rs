//! BOLD, the bold strategy (Hagerup, "Allocating independent tasks to parallel processors: an
//! experimental study", J. Parallel and Distributed Computing 47(2), 1997), in the form LB4OMP
//! implements it (Korndörfer, Eleliemy, Mohammed, Ciorba & Banicescu, IEEE TPDS 33(4), 2022).
//!
//! BOLD sizes each chunk from mu and sigma of an iterate's time, the overhead h of one chunk and
//! an estimate of how much work is still unfinished, counting the expected progress of the
//! chunks that are running. With N iterates, P ranks:
//!
//! * at the start: `a = 2·(sigma/mu)²`, `b = 8·a·ln(8·a)`, `c1 = h/(mu·ln 2)`,
//!   `c2 = sqrt(2π)·c1`, `c3 = ln c2`; `M = N` (iterates not yet finished),
//!   `N̂ = N` (expected iterates not yet finished), total speed `S = 0`;
//! * a rank that asks at time t, having asked last at `t_i` for a chunk of `k_i` iterates with
//!   speed `s_i = k_i/(k_i·mu + h)`: `N̂ −= (t − t_prev)·S + k_i − (t − t_i)·s_i` (the expected
//!   progress of every running chunk since the last request `t_prev`, corrected by this rank's
//!   chunk, now known to be finished), `M −= k_i`, `S −= s_i`;
//! * its chunk, R the iterates not yet handed out, `q = R/P`: if `q <= 1`, 1; else
//!   `r = max(R, N̂)`, `t = r/P`, `v = q/(b + q)`, `d = R/(1 + 1/ln q − v)`; if `d <= c2`, t;
//!   else `s = a·(ln d − c3)·(1 + M/(r·P))`, `w = ln(v·ln q) + ln b` (`ln ln q` if b <= 0),
//!   `c = min(t, t + s/2 − sqrt(s·(t + s/4)) + max(0, c1·w))`, rounded down;
//! * then `s_i = c/(c·mu + h)`, `S += s_i`, `t_i = t`.
//!
//! mu, sigma and h are parameters (`bold,mu=1ms,sigma=500us,h=20us`; LB4OMP reads mu and sigma
//! from a profiling run and h from the environment); the simulator fills them from its model and
//! `--overhead`. Without mu and sigma, BOLD uses FAC2's chunks, as `fac` does; h must be given
//! with them (with h = 0 the formula has no finite value: `c3 = ln 0`).
//!
//! The clock: dls's scheduler has none; a rank's clock at a request is the sum of the elapsed
//! times of the chunks it has reported (from each request to the chunk's end), which is the time
//! since the rank's first request when it asks again as soon as a chunk ends (as the runtime and
//! the simulator do). Times from different ranks are taken as one clock; an earlier time than
//! the last request's counts as no time passed.
//!
//! Test vector (N = 1000, P = 4, mu = sigma = 1 ms, h = 100 µs), hand-derived in
//! `technique_vectors.rs`: round robin with no time passing, 186 187 188 189 152 98; if rank 0
//! asks again at 0.1861 s, its chunk is 35.

use std::sync::Mutex;

use crate::entry::{fill_durations, Entry, LoopPlan, ModelFacts, Rule};
use crate::formulas::fac2::batch_chunk;
use crate::formulas::rounding::floor_chunk;
use crate::spec::error::TechniqueError;
use crate::spec::params::{ParamSpec, Params, ValueKind, MU, SIGMA};
use crate::spec::technique::{require_together, Technique};
use crate::state::LoopState;

/// The constants of one loop (LB4OMP's "algorithm 1").
#[derive(Debug, Clone, Copy)]
struct Constants {
    mu: f64,
    h: f64,
    a: f64,
    b: f64,
    ln_b: f64,
    c1: f64,
    c2: f64,
    c3: f64,
}

/// One rank's last chunk: size, request time, speed.
#[derive(Debug, Clone, Copy, Default)]
struct Last {
    size: u64,
    at: f64,
    speed: f64,
}

/// The shared estimates.
#[derive(Debug, Clone)]
struct State {
    /// M: iterates not yet finished.
    unfinished: f64,
    /// N̂: expected iterates not yet finished.
    expected: f64,
    /// S: total speed of the running chunks, iterates per second.
    speed: f64,
    /// Time of the last request.
    last_request: f64,
    ranks: Vec<Last>,
}

/// BOLD's per-loop state (behind a lock: `chunk` takes `&self`; the scheduler calls it once per
/// chunk handed out, never concurrently). `None` constants: FAC2's chunks.
#[derive(Debug)]
struct Plan {
    constants: Option<Constants>,
    state: Mutex<State>,
}

impl Constants {
    fn new(mu: f64, sigma: f64, h: f64) -> Self {
        let a = 2.0 * (sigma / mu).powi(2);
        let b = 8.0 * a * (8.0 * a).ln();
        let c1 = h / (mu * std::f64::consts::LN_2);
        let c2 = (2.0 * std::f64::consts::PI).sqrt() * c1;
        Constants {
            mu,
            h,
            a,
            b,
            ln_b: if b > 0.0 { b.ln() } else { 0.0 },
            c1,
            c2,
            c3: c2.ln(),
        }
    }

    /// LB4OMP's "algorithm 2": the chunk for R iterates not handed out.
    fn chunk(&self, remaining: u64, p: usize, state: &State) -> f64 {
        let p = p as f64;
        let rem = remaining as f64;
        let q = rem / p;
        if q <= 1.0 {
            return 1.0;
        }
        let r = rem.max(state.expected.max(0.0));
        let t = r / p;
        let ln_q = q.ln();
        let v = q / (self.b + q);
        let d = rem / (1.0 + 1.0 / ln_q - v);
        if d <= self.c2 {
            return t;
        }
        let s = self.a * (d.ln() - self.c3) * (1.0 + state.unfinished / (r * p));
        let w = if self.b > 0.0 {
            (v * ln_q).ln() + self.ln_b
        } else {
            ln_q.ln()
        };
        let r1 = t + s / 2.0 - (s * (t + s / 4.0)).sqrt() + (self.c1 * w).max(0.0);
        if r1.is_nan() {
            return t;
        }
        r1.min(t)
    }
}

impl LoopPlan for Plan {
    fn chunk(&self, s: &LoopState) -> u64 {
        let Some(k) = self.constants else {
            return batch_chunk(s);
        };
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = s.stats.get(s.rank).map_or(0.0, |r| r.elapsed_s);
        let now = if now.is_finite() { now } else { 0.0 };
        let elapsed = (now - state.last_request).max(0.0);
        state.last_request = state.last_request.max(now);
        let Some(&last) = state.ranks.get(s.rank) else {
            return batch_chunk(s);
        };
        if last.size > 0 {
            let size = last.size as f64;
            let expected_done = (now - last.at).max(0.0) * last.speed;
            state.expected -= elapsed * state.speed + size - expected_done;
            state.unfinished -= size;
        }
        state.speed = (state.speed - last.speed).max(0.0);
        let wanted = floor_chunk(k.chunk(s.remaining, s.p, &state));
        // Clamped here as the scheduler will clamp it, so that the speeds are exact.
        let min = s.params.min_chunk.max(1);
        let max = s.params.max_chunk.unwrap_or(u64::MAX).max(min);
        let size = wanted.clamp(min, max).min(s.remaining);
        let speed = size as f64 / (size as f64 * k.mu + k.h);
        state.speed += speed;
        state.ranks[s.rank] = Last {
            size,
            at: now,
            speed,
        };
        size
    }

    fn clone_box(&self) -> Box<dyn LoopPlan> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Box::new(Plan {
            constants: self.constants,
            state: Mutex::new(state),
        })
    }
}

/// The plan of one loop.
fn start(params: &Params, n: u64, p: usize) -> Box<dyn LoopPlan> {
    let constants = match (params.mu, params.sigma, params.h) {
        (Some(mu), Some(sigma), Some(h)) if mu > 0.0 && h > 0.0 => {
            Some(Constants::new(mu, sigma, h))
        }
        _ => None,
    };
    Box::new(Plan {
        constants,
        state: Mutex::new(State {
            unfinished: n as f64,
            expected: n as f64,
            speed: 0.0,
            last_request: 0.0,
            ranks: vec![Last::default(); p],
        }),
    })
}

/// mu and sigma together; h with them.
fn check(t: &Technique, p: Option<usize>) -> Result<(), TechniqueError> {
    require_together(t, p, ["mu", "sigma"])?;
    require_together(t, p, ["mu", "h"])
}

/// mu and sigma from the iterate-time model, h from `--overhead` (none: FAC2's chunks).
fn fill_from_model(params: &mut Params, facts: &ModelFacts) -> Option<String> {
    let given = [params.mu, params.sigma, params.h];
    if given.iter().all(Option::is_none) && facts.overhead_s <= 0.0 {
        return Some(
            "bold: no --overhead, so h is unknown and BOLD uses FAC2's chunks (give --overhead, \
             or mu=, sigma= and h= in the technique spec)"
                .to_string(),
        );
    }
    let (mean, sd) = (facts.moments)()?;
    let note = fill_durations(
        "bold",
        [(&mut params.mu, "mu", mean), (&mut params.sigma, "sigma", sd)],
    );
    if params.h.is_some() || facts.overhead_s <= 0.0 || !facts.overhead_s.is_finite() {
        return note;
    }
    params.h = Some(facts.overhead_s);
    let h = format!(
        "h = {} (--overhead)",
        crate::spec::duration::format_duration_short(facts.overhead_s)
    );
    Some(match note {
        Some(n) => format!("{n}; bold: {h}"),
        None => format!("bold: {h} taken from the simulated loop"),
    })
}

/// `h`: the overhead of scheduling one chunk.
const H: ParamSpec = ParamSpec {
    name: "h",
    value: "duration > 0 (ns, us, ms, s; bare number = seconds)",
    help: "scheduling overhead of one chunk (give with mu and sigma; without all three, bold \
           uses FAC2's chunks)",
    kind: ValueKind::Duration,
};

/// The registry entry of `bold`.
pub(crate) const ENTRY: Entry = Entry {
    example: "bold,mu=1ms,sigma=500us,h=20us",
    adaptive: true,
    check: Some(check),
    fill_from_model: Some(fill_from_model),
    ..Entry::new(
        "bold",
        "the bold strategy: chunks from mu, sigma, overhead h and the expected unfinished work \
         (Hagerup, JPDC 47(2), 1997; LB4OMP form)",
        &[MU, SIGMA, H],
        Rule::PerLoop(start),
    )
};
