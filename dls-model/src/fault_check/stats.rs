//! Per-rank sufficient statistics: what each rank keeps while it runs its chunks, and sends to the
//! rank that tests (serde-serialisable; they travel in the reduction messages).
//!
//! Both kinds are kept **centred** at the rank's own means and updated one value at a time
//! (Welford), and two of them are merged with the parallel update of Chan, Golub & LeVeque
//! (1979). The raw moments (Σy, Σy², X'X, X'Y) would be simpler, but they lose every significant
//! digit when the mean is large against the spread: an iterate index near 10^9 that varies by 10
//! has Σx² ≈ 10^18·n, and the centred sum n·var ≈ 10^2·n is what is left after subtracting two
//! numbers that agree in their first 16 digits. Centred sums never subtract such numbers; the
//! merge adds a between-means term that is itself a product of differences.
//!
//! A merge is exact arithmetic on real numbers, so merging in any order or grouping gives the same
//! statistics up to rounding (checked against two-pass computations in the tests), and merging
//! per-rank statistics *is* Wegman's Model-0 aggregation (c. 2000, §3.3).

use serde::{Deserialize, Serialize};

/// What one rank contributes to a one-way ANOVA across ranks: the number of values and iterates,
/// the per-iterate mean and the centred (weighted) sum of squares.
///
/// Values come one iterate at a time ([`push`](Self::push)) or one chunk at a time
/// ([`push_chunk`](Self::push_chunk): the chunk's size `s` and its sum `c`, whose per-iterate mean
/// `c/s` has variance `σ²/s` and so weight `s`). Either way:
///
/// * [`values`](Self::values) counts the values pushed (the replicates: `J_i` chunks, or `n_i`
///   iterates), which give the within-rank degrees of freedom;
/// * [`iterates`](Self::iterates) is `n_i`, the sum of the weights;
/// * [`mean`](Self::mean) is the per-iterate mean `ȳ_i = Σc / n_i`;
/// * [`centred_ss`](Self::centred_ss) is `Σ s (c/s − ȳ_i)²` (for single iterates `Σ (y − ȳ_i)²`).
///
/// ```
/// use dls_model::fault_check::AnovaStats;
///
/// let mut a = AnovaStats::default();
/// for y in [1.0, 2.0, 3.0] {
///     a.push(y);
/// }
/// let mut b = AnovaStats::default();
/// b.push(4.0);
/// let ab = AnovaStats::merge(a, b);
/// assert_eq!(ab.values(), 4);
/// assert_eq!(ab.mean(), 2.5);
/// assert!((ab.centred_ss() - 5.0).abs() < 1e-12);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct AnovaStats {
    values: u64,
    iterates: u64,
    /// The mean and the centred sum of squares in units of `2^exp`: `exp` follows the largest
    /// value seen (a power of two, so scaling is exact), so that values of any finite magnitude,
    /// 1e300 or 1e-300, keep their sums of squares in range.
    mean: f64,
    m2: f64,
    #[serde(default)]
    exp: i32,
}

/// `2^k` for `k` in the normal range `-1022..=1023` (built from its bits: no `powi` per value).
#[inline]
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `x · 2^e`, exact unless the result leaves the normal range.
#[inline]
fn scale2(x: f64, e: i32) -> f64 {
    if (-1022..=1023).contains(&e) {
        x * pow2(e)
    } else {
        // Two steps, so that the factors stay in range (|e| up to 2046).
        let half = e / 2;
        x * pow2(half.clamp(-1022, 1023)) * pow2((e - half).clamp(-1022, 1023))
    }
}

/// The binary exponent of a finite, nonzero `y` (`|y|` in `[2^e, 2^(e+1))`); `None` otherwise.
fn exponent(y: f64) -> Option<i32> {
    if !y.is_finite() || y == 0.0 {
        return None;
    }
    let bits = (y.to_bits() >> 52) & 0x7ff;
    Some(if bits == 0 {
        // Subnormal: from the leading zeros of the fraction.
        -1023 - (y.to_bits() << 12).leading_zeros() as i32
    } else {
        bits as i32 - 1023
    })
}

impl AnovaStats {
    /// Adds one iterate's value.
    ///
    /// ```
    /// use dls_model::fault_check::AnovaStats;
    ///
    /// let mut s = AnovaStats::default();
    /// s.push(2.0);
    /// s.push(4.0);
    /// assert_eq!((s.values(), s.iterates(), s.mean(), s.centred_ss()), (2, 2, 3.0, 2.0));
    /// ```
    #[inline]
    pub fn push(&mut self, y: f64) {
        let y = self.in_units(y);
        // Welford's update with weight 1 (one division; a checked loop calls this per iterate).
        self.values = self.values.saturating_add(1);
        self.iterates = self.iterates.saturating_add(1);
        let delta = y - self.mean;
        self.mean += delta / self.iterates as f64;
        self.m2 += delta * (y - self.mean);
    }

