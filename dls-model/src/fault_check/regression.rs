//! The regression homogeneity tests of Wegman (c. 2000, §3.3) and the leave-one-out
//! identification of the suspect rank.
//!
//! Each of `k` ranks holds [`RegressionStats`] of its rows. Three models are fitted from them
//! alone:
//!
//! * **Model 2**, every rank its own intercept and slopes: `SSE_2 = Σ SSE_(i)`;
//! * **Model 1**, common slopes and per-rank intercepts: the sums of the rank-centred cross
//!   products, `SSE_1 = Y'Y_(1) − X'Y_(1)' X'X_(1)⁻¹ X'Y_(1)`;
//! * **Model 0**, one intercept and one slope vector: the merged statistics (Chan's update is the
//!   paper's Model-0 aggregation).
//!
//! With full-rank data `df_0 = n − p − 1`, `df_1 = n − p − k`, `df_2 = n − kp − k`, and
//!
//! ```text
//! F(2,0) = [(SSE_0 − SSE_2) / ((k−1)(p+1))] / (SSE_2/df_2)    the fault check
//! F(2,1) = [(SSE_1 − SSE_2) / ((k−1)p)]     / (SSE_2/df_2)    slopes only: a diagnostic
//! ```
//!
//! The paper prints `(k−1)(p+1)` as the df of F(2,1) too; `df_1 − df_2 = (k−1)p` is right. When a
//! rank has too few rows to fit all `p` slopes (or a predictor is constant or collinear there), a
//! model's parameter count uses the numerical rank of its cross-product matrix instead of `p`,
//! which reduces to the formulas above for full-rank data.
//!
//! Leave-one-out for rank `i`: model B fits rank `i` alone and the other ranks together,
//! `SSE_B = SSE_(i) + SSE_0^(−i)`, and `F_i = [(SSE_0 − SSE_B)/(p+1)] / MSE_2` on
//! `(p+1, df_2)` df.

use serde::{Deserialize, Serialize};

use super::anova::ROUNDING;
use super::stats::{fit_centred, RegressionStats};
use super::verdict::{pick_suspect, ratio, FTest, Outcome, Verdict};

/// A residual sum of squares below this fraction of `Ỹ'Ỹ` (`R² > 1 − 1e-12`) is what subtracting
/// `b'X̃'Ỹ` from `Ỹ'Ỹ` leaves in rounding: an exact linear relation, not residual variation.
const EXACT_FIT: f64 = 1e-12;

/// What the regression check concludes.
///
/// ```
/// use dls_model::fault_check::{regression, RegressionStats};
///
/// let mut ranks = vec![RegressionStats::new(1); 3];
/// for (r, s) in ranks.iter_mut().enumerate() {
///     for i in 0..12 {
///         let x = i as f64;
///         let noise = [0.3, -0.2, 0.1, -0.4, 0.2, 0.0][(i + r) % 6];
///         s.push(&[x], 1.0 + 2.0 * x + noise);
///     }
/// }
/// let v = regression(&ranks);
/// assert!(!v.homogeneity.rejects(1e-3));
/// let slopes = v.slopes.unwrap();
/// assert_eq!((slopes.df1, slopes.df2), (2, 30)); // (k−1)p and n − kp − k
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegressionVerdict {
    /// The fault check: F(2,0), Model 0 against Model 2, and the leave-one-out suspect.
    pub homogeneity: Verdict,
    /// The diagnostic F(2,1), Model 1 against Model 2: do the slopes differ, or only the
    /// intercepts? `None` when no test ran or there are no slope df.
    pub slopes: Option<FTest>,
}

/// Parameters and SSE of a fit: `1 + rank` for one intercept.
fn fitted(s: &RegressionStats) -> (f64, u64) {
    let fit = s.fit();
    (fit.sse, 1 + fit.rank as u64)
}

/// The number of predictors most ranks have (the first such on a tie).
fn common_predictors(ranks: &[RegressionStats]) -> usize {
    let mut best = (0, 0usize);
    for r in ranks {
        let count = ranks
            .iter()
            .filter(|s| s.predictors() == r.predictors())
            .count();
        if count > best.0 {
            best = (count, r.predictors());
        }
    }
    best.1
}

