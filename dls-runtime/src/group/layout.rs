//! The GroupSetup algorithm of Cariño & Banicescu (2007) §3 (see [`GroupLayout`]).

use super::error::GroupError;
use super::spec::GroupSpec;

/// One group: an inner communicator.
///
/// ```
/// let g = dls_runtime::group::Group { ranks: vec![3, 4], racks: vec!["a".into()] };
/// assert_eq!(g.leader(), 3);
/// assert_eq!(g.size(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// World ranks, ascending; the first is the leader (rank 0 of the inner communicator).
    pub ranks: Vec<usize>,
    /// Distinct racks of the members, in the order of their lowest member.
    pub racks: Vec<String>,
}

impl Group {
    /// The leader's world rank: the lowest member.
    pub fn leader(&self) -> usize {
        self.ranks[0]
    }

    /// Number of ranks.
    pub fn size(&self) -> usize {
        self.ranks.len()
    }
}

/// What one world rank does in a two-level loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Schedules the outer loop among the group leaders; executes no iterates.
    Coordinator,
    /// Member number `index` (0 = leader) of group `group`.
    Member {
        /// Group number (index into [`GroupLayout::groups`]).
        group: usize,
        /// Rank inside the group's communicator.
        index: usize,
    },
    /// Fits no group; executes no iterates but receives the results.
    Idle,
}

/// The groups of a two-level loop: the result of `DLS_GroupSetup`.
///
/// The GroupSetup algorithm of Cariño & Banicescu (2007) §3: split the ranks into non-overlapping groups (inner
/// communicators, `iComms`) of `min..=max` ranks, keeping the ranks of a rack together, plus one
/// coordinator that schedules the outer loop and executes no iterates. The coordinator and the
/// leader (lowest rank) of every group form the outer communicator (`jComm`).
///
/// Algorithm (pure and deterministic, so every rank computes the same layout from the same rack
/// list):
/// 1. The workers are all ranks but the coordinator. Racks are taken in the order of their lowest
///    worker rank, the ranks of a rack in rank order.
/// 2. A rack of `s` workers that can be cut into `k` groups of `min..=max` ranks (some `k` with
///    `k·min <= s <= k·max`) is cut into `k = ceil(s / max)` groups whose sizes differ by at most
///    one ("a rack is split to respect max").
/// 3. Any other rack keeps `floor(s / max)` groups of `max` ranks and leaves its `s mod max`
///    (fewer than `min`) ranks over. The left-over ranks of all racks, in rack order, form a pool
///    that is cut the same way as in step 2 ("racks are merged to reach min").
/// 4. Ranks still left over join a group with room (fewer than `max` ranks), one holding their rack
///    first, else the smallest. Ranks for which no group has room stay idle: they execute no
///    iterates but receive the loop's results.
///
/// On Cariño & Banicescu's (2007) fig. 4.5 job (racks of 2, 10, 10 and 42 processors, `max = 4`) this gives the
/// 18 groups the seed reports.
///
/// ```
/// use dls_runtime::group::{GroupLayout, GroupSpec, Role};
/// let racks: Vec<String> = ["a", "a", "a", "a", "b"].map(String::from).to_vec();
/// let l = GroupLayout::plan(&racks, &GroupSpec::new(1, 3)).unwrap();
/// assert_eq!(l.groups.iter().map(|g| g.ranks.clone()).collect::<Vec<_>>(), [vec![1, 2, 3], vec![4]]);
/// assert_eq!(l.role(0), Role::Coordinator);
/// assert_eq!(l.role(2), Role::Member { group: 0, index: 1 });
/// assert_eq!(l.leaders(), [1, 4]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupLayout {
    /// Number of world ranks.
    pub p: usize,
    /// World rank of the coordinator.
    pub coordinator: usize,
    /// The groups, ordered by leader.
    pub groups: Vec<Group>,
    /// Ranks in no group.
    pub idle: Vec<usize>,
}

/// Cuts `ranks` into `k` consecutive pieces whose sizes differ by at most one, larger first.
fn cut(ranks: &[usize], k: usize) -> Vec<Vec<usize>> {
    let (q, r) = (ranks.len() / k, ranks.len() % k);
    let mut out = Vec::with_capacity(k);
    let mut at = 0;
    for i in 0..k {
        let len = q + usize::from(i < r);
        out.push(ranks[at..at + len].to_vec());
        at += len;
    }
    out
}

