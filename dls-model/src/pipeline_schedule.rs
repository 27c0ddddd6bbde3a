//! The schedule of the parallel pipeline of Kuntraruk, Pottenger & Ross (2005): which rank sends
//! to which at each level, with the sender test corrected (the paper's printed test, Fig. 4, is
//! true for no rank at level 1). The runtime's pipelined reduction (`strategy = "pipeline"`) runs
//! it; the run-time model of the paper is `pipeline_model` (feature `analysis`).
//!
//! ```
//! use dls_model::pipeline_schedule::{level_of_step, pipeline_level, Role};
//! // P = 8: step 1 is level 1, where rank 0 sends to rank 1.
//! assert_eq!(level_of_step(8, 1), 1);
//! assert_eq!(pipeline_level(8, 1, 1), Role::Receive { from: 0 });
//! ```

use serde::Serialize;

/// The largest power of two ≤ `p`, or 0 when `p` is 0: the ranks a pipeline runs on when P is not
/// a power of two (the others fold their partial results into it first, see [`fold_target`]).
///
/// ```
/// use dls_model::pipeline_schedule::largest_power_of_two_at_most;
/// assert_eq!(largest_power_of_two_at_most(6), 4);
/// assert_eq!(largest_power_of_two_at_most(8), 8);
/// assert_eq!(largest_power_of_two_at_most(0), 0);
/// ```
pub fn largest_power_of_two_at_most(p: u64) -> u64 {
    if p == 0 {
        0
    } else {
        1 << (63 - p.leading_zeros())
    }
}

/// What a rank does at one level of the parallel pipeline.
///
/// ```
/// use dls_model::pipeline_schedule::{pipeline_level, Role};
/// assert_eq!(pipeline_level(8, 0, 1), Role::Send { to: 1 });
/// assert!(pipeline_level(8, 0, 1).computes());
/// assert!(pipeline_level(8, 7, 3).merges());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Role {
    /// Send the current partial result to rank `to`, then compute a new task (if any is left).
    Send {
        /// The receiving rank.
        to: usize,
    },
    /// Receive a partial result from rank `from` and merge it into the own one.
    Receive {
        /// The sending rank.
        from: usize,
    },
    /// Take no part: a rank outside the pipeline (an extra rank folded in before, see
    /// [`fold_target`]), a pipeline of fewer than 2 ranks, or a level outside 1..=lg P.
    Idle,
}

impl Role {
    /// True for a sender, which computes the next task after sending.
    ///
    /// ```
    /// use dls_model::pipeline_schedule::Role;
    /// assert!(Role::Send { to: 1 }.computes());
    /// assert!(!Role::Idle.computes());
    /// ```
    pub fn computes(self) -> bool {
        matches!(self, Role::Send { .. })
    }

    /// True for a receiver, which merges.
    ///
    /// ```
    /// use dls_model::pipeline_schedule::Role;
    /// assert!(Role::Receive { from: 0 }.merges());
    /// assert!(!Role::Send { to: 1 }.merges());
    /// ```
    pub fn merges(self) -> bool {
        matches!(self, Role::Receive { .. })
    }
}

/// The role of 0-based `rank` at `level` i (1..=lg P) of the parallel pipeline on `p` ranks:
/// a sender iff `rank % 2^i < 2^(i-1)`, sending to `rank + 2^(i-1)`; otherwise a receiver from
/// `rank - 2^(i-1)`.
///
/// Kuntraruk, Pottenger & Ross (2005), Fig. 4, print the test `rank % blksize > 0 and rank %
/// blksize < blksize/2`, which no rank passes at level 1 (blksize 2), so that every rank would wait
/// to receive; the test above is the reading that matches their Fig. 2 (processor = rank + 1).
/// Level i of step s ≥ 1 is [`level_of_step`]. Each level has p/2 senders; rank 0 always sends,
/// rank p−1 always receives and ends with the whole result.
///
/// Total and O(1): when `p` is not a power of two the pipeline is its largest power of two p'
/// and ranks ≥ p' are [`Role::Idle`] (they [fold](fold_target) first); `p` < 2, `rank` ≥ p' and a
/// level outside 1..=lg p' give `Idle` too.
///
/// ```
/// use dls_model::pipeline_schedule::{pipeline_level, Role};
/// // P = 8, level 2: ranks 0 -> 2, 1 -> 3, 4 -> 6, 5 -> 7.
/// assert_eq!(pipeline_level(8, 1, 2), Role::Send { to: 3 });
/// assert_eq!(pipeline_level(8, 6, 2), Role::Receive { from: 4 });
/// assert_eq!(pipeline_level(8, 3, 4), Role::Idle);
/// assert_eq!(pipeline_level(6, 5, 1), Role::Idle);
/// ```
pub fn pipeline_level(p: usize, rank: usize, level: u32) -> Role {
    let q = largest_power_of_two_at_most(p as u64) as usize;
    if q < 2 || rank >= q || level == 0 || level > q.trailing_zeros() {
        return Role::Idle;
    }
    let half = 1usize << (level - 1);
    if rank & (2 * half - 1) < half {
        Role::Send { to: rank + half }
    } else {
        Role::Receive { from: rank - half }
    }
}

