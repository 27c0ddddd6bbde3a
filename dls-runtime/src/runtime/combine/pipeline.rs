//! The parallel-pipeline reduction of Kuntraruk, Pottenger & Ross (2005) inside a loop: merges
//! overlap the computing of the loop's remaining chunks.
//!
//! A rank's "task" is one chunk; its output is the chunk's partial result (the fold of its
//! iterates from the identity). Every rank first computes one chunk (step 0). Then the ranks run
//! levels 1, 2, 3, … whose roles cycle through the lg P' bits: at a level with bit b, rank r is a
//! **sender** when bit b of r is 0 — it sends its current output to r + 2^b and computes a new one
//! from its next chunk (while chunks remain) — and a **receiver** otherwise — it receives from
//! r − 2^b and merges into its own output ([`pipeline_level`], with the corrected sender test
//! `r mod 2^i < 2^(i−1)`). Half the ranks compute while the other half merge; rank 0 (also the
//! scheduler) always computes, rank P' − 1 only merges and ends with the total.
//!
//! **Ending a finite loop.** Rank 0 learns at some level E that the scheduler has no chunk left;
//! every message carries E once its sender knows it, and after the lg P' levels that follow E
//! every rank knows it (each level's pairs carry it across one more bit). A rank may have taken a
//! chunk at a level up to lg P'·(lg P' − 1) beyond E (it can run ahead of rank 0 by up to
//! lg P' − 1 levels per bit it has set), and an output created at level L reaches rank P' − 1
//! within the lg P' levels after L. So every rank stops after level E + lg P'·(lg P' + 1), the
//! same on all; the later levels pass empty outputs. Each output carries its number of iterates,
//! and rank P' − 1 checks that the total is the loop's n: a pipeline that lost an output is an
//! error, never a silent wrong result.
//!
//! **P not a power of two.** The ranks from P' = the largest power of two ≤ P on run the loop as
//! usual (chunks until none remain) and send their partial results to rank P' − 1 after the
//! pipeline; rank P' − 1 merges them and broadcasts the total to every rank.

use std::time::Instant;

use crate::report::ReductionReport;
use crate::runtime::combine::wire::{self, Wire};
use crate::runtime::combine::{Exchange, Folder};
use crate::runtime::error::DlsError;
use crate::runtime::loops::handle::{Iterates, Loop, Panics};
use crate::runtime::loops::panic_ctx;
use crate::runtime::loops::range::LoopIndex;
use dls_model::pipeline_schedule::{pipeline_level, Role};

/// What travels between two ranks at one level: the level at which rank 0 found the scheduler
/// empty (once the sender knows it), the number of iterates folded into the output, the output.
type Message<T> = (Option<u64>, u64, Option<T>);