/// Cuts `ranks` into groups of `min..=max` as in steps 2-3; returns the groups and the rest.
fn cut_within(ranks: &[usize], min: usize, max: usize) -> (Vec<Vec<usize>>, Vec<usize>) {
    let s = ranks.len();
    if s == 0 {
        return (Vec::new(), Vec::new());
    }
    let k = s.div_ceil(max);
    if k * min <= s {
        return (cut(ranks, k), Vec::new());
    }
    let full = s / max;
    let groups = ranks[..full * max]
        .chunks(max)
        .map(<[usize]>::to_vec)
        .collect();
    (groups, ranks[full * max..].to_vec())
}

impl GroupLayout {
    /// Builds the groups from the rack of every world rank (`racks[r]` is rank `r`'s rack).
    ///
    /// Errors: `min`/`max` invalid, a coordinator outside `0..P`, fewer than 3 ranks (use
    /// [`plan`](super::plan) to fall back to a one-level loop instead), or fewer than `min`
    /// workers.
    ///
    /// ```
    /// use dls_runtime::group::{GroupLayout, GroupSpec, GroupError};
    /// let racks = vec!["n".to_string(); 4];
    /// let e = GroupLayout::plan(&racks, &GroupSpec::new(4, 4)).unwrap_err();
    /// assert!(matches!(e, GroupError::TooFewRanks(_)));
    /// ```
    pub fn plan(racks: &[String], spec: &GroupSpec) -> Result<GroupLayout, GroupError> {
        spec.validate()?;
        let p = racks.len();
        if p < 3 {
            return Err(GroupError::TooFewRanks(format!(
                "a two-level loop needs at least 3 ranks (a coordinator and a group), but {p} run"
            )));
        }
        if spec.coordinator >= p {
            return Err(GroupError::Spec(format!(
                "coordinator ({}) is not a rank (allowed: 0..={})",
                spec.coordinator,
                p - 1
            )));
        }
        let (min, max) = (spec.min, spec.max);
        if p - 1 < min {
            return Err(GroupError::TooFewRanks(format!(
                "min = {min} needs at least {} ranks (a coordinator plus a group of {min}), but {p} run: lower min or start more ranks",
                min + 1
            )));
        }
        // Step 1: racks in order of their lowest worker rank.
        let mut rack_order: Vec<(&str, Vec<usize>)> = Vec::new();
        for (r, rack) in racks.iter().enumerate() {
            if r == spec.coordinator {
                continue;
            }
            match rack_order
                .iter_mut()
                .find(|(name, _)| *name == rack.as_str())
            {
                Some((_, v)) => v.push(r),
                None => rack_order.push((rack.as_str(), vec![r])),
            }
        }
        // Steps 2-3.
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut pool: Vec<usize> = Vec::new();
        for (_, members) in &rack_order {
            let (g, rest) = cut_within(members, min, max);
            groups.extend(g);
            pool.extend(rest);
        }
        let (g, rest) = cut_within(&pool, min, max);
        groups.extend(g);
        // Step 4.
        let mut idle = Vec::new();
        for r in rest {
            let with_room = |g: &&mut Vec<usize>| g.len() < max;
            let same_rack = groups
                .iter_mut()
                .filter(with_room)
                .filter(|g| g.iter().any(|&m| racks[m] == racks[r]))
                .min_by_key(|g| g.len());
            match same_rack {
                Some(g) => g.push(r),
                None => match groups.iter_mut().filter(with_room).min_by_key(|g| g.len()) {
                    Some(g) => g.push(r),
                    None => idle.push(r),
                },
            }
        }
        let mut groups: Vec<Group> = groups
            .into_iter()
            .map(|mut ranks| {
                ranks.sort_unstable();
                let mut names: Vec<String> = Vec::new();
                for &m in &ranks {
                    if !names.contains(&racks[m]) {
                        names.push(racks[m].clone());
                    }
                }
                Group {
                    ranks,
                    racks: names,
                }
            })
            .collect();
        groups.sort_by_key(Group::leader);
        Ok(GroupLayout {
            p,
            coordinator: spec.coordinator,
            groups,
            idle,
        })
    }