    /// `y` in this rank's units, first raising the units (exactly) when `y` is larger than every
    /// value so far, or setting them at the first nonzero value.
    #[inline]
    fn in_units(&mut self, y: f64) -> f64 {
        if let Some(e) = exponent(y) {
            let first = self.iterates == 0 || (self.mean == 0.0 && self.m2 == 0.0);
            if first || e > self.exp {
                self.rescale(e);
            }
        }
        scale2(y, -self.exp)
    }

    /// The same statistics in units of `2^e`.
    fn rescale(&mut self, e: i32) {
        let d = self.exp - e;
        self.mean = scale2(self.mean, d);
        self.m2 = scale2(self.m2, 2 * d);
        self.exp = e;
    }

    /// These statistics in units of `2^e` (`e` at least their own units: values shrink).
    pub(crate) fn in_units_of(mut self, e: i32) -> AnovaStats {
        self.rescale(e);
        self
    }

    /// These statistics divided by `2^e`, as statistics of the values `y / 2^e`: what a test
    /// whose statistic does not change with the units computes on (every rank by the same `e`).
    pub(crate) fn divided_by_pow2(self, e: i32) -> AnovaStats {
        AnovaStats {
            exp: 0,
            ..self.in_units_of(e)
        }
    }

    /// The units (a power of two) of the largest values pushed; see [`in_units_of`](Self::in_units_of).
    pub(crate) fn units(&self) -> i32 {
        self.exp
    }

    /// Adds one chunk of `size` iterates whose values sum to `sum` (its contribution to a `+`
    /// reduction): one value `sum / size` of weight `size`. An empty chunk adds nothing.
    ///
    /// ```
    /// use dls_model::fault_check::AnovaStats;
    ///
    /// let mut s = AnovaStats::default();
    /// s.push_chunk(40, 402.0); // per-iterate mean 10.05
    /// s.push_chunk(10, 101.5); // per-iterate mean 10.15
    /// assert_eq!((s.values(), s.iterates()), (2, 50));
    /// assert!((s.mean() - 10.07).abs() < 1e-12);
    /// assert!((s.centred_ss() - 0.08).abs() < 1e-12); // 40·0.02² + 10·0.08²
    /// ```
    pub fn push_chunk(&mut self, size: u64, sum: f64) {
        if size == 0 {
            return;
        }
        let w = size as f64;
        let y = self.in_units(sum / w);
        // Saturating: corrupt counts from a faulty rank must not panic the rank that tests.
        self.values = self.values.saturating_add(1);
        self.iterates = self.iterates.saturating_add(size);
        let delta = y - self.mean;
        self.mean += delta * (w / self.iterates as f64);
        // delta and (y - new mean) have the same sign: the update never decreases m2.
        self.m2 += w * delta * (y - self.mean);
    }

    /// The statistics of the union of the values of `a` and `b` (Chan et al.'s update); the
    /// order of the arguments changes at most the last bits.
    ///
    /// ```
    /// use dls_model::fault_check::AnovaStats;
    ///
    /// let (mut a, mut b, mut all) = Default::default();
    /// for (i, y) in [3.0, 1.0, 4.0, 1.0, 5.0].into_iter().enumerate() {
    ///     let s: &mut AnovaStats = if i < 2 { &mut a } else { &mut b };
    ///     s.push(y);
    ///     AnovaStats::push(&mut all, y);
    /// }
    /// let m = AnovaStats::merge(a, b);
    /// assert_eq!(m.values(), all.values());
    /// assert!((m.mean() - all.mean()).abs() < 1e-12);
    /// assert!((m.centred_ss() - all.centred_ss()).abs() < 1e-12);
    /// ```
    pub fn merge(a: AnovaStats, b: AnovaStats) -> AnovaStats {
        // In common units: the larger of the two (an empty side takes the other's).
        let e = match (a.iterates, b.iterates) {
            (0, _) => b.exp,
            (_, 0) => a.exp,
            _ => a.exp.max(b.exp),
        };
        let (a, b) = (a.in_units_of(e), b.in_units_of(e));
        if a.iterates == 0 {
            return AnovaStats {
                values: a.values.saturating_add(b.values),
                ..b
            };
        }
        if b.iterates == 0 {
            return AnovaStats {
                values: a.values.saturating_add(b.values),
                ..a
            };
        }
        let (wa, wb) = (a.iterates as f64, b.iterates as f64);
        let iterates = a.iterates.saturating_add(b.iterates);
        let w = iterates as f64;
        let delta = b.mean - a.mean;
        // The weighted average of the means: symmetric in a and b, and exact when they are equal.
        let mean = (wa * a.mean + wb * b.mean) / w;
        let mean = if mean.is_finite() {
            mean
        } else {
            a.mean + delta * (wb / w)
        };
        AnovaStats {
            values: a.values.saturating_add(b.values),
            iterates,
            mean,
            m2: a.m2 + b.m2 + delta * delta * (wa * wb / w),
            exp: e,
        }
    }

    /// The number of values pushed: iterates for [`push`](Self::push), chunks for
    /// [`push_chunk`](Self::push_chunk).
    ///
    /// ```
    /// use dls_model::fault_check::AnovaStats;
    ///
    /// let mut s = AnovaStats::default();
    /// s.push_chunk(8, 16.0);
    /// assert_eq!(s.values(), 1);
    /// ```
    pub fn values(&self) -> u64 {
        self.values
    }

