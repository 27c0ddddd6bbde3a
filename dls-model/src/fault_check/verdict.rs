//! F tests and what a check concludes: the global homogeneity test, and the rank suspected by the
//! leave-one-out tests (§2.4 of the project's reference notes on Wegman c. 2000).

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, FisherSnedecor};

/// One F test: the statistic, its degrees of freedom and its upper-tail p-value
/// `P(F(df1, df2) ≥ f)`.
///
/// `f` is never NaN: it is `+∞` (with `p = 0`) when the denominator's sum of squares is zero
/// while the numerator's is not, which is certain evidence of heterogeneity.
///
/// ```
/// use dls_model::fault_check::FTest;
///
/// let t = FTest::new(9.100592, 3, 16);
/// assert!((t.p - 0.000950).abs() < 5e-7);
/// assert!(t.rejects(1e-3) && !t.rejects(1e-4));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FTest {
    /// The F statistic (`≥ 0`, possibly `+∞`).
    pub f: f64,
    /// Numerator degrees of freedom.
    pub df1: u64,
    /// Denominator degrees of freedom.
    pub df2: u64,
    /// Upper-tail p-value, in `[0, 1]`.
    pub p: f64,
}

impl FTest {
    /// The test of statistic `f` on `(df1, df2)` degrees of freedom, its p-value from statrs's
    /// F distribution. A NaN or negative `f` counts as 0 (p = 1); a zero df gives p = 1 (a test
    /// without degrees of freedom is no evidence).
    ///
    /// ```
    /// use dls_model::fault_check::FTest;
    ///
    /// assert_eq!(FTest::new(f64::INFINITY, 2, 10).p, 0.0);
    /// assert_eq!(FTest::new(0.0, 2, 10).p, 1.0);
    /// assert_eq!(FTest::new(5.0, 0, 10).p, 1.0);
    /// ```
    pub fn new(f: f64, df1: u64, df2: u64) -> FTest {
        let f = if f > 0.0 { f } else { 0.0 };
        let p = if df1 == 0 || df2 == 0 || f == 0.0 {
            1.0
        } else if f == f64::INFINITY {
            0.0
        } else {
            match FisherSnedecor::new(df1 as f64, df2 as f64) {
                Ok(dist) => dist.sf(f).clamp(0.0, 1.0),
                Err(_) => 1.0,
            }
        };
        FTest { f, df1, df2, p }
    }

    /// Whether the test rejects homogeneity at level `alpha` (`p < alpha`).
    ///
    /// ```
    /// use dls_model::fault_check::FTest;
    ///
    /// assert!(FTest::new(30.0, 3, 16).rejects(1e-4));
    /// ```
    pub fn rejects(&self, alpha: f64) -> bool {
        self.p < alpha
    }
}