/// The level (1..=lg P) of pipeline step `step` ≥ 1 on `p` ranks: levels cycle 1, 2, …, lg P,
/// 1, … Step 0, where every rank computes, and a pipeline of fewer than 2 ranks give 0.
///
/// ```
/// use dls_model::pipeline_schedule::level_of_step;
/// assert_eq!([1, 2, 3, 4, 5].map(|s| level_of_step(8, s)), [1, 2, 3, 1, 2]);
/// assert_eq!(level_of_step(8, 0), 0);
/// ```
pub fn level_of_step(p: usize, step: u64) -> u32 {
    let q = largest_power_of_two_at_most(p as u64);
    let lg = u64::from(q.trailing_zeros());
    if q < 2 || step == 0 {
        0
    } else {
        ((step - 1) % lg + 1) as u32
    }
}

/// Where an extra rank folds its partial result before the pipeline runs when `p` is not a power
/// of two: rank r ≥ p' (the largest power of two ≤ p) into rank r − p'; `None` for the pipeline's
/// own ranks and for ranks ≥ `p`.
///
/// ```
/// use dls_model::pipeline_schedule::fold_target;
/// assert_eq!(fold_target(6, 5), Some(1));
/// assert_eq!(fold_target(6, 3), None);
/// assert_eq!(fold_target(8, 7), None);
/// ```
pub fn fold_target(p: usize, rank: usize) -> Option<usize> {
    let q = largest_power_of_two_at_most(p as u64) as usize;
    (rank >= q && rank < p).then(|| rank - q)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of the schedule for P = 8: which ranks send where, compute and merge.
    #[test]
    fn schedule_p8_matches_the_figure() {
        let expected: [(u32, [(usize, usize); 4]); 3] = [
            (1, [(0, 1), (2, 3), (4, 5), (6, 7)]),
            (2, [(0, 2), (1, 3), (4, 6), (5, 7)]),
            (3, [(0, 4), (1, 5), (2, 6), (3, 7)]),
        ];
        let computing = [[0, 2, 4, 6], [0, 1, 4, 5], [0, 1, 2, 3]];
        let merging = [[1, 3, 5, 7], [2, 3, 6, 7], [4, 5, 6, 7]];
        for (step, (level, sends)) in expected.iter().enumerate() {
            assert_eq!(level_of_step(8, step as u64 + 1), *level);
            let got: Vec<(usize, usize)> = (0..8)
                .filter_map(|r| match pipeline_level(8, r, *level) {
                    Role::Send { to } => Some((r, to)),
                    _ => None,
                })
                .collect();
            assert_eq!(got, sends, "level {level}");
            let c: Vec<usize> = (0..8)
                .filter(|&r| pipeline_level(8, r, *level).computes())
                .collect();
            let m: Vec<usize> = (0..8)
                .filter(|&r| pipeline_level(8, r, *level).merges())
                .collect();
            assert_eq!(c, computing[step]);
            assert_eq!(m, merging[step]);
            for (from, to) in sends {
                assert_eq!(
                    pipeline_level(8, *to, *level),
                    Role::Receive { from: *from }
                );
            }
        }
        // Step 4 is level 1 again.
        assert_eq!(level_of_step(8, 4), 1);
    }

    #[test]
    fn schedule_properties_for_p_2_to_32() {
        for p in [2usize, 4, 8, 16, 32] {
            let lg = p.trailing_zeros();
            for level in 1..=lg {
                let roles: Vec<Role> = (0..p).map(|r| pipeline_level(p, r, level)).collect();
                assert_eq!(roles.iter().filter(|r| r.computes()).count(), p / 2);
                assert!(roles[0].computes(), "P = {p} level {level}");
                assert!(roles[p - 1].merges(), "P = {p} level {level}");
                for (r, role) in roles.iter().enumerate() {
                    match *role {
                        Role::Send { to } => {
                            assert_eq!(roles[to], Role::Receive { from: r })
                        }
                        Role::Receive { from } => assert_eq!(roles[from], Role::Send { to: r }),
                        Role::Idle => panic!("P = {p}: rank {r} idle at level {level}"),
                    }
                }
            }
            assert_eq!(pipeline_level(p, 0, 0), Role::Idle);
            assert_eq!(pipeline_level(p, 0, lg + 1), Role::Idle);
            assert_eq!(pipeline_level(p, p, 1), Role::Idle);
        }
        for p in [0usize, 1] {
            assert_eq!(pipeline_level(p, 0, 1), Role::Idle);
            assert_eq!(level_of_step(p, 3), 0);
        }
    }
}