    /// The number of iterates `n_i` (the sum of the chunk sizes).
    ///
    /// ```
    /// use dls_model::fault_check::AnovaStats;
    ///
    /// let mut s = AnovaStats::default();
    /// s.push_chunk(8, 16.0);
    /// assert_eq!(s.iterates(), 8);
    /// ```
    pub fn iterates(&self) -> u64 {
        self.iterates
    }

    /// The per-iterate mean `ȳ_i` (0 with no values).
    ///
    /// ```
    /// use dls_model::fault_check::AnovaStats;
    ///
    /// let mut s = AnovaStats::default();
    /// s.push_chunk(8, 16.0);
    /// assert_eq!(s.mean(), 2.0);
    /// ```
    pub fn mean(&self) -> f64 {
        scale2(self.mean, self.exp)
    }

    /// The centred sum of squares `Σ s (c/s − ȳ_i)²` (for single iterates `Σ (y − ȳ_i)²`).
    ///
    /// ```
    /// use dls_model::fault_check::AnovaStats;
    ///
    /// let mut s = AnovaStats::default();
    /// s.push(1.0);
    /// s.push(3.0);
    /// assert_eq!(s.centred_ss(), 2.0);
    /// ```
    pub fn centred_ss(&self) -> f64 {
        scale2(self.m2, 2 * self.exp)
    }

    /// Whether the sum of squares overflowed while the values were finite (values beyond about
    /// 1e154): the mean is finite and the sum of squares is +infinity.
    pub(crate) fn overflowed(&self) -> bool {
        self.mean.is_finite()
            && self.m2 == f64::INFINITY
            && self.values <= self.iterates
            && (self.values == 0) == (self.iterates == 0)
    }

    /// Whether these statistics cannot come from a healthy rank: a NaN or infinite mean or sum of
    /// squares, a negative sum of squares, or counts that contradict each other.
    pub(crate) fn is_malformed(&self) -> bool {
        !self.mean.is_finite()
            || !self.m2.is_finite()
            || self.m2 < 0.0
            || self.values > self.iterates
            || (self.values == 0) != (self.iterates == 0)
    }
}

/// What one rank contributes to the regression homogeneity tests of Wegman (c. 2000, §3.3):
/// for `p` predictors, the row count `n_i`, the means `X̄_(i)` and `Ȳ_(i)`, and the cross
/// products centred at those means, `(X̃'X̃)_(i)`, `(X̃'Ỹ)_(i)` and `(Ỹ'Ỹ)_(i)`.
///
/// Rows are added one at a time ([`push`](Self::push), a multivariate Welford update); two
/// statistics merge with [`merge`](Self::merge), whose formulas are the paper's Model-0
/// aggregation. The rank's own least-squares fit (intercept and `p` slopes) and its residual sum
/// of squares `SSE_(i)` follow from these ([`coefficients`](Self::coefficients),
/// [`sse`](Self::sse)).
///
/// ```
/// use dls_model::fault_check::RegressionStats;
///
/// let mut s = RegressionStats::new(1);
/// for (x, y) in [(1.0, 3.0), (2.0, 5.0), (3.0, 7.0)] {
///     s.push(&[x], y); // y = 1 + 2x exactly
/// }
/// let beta = s.coefficients();
/// assert!((beta[0] - 1.0).abs() < 1e-12 && (beta[1] - 2.0).abs() < 1e-12);
/// assert!(s.sse() < 1e-12);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegressionStats {
    n: u64,
    mean_x: Vec<f64>,
    mean_y: f64,
    /// p × p, row-major, symmetric.
    sxx: Vec<f64>,
    sxy: Vec<f64>,
    syy: f64,
    /// The units of each predictor and of the response, powers of two that follow the largest
    /// value of each (as [`AnovaStats`]): the stored means and cross products are in them, so
    /// that rows of any finite magnitude keep their cross products in range. Empty: all 0.
    #[serde(default)]
    ex: Vec<i32>,
    #[serde(default)]
    ey: i32,
}

impl RegressionStats {
    /// Empty statistics for rows of `p` predictors (and one response).
    ///
    /// ```
    /// use dls_model::fault_check::RegressionStats;
    ///
    /// let s = RegressionStats::new(2);
    /// assert_eq!((s.predictors(), s.rows()), (2, 0));
    /// ```
    pub fn new(p: usize) -> RegressionStats {
        RegressionStats {
            n: 0,
            mean_x: vec![0.0; p],
            mean_y: 0.0,
            sxx: vec![0.0; p * p],
            sxy: vec![0.0; p],
            syy: 0.0,
            ex: vec![0; p],
            ey: 0,
        }
    }

    /// The units of predictor `i` (0 when none were recorded).
    fn ex(&self, i: usize) -> i32 {
        self.ex.get(i).copied().unwrap_or(0)
    }

