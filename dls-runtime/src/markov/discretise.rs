//! Measured phase times (seconds) turned into the model's discrete distributions: one common
//! tick, each time rounded to the nearest whole number of ticks.

use super::distribution::Discrete;
use super::error::MarkovError;

/// The tick chosen for measured times, and the distributions it gives.
///
/// With `bins` = K the tick is h = (largest − smallest time) / K over every processor's samples,
/// so that each processor's times take at most K + 1 values; a time t becomes round(t / h) ticks
/// (at least 1), which moves it by at most h/2. When every time is the same, h is that time.
///
/// ```
/// use dls_runtime::markov::Discretisation;
/// let samples = vec![vec![1.0, 1.1, 1.2, 1.4], vec![1.0, 1.0, 1.3, 1.3]];
/// let d = Discretisation::from_samples(&samples, 4).unwrap();
/// assert!((d.tick_s - 0.1).abs() < 1e-12);
/// let u = d.distributions(&samples);
/// assert_eq!(u[1].points(), &[(10, 0.5), (13, 0.5)]);
/// assert_eq!(u[0].points().len(), 4);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Discretisation {
    /// The tick h, seconds.
    pub tick_s: f64,
}

impl Discretisation {
    /// The tick for `samples[i]`, processor i's measured phase times in seconds, and `bins` ≥ 1.
    ///
    /// ```
    /// use dls_runtime::markov::Discretisation;
    /// assert!(Discretisation::from_samples(&[vec![]], 4).is_err());
    /// assert!(Discretisation::from_samples(&[vec![0.5]], 0).is_err());
    /// assert_eq!(Discretisation::from_samples(&[vec![0.5, 0.5]], 3).unwrap().tick_s, 0.5);
    /// ```
    pub fn from_samples(samples: &[Vec<f64>], bins: u32) -> Result<Discretisation, MarkovError> {
        if bins == 0 {
            return Err(MarkovError::invalid("bins", "use at least 1 bin"));
        }
        if let Some(i) = samples.iter().position(Vec::is_empty) {
            return Err(MarkovError::invalid(
                "samples",
                format!("processor {i} has no measured phase time"),
            ));
        }
        let all = samples.iter().flatten();
        if let Some(t) = all.clone().find(|t| !(t.is_finite() && **t >= 0.0)) {
            return Err(MarkovError::invalid(
                "samples",
                format!("{t} is not a time >= 0 (seconds)"),
            ));
        }
        let lo = all.clone().copied().fold(f64::INFINITY, f64::min);
        let hi = all.copied().fold(0.0f64, f64::max);
        let tick_s = if hi > lo {
            (hi - lo) / bins as f64
        } else if hi > 0.0 {
            hi
        } else {
            return Err(MarkovError::invalid(
                "samples",
                "every measured phase time is 0",
            ));
        };
        Ok(Discretisation { tick_s })
    }

    /// `seconds` in whole ticks (rounded to the nearest).
    ///
    /// ```
    /// use dls_runtime::markov::Discretisation;
    /// assert_eq!(Discretisation { tick_s: 0.1 }.ticks(0.26), 3);
    /// ```
    pub fn ticks(&self, seconds: f64) -> u64 {
        (seconds / self.tick_s).round().max(0.0) as u64
    }

    /// One distribution per processor: the empirical distribution of its times in ticks (each
    /// at least 1 tick).
    ///
    /// ```
    /// use dls_runtime::markov::Discretisation;
    /// let d = Discretisation { tick_s: 1.0 };
    /// assert_eq!(d.distributions(&[vec![0.2, 2.0]])[0].points(), &[(1, 0.5), (2, 0.5)]);
    /// ```
    pub fn distributions(&self, samples: &[Vec<f64>]) -> Vec<Discrete> {
        samples
            .iter()
            .map(|times| {
                let q = 1.0 / times.len() as f64;
                Discrete::new(times.iter().map(|&t| (self.ticks(t).max(1), q)).collect())
                    .expect("an empirical distribution")
            })
            .collect()
    }

    /// A distribution given in nanoseconds ([`Discrete::parse_times`]) in this tick, each value
    /// rounded to the nearest tick.
    ///
    /// ```
    /// use dls_runtime::markov::{Discrete, Discretisation};
    /// let n = Discrete::parse_times("20ms:0.5,40ms:0.5", "network").unwrap();
    /// assert_eq!(Discretisation { tick_s: 0.02 }.rescale(&n).points(), &[(1, 0.5), (2, 0.5)]);
    /// ```
    pub fn rescale(&self, nanoseconds: &Discrete) -> Discrete {
        Discrete::new(
            nanoseconds
                .points()
                .iter()
                .map(|&(v, q)| (self.ticks(v as f64 * 1e-9), q))
                .collect(),
        )
        .expect("a rescaled distribution")
    }
}