/// The critical value `F_{1−α}(df1, df2)`: the F a test must exceed to reject at level `alpha`
/// (`+∞` for `alpha ≤ 0`, 0 for `alpha ≥ 1` or a zero df). Found by bisection on statrs's
/// survival function to a relative precision of about 1e-14.
///
/// ```
/// use dls_model::fault_check::f_critical;
///
/// assert!((f_critical(0.001, 3, 16) - 9.005937).abs() < 5e-6);
/// ```
pub fn f_critical(alpha: f64, df1: u64, df2: u64) -> f64 {
    if alpha >= 1.0 || df1 == 0 || df2 == 0 {
        return 0.0;
    }
    if alpha.is_nan() || alpha <= 0.0 {
        return f64::INFINITY;
    }
    let sf = |x: f64| FTest::new(x, df1, df2).p;
    let mut hi = 1.0;
    while sf(hi) > alpha {
        hi *= 2.0;
        if hi > 1e300 {
            return f64::INFINITY;
        }
    }
    let mut lo = 0.0;
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if sf(mid) > alpha {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Which test decides that some rank computes wrongly.
///
/// With one faulty rank among many, the one-way ANOVA spreads that rank's shift over `k − 1`
/// numerator degrees of freedom and loses power as ranks are added (at 5 standard errors of a
/// rank mean and `alpha = 0.01`: 0.89 at `k = 4`, 0.74 at 16, 0.38 at 64), while testing each rank
/// against the pool of the others at `alpha / k` keeps about 0.9 at every `k` (the issue-30
/// table; `benches/src/bin/check_power.rs` reproduces it). So the default is
/// [`CheckTest::OneAgainstRest`]; the ANOVA stays available for faults that shift several ranks
/// a little each.
///
/// ```
/// use dls_model::fault_check::{anova, AnovaStats, CheckTest};
///
/// // 16 ranks of 100 values; rank 5 shifted by 6 standard errors of a rank mean.
/// let mut ranks = vec![AnovaStats::default(); 16];
/// for (r, s) in ranks.iter_mut().enumerate() {
///     for i in 0..100 {
///         let noise = ((i * 7919 + r * 104729) % 1000) as f64 / 1000.0 - 0.5;
///         s.push(noise * 3.4641 + if r == 5 { 0.6 } else { 0.0 });
///     }
/// }
/// let v = anova(&ranks);
/// assert!(v.rejects_by(CheckTest::OneAgainstRest, 0.01));
/// assert_eq!(v.flagged_by(CheckTest::OneAgainstRest, 0.01), Some(5));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum CheckTest {
    /// Each rank against the pool of the others (the leave-one-out F test, the square of a
    /// two-sample t test with the pooled within-rank variance), at `alpha / k` for each of the
    /// `k` ranks (Bonferroni): rejects when the most extreme rank's p is below `alpha / k`, and
    /// names that rank. The level of the whole check is at most `alpha`.
    #[default]
    OneAgainstRest,
    /// The one-way ANOVA F test (Wegman c. 2000, §3.1), or the regression F(2,0) test; a
    /// rejection names the leave-one-out suspect when its p is below `alpha / k`.
    Anova,
}

impl CheckTest {
    /// The name in reports: `one-against-rest` or `anova`.
    ///
    /// ```
    /// assert_eq!(dls_model::fault_check::CheckTest::default().name(), "one-against-rest");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            CheckTest::OneAgainstRest => "one-against-rest",
            CheckTest::Anova => "anova",
        }
    }
}

/// Why a check concluded what it did.
///
/// ```
/// use dls_model::fault_check::{anova, AnovaStats, Outcome};
///
/// let same = AnovaStats::default();
/// assert_eq!(anova(&[same, same]).outcome, Outcome::TooFewRanks);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// The test ran: see [`Verdict::global`].
    Tested,
    /// These ranks' statistics cannot come from a healthy rank (NaN, infinity, a negative sum of
    /// squares, inconsistent counts or shapes): each is a fault by itself, and no test ran. The
    /// first is the [`Verdict::suspect`].
    Malformed(Vec<usize>),
    /// Fewer than two ranks hold values: nothing to compare.
    TooFewRanks,
    /// No rank holds more values than its test fits (no within-rank degrees of freedom).
    NoWithinDf,
    /// The values do not vary (beyond rounding) across or within ranks: no evidence either way.
    NoVariance,
    /// A sum of squares overflowed although every value was finite (a chunk's sum beyond
    /// `f64::MAX`): the test cannot run, and says nothing either way. (Values of any finite
    /// magnitude are tested, in units of a power of two; values that are not finite are
    /// [`Outcome::Malformed`].)
    Overflow,
}

/// The rank a check points at, with the leave-one-out test of that rank against the pool of the
/// others (§2.4 of the notes: the rank with the smallest leave-one-out p, which for equal df is
/// the largest F).
///
/// ```
/// use dls_model::fault_check::{anova, AnovaStats};
///
/// let ranks: Vec<AnovaStats> = [[1.0, 1.2, 0.9], [1.1, 0.9, 1.0], [5.0, 5.2, 4.9]]
///     .iter()
///     .map(|vals| {
///         let mut s = AnovaStats::default();
///         vals.iter().for_each(|&y| s.push(y));
///         s
///     })
///     .collect();
/// let suspect = anova(&ranks).suspect.unwrap();
/// assert_eq!(suspect.rank, 2);
/// assert!(suspect.p() < 1e-4);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Suspect {
    /// Index of the rank in the slice the check was given.
    pub rank: usize,
    /// The leave-one-out F test; `None` when the rank's statistics are malformed, which is a
    /// fault without a test.
    pub test: Option<FTest>,
}