    /// Predictor `i` in units of `2^e`.
    fn rescale_x(&mut self, i: usize, e: i32) {
        let p = self.predictors();
        if self.ex.len() != p {
            self.ex.resize(p, 0);
        }
        let d = self.ex[i] - e;
        if d == 0 {
            return;
        }
        self.mean_x[i] = scale2(self.mean_x[i], d);
        for j in 0..p {
            self.sxx[i * p + j] = scale2(self.sxx[i * p + j], d);
            self.sxx[j * p + i] = scale2(self.sxx[j * p + i], d);
        }
        self.sxy[i] = scale2(self.sxy[i], d);
        self.ex[i] = e;
    }

    /// The response in units of `2^e`.
    fn rescale_y(&mut self, e: i32) {
        let d = self.ey - e;
        if d == 0 {
            return;
        }
        self.mean_y = scale2(self.mean_y, d);
        for v in &mut self.sxy {
            *v = scale2(*v, d);
        }
        self.syy = scale2(self.syy, 2 * d);
        self.ey = e;
    }

    /// These statistics in the units `ex`, `ey` (each at least the statistics' own).
    fn in_units(&self, ex: &[i32], ey: i32) -> RegressionStats {
        let mut s = self.clone();
        for (i, &e) in ex.iter().enumerate().take(s.predictors()) {
            s.rescale_x(i, e);
        }
        s.rescale_y(ey);
        s
    }

    /// The statistics of the rows with predictor `i` divided by `2^ex[i]` and the response by
    /// `2^ey`: what a test whose statistics do not change with the units computes on.
    pub(crate) fn divided_by_pow2(&self, ex: &[i32], ey: i32) -> RegressionStats {
        let mut s = self.in_units(ex, ey);
        s.ex = vec![0; s.predictors()];
        s.ey = 0;
        s
    }

    /// The largest units of each variable over `ranks` (those with rows).
    pub(crate) fn common_units(ranks: &[RegressionStats], p: usize) -> (Vec<i32>, i32) {
        let mut ex = vec![i32::MIN; p];
        let mut ey = i32::MIN;
        for r in ranks.iter().filter(|r| r.n > 0 && r.predictors() == p) {
            for (i, e) in ex.iter_mut().enumerate() {
                *e = (*e).max(r.ex(i));
            }
            ey = ey.max(r.ey);
        }
        let zero = |e: i32| if e == i32::MIN { 0 } else { e };
        (ex.into_iter().map(zero).collect(), zero(ey))
    }

    /// Adds the row `(x, y)`.
    ///
    /// # Panics
    ///
    /// If `x` does not have [`predictors`](Self::predictors) entries.
    ///
    /// ```
    /// use dls_model::fault_check::RegressionStats;
    ///
    /// let mut s = RegressionStats::new(2);
    /// s.push(&[1.0, 2.0], 3.0);
    /// s.push(&[3.0, 2.0], 5.0);
    /// assert_eq!(s.rows(), 2);
    /// assert_eq!(s.mean_x(), &[2.0, 2.0]);
    /// assert_eq!(s.sxx(), &[2.0, 0.0, 0.0, 0.0]);
    /// ```
    pub fn push(&mut self, x: &[f64], y: f64) {
        let p = self.predictors();
        assert_eq!(
            x.len(),
            p,
            "a row of {} predictors pushed to statistics of {p}",
            x.len()
        );
        // Each variable in its units, raised first (exactly) for a value larger than any so far.
        let mut scaled = [0.0; super::MAX_PREDICTORS];
        let scaled = if p <= scaled.len() {
            for (i, &xi) in x.iter().enumerate() {
                let first = self.n == 0 || (self.mean_x[i] == 0.0 && self.sxx[i * p + i] == 0.0);
                if let Some(e) = exponent(xi) {
                    if first || e > self.ex(i) {
                        self.rescale_x(i, e);
                    }
                }
                scaled[i] = scale2(xi, -self.ex(i));
            }
            &scaled[..p]
        } else {
            x
        };
        let x = scaled;
        if let Some(e) = exponent(y) {
            if self.n == 0 || (self.mean_y == 0.0 && self.syy == 0.0) || e > self.ey {
                self.rescale_y(e);
            }
        }
        let y = scale2(y, -self.ey);
        self.n = self.n.saturating_add(1);
        let inv = 1.0 / self.n as f64;
        // With d = row − old mean, the centred sums grow by d d' (n−1)/n; the means move by d/n.
        let shrink = (self.n - 1) as f64 * inv;
        let dy = y - self.mean_y;
        for (i, &xi) in x.iter().enumerate() {
            let di = xi - self.mean_x[i];
            for (j, &xj) in x.iter().enumerate() {
                self.sxx[i * p + j] += di * (xj - self.mean_x[j]) * shrink;
            }
            self.sxy[i] += di * dy * shrink;
        }
        self.syy += dy * dy * shrink;
        for (m, &xi) in self.mean_x.iter_mut().zip(x) {
            *m += (xi - *m) * inv;
        }
        self.mean_y += dy * inv;
    }

