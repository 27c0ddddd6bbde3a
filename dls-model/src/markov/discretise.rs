//! Measured phase times (seconds) turned into the model's discrete distributions: a few values
//! per processor, on one common tick.

use super::distribution::Discrete;
use super::error::MarkovError;

/// Each processor's measured times reduced to at most `bins` values, and the tick they are
/// written in.
///
/// A processor's times are sorted and cut into `bins` groups of (nearly) equal count (quantile
/// bins, so that a few outliers do not squeeze the others into one bin); each group becomes one
/// value, the mean of its times, with probability its share of the times. The distribution keeps
/// the processor's mean time exactly. The tick is given, or by default 1/100 of the smallest
/// value, so that rounding a value to whole ticks moves it by at most 0.5%.
///
/// ```
/// use dls_model::markov::Discretisation;
/// // Processor 0: 1 ms three times in four, 5 ms once; processor 1: always 2 ms.
/// let samples = vec![vec![1e-3, 1e-3, 1e-3, 5e-3], vec![2e-3; 4]];
/// let d = Discretisation::from_samples(&samples, 4, None).unwrap();
/// assert!((d.tick_s - 1e-5).abs() < 1e-18);
/// let u = d.distributions();
/// assert_eq!(u[0].points(), &[(100, 0.75), (500, 0.25)]);
/// assert_eq!(u[1].points(), &[(200, 1.0)]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Discretisation {
    /// The tick, seconds.
    pub tick_s: f64,
    /// Per processor: (seconds, probability) of each value, sorted.
    pub values: Vec<Vec<(f64, f64)>>,
}

impl Discretisation {
    /// Reduces `samples[i]`, processor i's measured phase times in seconds, to at most `bins` ≥ 1
    /// values each; `tick_s` is the tick (default: 1/100 of the smallest value).
    ///
    /// ```
    /// use dls_model::markov::Discretisation;
    /// assert!(Discretisation::from_samples(&[vec![]], 4, None).is_err());
    /// assert!(Discretisation::from_samples(&[vec![0.5]], 0, None).is_err());
    /// let d = Discretisation::from_samples(&[vec![0.1, 0.2, 0.3, 0.4]], 2, Some(0.05)).unwrap();
    /// assert_eq!(d.values[0].len(), 2);
    /// assert!((d.values[0][0].0 - 0.15).abs() < 1e-12);
    /// assert_eq!(d.distributions()[0].points(), &[(3, 0.5), (7, 0.5)]);
    /// ```
    pub fn from_samples(
        samples: &[Vec<f64>],
        bins: u32,
        tick_s: Option<f64>,
    ) -> Result<Discretisation, MarkovError> {
        if bins == 0 {
            return Err(MarkovError::invalid("bins", "use at least 1 bin"));
        }
        if let Some(i) = samples.iter().position(Vec::is_empty) {
            return Err(MarkovError::invalid(
                "samples",
                format!("processor {i} has no measured phase time"),
            ));
        }
        if let Some(t) = samples
            .iter()
            .flatten()
            .find(|t| !(t.is_finite() && **t > 0.0))
        {
            return Err(MarkovError::invalid(
                "samples",
                format!("{t} is not a phase time > 0 (seconds)"),
            ));
        }
        let values: Vec<Vec<(f64, f64)>> = samples
            .iter()
            .map(|times| {
                let mut sorted = times.clone();
                sorted.sort_by(f64::total_cmp);
                let n = sorted.len();
                let groups = (bins as usize).min(n);
                let mut out: Vec<(f64, f64)> = Vec::with_capacity(groups);
                for g in 0..groups {
                    let part = &sorted[g * n / groups..(g + 1) * n / groups];
                    let mean = part.iter().sum::<f64>() / part.len() as f64;
                    let q = part.len() as f64 / n as f64;
                    match out.last_mut() {
                        Some(last) if last.0 == mean => last.1 += q,
                        _ => out.push((mean, q)),
                    }
                }
                out
            })
            .collect();
        let smallest = values
            .iter()
            .flatten()
            .map(|v| v.0)
            .fold(f64::INFINITY, f64::min);
        let tick_s = match tick_s {
            Some(t) if t.is_finite() && t > 0.0 => t,
            Some(t) => {
                return Err(MarkovError::invalid(
                    "tick",
                    format!("{t} is not a tick > 0 (seconds)"),
                ))
            }
            None => smallest / 100.0,
        };
        Ok(Discretisation { tick_s, values })
    }

    /// `seconds` in whole ticks (rounded to the nearest).
    ///
    /// ```
    /// use dls_model::markov::Discretisation;
    /// let d = Discretisation { tick_s: 0.1, values: vec![] };
    /// assert_eq!(d.ticks(0.26), 3);
    /// ```
    pub fn ticks(&self, seconds: f64) -> u64 {
        (seconds / self.tick_s).round().max(0.0) as u64
    }

    /// One distribution per processor, in ticks (each value at least 1 tick).
    ///
    /// ```
    /// use dls_model::markov::Discretisation;
    /// let d = Discretisation { tick_s: 1.0, values: vec![vec![(0.2, 0.5), (2.0, 0.5)]] };
    /// assert_eq!(d.distributions()[0].points(), &[(1, 0.5), (2, 0.5)]);
    /// ```
    pub fn distributions(&self) -> Vec<Discrete> {
        self.values
            .iter()
            .map(|vs| {
                Discrete::new(vs.iter().map(|&(t, q)| (self.ticks(t).max(1), q)).collect())
                    .expect("an empirical distribution")
            })
            .collect()
    }

    /// A distribution given in nanoseconds ([`Discrete::parse_times`]) in this tick, each value
    /// rounded to the nearest tick.
    ///
    /// ```
    /// use dls_model::markov::{Discrete, Discretisation};
    /// let n = Discrete::parse_times("20ms:0.5,40ms:0.5", "network").unwrap();
    /// let d = Discretisation { tick_s: 0.02, values: vec![] };
    /// assert_eq!(d.rescale(&n).points(), &[(1, 0.5), (2, 0.5)]);
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