/// The regression homogeneity tests of the per-rank statistics `ranks` (index = rank): F(2,0)
/// with the leave-one-out suspect, and F(2,1).
///
/// Ranks without rows take no part. A rank whose statistics are malformed (NaN, infinity, a
/// negative sum of squares, or a number of predictors other than most ranks have) is reported as a
/// fault at once; fewer than two ranks with rows, no residual df in Model 2, or an exact linear
/// relation everywhere are reported as such, with no test. Never panics.
///
/// ```
/// use dls_model::fault_check::{regression, RegressionStats};
///
/// // y = 1 + 2x + e on 3 ranks; rank 1 adds 5 to every y.
/// let e = [0.3, -0.2, 0.1, -0.4, 0.2, 0.0, -0.1, 0.1];
/// let ranks: Vec<RegressionStats> = (0..3)
///     .map(|r| {
///         let mut s = RegressionStats::new(1);
///         for (i, e) in e.iter().enumerate() {
///             let x = (i + r) as f64;
///             s.push(&[x], 1.0 + 2.0 * x + e + if r == 1 { 5.0 } else { 0.0 });
///         }
///         s
///     })
///     .collect();
/// let v = regression(&ranks);
/// assert!(v.homogeneity.rejects(1e-3));
/// assert_eq!(v.homogeneity.flagged(1e-3), Some(1));
/// ```
pub fn regression(ranks: &[RegressionStats]) -> RegressionVerdict {
    let untested = |outcome, k| RegressionVerdict {
        homogeneity: Verdict::untested(outcome, k),
        slopes: None,
    };
    let p = common_predictors(ranks);
    // Every rank in the same units per variable (powers of two, exact): the F statistics do not
    // change, and rows of any finite magnitude keep their cross products in range.
    let (ex, ey) = RegressionStats::common_units(ranks, p);
    let scaled: Vec<RegressionStats> = ranks
        .iter()
        .map(|r| {
            if r.predictors() == p {
                r.divided_by_pow2(&ex, ey)
            } else {
                r.clone()
            }
        })
        .collect();
    let ranks = &scaled[..];
    let active: Vec<usize> = (0..ranks.len()).filter(|&i| ranks[i].rows() > 0).collect();
    let malformed: Vec<usize> = (0..ranks.len())
        .filter(|&i| ranks[i].is_malformed() || ranks[i].predictors() != p)
        .collect();
    if !malformed.is_empty() {
        return untested(Outcome::Malformed(malformed), active.len());
    }
    let k = active.len();
    if k < 2 {
        return untested(Outcome::TooFewRanks, k);
    }
    let n = (active.iter()).fold(0u64, |a, &i| a.saturating_add(ranks[i].rows()));

    // Model 2: every rank its own fit.
    let own: Vec<(f64, u64)> = active.iter().map(|&i| fitted(&ranks[i])).collect();
    let sse2: f64 = own.iter().map(|o| o.0).sum();
    let params2 = own.iter().fold(0u64, |a, o| a.saturating_add(o.1));
    let df2 = n.saturating_sub(params2);
    if df2 == 0 {
        return untested(Outcome::NoWithinDf, k);
    }

    // Model 0: the merged statistics.
    let pooled = active.iter().fold(RegressionStats::new(p), |a, &i| {
        RegressionStats::merge(&a, &ranks[i])
    });
    let (sse0, params0) = fitted(&pooled);
    let syy0 = pooled.syy();
    let sum_sq = syy0 + n as f64 * pooled.mean_y().powi(2);
    // Finite here: malformed statistics were turned away above.
    if syy0 <= ROUNDING * ROUNDING * sum_sq || sse0 <= EXACT_FIT * syy0 {
        return untested(Outcome::NoVariance, k);
    }
    let mse2 = sse2 / df2 as f64;
    let df20 = params2.saturating_sub(params0);
    let global = FTest::new(ratio((sse0 - sse2) / df20.max(1) as f64, mse2), df20, df2);

    // Model 1: the sums of the rank-centred cross products.
    let mut sxx = vec![0.0; p * p];
    let mut sxy = vec![0.0; p];
    let mut syy = 0.0;
    for &i in &active {
        sxx.iter_mut()
            .zip(ranks[i].sxx())
            .for_each(|(a, b)| *a += b);
        sxy.iter_mut()
            .zip(ranks[i].sxy())
            .for_each(|(a, b)| *a += b);
        syy += ranks[i].syy();
    }
    let fit1 = fit_centred(p, &sxx, &sxy, syy);
    let params1 = k as u64 + fit1.rank as u64;
    let df21 = params2.saturating_sub(params1);
    let slopes =
        (df21 > 0).then(|| FTest::new(ratio((fit1.sse - sse2) / df21 as f64, mse2), df21, df2));

    // Leave one out, with the others' pool from prefix and suffix merges.
    let mut prefix = vec![RegressionStats::new(p); k + 1];
    let mut suffix = vec![RegressionStats::new(p); k + 1];
    for a in 0..k {
        prefix[a + 1] = RegressionStats::merge(&prefix[a], &ranks[active[a]]);
        suffix[k - 1 - a] = RegressionStats::merge(&ranks[active[k - 1 - a]], &suffix[k - a]);
    }
    let loo: Vec<(usize, f64, FTest)> = (0..k)
        .map(|a| {
            let (sse_i, params_i) = own[a];
            let (sse_o, params_o) = fitted(&RegressionStats::merge(&prefix[a], &suffix[a + 1]));
            let df = (params_i + params_o).saturating_sub(params0);
            let score = (sse0 - sse_i - sse_o) / df.max(1) as f64;
            (active[a], score, FTest::new(ratio(score, mse2), df, df2))
        })
        .collect();
    RegressionVerdict {
        homogeneity: Verdict {
            outcome: Outcome::Tested,
            global: Some(global),
            suspect: pick_suspect(&loo),
            ranks: k,
        },
        slopes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(rows: &[(f64, f64)]) -> RegressionStats {
        let mut s = RegressionStats::new(1);
        rows.iter().for_each(|&(x, y)| s.push(&[x], y));
        s
    }

    #[test]
    fn too_few_ranks_and_rows() {
        assert_eq!(regression(&[]).homogeneity.outcome, Outcome::TooFewRanks);
        let a = line(&[(1.0, 2.0), (2.0, 3.5), (3.0, 3.9)]);
        let v = regression(&[a.clone(), RegressionStats::new(1)]);
        assert_eq!(v.homogeneity.outcome, Outcome::TooFewRanks);
        // Two rows per rank, one predictor: every rank's own line is exact, no df left.
        let two = line(&[(1.0, 2.0), (2.0, 3.5)]);
        let v = regression(&[two.clone(), two.clone(), two]);
        assert_eq!(v.homogeneity.outcome, Outcome::NoWithinDf);
    }

    #[test]
    fn ranks_with_one_row_take_part() {
        let a = line(&[(1.0, 2.1), (2.0, 3.9), (3.0, 6.2), (4.0, 7.8)]);
        let b = line(&[(1.5, 3.0), (2.5, 5.1), (3.5, 6.9), (5.0, 10.1)]);
        let one = line(&[(2.0, 4.0)]);
        let v = regression(&[a, one, b]);
        let t = v.homogeneity.global.unwrap();
        // n = 9; Model 2 fits 2 + 1 + 2 parameters: df2 = 4; Model 0 fits 2: df(2,0) = 3.
        assert_eq!((t.df1, t.df2), (3, 4));
        assert_eq!(v.slopes.unwrap().df1, 1);
        assert!(t.p.is_finite());
    }

    #[test]
    fn exact_lines_are_no_evidence_unless_a_rank_is_off() {
        let exact =
            |shift: f64| line(&[(1.0, 3.0 + shift), (2.0, 5.0 + shift), (4.0, 9.0 + shift)]);
        let v = regression(&[exact(0.0), exact(0.0), exact(0.0)]);
        assert_eq!(v.homogeneity.outcome, Outcome::NoVariance);
        let constant = line(&[(1.0, 2.0), (2.0, 2.0), (3.0, 2.0)]);
        let v = regression(&[constant.clone(), constant]);
        assert_eq!(v.homogeneity.outcome, Outcome::NoVariance);
        // Exact within ranks, but rank 2 is shifted: certain evidence against rank 2.
        let v = regression(&[exact(0.0), exact(0.0), exact(1.0), exact(0.0)]);
        let t = v.homogeneity.global.unwrap();
        assert_eq!((t.f, t.p), (f64::INFINITY, 0.0));
        assert_eq!(v.homogeneity.flagged(1e-3), Some(2));
    }

    #[test]
    fn corrupt_counts_never_panic() {
        // One row claimed, but a full-rank cross product: more parameters than rows.
        let liar: RegressionStats = serde_json::from_str(
            r#"{"n":1,"mean_x":[0.0,0.0],"mean_y":0.0,"sxx":[1.0,0.0,0.0,1.0],"sxy":[0.5,0.5],"syy":3.0}"#,
        )
        .unwrap();
        let v = regression(&[liar.clone(), liar]);
        assert_eq!(v.homogeneity.outcome, Outcome::NoWithinDf);
    }

    #[test]
    fn malformed_ranks_are_faults() {
        let a = line(&[(1.0, 2.1), (2.0, 3.9), (3.0, 6.2), (4.0, 7.8)]);
        let bad = line(&[(1.0, 2.1), (2.0, f64::NAN)]);
        let v = regression(&[a.clone(), bad, a.clone()]);
        assert_eq!(v.homogeneity.outcome, Outcome::Malformed(vec![1]));
        assert_eq!(v.homogeneity.flagged(1e-3), Some(1));
        let mut wrong_p = RegressionStats::new(2);
        wrong_p.push(&[1.0, 2.0], 3.0);
        let v = regression(&[a.clone(), a.clone(), wrong_p]);
        assert_eq!(v.homogeneity.outcome, Outcome::Malformed(vec![2]));
        let inf = line(&[(f64::INFINITY, 1.0), (1.0, 1.0)]);
        assert_eq!(regression(&[inf, a]).homogeneity.flagged(0.01), Some(0));
    }

    /// Issue 30: rows of any finite magnitude are tested (each variable in its own power-of-two
    /// units): near 1e300 and 1e-300 the regression check gives the F of the same rows at 1,
    /// and names a rank whose intercept is off.
    #[test]
    fn rows_of_any_finite_magnitude_are_tested() {
        let ranks = |sx: f64, sy: f64| -> Vec<RegressionStats> {
            (0..4)
                .map(|r| {
                    let mut s = RegressionStats::new(1);
                    for k in 0..30u32 {
                        let x = f64::from(k % 7) + 0.1 * f64::from(r);
                        let wiggle = f64::from((k * 7919 + r * 31) % 11) * 0.05;
                        let off = if r == 2 { 3.0 } else { 0.0 };
                        s.push(&[x * sx], (1.0 + 2.0 * x + wiggle + off) * sy);
                    }
                    s
                })
                .collect()
        };
        let at_one = regression(&ranks(1.0, 1.0)).homogeneity;
        assert_eq!(at_one.outcome, Outcome::Tested);
        for (sx, sy) in [
            (1e300, 1e300),
            (1e-300, 1e-300),
            (1e300, 1e-300),
            (1.0, 1e300),
        ] {
            let v = regression(&ranks(sx, sy)).homogeneity;
            assert_eq!(v.outcome, Outcome::Tested, "{sx} {sy}");
            let (f, f1) = (v.global.unwrap().f, at_one.global.unwrap().f);
            assert!((f / f1 - 1.0).abs() < 1e-6, "{sx} {sy}: F {f} against {f1}");
            assert_eq!(v.flagged(1e-3), at_one.flagged(1e-3), "{sx} {sy}");
        }
        assert_eq!(at_one.flagged(1e-3), Some(2));
    }
}