    /// The statistics of the union of the rows of `a` and `b` (Chan et al.'s update, which is
    /// Wegman's Model-0 aggregation: `S = S_a + S_b + (n_a n_b / n) d d'` with `d` the difference
    /// of the means).
    ///
    /// # Panics
    ///
    /// If `a` and `b` have different numbers of predictors.
    ///
    /// ```
    /// use dls_model::fault_check::RegressionStats;
    ///
    /// let rows = [([1.0], 2.0), ([2.0], 2.5), ([4.0], 5.0), ([5.0], 4.0)];
    /// let (mut a, mut b, mut all) =
    ///     (RegressionStats::new(1), RegressionStats::new(1), RegressionStats::new(1));
    /// for (i, (x, y)) in rows.iter().enumerate() {
    ///     if i < 2 { a.push(x, *y) } else { b.push(x, *y) }
    ///     all.push(x, *y);
    /// }
    /// let m = RegressionStats::merge(&a, &b);
    /// assert!((m.sse() - all.sse()).abs() < 1e-12);
    /// ```
    pub fn merge(a: &RegressionStats, b: &RegressionStats) -> RegressionStats {
        let p = a.predictors();
        assert_eq!(
            b.predictors(),
            p,
            "merging statistics of {p} and {} predictors",
            b.predictors()
        );
        if a.n == 0 {
            return b.clone();
        }
        if b.n == 0 {
            return a.clone();
        }
        // In common units: the larger of the two for each variable.
        let ex: Vec<i32> = (0..p).map(|i| a.ex(i).max(b.ex(i))).collect();
        let ey = a.ey.max(b.ey);
        let (a, b) = (&a.in_units(&ex, ey), &b.in_units(&ex, ey));
        let (na, nb) = (a.n as f64, b.n as f64);
        let n = a.n.saturating_add(b.n);
        let w = n as f64;
        let f = na * nb / w;
        let dx: Vec<f64> = a.mean_x.iter().zip(&b.mean_x).map(|(x, y)| y - x).collect();
        let dy = b.mean_y - a.mean_y;
        let mut sxx = vec![0.0; p * p];
        for i in 0..p {
            for j in 0..p {
                sxx[i * p + j] = a.sxx[i * p + j] + b.sxx[i * p + j] + f * dx[i] * dx[j];
            }
        }
        RegressionStats {
            n,
            mean_x: (a.mean_x.iter().zip(&b.mean_x))
                .map(|(x, y)| (na * x + nb * y) / w)
                .collect(),
            mean_y: (na * a.mean_y + nb * b.mean_y) / w,
            sxx,
            sxy: (0..p)
                .map(|i| a.sxy[i] + b.sxy[i] + f * dx[i] * dy)
                .collect(),
            syy: a.syy + b.syy + f * dy * dy,
            ex,
            ey,
        }
    }

    /// The number of predictors `p`.
    ///
    /// ```
    /// use dls_model::fault_check::RegressionStats;
    ///
    /// assert_eq!(RegressionStats::new(6).predictors(), 6);
    /// ```
    pub fn predictors(&self) -> usize {
        self.mean_x.len()
    }

    /// The number of rows `n_i`.
    ///
    /// ```
    /// use dls_model::fault_check::RegressionStats;
    ///
    /// let mut s = RegressionStats::new(1);
    /// s.push(&[0.5], 1.0);
    /// assert_eq!(s.rows(), 1);
    /// ```
    pub fn rows(&self) -> u64 {
        self.n
    }

    /// The predictor means `X̄_(i)`.
    ///
    /// ```
    /// use dls_model::fault_check::RegressionStats;
    ///
    /// let mut s = RegressionStats::new(1);
    /// s.push(&[1.0], 0.0);
    /// s.push(&[3.0], 0.0);
    /// assert_eq!(s.mean_x(), &[2.0]);
    /// ```
    pub fn mean_x(&self) -> Vec<f64> {
        (self.mean_x.iter().enumerate())
            .map(|(i, &m)| scale2(m, self.ex(i)))
            .collect()
    }

    /// The response mean `Ȳ_(i)`.
    ///
    /// ```
    /// use dls_model::fault_check::RegressionStats;
    ///
    /// let mut s = RegressionStats::new(1);
    /// s.push(&[1.0], 4.0);
    /// s.push(&[3.0], 6.0);
    /// assert_eq!(s.mean_y(), 5.0);
    /// ```
    pub fn mean_y(&self) -> f64 {
        scale2(self.mean_y, self.ey)
    }

    /// The centred cross products `(X̃'X̃)_(i)`, `p × p` row-major.
    ///
    /// ```
    /// use dls_model::fault_check::RegressionStats;
    ///
    /// let mut s = RegressionStats::new(1);
    /// s.push(&[1.0], 4.0);
    /// s.push(&[3.0], 6.0);
    /// assert_eq!(s.sxx(), &[2.0]);
    /// ```
    pub fn sxx(&self) -> Vec<f64> {
        let p = self.predictors();
        (self.sxx.iter().enumerate())
            .map(|(k, &v)| scale2(v, self.ex(k / p.max(1)) + self.ex(k % p.max(1))))
            .collect()
    }

