//! One-way ANOVA across ranks (Wegman c. 2000, §3.1), in its weighted (chunk-size) form, and the
//! leave-one-out identification of the suspect rank.
//!
//! With `k` ranks holding values, rank `i` of `n_i` iterates and `J_i` values (iterates, or
//! chunks of sizes `s_j` and sums `c_j`), per-iterate means `ȳ_i` and grand mean `ȳ`:
//!
//! ```text
//! SSB = Σ_i n_i (ȳ_i − ȳ)²                          df1 = k − 1
//! SSW = Σ_i Σ_j s_j (c_j/s_j − ȳ_i)²                df2 = J − k,  J = Σ J_i
//! F   = (SSB/df1) / (SSW/df2)
//! ```
//!
//! For single iterates (`s_j = 1`) this is the ordinary unbalanced ANOVA with `N − k` within df;
//! for chunks it is the weighted ANOVA a dynamic schedule needs, since each chunk mean has
//! variance `σ²/s_j`. The leave-one-out test of rank `i` compares it with the pool of the others:
//! `F_i = (ȳ_i − ȳ_{−i})² / (MSW (1/n_i + 1/n_{−i}))` on `(1, J − k)` df.

use super::stats::AnovaStats;
use super::verdict::{pick_suspect, ratio, FTest, Outcome, Verdict};

/// Spreads below this fraction of the values' root mean square are rounding, not variation: the
/// per-iterate mean of a chunk summed naively carries a relative error up to about `s·ε`, which
/// for chunks of 10^4 iterates is 2e-12.
pub(crate) const ROUNDING: f64 = 1e-10;