/// Runs the loop `lp` as a parallel pipeline over the processes of `x` and returns the total on
/// every process. Collective over `x`; `lp` must be a loop over all of `x`'s processes with one
/// worker each.
pub(crate) fn run<I: LoopIndex, T: Wire>(
    lp: &Loop<I>,
    x: &dyn Exchange,
    identity: &dyn Fn() -> T,
    body: &(dyn Fn(Iterates<I>, &mut T) + Sync),
    combine: &dyn Fn(T, T) -> T,
) -> Result<(T, ReductionReport), DlsError> {
    let started = Instant::now();
    let (r, p) = (x.rank(), x.size());
    let p2 = if p.is_power_of_two() {
        p
    } else {
        p.next_power_of_two() / 2
    };
    let lg = p2.trailing_zeros() as u64;
    let last = p2 - 1;
    let mut folder = Folder {
        combine,
        read_into: None,
        merges: 0,
        merge_s: 0.0,
        received: 0,
        received_bytes: 0,
    };
    // A merge panics as a merge of this loop, not as the last chunk's last iterate.
    let _combining = panic_ctx::combining(lp.name());
    let merge = |folder: &mut Folder<'_, T>, a: Option<T>, b: Option<T>| {
        panic_ctx::between_iterates(|| folder.fold(a, b))
    };
    let mut levels = 0;
    let mut end_level = None;
    let total = if r >= p2 {
        // An extra rank: the loop as usual, then its partial result to rank P' − 1.
        let mut acc = identity();
        let mut iterates = 0_u64;
        while let Some(n) = fold_chunk(lp, &mut acc, body) {
            iterates += n;
        }
        x.send(last, &wire::encode(&(None::<u64>, iterates, Some(acc)))?);
        None
    } else {
        let mut out = compute_one(lp, identity, body);
        let mut exhausted = out.is_none();
        let mut known_e = (r == 0 && exhausted).then_some(0);
        let lead = lg * lg.saturating_sub(1);
        loop {
            let level = levels + 1;
            if let Some(e) = known_e {
                if level > e + lead + 2 * lg {
                    end_level = Some(e + lead + 2 * lg);
                    break;
                }
            }
            levels = level;
            let bit_level = ((level - 1) % lg) as u32 + 1;
            match pipeline_level(p2, r, bit_level) {
                Role::Send { to } => {
                    let (count, value) = out.take().map_or((0, None), |(k, v)| (k, Some(v)));
                    x.send(to, &wire::encode(&(known_e, count, value))?);
                    if !exhausted {
                        out = compute_one(lp, identity, body);
                        if out.is_none() {
                            exhausted = true;
                            if r == 0 {
                                known_e = Some(level);
                            }
                        }
                    }
                }
                Role::Receive { from } => {
                    let bytes = x.receive(from);
                    folder.received += 1;
                    folder.received_bytes += bytes.len() as u64;
                    let (e, count, theirs): Message<T> = wire::decode(&bytes)?;
                    known_e = known_e.or(e);
                    let (mine_count, mine) = out.take().map_or((0, None), |(k, v)| (k, Some(v)));
                    out = merge(&mut folder, theirs, mine).map(|v| (count + mine_count, v));
                }
                Role::Idle => unreachable!("every rank below P' has a role at every level"),
            }
        }
        // The scheduler has no chunk left (rank 0 saw it): a rank that never heard so asks once,
        // so that the scheduler's count of finished workers is complete.
        if !exhausted {
            if let Some((chunk, _)) = lp.next_chunk_in(Some(0), Panics::Unwind) {
                drop(chunk);
                return Err(DlsError::Mpi(format!(
                    "loop `{}`: the pipelined reduction ended while the scheduler still had \
                     iterates (internal error)",
                    lp.name()
                )));
            }
        }
        if r == last {
            let (mut count, mut acc) = out.map_or((0, None), |(k, v)| (k, Some(v)));
            for extra in p2..p {
                let bytes = x.receive(extra);
                folder.received += 1;
                folder.received_bytes += bytes.len() as u64;
                let (_, k, theirs): Message<T> = wire::decode(&bytes)?;
                count += k;
                acc = merge(&mut folder, acc, theirs);
            }
            if count != lp.len() {
                return Err(DlsError::Mpi(format!(
                    "loop `{}`: the pipelined reduction gathered {count} of {} iterates at rank \
                     {last} (internal error)",
                    lp.name(),
                    lp.len()
                )));
            }
            Some(wire::encode(&acc)?)
        } else {
            None
        }
    };
    let total: Option<T> = wire::decode(&x.broadcast(last, total))?;
    let report = ReductionReport {
        strategy: "pipeline".to_string(),
        requested: "pipeline".to_string(),
        why: match end_level {
            Some(end) => format!(
                "pipeline requested: {p2} ranks in sender/receiver pairs{}, merges overlapping \
                 the computing of the chunks; {end} levels, the total at rank {last}",
                if p2 < p {
                    format!(" (ranks {p2}..{p} ran their chunks apart and sent their results)")
                } else {
                    String::new()
                }
            ),
            None => format!("pipeline requested: rank {r} ran its chunks apart (P = {p})"),
        },
        merges: folder.merges,
        merge_time_s: if folder.merges > 0 {
            folder.merge_s / folder.merges as f64
        } else {
            0.0
        },
        value_bytes: folder
            .received_bytes
            .checked_div(folder.received)
            .unwrap_or(0),
        time_s: started.elapsed().as_secs_f64(),
    };
    Ok((total.unwrap_or_else(identity), report))
}

/// The next chunk of `lp` for this rank, folded from the identity: (its iterates, the output);
/// `None` when the scheduler has no chunk left.
fn compute_one<I: LoopIndex, T>(
    lp: &Loop<I>,
    identity: &dyn Fn() -> T,
    body: &(dyn Fn(Iterates<I>, &mut T) + Sync),
) -> Option<(u64, T)> {
    let mut acc = identity();
    let iterates = fold_chunk(lp, &mut acc, body)?;
    Some((iterates, acc))
}

/// Folds the next chunk of `lp` for this rank into `acc`: its iterates; `None` when the
/// scheduler has no chunk left.
fn fold_chunk<I: LoopIndex, T>(
    lp: &Loop<I>,
    acc: &mut T,
    body: &(dyn Fn(Iterates<I>, &mut T) + Sync),
) -> Option<u64> {
    let (mut chunk, _) = lp.next_chunk_in(Some(0), Panics::Unwind)?;
    let iterates = chunk.len() as u64;
    // The `body` delay of DLS_DELAY, once per iterate (see `runtime/observe/delay.rs`).
    match crate::runtime::observe::delay::body() {
        None => body(chunk.take_run(u64::MAX), acc),
        Some(d) => {
            while !chunk.is_done() {
                d.wait(1);
                body(chunk.take_run(1), acc);
            }
        }
    }
    Some(iterates)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bound used to end the pipeline: every rank learns E within lg P' levels, and the
    /// outputs created up to lg P'·(lg P' − 1) levels past E reach rank P' − 1 within lg P' more.
    #[test]
    fn the_ending_level_covers_the_spread_of_e() {
        for lg in 1_u32..=6 {
            let p = 1_usize << lg;
            // Who knows E after the lg levels following E, whatever bit E's level had (rank 0
            // knows it from the start).
            for phase in 0..lg {
                let mut knows = vec![false; p];
                knows[0] = true;
                for k in 0..lg {
                    let level = (phase + k) % lg + 1;
                    let before = knows.clone();
                    for (r, known) in knows.iter_mut().enumerate() {
                        if let Role::Receive { from } = pipeline_level(p, r, level) {
                            *known |= before[from];
                        }
                    }
                }
                assert!(knows.iter().all(|&k| k), "lg {lg} phase {phase}: {knows:?}");
            }
        }
    }
}
