//! Finite discrete distributions of times, on an integer tick, and their text form.
//!
//! The chain compares wavefront states for equality, so times are whole numbers of a common tick
//! (the paper's "rational" assumption, Casanova, Thomason & Dongarra 1999, App. B): the text form
//! reads times in nanoseconds and [`common_tick`] finds the largest tick that divides them all.

use super::error::MarkovError;

/// A finite discrete distribution of non-negative whole numbers of ticks: values with their
/// probabilities, sorted by value, each value once, probabilities summing to 1.
///
/// ```
/// use dls_model::markov::Discrete;
/// let d = Discrete::new(vec![(3, 0.5), (1, 0.25), (1, 0.25)]).unwrap();
/// assert_eq!(d.points(), &[(1, 0.5), (3, 0.5)]);
/// assert_eq!(d.mean(), 2.0);
/// // The sum of two independent draws.
/// assert_eq!(d.sum_of(2).points(), &[(2, 0.25), (4, 0.5), (6, 0.25)]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Discrete {
    points: Vec<(u64, f64)>,
}

impl Discrete {
    /// A distribution from `(value, probability)` pairs in any order; equal values are merged.
    /// The probabilities must be finite, ≥ 0 and sum to 1 within 1e-6 (they are then scaled to
    /// sum to 1 exactly); values of probability 0 are dropped.
    ///
    /// ```
    /// use dls_model::markov::Discrete;
    /// assert!(Discrete::new(vec![(1, 1.0 / 3.0), (5, 2.0 / 3.0)]).is_ok());
    /// assert!(Discrete::new(vec![]).is_err());
    /// ```
    pub fn new(mut pairs: Vec<(u64, f64)>) -> Result<Discrete, MarkovError> {
        if pairs.is_empty() {
            return Err(MarkovError::invalid(
                "distribution",
                "a distribution needs at least one value",
            ));
        }
        if let Some(&(v, q)) = pairs.iter().find(|(_, q)| !q.is_finite() || *q < 0.0) {
            return Err(MarkovError::invalid(
                "distribution",
                format!("value {v} has probability {q}; probabilities are numbers >= 0"),
            ));
        }
        let total: f64 = pairs.iter().map(|p| p.1).sum();
        if (total - 1.0).abs() > 1e-6 {
            return Err(MarkovError::invalid(
                "distribution",
                format!("the probabilities sum to {total}; they must sum to 1"),
            ));
        }
        pairs.sort_by_key(|p| p.0);
        let mut points: Vec<(u64, f64)> = Vec::with_capacity(pairs.len());
        for (v, q) in pairs {
            if q == 0.0 {
                continue;
            }
            match points.last_mut() {
                Some(last) if last.0 == v => last.1 += q,
                _ => points.push((v, q)),
            }
        }
        for p in &mut points {
            p.1 /= total;
        }
        Ok(Discrete { points })
    }

    /// The distribution that is always `value`.
    ///
    /// ```
    /// use dls_model::markov::Discrete;
    /// assert_eq!(Discrete::constant(4).points(), &[(4, 1.0)]);
    /// ```
    pub fn constant(value: u64) -> Discrete {
        Discrete {
            points: vec![(value, 1.0)],
        }
    }

    /// The `(value, probability)` pairs, sorted by value.
    ///
    /// ```
    /// use dls_model::markov::Discrete;
    /// assert_eq!(Discrete::constant(2).points().len(), 1);
    /// ```
    pub fn points(&self) -> &[(u64, f64)] {
        &self.points
    }

    /// The smallest value.
    ///
    /// ```
    /// use dls_model::markov::Discrete;
    /// assert_eq!(Discrete::new(vec![(2, 0.5), (7, 0.5)]).unwrap().min(), 2);
    /// ```
    pub fn min(&self) -> u64 {
        self.points[0].0
    }

    /// The largest value (the bound n̄ of a message time in Lemma B.1).
    ///
    /// ```
    /// use dls_model::markov::Discrete;
    /// assert_eq!(Discrete::new(vec![(2, 0.5), (7, 0.5)]).unwrap().max(), 7);
    /// ```
    pub fn max(&self) -> u64 {
        self.points[self.points.len() - 1].0
    }

    /// The expected value.
    ///
    /// ```
    /// use dls_model::markov::Discrete;
    /// assert_eq!(Discrete::new(vec![(2, 0.5), (6, 0.5)]).unwrap().mean(), 4.0);
    /// ```
    pub fn mean(&self) -> f64 {
        self.points.iter().map(|&(v, q)| v as f64 * q).sum()
    }