    /// The centred cross products `(X̃'Ỹ)_(i)`.
    ///
    /// ```
    /// use dls_model::fault_check::RegressionStats;
    ///
    /// let mut s = RegressionStats::new(1);
    /// s.push(&[1.0], 4.0);
    /// s.push(&[3.0], 6.0);
    /// assert_eq!(s.sxy(), &[2.0]);
    /// ```
    pub fn sxy(&self) -> Vec<f64> {
        (self.sxy.iter().enumerate())
            .map(|(i, &v)| scale2(v, self.ex(i) + self.ey))
            .collect()
    }

    /// The centred sum of squares `(Ỹ'Ỹ)_(i)`.
    ///
    /// ```
    /// use dls_model::fault_check::RegressionStats;
    ///
    /// let mut s = RegressionStats::new(1);
    /// s.push(&[1.0], 4.0);
    /// s.push(&[3.0], 6.0);
    /// assert_eq!(s.syy(), 2.0);
    /// ```
    pub fn syy(&self) -> f64 {
        scale2(self.syy, 2 * self.ey)
    }

    /// The residual sum of squares `SSE_(i)` of the least-squares fit to these rows alone. A
    /// predictor that is constant, or a linear combination of the others, is dropped from the fit
    /// (see [`coefficients`](Self::coefficients)); never negative.
    ///
    /// ```
    /// use dls_model::fault_check::RegressionStats;
    ///
    /// let mut s = RegressionStats::new(1);
    /// for (x, y) in [(0.0, 0.0), (1.0, 2.0), (2.0, 1.0)] {
    ///     s.push(&[x], y);
    /// }
    /// assert!((s.sse() - 1.5).abs() < 1e-12); // slope 0.5, residuals -0.5, 1, -0.5
    /// ```
    pub fn sse(&self) -> f64 {
        scale2(self.fit().sse, 2 * self.ey)
    }

    /// The least-squares coefficients `[β̂0, β̂1, …, β̂p]` of these rows, by eq. (3.1) of Wegman
    /// (c. 2000): `β̂1 = (X̃'X̃)⁻¹ X̃'Ỹ`, `β̂0 = Ȳ − X̄'β̂1`. A predictor whose centred column is
    /// (numerically) a linear combination of the earlier ones gets slope 0.
    ///
    /// ```
    /// use dls_model::fault_check::RegressionStats;
    ///
    /// let mut s = RegressionStats::new(2);
    /// for (x1, y) in [(1.0, 3.0), (2.0, 5.0), (4.0, 9.0)] {
    ///     s.push(&[x1, 7.0], y); // the second predictor is constant: no slope
    /// }
    /// let b = s.coefficients();
    /// assert!((b[0] - 1.0).abs() < 1e-12 && (b[1] - 2.0).abs() < 1e-12 && b[2] == 0.0);
    /// ```
    pub fn coefficients(&self) -> Vec<f64> {
        // The fit is in the statistics' units: slope i in units of 2^(ey − ex_i).
        let slopes: Vec<f64> = (self.fit().slopes.iter().enumerate())
            .map(|(i, &b)| scale2(b, self.ey - self.ex(i)))
            .collect();
        let b0 = self.mean_y()
            - (self.mean_x().iter().zip(&slopes))
                .map(|(m, b)| m * b)
                .sum::<f64>();
        std::iter::once(b0).chain(slopes).collect()
    }

    /// The own fit: slopes, SSE and the rank of `X̃'X̃`.
    pub(crate) fn fit(&self) -> Fit {
        fit_centred(self.predictors(), &self.sxx, &self.sxy, self.syy)
    }

    /// Whether these statistics cannot come from a healthy rank: NaN or infinity anywhere, a
    /// negative sum of squares, or a cross-product matrix of the wrong shape.
    pub(crate) fn is_malformed(&self) -> bool {
        let p = self.predictors();
        let finite = self
            .mean_x
            .iter()
            .chain(&self.sxx)
            .chain(&self.sxy)
            .all(|v| v.is_finite())
            && self.mean_y.is_finite()
            && self.syy.is_finite();
        !finite
            || self.sxx.len() != p * p
            || self.sxy.len() != p
            || self.syy < 0.0
            || (0..p).any(|i| self.sxx[i * p + i] < 0.0)
    }
}

/// A least-squares fit from centred cross products.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fit {
    pub(crate) slopes: Vec<f64>,
    pub(crate) sse: f64,
    /// The number of predictors kept (the numerical rank of X̃'X̃).
    pub(crate) rank: usize,
}

/// A pivot smaller than this fraction of its column's centred sum of squares means the column is
/// a linear combination of the earlier ones (up to rounding): the predictor is dropped.
const ALIASED: f64 = 1e-10;