impl Suspect {
    /// The leave-one-out p-value (0 for malformed statistics).
    ///
    /// ```
    /// use dls_model::fault_check::Suspect;
    ///
    /// assert_eq!(Suspect { rank: 3, test: None }.p(), 0.0);
    /// ```
    pub fn p(&self) -> f64 {
        self.test.map_or(0.0, |t| t.p)
    }
}

/// What a homogeneity check across ranks concludes.
///
/// Use [`rejects`](Self::rejects) for "is some rank faulty?" and [`flagged`](Self::flagged) for
/// "which one?": the suspect is flagged only when the global test rejects at `alpha` and its
/// leave-one-out p is below `alpha / ranks` (Bonferroni), or when its statistics are malformed.
///
/// ```
/// use dls_model::fault_check::{anova, AnovaStats, Outcome};
///
/// let mut ranks = vec![AnovaStats::default(); 4];
/// for (r, s) in ranks.iter_mut().enumerate() {
///     for i in 0..20 {
///         s.push((i % 5) as f64 + if r == 1 { 10.0 } else { 0.0 });
///     }
/// }
/// let v = anova(&ranks);
/// assert_eq!(v.outcome, Outcome::Tested);
/// assert!(v.rejects(1e-3));
/// assert_eq!(v.flagged(1e-3), Some(1));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Why the check concluded what it did.
    pub outcome: Outcome,
    /// The global homogeneity test (ANOVA F, or the regression F(2,0)); `None` unless the
    /// outcome is [`Outcome::Tested`].
    pub global: Option<FTest>,
    /// The most suspect rank, when one can be named (also for a test that accepts: look at
    /// [`flagged`](Self::flagged) before acting on it).
    pub suspect: Option<Suspect>,
    /// The number of ranks that took part (held values): `k` of the Bonferroni bound.
    pub ranks: usize,
}

impl Verdict {
    /// A verdict without a test.
    pub(crate) fn untested(outcome: Outcome, ranks: usize) -> Verdict {
        let suspect = match &outcome {
            Outcome::Malformed(bad) => bad.first().map(|&rank| Suspect { rank, test: None }),
            _ => None,
        };
        Verdict {
            outcome,
            global: None,
            suspect,
            ranks,
        }
    }

    /// Whether the check finds a fault at level `alpha`: malformed statistics, or a global test
    /// with `p < alpha`.
    ///
    /// ```
    /// use dls_model::fault_check::{anova, AnovaStats};
    ///
    /// let mut ok = AnovaStats::default();
    /// ok.push(1.0);
    /// ok.push(2.0);
    /// let mut bad = ok;
    /// bad.push(f64::NAN);
    /// assert!(anova(&[ok, ok, bad]).rejects(1e-3));
    /// assert!(!anova(&[ok, ok, ok]).rejects(1e-3));
    /// ```
    pub fn rejects(&self, alpha: f64) -> bool {
        match self.outcome {
            Outcome::Malformed(_) => true,
            Outcome::Tested => self.global.is_some_and(|t| t.rejects(alpha)),
            _ => false,
        }
    }

    /// The rank to treat as faulty at level `alpha`, if any: the suspect, when
    /// [`rejects`](Self::rejects) holds and the suspect's leave-one-out p is below
    /// `alpha / ranks` (or its statistics are malformed).
    ///
    /// ```
    /// use dls_model::fault_check::{anova, AnovaStats};
    ///
    /// let mut ok = AnovaStats::default();
    /// ok.push(1.0);
    /// ok.push(2.0);
    /// let mut bad = AnovaStats::default();
    /// bad.push(f64::INFINITY);
    /// assert_eq!(anova(&[ok, bad, ok]).flagged(1e-3), Some(1));
    /// ```
    pub fn flagged(&self, alpha: f64) -> Option<usize> {
        if !self.rejects(alpha) {
            return None;
        }
        let s = self.suspect?;
        (s.p() < alpha / self.ranks.max(1) as f64).then_some(s.rank)
    }
}