    /// The distribution of the sum of `k ≥ 1` independent draws (the α sub-phase of A_i updates
    /// is `update_time.sum_of(A_i)`).
    ///
    /// ```
    /// use dls_model::markov::Discrete;
    /// let d = Discrete::new(vec![(1, 0.5), (2, 0.5)]).unwrap();
    /// assert_eq!(d.sum_of(1), d);
    /// assert_eq!(d.sum_of(3).points()[0], (3, 0.125));
    /// ```
    pub fn sum_of(&self, k: u32) -> Discrete {
        let mut acc = self.clone();
        for _ in 1..k.max(1) {
            acc = acc.plus(self);
        }
        acc
    }

    /// The distribution of the sum of a draw of `self` and an independent draw of `other`.
    pub(crate) fn plus(&self, other: &Discrete) -> Discrete {
        let mut pairs = Vec::with_capacity(self.points.len() * other.points.len());
        for &(a, p) in &self.points {
            for &(b, q) in &other.points {
                pairs.push((a + b, p * q));
            }
        }
        let total: f64 = pairs.iter().map(|p| p.1).sum();
        for p in &mut pairs {
            p.1 /= total;
        }
        Discrete::new(pairs).expect("a convolution of distributions is a distribution")
    }

    /// P(X ≤ t).
    ///
    /// ```
    /// use dls_model::markov::Discrete;
    /// let d = Discrete::new(vec![(1, 0.25), (3, 0.75)]).unwrap();
    /// assert_eq!(d.cdf(0), 0.0);
    /// assert_eq!(d.cdf(2), 0.25);
    /// assert_eq!(d.cdf(3), 1.0);
    /// ```
    pub fn cdf(&self, t: i64) -> f64 {
        if t < 0 {
            return 0.0;
        }
        let k = self.points.partition_point(|&(v, _)| v <= t as u64);
        if k == self.points.len() {
            1.0
        } else {
            self.points[..k].iter().map(|p| p.1).sum()
        }
    }

    /// The value whose cumulative probability first reaches `u` ∈ (0, 1): a draw by inversion.
    ///
    /// ```
    /// use dls_model::markov::Discrete;
    /// let d = Discrete::new(vec![(1, 0.25), (3, 0.75)]).unwrap();
    /// assert_eq!(d.quantile(0.2), 1);
    /// assert_eq!(d.quantile(0.3), 3);
    /// ```
    pub fn quantile(&self, u: f64) -> u64 {
        let mut acc = 0.0;
        for &(v, q) in &self.points {
            acc += q;
            if u < acc {
                return v;
            }
        }
        self.max()
    }

    /// Every value divided by `tick`, which must divide them all.
    ///
    /// ```
    /// use dls_model::markov::Discrete;
    /// let d = Discrete::new(vec![(1000, 0.5), (3000, 0.5)]).unwrap();
    /// assert_eq!(d.in_ticks(1000).points(), &[(1, 0.5), (3, 0.5)]);
    /// ```
    pub fn in_ticks(&self, tick: u64) -> Discrete {
        assert!(tick > 0, "a tick is > 0");
        Discrete {
            points: self
                .points
                .iter()
                .map(|&(v, q)| {
                    assert!(v % tick == 0, "tick {tick} does not divide {v}");
                    (v / tick, q)
                })
                .collect(),
        }
    }

    /// Parses a distribution of times: `VALUE:PROB,VALUE:PROB,...`, or one `VALUE` for a constant.
    /// A value is a duration (`3ms`, `250us`, `2s`; a bare number is seconds) and becomes whole
    /// nanoseconds; a probability is a decimal (`0.25`) or a fraction (`1/3`). The result's values
    /// are nanoseconds: [`common_tick`] and [`Discrete::in_ticks`] turn several of them into one
    /// chain's ticks.
    ///
    /// ```
    /// use dls_model::markov::Discrete;
    /// let d = Discrete::parse_times("1ms:1/3,5ms:2/3", "update_time").unwrap();
    /// assert_eq!(d.points()[0].0, 1_000_000);
    /// assert_eq!(Discrete::parse_times("2", "network").unwrap(), Discrete::constant(2_000_000_000));
    /// assert!(Discrete::parse_times("1ms:0.5", "network").unwrap_err().to_string().contains("network"));
    /// ```
    pub fn parse_times(text: &str, setting: &'static str) -> Result<Discrete, MarkovError> {
        let bad = |why: String| {
            MarkovError::invalid(
                setting,
                format!(
                    "`{text}`: {why}; write VALUE:PROB,VALUE:PROB,... (e.g. 1ms:0.5,3ms:0.5 or \
                     1:1/3,5:2/3, a bare number is seconds) or one VALUE for a constant"
                ),
            )
        };
        let pieces: Vec<&str> = text.split(',').map(str::trim).collect();
        let mut pairs = Vec::new();
        for piece in &pieces {
            let (value, prob) = match piece.split_once(':') {
                Some((v, q)) => (v.trim(), Some(q.trim())),
                None if pieces.len() == 1 => (*piece, None),
                None => return Err(bad(format!("`{piece}` has no probability"))),
            };
            let ns = parse_nanoseconds(value).map_err(&bad)?;
            let q = match prob {
                None => 1.0,
                Some(q) => parse_probability(q).map_err(&bad)?,
            };
            pairs.push((ns, q));
        }
        Discrete::new(pairs).map_err(|e| match e {
            MarkovError::Invalid { message, .. } => bad(message),
            other => other,
        })
    }
}