/// The one-way ANOVA of the per-rank statistics `ranks` (index = rank), with the leave-one-out
/// suspect.
///
/// Ranks without values take no part. A rank whose statistics are malformed (NaN, infinity, a
/// negative sum of squares) is reported as a fault at once ([`Outcome::Malformed`]); fewer than
/// two ranks with values, no within-rank df, or no variation at all are reported as such, with no
/// test. Never panics.
///
/// ```
/// use dls_model::fault_check::{anova, AnovaStats};
///
/// let data = [
///     [10.1, 9.8, 10.3, 9.9, 10.0],
///     [10.2, 10.0, 9.7, 10.1, 9.9],
///     [9.9, 10.4, 10.0, 9.8, 10.2],
///     [10.0, 9.9, 10.1, 10.3, 9.8],
/// ];
/// let ranks: Vec<AnovaStats> = data
///     .iter()
///     .map(|vals| {
///         let mut s = AnovaStats::default();
///         vals.iter().for_each(|&y| s.push(y));
///         s
///     })
///     .collect();
/// let v = anova(&ranks);
/// let t = v.global.unwrap();
/// assert_eq!((t.df1, t.df2), (3, 16));
/// assert!((t.f - 0.126233).abs() < 1e-6);
/// assert!(!v.rejects(1e-3));
/// ```
pub fn anova(ranks: &[AnovaStats]) -> Verdict {
    // Every rank in the units of the largest values (a power of two, exact): the F statistics
    // do not change, and values of any finite magnitude keep their sums of squares in range.
    let units = ranks
        .iter()
        .filter(|r| r.values() > 0)
        .map(AnovaStats::units)
        .max()
        .unwrap_or(0);
    let scaled: Vec<AnovaStats> = ranks.iter().map(|r| r.divided_by_pow2(units)).collect();
    let ranks = &scaled[..];
    let active: Vec<usize> = (0..ranks.len())
        .filter(|&i| ranks[i].values() > 0)
        .collect();
    let malformed: Vec<usize> = (0..ranks.len())
        .filter(|&i| ranks[i].is_malformed())
        .collect();
    // Finite values whose sum of squares overflowed (values near 1e300): no test, and no fault.
    if !malformed.is_empty() && malformed.iter().all(|&i| ranks[i].overflowed()) {
        return Verdict::untested(Outcome::Overflow, active.len());
    }
    if !malformed.is_empty() {
        return Verdict::untested(Outcome::Malformed(malformed), active.len());
    }
    let k = active.len();
    if k < 2 {
        return Verdict::untested(Outcome::TooFewRanks, k);
    }
    let values = (active.iter()).fold(0u64, |a, &i| a.saturating_add(ranks[i].values()));
    let df1 = (k - 1) as u64;
    let df2 = values.saturating_sub(k as u64);
    if df2 == 0 {
        return Verdict::untested(Outcome::NoWithinDf, k);
    }
    let pooled = active.iter().fold(AnovaStats::default(), |a, &i| {
        AnovaStats::merge(a, ranks[i])
    });
    let grand = pooled.mean();
    let ssb: f64 = active
        .iter()
        .map(|&i| ranks[i].iterates() as f64 * (ranks[i].mean() - grand).powi(2))
        .sum();
    let ssw: f64 = active.iter().map(|&i| ranks[i].centred_ss()).sum();
    let sst = ssb + ssw;
    let sum_sq = sst + pooled.iterates() as f64 * grand * grand;
    // Finite here: malformed statistics were turned away above.
    if sst <= ROUNDING * ROUNDING * sum_sq {
        return Verdict::untested(Outcome::NoVariance, k);
    }
    let msw = ssw / df2 as f64;
    let global = FTest::new(ratio(ssb / df1 as f64, msw), df1, df2);

    // Leave one out: the pool of the others from prefix and suffix merges, O(k) in all.
    let mut prefix = vec![AnovaStats::default(); k + 1];
    let mut suffix = vec![AnovaStats::default(); k + 1];
    for a in 0..k {
        prefix[a + 1] = AnovaStats::merge(prefix[a], ranks[active[a]]);
        suffix[k - 1 - a] = AnovaStats::merge(ranks[active[k - 1 - a]], suffix[k - a]);
    }
    let loo: Vec<(usize, f64, FTest)> = (0..k)
        .map(|a| {
            let me = ranks[active[a]];
            let others = AnovaStats::merge(prefix[a], suffix[a + 1]);
            let d = me.mean() - others.mean();
            let scale = 1.0 / me.iterates() as f64 + 1.0 / others.iterates() as f64;
            let score = d * d / scale;
            (active[a], score, FTest::new(ratio(score, msw), 1, df2))
        })
        .collect();
    Verdict {
        outcome: Outcome::Tested,
        global: Some(global),
        suspect: pick_suspect(&loo),
        ranks: k,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(vals: &[f64]) -> AnovaStats {
        let mut s = AnovaStats::default();
        vals.iter().for_each(|&y| s.push(y));
        s
    }

    #[test]
    fn too_few_ranks() {
        assert_eq!(anova(&[]).outcome, Outcome::TooFewRanks);
        let one = stats(&[1.0, 2.0, 3.0]);
        let v = anova(&[one, AnovaStats::default()]);
        assert_eq!(
            (v.outcome, v.ranks, v.global, v.suspect),
            (Outcome::TooFewRanks, 1, None, None)
        );
        assert!(!anova(&[one]).rejects(0.5));
    }

    #[test]
    fn one_value_per_rank_has_no_within_df() {
        let v = anova(&[stats(&[1.0]), stats(&[5.0]), stats(&[2.0])]);
        assert_eq!(v.outcome, Outcome::NoWithinDf);
        assert!(!v.rejects(0.5));
        // A rank with a single value still takes part when others have replicates.
        let v = anova(&[stats(&[1.0]), stats(&[1.0, 1.2]), stats(&[0.9, 1.1])]);
        let t = v.global.unwrap();
        assert_eq!((t.df1, t.df2), (2, 2));
    }

    #[test]
    fn equal_values_everywhere_are_no_evidence() {
        let same = stats(&[0.1; 7]);
        let v = anova(&[same, same, stats(&[0.1; 3])]);
        assert_eq!(v.outcome, Outcome::NoVariance);
        assert_eq!(v.flagged(0.5), None);
        let zero = stats(&[0.0; 4]);
        assert_eq!(anova(&[zero, zero]).outcome, Outcome::NoVariance);
        // Chunk sums of 0.1 per iterate differ in their last bits: still no variance.
        let mut a = AnovaStats::default();
        let mut b = AnovaStats::default();
        for s in [37u64, 11, 5] {
            a.push_chunk(s, (0..s).map(|_| 0.1).sum());
            b.push_chunk(s + 3, (0..s + 3).map(|_| 0.1).sum());
        }
        assert_eq!(anova(&[a, b]).outcome, Outcome::NoVariance);
    }

    #[test]
    fn constant_ranks_that_differ_are_certain_evidence() {
        // No variation within ranks, but rank 1 is off: F = inf, p = 0, rank 1 flagged.
        let v = anova(&[stats(&[2.0; 5]), stats(&[3.0; 5]), stats(&[2.0; 5])]);
        let t = v.global.unwrap();
        assert_eq!((t.f, t.p), (f64::INFINITY, 0.0));
        assert_eq!(v.flagged(1e-6), Some(1));
    }

    #[test]
    fn non_finite_statistics_are_a_fault_on_that_rank() {
        let ok = stats(&[1.0, 2.0, 1.5]);
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let v = anova(&[ok, ok, ok, stats(&[1.0, bad])]);
            assert_eq!(v.outcome, Outcome::Malformed(vec![3]));
            assert_eq!(v.suspect.unwrap().rank, 3);
            assert_eq!(v.flagged(1e-9), Some(3));
            assert_eq!(v.global, None);
        }
        let v = anova(&[stats(&[f64::NAN]), ok, stats(&[f64::INFINITY])]);
        assert_eq!(v.outcome, Outcome::Malformed(vec![0, 2]));
        assert_eq!(v.flagged(1e-3), Some(0));
    }

    #[test]
    fn corrupt_counts_never_panic() {
        let huge: AnovaStats = serde_json::from_str(
            r#"{"values":18446744073709551615,"iterates":18446744073709551615,"mean":1.0,"m2":2.0}"#,
        )
        .unwrap();
        let ok = stats(&[1.0, 2.0, 1.5]);
        let v = anova(&[huge, huge, ok]);
        assert_eq!(v.outcome, Outcome::Tested);
        assert!(v.global.unwrap().p.is_finite());
        let contradictory: AnovaStats =
            serde_json::from_str(r#"{"values":5,"iterates":0,"mean":1.0,"m2":0.0}"#).unwrap();
        assert_eq!(anova(&[ok, contradictory]).flagged(1e-3), Some(1));
    }

    #[test]
    fn an_accepting_test_flags_nothing() {
        let v = anova(&[
            stats(&[1.0, 2.0, 3.0]),
            stats(&[2.0, 3.0, 1.0]),
            stats(&[3.0, 1.1, 2.0]),
        ]);
        assert!(v.suspect.is_some());
        assert_eq!(v.flagged(0.05), None);
        assert!(v.global.unwrap().p > 0.9);
    }

    /// Issue 30 (after issue 27): values of any finite magnitude are tested, in units of a power
    /// of two: near 1e300 (whose squares overflow) and near 1e-300 (whose squares underflow) the
    /// check finds what it finds at 1, and a NaN is still a fault.
    #[test]
    fn values_of_any_finite_magnitude_are_tested() {
        let rank = |scale: f64| {
            let mut s = AnovaStats::default();
            for k in 0..20 {
                s.push(scale * (1.0 + 0.01 * f64::from(k)));
            }
            s
        };
        for scale in [1e300, 1e-300, 1.0, 3e-320] {
            // Three ranks alike and one shifted by 20 % of the values.
            let v = anova(&[rank(scale), rank(scale), rank(scale), rank(1.2 * scale)]);
            let at_one = anova(&[rank(1.0), rank(1.0), rank(1.0), rank(1.2)]);
            assert_eq!(v.outcome, Outcome::Tested, "{scale}");
            let (f, f1) = (v.global.unwrap().f, at_one.global.unwrap().f);
            if scale > 1e-310 {
                assert!(
                    (f / f1 - 1.0).abs() < 1e-9,
                    "{scale}: F {f} against {f1} at 1"
                );
                assert_eq!(v.flagged(1e-3), Some(3), "{scale}");
                assert_eq!(at_one.flagged(1e-3), Some(3));
            }
            let same = anova(&[rank(scale), rank(scale), rank(scale)]);
            assert!(!same.rejects(1e-3), "{scale}");
        }
        let mut nan = rank(1.0);
        nan.push(f64::NAN);
        assert!(matches!(
            anova(&[rank(1.0), rank(1.0), nan]).outcome,
            Outcome::Malformed(_)
        ));
    }
}