    /// What world rank `rank` does.
    ///
    /// ```
    /// use dls_runtime::group::{GroupLayout, GroupSpec, Role};
    /// let l = GroupLayout::plan(&vec!["n".to_string(); 3], &GroupSpec::new(1, 1)).unwrap();
    /// assert_eq!(l.role(1), Role::Member { group: 0, index: 0 });
    /// ```
    pub fn role(&self, rank: usize) -> Role {
        if rank == self.coordinator {
            return Role::Coordinator;
        }
        for (gi, g) in self.groups.iter().enumerate() {
            if let Some(index) = g.ranks.iter().position(|&m| m == rank) {
                return Role::Member { group: gi, index };
            }
        }
        Role::Idle
    }

    /// World ranks of the group leaders, by group number.
    ///
    /// ```
    /// use dls_runtime::group::{GroupLayout, GroupSpec};
    /// let l = GroupLayout::plan(&vec!["n".to_string(); 5], &GroupSpec::new(2, 2)).unwrap();
    /// assert_eq!(l.leaders(), [1, 3]);
    /// ```
    pub fn leaders(&self) -> Vec<usize> {
        self.groups.iter().map(Group::leader).collect()
    }

    /// One line describing the layout, e.g. `coordinator 0; groups {1,2,3}@a {4}@b`.
    ///
    /// ```
    /// use dls_runtime::group::{GroupLayout, GroupSpec};
    /// let racks: Vec<String> = ["a", "a", "a", "a", "b"].map(String::from).to_vec();
    /// let l = GroupLayout::plan(&racks, &GroupSpec::new(1, 3)).unwrap();
    /// assert_eq!(l.describe(), "coordinator 0; groups {1,2,3}@a {4}@b");
    /// ```
    pub fn describe(&self) -> String {
        let gs: Vec<String> = self
            .groups
            .iter()
            .map(|g| {
                let rs: Vec<String> = g.ranks.iter().map(usize::to_string).collect();
                format!("{{{}}}@{}", rs.join(","), g.racks.join("+"))
            })
            .collect();
        let mut s = format!("coordinator {}; groups {}", self.coordinator, gs.join(" "));
        if !self.idle.is_empty() {
            let is: Vec<String> = self.idle.iter().map(usize::to_string).collect();
            s.push_str(&format!("; idle {}", is.join(",")));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn racks(spec: &[(&str, usize)]) -> Vec<String> {
        spec.iter()
            .flat_map(|(n, k)| std::iter::repeat_n(n.to_string(), *k))
            .collect()
    }

    fn sizes(l: &GroupLayout) -> Vec<usize> {
        l.groups.iter().map(Group::size).collect()
    }

    #[test]
    fn seed_fig_4_5_gives_18_groups() {
        // Coordinator taken from rack 11 (42 processors), as in Cariño & Banicescu (2007) §4.2.
        let r = racks(&[("r11", 42), ("r4", 2), ("r5", 10), ("r8", 10)]);
        let l = GroupLayout::plan(&r, &GroupSpec::new(2, 4)).unwrap();
        assert_eq!(l.groups.len(), 18);
        assert!(l.idle.is_empty());
        assert!(l.groups.iter().all(|g| g.racks.len() == 1));
        let mut s = sizes(&l);
        s.sort_unstable();
        assert_eq!(s.iter().sum::<usize>(), 63);
    }

    #[test]
    fn groups_1_2_3_and_4() {
        let r = racks(&[("a", 4), ("b", 1)]);
        let l = GroupLayout::plan(&r, &GroupSpec::new(1, 3)).unwrap();
        assert_eq!(l.describe(), "coordinator 0; groups {1,2,3}@a {4}@b");
    }

    #[test]
    fn rack_split_to_respect_max() {
        let l = GroupLayout::plan(&racks(&[("a", 8)]), &GroupSpec::new(1, 3)).unwrap();
        assert_eq!(sizes(&l), [3, 2, 2]);
    }

    #[test]
    fn racks_merged_to_reach_min() {
        // Workers: a {1}, b {2}, c {3}, d {4, 5}. Rack d fits alone; a, b, c are merged.
        let r = racks(&[("a", 2), ("b", 1), ("c", 1), ("d", 2)]);
        let l = GroupLayout::plan(&r, &GroupSpec::new(2, 3)).unwrap();
        assert_eq!(l.describe(), "coordinator 0; groups {1,2,3}@a+b+c {4,5}@d");
        // With max = 2 the pool {1, 2, 3} gives one group and rank 3 finds no room.
        let l = GroupLayout::plan(&r, &GroupSpec::new(2, 2)).unwrap();
        assert_eq!(
            l.describe(),
            "coordinator 0; groups {1,2}@a+b {4,5}@d; idle 3"
        );
    }

    #[test]
    fn idle_when_no_room() {
        let l = GroupLayout::plan(&racks(&[("a", 6)]), &GroupSpec::new(2, 2)).unwrap();
        assert_eq!(sizes(&l), [2, 2]);
        assert_eq!(l.idle, [5]);
        assert_eq!(l.role(5), Role::Idle);
        assert!(l.describe().ends_with("; idle 5"));
    }

    #[test]
    fn other_coordinator() {
        let r = racks(&[("a", 4)]);
        let l = GroupLayout::plan(&r, &GroupSpec::new(1, 3).with_coordinator(2)).unwrap();
        assert_eq!(l.describe(), "coordinator 2; groups {0,1,3}@a");
        assert!(GroupLayout::plan(&r, &GroupSpec::new(1, 3).with_coordinator(4)).is_err());
    }

    #[test]
    fn bad_input() {
        let r = racks(&[("a", 5)]);
        let e = GroupLayout::plan(&r, &GroupSpec::new(0, 2)).unwrap_err();
        assert!(e.to_string().contains("min (0) must be at least 1"), "{e}");
        let e = GroupLayout::plan(&r, &GroupSpec::new(3, 2)).unwrap_err();
        assert!(e.to_string().contains("min (3) is above max (2)"), "{e}");
        let e = GroupLayout::plan(&r, &GroupSpec::new(5, 6)).unwrap_err();
        assert!(matches!(e, GroupError::TooFewRanks(_)), "{e}");
        assert!(e.to_string().contains("at least 6 ranks"), "{e}");
        let e = GroupLayout::plan(&racks(&[("a", 2)]), &GroupSpec::new(1, 1)).unwrap_err();
        assert!(matches!(e, GroupError::TooFewRanks(_)), "{e}");
    }

    proptest! {
        #[test]
        fn layout_invariants(
            rack_of in proptest::collection::vec(0usize..4, 3..40),
            min in 1usize..5,
            extra in 0usize..4,
            coord_pick in 0usize..40,
        ) {
            let max = min + extra;
            let p = rack_of.len();
            let r: Vec<String> = rack_of.iter().map(|k| format!("r{k}")).collect();
            let spec = GroupSpec::new(min, max).with_coordinator(coord_pick % p);
            match GroupLayout::plan(&r, &spec) {
                Err(e) => prop_assert!(p - 1 < min, "{e}"),
                Ok(l) => {
                    let mut seen = vec![0usize; p];
                    seen[l.coordinator] += 1;
                    for g in &l.groups {
                        prop_assert!(g.size() >= min && g.size() <= max, "{}", l.describe());
                        for &m in &g.ranks { seen[m] += 1; }
                        prop_assert!(g.ranks.windows(2).all(|w| w[0] < w[1]));
                    }
                    for &m in &l.idle { seen[m] += 1; }
                    prop_assert!(seen.iter().all(|&c| c == 1), "{}", l.describe());
                    prop_assert!(!l.groups.is_empty());
                    if !l.idle.is_empty() {
                        prop_assert!(l.groups.iter().all(|g| g.size() == max), "{}", l.describe());
                    }
                    // A rack that fits alone spreads over no more groups than it needs.
                    for k in 0..4 {
                        let name = format!("r{k}");
                        let members: Vec<usize> = (0..p)
                            .filter(|&m| m != l.coordinator && r[m] == name)
                            .collect();
                        let s = members.len();
                        if s > 0 && s.div_ceil(max) * min <= s {
                            let used = l.groups.iter()
                                .filter(|g| g.ranks.iter().any(|m| members.contains(m)))
                                .count();
                            prop_assert_eq!(used, s.div_ceil(max), "{}", l.describe());
                        }
                    }
                }
            }
        }
    }
}