/// A duration in whole nanoseconds.
fn parse_nanoseconds(text: &str) -> Result<u64, String> {
    let seconds = crate::technique::parse_duration(text)
        .filter(|s| s.is_finite() && *s >= 0.0)
        .ok_or_else(|| {
            format!("`{text}` is not a duration >= 0 (a number with ns, us, ms or s)")
        })?;
    let ns = seconds * 1e9;
    let whole = ns.round();
    if whole > u64::MAX as f64 / 4.0 {
        return Err(format!("`{text}` is too long"));
    }
    if (ns - whole).abs() > 1e-6 * whole.max(1.0) {
        return Err(format!("`{text}` is not a whole number of nanoseconds"));
    }
    Ok(whole as u64)
}

/// A probability: a decimal or a fraction `A/B`.
fn parse_probability(text: &str) -> Result<f64, String> {
    let value = match text.split_once('/') {
        Some((a, b)) => match (a.trim().parse::<f64>(), b.trim().parse::<f64>()) {
            (Ok(a), Ok(b)) if b > 0.0 => Some(a / b),
            _ => None,
        },
        None => text.parse::<f64>().ok(),
    };
    match value {
        Some(q) if q.is_finite() && (0.0..=1.0).contains(&q) => Ok(q),
        _ => Err(format!(
            "`{text}` is not a probability (a number in [0, 1] or a fraction like 1/3)"
        )),
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The largest tick that divides every value of every distribution (1 when all are 0): times in
/// that tick are whole numbers, and the chain has as few states as this discretisation allows.
///
/// ```
/// use dls_model::markov::{common_tick, Discrete};
/// let a = Discrete::parse_times("2ms:0.5,6ms:0.5", "u").unwrap();
/// let b = Discrete::parse_times("1ms", "n").unwrap();
/// assert_eq!(common_tick([&a, &b]), 1_000_000);
/// ```
pub fn common_tick<'a>(distributions: impl IntoIterator<Item = &'a Discrete>) -> u64 {
    let g = distributions
        .into_iter()
        .flat_map(|d| d.points.iter().map(|p| p.0))
        .fold(0, gcd);
    g.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fractions_units_and_constants() {
        let d = Discrete::parse_times("1:1/4, 2:3/4", "u").unwrap();
        assert_eq!(d.points(), &[(1_000_000_000, 0.25), (2_000_000_000, 0.75)]);
        let d = Discrete::parse_times("250us:0.5,1.5ms:0.5", "u").unwrap();
        assert_eq!(d.points(), &[(250_000, 0.5), (1_500_000, 0.5)]);
        assert_eq!(
            Discrete::parse_times("0", "n").unwrap(),
            Discrete::constant(0)
        );
    }

    #[test]
    fn rejects_bad_text_naming_the_setting() {
        for bad in [
            "",
            "1:0.5,2",
            "1:0.7,2:0.7",
            "-1:1",
            "x:1",
            "1:2",
            "1:1/0",
            "0.1ns:1",
        ] {
            let e = Discrete::parse_times(bad, "update_time").unwrap_err();
            let text = e.to_string();
            assert!(
                text.starts_with("update_time:") && text.contains("VALUE:PROB"),
                "{bad}: {text}"
            );
        }
    }

    #[test]
    fn sums_of_draws_convolve() {
        let d = Discrete::new(vec![(1, 0.5), (3, 0.5)]).unwrap();
        let s = d.sum_of(2);
        assert_eq!(s.points(), &[(2, 0.25), (4, 0.5), (6, 0.25)]);
        assert!((s.mean() - 2.0 * d.mean()).abs() < 1e-12);
    }

    #[test]
    fn tick_is_the_gcd() {
        let a = Discrete::new(vec![(6, 0.5), (9, 0.5)]).unwrap();
        let b = Discrete::constant(0);
        assert_eq!(common_tick([&a, &b]), 3);
        assert_eq!(common_tick([&b]), 1);
    }
}
