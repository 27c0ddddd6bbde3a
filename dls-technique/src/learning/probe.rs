//! The sampling (probe) phase of the adaptive techniques AF, AWF-B, AWF-C, AWF-D, AWF-E, and of
//! AWF on its first time step: a dls choice, not part of the published techniques.
//!
//! An adaptive technique sizes a rank's chunks from that rank's measurements, but the first
//! chunks have to be handed out before anything is measured. The published techniques use
//! FAC2's first chunk `ceil(N/(2P))` there. On a rank that is much slower than the others that
//! one chunk can exceed the whole loop's lower bound (N = 20,000 iterates of 1 ms on P = 8
//! ranks, one of them 3× slower: its first chunk of 1,250 iterates takes 3.75 s, the lower bound
//! is about 2.7 s), and no later adaptation can win that back.
//!
//! So until a rank has the measurements its technique needs, its chunks are capped at the probe
//! chunk K: `c = min(technique's chunk, K)`. A rank needs
//! * AF: its mean mu and standard deviation sigma, i.e. two measured chunks;
//! * AWF-C, AWF-E: one measured chunk (its weighted time per iterate pi);
//! * AWF-B, AWF-D, and AWF on its first time step (no history and no `weights=`): to have been
//!   measured when the current batch's weights were learnt, since their weights stay fixed for
//!   the batch (a rank measured after the batch started probes once more, then the next batch
//!   weighs it by its own speed).
//!
//! Ranks still probing never distort the others' chunks: AF counts a rank without mu and sigma
//! with the mean mu and mean sigma² of the measured ranks, the AWF variants count a rank without
//! pi with the mean pi of the measured ranks (an unmeasured rank weighs as an average one), and
//! a probing rank takes at most K iterates, so it holds back little work whatever its speed.
//!
//! K is the parameter `probe` (`af,probe=20`), default `ceil(N/(40P))` raised to the minimum
//! chunk ([`Params::probe_chunk`](crate::Params::probe_chunk)): a twentieth of FAC2's first
//! chunk, so the P probe chunks of the first round cover 1/40 of the loop. `probe=0` turns the
//! phase off and gives the published first chunks (AWF on its first time step then uses equal
//! weights throughout, as published). The probe never raises a chunk, and like every chunk it
//! is raised to `min` and lowered to `max`.
//!
//! Why N/(40P), from the simulator: makespan over lower bound (1 is perfect), median over seeds,
//! AF / AWF-B, P = 8, `--overhead 20us --latency 5us`, e.g.
//! `dls compare -t af,probe=63 awf-b,probe=63 --n 20000 --p 8 --iterate-time exp:1ms
//! --speeds 1,1,1,1,1,1,1,3 --overhead 20us --latency 5us --seed 1`:
//!
//! | probe K | exp 1 ms, one rank 3× slower, N = 20,000 | one rank 10× slower | gamma(0.25, 4 ms), one 3× slower, N = 2,000 |
//! |---|---|---|---|
//! | 0 (published) | 1.362 / 1.362 | 4.40 / 4.40 | 1.45 / 1.45 |
//! | N/(10P) | 1.001 / 1.001 | 1.41 / 1.59 | 1.02 / 1.05 |
//! | N/(20P) | 1.002 / 1.001 | 1.008 / 1.005 | 1.03 / 1.23 |
//! | N/(40P) | 1.001 / 1.002 | 1.003 / 1.002 | 1.03 / 1.31 |
//! | N/(80P) | 1.001 / 1.001 | 1.003 / 1.005 | 1.02 / 1.71 |
//!
//! With all ranks equal every K gives about 1.001 (the phase costs nothing). A rank f times
//! slower than average spends `f·K·mu` per probe chunk while the others start on the bulk of the
//! loop, against a lower bound of about `N·mu/P`: a fraction `f·K·P/N` of the loop per probe,
//! 30% for f = 10 at K = N/(10P) (AF probes twice), which is why N/(10P) fails there. Smaller K
//! estimates a rank from fewer iterates: with heavy-tailed times and a small loop (last column,
//! K = 7 at N/(40P)) AWF-B's weights get noisy, though still better than published; raise
//! `probe` for such loops. N/(40P) is the middle ground: it handles a 10× slower rank with
//! margin where N/(20P) is near its edge, and its first round of probes covers only 2.5% of the
//! loop.
//!
//! **Iterate cost that depends on the index.** A small probe measures only a few neighbouring
//! iterates; taken as the rank's speed (`local=0`, as the published techniques do), the first
//! weights mistake cheap Mandelbrot rows for a fast rank (measured before this was changed:
//! 2 threads, Mandelbrot 800×600 rows, AWF-B 0.73 of rayon's speed with the probe against 0.998
//! with `probe=0`). With `local=1` (the default) a rank's times are compared with the other
//! ranks' on neighbouring iterates and its chunks grow at most as fast as its measured time
//! (see the `local_speed` module of [`technique`](crate)), which keeps the probe's protection
//! against a slow rank without the mistake.

use crate::state::LoopState;

/// `own` capped at the probe chunk while the requesting rank is not yet `measured`; `own`
/// unchanged once it is, or when the phase is off (`probe=0`). With `local=1` (the default) a
/// measured rank's chunk is also at most the iterates it could run at the loop's front in the
/// time measured on it so far (at least the probe chunk): its chunks' times grow at most
/// geometrically, so a rank that ran cheap iterates is not handed a large chunk of dear ones.
pub(crate) fn limit(s: &LoopState, measured: bool, own: u64) -> u64 {
    let probe = s.params.probe_chunk(s.n, s.p);
    if probe == 0 {
        own
    } else if !measured {
        own.min(probe)
    } else if let Some(cap) = s.growth_cap {
        own.min(cap.max(probe)).min(share_cap(s).max(probe))
    } else {
        own
    }
}

/// The most a measured rank may get with `local=1`: FAC2's chunk of the current batch,
/// `ceil(R_j/(2P))`. The estimates can still mistake cheap iterates for a fast rank when the
/// other ranks have measured nothing near them yet (under mpirun a rank that reaches the loop a
/// millisecond late: rank 0 ran the cheap top rows of a Mandelbrot image alone, AF's sigma there
/// was about 0, and AF handed it R/2 = 85,871 pixels of the dear middle at once, efficiency
/// 0.55). A rank that really is faster than the average gets no more than FAC2 would give it
/// per request, and asks more often.
fn share_cap(s: &LoopState) -> u64 {
    crate::formulas::fac2::batch_chunk(s)
}