/// Solves `sxx b = sxy` by sweeping the pivots of the augmented matrix `[[sxx, sxy], [sxy',
/// syy]]` one predictor at a time (Goodnight's sweep operator, which is Gaussian elimination on a
/// symmetric positive semi-definite matrix); after the sweeps the bottom-right entry is the SSE.
pub(crate) fn fit_centred(p: usize, sxx: &[f64], sxy: &[f64], syy: f64) -> Fit {
    let m = p + 1;
    let mut a = vec![0.0; m * m];
    for i in 0..p {
        a[i * m..i * m + p].copy_from_slice(&sxx[i * p..(i + 1) * p]);
        a[i * m + p] = sxy[i];
        a[p * m + i] = sxy[i];
    }
    a[p * m + p] = syy;
    let mut kept = vec![false; p];
    for k in 0..p {
        let d = a[k * m + k];
        let independent = d > 0.0 && d > ALIASED * sxx[k * p + k];
        if !independent {
            continue;
        }
        kept[k] = true;
        for j in 0..m {
            a[k * m + j] /= d;
        }
        for i in 0..m {
            if i == k {
                continue;
            }
            let b = a[i * m + k];
            if b == 0.0 {
                continue;
            }
            for j in 0..m {
                if j != k {
                    a[i * m + j] -= b * a[k * m + j];
                }
            }
            a[i * m + k] = -b / d;
        }
        a[k * m + k] = 1.0 / d;
    }
    Fit {
        slopes: (0..p)
            .map(|k| if kept[k] { a[k * m + p] } else { 0.0 })
            .collect(),
        // Cancellation can leave a perfect fit a few ulps below zero.
        sse: a[p * m + p].max(0.0),
        rank: kept.iter().filter(|&&k| k).count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn two_pass_anova(chunks: &[(u64, f64)]) -> (u64, f64, f64) {
        let n: u64 = chunks.iter().map(|c| c.0).sum();
        let mean = chunks.iter().map(|c| c.1).sum::<f64>() / n as f64;
        let m2 = chunks
            .iter()
            .map(|&(s, c)| s as f64 * (c / s as f64 - mean).powi(2))
            .sum();
        (n, mean, m2)
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn large_offsets_keep_their_digits() {
        // Values 1e9 + {4, 7, 13, 16}: variance 30 (n − 1 = 3), raw moments would lose it.
        let mut s = AnovaStats::default();
        for v in [4.0, 7.0, 13.0, 16.0] {
            s.push(1e9 + v);
        }
        assert_eq!(s.mean(), 1e9 + 10.0);
        assert!((s.centred_ss() - 90.0).abs() < 1e-6, "{}", s.centred_ss());
        let mut r = RegressionStats::new(1);
        for v in [4.0, 7.0, 13.0, 16.0] {
            r.push(&[1e9 + v], 3.0 * v);
        }
        assert!((r.sxx()[0] - 90.0).abs() < 1e-6);
        assert!((r.coefficients()[1] - 3.0).abs() < 1e-9);
    }

    #[test]
    fn empty_statistics_merge_as_identity() {
        let mut a = AnovaStats::default();
        a.push_chunk(3, 6.0);
        assert_eq!(AnovaStats::merge(a, AnovaStats::default()), a);
        assert_eq!(AnovaStats::merge(AnovaStats::default(), a), a);
        a.push_chunk(0, 5.0);
        assert_eq!(a.values(), 1);
        let mut r = RegressionStats::new(2);
        r.push(&[1.0, 2.0], 3.0);
        assert_eq!(RegressionStats::merge(&r, &RegressionStats::new(2)), r);
        assert_eq!(RegressionStats::merge(&RegressionStats::new(2), &r), r);
    }

    #[test]
    fn statistics_travel_through_the_wire_formats() {
        let mut a = AnovaStats::default();
        a.push_chunk(7, 1.5);
        a.push(0.25);
        let bytes = postcard::to_allocvec(&a).unwrap();
        assert_eq!(postcard::from_bytes::<AnovaStats>(&bytes).unwrap(), a);
        let mut r = RegressionStats::new(2);
        r.push(&[1.0, 2.0], 3.0);
        r.push(&[2.0, 0.5], 1.0);
        let json = serde_json::to_string(&r).unwrap();
        assert_eq!(serde_json::from_str::<RegressionStats>(&json).unwrap(), r);
        // A faulty rank's NaN survives the binary wire format (JSON has no NaN).
        let mut bad = AnovaStats::default();
        bad.push(f64::NAN);
        let back: AnovaStats = postcard::from_bytes(&postcard::to_allocvec(&bad).unwrap()).unwrap();
        assert!(back.is_malformed());
    }

    #[test]
    fn malformed_statistics_are_recognised() {
        let mut s = AnovaStats::default();
        assert!(!s.is_malformed());
        s.push(1.0);
        assert!(!s.is_malformed());
        s.push(f64::INFINITY);
        assert!(s.is_malformed());
        let mut r = RegressionStats::new(1);
        r.push(&[1.0], f64::NAN);
        assert!(r.is_malformed());
        let mut r = RegressionStats::new(1);
        r.push(&[1.0], 1.0);
        r.syy = -1.0;
        assert!(r.is_malformed());
    }

    #[test]
    fn aliased_predictors_are_dropped() {
        // x2 = 2 x1: one slope, the fit is exact, rank 1.
        let mut r = RegressionStats::new(2);
        for x in [1.0, 2.0, 3.0, 5.0] {
            r.push(&[x, 2.0 * x], 1.0 + 3.0 * x);
        }
        let fit = r.fit();
        assert_eq!(fit.rank, 1);
        assert!(fit.sse < 1e-9);
        // One row: nothing to fit, SSE 0.
        let mut one = RegressionStats::new(3);
        one.push(&[1.0, 2.0, 3.0], 4.0);
        assert_eq!(
            one.fit(),
            Fit {
                slopes: vec![0.0; 3],
                sse: 0.0,
                rank: 0
            }
        );
        assert_eq!(one.coefficients(), vec![4.0, 0.0, 0.0, 0.0]);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Any split, in any merge order, equals the two-pass statistics of all chunks.
        #[test]
        fn anova_merges_agree_with_two_pass(
            chunks in prop::collection::vec((1u64..50, -1e3f64..1e3), 1..60),
            cuts in prop::collection::vec(any::<bool>(), 60),
            offset in prop::sample::select(vec![0.0, 1e6, -1e8]),
        ) {
            let chunks: Vec<(u64, f64)> =
                chunks.iter().map(|&(s, c)| (s, c + offset * s as f64)).collect();
            let mut parts = vec![AnovaStats::default()];
            for (i, &(s, c)) in chunks.iter().enumerate() {
                if cuts[i] {
                    parts.push(AnovaStats::default());
                }
                parts.last_mut().unwrap().push_chunk(s, c);
            }
            let forward = parts.iter().fold(AnovaStats::default(), |a, &b| AnovaStats::merge(a, b));
            let backward =
                parts.iter().rev().fold(AnovaStats::default(), |a, &b| AnovaStats::merge(b, a));
            let (n, mean, m2) = two_pass_anova(&chunks);
            for m in [forward, backward] {
                prop_assert_eq!(m.iterates(), n);
                prop_assert_eq!(m.values(), chunks.len() as u64);
                prop_assert!(close(m.mean(), mean, 1e-12));
                // The sum of squares is relative to its own size, plus the rounding of the means:
                // each merge's difference of means carries an error of about eps·|mean|, which
                // enters the sum of squares once per value times the spread (with an offset of
                // 1e8 that is ~1e-6 on a sum of squares of ~1e3, seen in a failing case).
                let tol = 1e-9 * m2.abs()
                    + 1e-12 * n as f64 * mean.abs() * (1.0 + m2.abs().sqrt())
                    + 1e-9;
                prop_assert!((m.centred_ss() - m2).abs() <= tol,
                    "{} vs {}", m.centred_ss(), m2);
            }
        }

        #[test]
        fn regression_merges_agree_with_two_pass(
            rows in prop::collection::vec((-10f64..10.0, -10f64..10.0, -50f64..50.0), 1..40),
            cuts in prop::collection::vec(any::<bool>(), 40),
        ) {
            let mut parts = vec![RegressionStats::new(2)];
            let mut all = RegressionStats::new(2);
            for (i, &(x1, x2, y)) in rows.iter().enumerate() {
                if cuts[i] {
                    parts.push(RegressionStats::new(2));
                }
                parts.last_mut().unwrap().push(&[x1 + 100.0, x2], y);
                all.push(&[x1 + 100.0, x2], y);
            }
            let forward = parts.iter().fold(RegressionStats::new(2), |a, b| RegressionStats::merge(&a, b));
            let backward =
                parts.iter().rev().fold(RegressionStats::new(2), |a, b| RegressionStats::merge(b, &a));
            // Two-pass: means first, then centred products.
            let n = rows.len() as f64;
            let mx = [
                rows.iter().map(|r| r.0 + 100.0).sum::<f64>() / n,
                rows.iter().map(|r| r.1).sum::<f64>() / n,
            ];
            let my = rows.iter().map(|r| r.2).sum::<f64>() / n;
            let cx = |r: &(f64, f64, f64)| [r.0 + 100.0 - mx[0], r.1 - mx[1]];
            let mut sxx = [0.0; 4];
            let mut sxy = [0.0; 2];
            let mut syy = 0.0;
            for r in &rows {
                let c = cx(r);
                for i in 0..2 {
                    for j in 0..2 {
                        sxx[i * 2 + j] += c[i] * c[j];
                    }
                    sxy[i] += c[i] * (r.2 - my);
                }
                syy += (r.2 - my).powi(2);
            }
            for m in [&forward, &backward, &all] {
                prop_assert_eq!(m.rows(), rows.len() as u64);
                prop_assert!(close(m.mean_y(), my, 1e-12));
                for i in 0..2 {
                    prop_assert!(close(m.mean_x()[i], mx[i], 1e-12));
                    prop_assert!(close(m.sxy()[i], sxy[i], 1e-9));
                }
                for (a, b) in m.sxx().iter().zip(&sxx) {
                    prop_assert!(close(*a, *b, 1e-9));
                }
                prop_assert!(close(m.syy(), syy, 1e-9));
            }
        }
    }
}