impl Verdict {
    /// Whether `test` finds a fault at level `alpha`: malformed statistics, or (tested) the
    /// global test's `p < alpha` ([`CheckTest::Anova`], as [`rejects`](Self::rejects)) or the
    /// most extreme rank's leave-one-out `p < alpha / k` ([`CheckTest::OneAgainstRest`]).
    ///
    /// ```
    /// use dls_model::fault_check::{anova, AnovaStats, CheckTest};
    ///
    /// let mut ok = AnovaStats::default();
    /// ok.push(1.0);
    /// ok.push(2.0);
    /// let mut bad = ok;
    /// bad.push(f64::NAN);
    /// assert!(anova(&[ok, ok, bad]).rejects_by(CheckTest::OneAgainstRest, 1e-3));
    /// assert!(!anova(&[ok, ok, ok]).rejects_by(CheckTest::OneAgainstRest, 1e-3));
    /// ```
    pub fn rejects_by(&self, test: CheckTest, alpha: f64) -> bool {
        match (&self.outcome, test) {
            (Outcome::Malformed(_), _) => true,
            (Outcome::Tested, CheckTest::Anova) => self.rejects(alpha),
            (Outcome::Tested, CheckTest::OneAgainstRest) => self
                .suspect
                .is_some_and(|s| s.test.is_some() && s.p() < alpha / self.ranks.max(1) as f64),
            _ => false,
        }
    }

    /// The rank `test` names as faulty at level `alpha`, if any (the suspect, when
    /// [`rejects_by`](Self::rejects_by) holds and its leave-one-out p is below `alpha / k`).
    ///
    /// ```
    /// use dls_model::fault_check::{anova, AnovaStats, CheckTest};
    ///
    /// let mut ok = AnovaStats::default();
    /// ok.push(1.0);
    /// ok.push(2.0);
    /// let mut bad = AnovaStats::default();
    /// bad.push(f64::INFINITY);
    /// assert_eq!(anova(&[ok, bad, ok]).flagged_by(CheckTest::OneAgainstRest, 1e-3), Some(1));
    /// ```
    pub fn flagged_by(&self, test: CheckTest, alpha: f64) -> Option<usize> {
        match test {
            CheckTest::Anova => self.flagged(alpha),
            CheckTest::OneAgainstRest => {
                if !self.rejects_by(test, alpha) {
                    return None;
                }
                self.suspect.map(|s| s.rank)
            }
        }
    }
}

/// Picks the suspect among leave-one-out tests: smallest p, then largest score (the numerator
/// mean square, which orders ranks when the denominator is zero and every F is infinite), then
/// lowest rank.
pub(crate) fn pick_suspect(tests: &[(usize, f64, FTest)]) -> Option<Suspect> {
    tests
        .iter()
        .min_by(|a, b| {
            a.2.p
                .total_cmp(&b.2.p)
                .then(b.1.total_cmp(&a.1))
                .then(a.0.cmp(&b.0))
        })
        .map(|&(rank, _, test)| Suspect {
            rank,
            test: Some(test),
        })
}

/// `num / den` as an F statistic: `+∞` for a positive numerator over a zero denominator, 0 for
/// a zero numerator.
pub(crate) fn ratio(num: f64, den: f64) -> f64 {
    if num <= 0.0 {
        0.0
    } else if den <= 0.0 {
        f64::INFINITY
    } else {
        num / den
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degenerate_inputs_give_clear_tests() {
        assert_eq!(FTest::new(f64::NAN, 3, 4).p, 1.0);
        assert_eq!(FTest::new(f64::NAN, 3, 4).f, 0.0);
        assert_eq!(FTest::new(-2.0, 3, 4).p, 1.0);
        assert_eq!(FTest::new(1e300, 3, 4).p, 0.0);
        assert_eq!(f_critical(0.0, 3, 4), f64::INFINITY);
        assert_eq!(f_critical(1.0, 3, 4), 0.0);
        assert_eq!(f_critical(0.05, 0, 4), 0.0);
        assert_eq!(ratio(0.0, 0.0), 0.0);
        assert_eq!(ratio(1.0, 0.0), f64::INFINITY);
    }

    #[test]
    fn the_suspect_is_the_smallest_p_then_the_largest_score() {
        let t = |f| FTest::new(f, 1, 10);
        let s = pick_suspect(&[(0, 2.0, t(2.0)), (1, 9.0, t(9.0)), (2, 3.0, t(3.0))]);
        assert_eq!(s.unwrap().rank, 1);
        let inf = FTest::new(f64::INFINITY, 1, 10);
        let s = pick_suspect(&[(0, 2.0, inf), (1, 9.0, inf), (2, 3.0, inf)]);
        assert_eq!(s.unwrap().rank, 1);
        assert_eq!(pick_suspect(&[]), None);
    }
}
