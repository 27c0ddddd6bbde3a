//! Iterate-time models: how long each iterate of the simulated loop takes on a rank of speed 1.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use super::duration::{format_duration, parse_duration};
use super::error::SimError;
use super::rng::SimRng;

/// How long iterate `i` takes, in seconds, on a rank with time factor 1.
///
/// Parses from text (durations take a unit: `ns`, `us`, `ms`, `s`; a bare number is seconds):
///
/// | text | model |
/// |---|---|
/// | `const:10us` | every iterate takes 10 µs |
/// | `uniform:1ms:3ms` | uniform between 1 and 3 ms |
/// | `normal:1ms:0.2ms` | normal, mean 1 ms, standard deviation 0.2 ms, truncated at 0 (negative draws are redrawn) |
/// | `exp:1ms` | exponential with mean 1 ms |
/// | `gamma:4:0.25ms` | gamma with shape k = 4 and scale θ = 0.25 ms (mean kθ, coefficient of variation 1/√k) |
/// | `bimodal:0.1:10ms:1ms` | 10 ms with probability 0.1, otherwise 1 ms |
/// | `linear:1ms:5ms` | from 1 ms at the first iterate to 5 ms at the last (decreasing if the first is larger) |
/// | `file:times.txt` | recorded: one time per line (a duration, bare numbers are seconds; `#` starts a comment) |
///
/// ```
/// use dls_model::sim::IterateTimeModel;
/// let m: IterateTimeModel = "exp:1ms".parse().unwrap();
/// assert_eq!(m, IterateTimeModel::Exponential { mean: 1e-3 });
/// assert_eq!(m.to_string(), "exp:1ms");
/// assert!("exp:-1ms".parse::<IterateTimeModel>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum IterateTimeModel {
    /// Every iterate takes the same time.
    Constant(f64),
    /// Uniform between `low` and `high`.
    Uniform {
        /// Shortest time.
        low: f64,
        /// Longest time.
        high: f64,
    },
    /// Normal with the given mean and standard deviation, truncated at 0 (negative draws are
    /// redrawn, so the realised mean is slightly above `mean` when `sd` is large).
    Normal {
        /// Mean before truncation (must be positive).
        mean: f64,
        /// Standard deviation before truncation.
        sd: f64,
    },
    /// Exponential with the given mean.
    Exponential {
        /// Mean time.
        mean: f64,
    },
    /// Gamma with shape `k` and scale `theta`: mean `k·theta`, variance `k·theta²`.
    Gamma {
        /// Shape k.
        shape: f64,
        /// Scale θ, seconds.
        scale: f64,
    },
    /// Time `a` with probability `p`, otherwise time `b`.
    Bimodal {
        /// Probability of the time `a`.
        p: f64,
        /// First time.
        a: f64,
        /// Second time.
        b: f64,
    },
    /// Linear in the iterate index: `first` at iterate 0, `last` at iterate N − 1.
    Linear {
        /// Time of the first iterate.
        first: f64,
        /// Time of the last iterate.
        last: f64,
    },
    /// A recorded list of times; iterate i takes `times[i]`.
    Recorded {
        /// Where the times came from (a file path, shown by `Display`).
        source: String,
        /// The times, seconds.
        times: Arc<Vec<f64>>,
    },
}

impl IterateTimeModel {
    /// The mean of one iterate's time as drawn: for `normal`, the mean of the normal truncated
    /// at 0 (negative draws are redrawn), `mean + sd·φ(a)/(1 − Φ(a))` with `a = −mean/sd`; the
    /// nominal mean of [`moments`](IterateTimeModel::moments) for the other models (`None` for
    /// a loop of no iterates).
    ///
    /// ```
    /// use dls_model::sim::IterateTimeModel;
    /// let m: IterateTimeModel = "normal:1ms:100ms".parse().unwrap();
    /// let drawn = m.drawn_mean(10).unwrap();
    /// assert!((drawn - 0.08015).abs() < 1e-5, "{drawn}");
    /// ```
    pub fn drawn_mean(&self, n: u64) -> Option<f64> {
        let (mean, _) = self.moments(n)?;
        Some(match *self {
            IterateTimeModel::Normal { mean, sd } if sd > 0.0 => {
                let a = -mean / sd;
                let pdf = (-0.5 * a * a).exp() / (2.0 * std::f64::consts::PI).sqrt();
                // 1 − Φ(a) = erfc(a / √2) / 2.
                let upper = 0.5 * erfc(a / std::f64::consts::SQRT_2);
                mean + sd * pdf / upper
            }
            _ => mean,
        })
    }

    /// A warning when the truncation at 0 of a `normal` model moves the mean of the drawn times
    /// by more than 1% from the mean it names (issue 43 R4-8: `normal:1ms:100ms` draws times of
    /// mean about 80 ms), naming both means; `None` otherwise.
    ///
    /// ```
    /// use dls_model::sim::IterateTimeModel;
    /// let wide: IterateTimeModel = "normal:1ms:100ms".parse().unwrap();
    /// assert!(wide.truncation_warning().unwrap().contains("to 80.15"));
    /// let narrow: IterateTimeModel = "normal:1ms:0.2ms".parse().unwrap();
    /// assert!(narrow.truncation_warning().is_none());
    /// ```
    pub fn truncation_warning(&self) -> Option<String> {
        let IterateTimeModel::Normal { mean, .. } = *self else {
            return None;
        };
        let drawn = self.drawn_mean(1)?;
        let moved = (drawn - mean) / mean;
        (moved > 0.01).then(|| {
            format!(
                "--iterate-time {self}: negative draws are redrawn (truncation at 0), which moves \
                 the mean iterate time from {:.4} ms to {:.4} ms (+{:.1}%); for times of mean \
                 {:.4} ms give a smaller SD (at most about {:.4} ms keeps the mean within 1%), or \
                 another model (gamma:SHAPE:SCALE and exp:MEAN have no negative times)",
                mean * 1e3,
                drawn * 1e3,
                moved * 100.0,
                mean * 1e3,
                mean / 2.38 * 1e3,
            )
        })
    }

    /// The syntax of every model, for error and help messages.
    ///
    /// ```
    /// assert!(dls_model::sim::IterateTimeModel::SYNTAX.contains("gamma:K:THETA"));
    /// ```
    pub const SYNTAX: &'static str = "const:T, uniform:LOW:HIGH, normal:MEAN:SD, exp:MEAN, \
        gamma:K:THETA, bimodal:P:A:B, linear:FIRST:LAST, file:PATH (times take a unit ns/us/ms/s, \
        e.g. exp:1ms)";

    /// A recorded model from a list of times in seconds; `source` names where they came from.
    ///
    /// ```
    /// use dls_model::sim::IterateTimeModel;
    /// let m = IterateTimeModel::recorded("measured", vec![1e-3, 2e-3]).unwrap();
    /// assert_eq!(m.moments(2), Some((1.5e-3, 0.5e-3)));
    /// assert!(IterateTimeModel::recorded("bad", vec![-1.0]).is_err());
    /// ```
    pub fn recorded(source: impl Into<String>, times: Vec<f64>) -> Result<Self, SimError> {
        let source = source.into();
        if let Some((i, t)) = times
            .iter()
            .enumerate()
            .find(|(_, t)| !t.is_finite() || **t < 0.0)
        {
            return Err(SimError::new(format!(
                "--iterate-time: recorded time {} of `{source}` is {t}; times must be finite and >= 0",
                i + 1
            )));
        }
        Ok(IterateTimeModel::Recorded {
            source,
            times: Arc::new(times),
        })
    }

    /// Reads a recorded model from a file: one duration per line (bare numbers are seconds), blank
    /// lines and text after `#` ignored.
    ///
    /// ```
    /// let path = std::env::temp_dir().join("dls_doc_times.txt");
    /// std::fs::write(&path, "1ms\n# comment\n0.002\n").unwrap();
    /// let m = dls_model::sim::IterateTimeModel::from_file(path.to_str().unwrap()).unwrap();
    /// assert_eq!(m.moments(2).unwrap().0, 1.5e-3);
    /// ```
    pub fn from_file(path: &str) -> Result<Self, SimError> {
        let text = crate::input::read_text(std::path::Path::new(path), crate::input::MAX_INPUT)
            .map_err(|e| SimError::new(format!("--iterate-time: `file:{path}`: {e}")))?;
        let mut times = Vec::new();
        for (lineno, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let what = format!("--iterate-time file:{path} line {}", lineno + 1);
            times.push(parse_duration(line, &what)?);
        }
        if times.is_empty() {
            return Err(SimError::new(format!(
                "--iterate-time: `file:{path}` holds no times (one duration per line)"
            )));
        }
        IterateTimeModel::recorded(path, times)
    }

    /// Checks the model can give `n` iterate times (a recorded list must hold at least `n`).
    ///
    /// ```
    /// let m = dls_model::sim::IterateTimeModel::recorded("r", vec![1.0; 3]).unwrap();
    /// assert!(m.check_len(3).is_ok());
    /// assert!(m.check_len(4).unwrap_err().to_string().contains("3 times"));
    /// ```
    pub fn check_len(&self, n: u64) -> Result<(), SimError> {
        if let IterateTimeModel::Recorded { source, times } = self {
            if (times.len() as u64) < n {
                return Err(SimError::new(format!(
                    "--iterate-time: `{source}` holds {} times but the loop has n = {n} iterates",
                    times.len()
                )));
            }
        }
        Ok(())
    }

    /// Mean and standard deviation of one iterate's time over a loop of `n` iterates (exact for
    /// the recorded and linear models, of the untruncated distribution for `normal`). `None` when
    /// `n` is 0.
    ///
    /// ```
    /// use dls_model::sim::IterateTimeModel;
    /// let (mean, sd) = IterateTimeModel::Gamma { shape: 4.0, scale: 0.25 }.moments(10).unwrap();
    /// assert_eq!((mean, sd), (1.0, 0.5));
    /// ```
    pub fn moments(&self, n: u64) -> Option<(f64, f64)> {
        if n == 0 {
            return None;
        }
        Some(match *self {
            IterateTimeModel::Constant(t) => (t, 0.0),
            IterateTimeModel::Uniform { low, high } => {
                ((low + high) / 2.0, (high - low) / 12f64.sqrt())
            }
            IterateTimeModel::Normal { mean, sd } => (mean, sd),
            IterateTimeModel::Exponential { mean } => (mean, mean),
            IterateTimeModel::Gamma { shape, scale } => (shape * scale, shape.sqrt() * scale),
            IterateTimeModel::Bimodal { p, a, b } => {
                let mean = p * a + (1.0 - p) * b;
                (mean, (p * (1.0 - p)).sqrt() * (a - b).abs())
            }
            IterateTimeModel::Linear { first, last } => {
                let mean = (first + last) / 2.0;
                // Discrete uniform grid of n points: variance (n+1)/(12(n-1)) * (last-first)^2.
                let sd = if n > 1 {
                    (last - first).abs() * ((n as f64 + 1.0) / (12.0 * (n as f64 - 1.0))).sqrt()
                } else {
                    0.0
                };
                (mean, sd)
            }
            IterateTimeModel::Recorded { ref times, .. } => {
                let k = (n as usize).min(times.len()).max(1);
                let xs = &times[..k.min(times.len())];
                if xs.is_empty() {
                    return None;
                }
                let mean = xs.iter().sum::<f64>() / xs.len() as f64;
                let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / xs.len() as f64;
                (mean, var.sqrt())
            }
        })
    }

    /// A model with the given mean and coefficient of variation (sd / mean): constant for 0,
    /// gamma with shape `1/cov²` and scale `mean·cov²` otherwise (exponential at cov = 1).
    ///
    /// ```
    /// use dls_model::sim::IterateTimeModel;
    /// assert_eq!(IterateTimeModel::with_cov(1e-3, 0.0), IterateTimeModel::Constant(1e-3));
    /// let (m, sd) = IterateTimeModel::with_cov(1e-3, 2.0).moments(1).unwrap();
    /// assert!((m - 1e-3).abs() < 1e-15 && (sd - 2e-3).abs() < 1e-15);
    /// ```
    pub fn with_cov(mean: f64, cov: f64) -> Self {
        if cov <= 0.0 {
            IterateTimeModel::Constant(mean)
        } else {
            IterateTimeModel::Gamma {
                shape: 1.0 / (cov * cov),
                scale: mean * cov * cov,
            }
        }
    }

    /// A sampler giving the times of iterates 0, 1, 2, ... of a loop of `n` iterates, in order,
    /// deterministic for a given `seed`.
    ///
    /// ```
    /// use dls_model::sim::IterateTimeModel;
    /// let m: IterateTimeModel = "linear:1s:4s".parse().unwrap();
    /// let mut s = m.sampler(4, 0);
    /// assert_eq!(s.take(4), (10.0, 4.0)); // 1 + 2 + 3 + 4, longest 4
    /// ```
    pub fn sampler(&self, n: u64, seed: u64) -> IterateSampler {
        IterateSampler {
            model: self.clone(),
            n,
            next: 0,
            rng: SimRng::new(seed),
        }
    }
}

/// Draws iterate times of one loop in index order (see [`IterateTimeModel::sampler`]).
///
/// ```
/// let m: dls_model::sim::IterateTimeModel = "const:2ms".parse().unwrap();
/// let mut s = m.sampler(10, 1);
/// assert_eq!(s.next_time(), 2e-3);
/// assert_eq!(s.position(), 1);
/// ```
#[derive(Debug, Clone)]
pub struct IterateSampler {
    model: IterateTimeModel,
    n: u64,
    next: u64,
    rng: SimRng,
}

impl IterateSampler {
    /// Index of the next iterate.
    ///
    /// ```
    /// let m = dls_model::sim::IterateTimeModel::Constant(1.0);
    /// assert_eq!(m.sampler(3, 0).position(), 0);
    /// ```
    pub fn position(&self) -> u64 {
        self.next
    }

    /// The time of the next iterate.
    ///
    /// ```
    /// let m = dls_model::sim::IterateTimeModel::Bimodal { p: 1.0, a: 3.0, b: 1.0 };
    /// assert_eq!(m.sampler(1, 0).next_time(), 3.0);
    /// ```
    pub fn next_time(&mut self) -> f64 {
        self.take(1).0
    }

    /// Draws the next `count` iterate times and returns their sum and their maximum.
    ///
    /// ```
    /// let m = dls_model::sim::IterateTimeModel::Constant(0.5);
    /// assert_eq!(m.sampler(10, 0).take(4), (2.0, 0.5));
    /// ```
    pub fn take(&mut self, count: u64) -> (f64, f64) {
        self.take_at(self.next, count)
    }

    /// The times of the `count` iterates from index `first` on (a chunk placed out of index
    /// order, as static-steal's): their sum and maximum. Models that depend on the index
    /// (`linear`, `file`) give those iterates' times; the random ones draw the next `count`
    /// times, which have the same distribution wherever the chunk lies. The next
    /// [`take`](Self::take) continues after this chunk.
    ///
    /// ```
    /// let m: dls_model::sim::IterateTimeModel = "linear:1s:4s".parse().unwrap();
    /// let mut s = m.sampler(4, 0);
    /// assert_eq!(s.take_at(2, 2), (7.0, 4.0)); // iterates 2 and 3: 3 s + 4 s
    /// assert_eq!(s.take_at(0, 2), (3.0, 2.0));
    /// ```
    pub fn take_at(&mut self, first: u64, count: u64) -> (f64, f64) {
        if let IterateTimeModel::Constant(t) = self.model {
            self.next = first.saturating_add(count);
            return if count > 0 {
                (t * count as f64, t)
            } else {
                (0.0, 0.0)
            };
        }
        let mut sum = 0.0;
        let mut max = 0.0f64;
        self.each_at(first, count, |t| {
            sum += t;
            max = max.max(t);
        });
        (sum, max)
    }

    /// [`take_at`](Self::take_at), giving each iterate's time (the simulator's split of a chunk
    /// in progress needs them). Draws exactly what `take_at` would.
    ///
    /// ```
    /// let m: dls_model::sim::IterateTimeModel = "linear:1s:4s".parse().unwrap();
    /// assert_eq!(m.sampler(4, 0).times_at(1, 3), vec![2.0, 3.0, 4.0]);
    /// let e: dls_model::sim::IterateTimeModel = "exp:1ms".parse().unwrap();
    /// let t = e.sampler(10, 3).times_at(0, 4);
    /// assert_eq!(t.iter().sum::<f64>(), e.sampler(10, 3).take_at(0, 4).0);
    /// ```
    pub fn times_at(&mut self, first: u64, count: u64) -> Vec<f64> {
        let mut times = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
        self.each_at(first, count, |t| times.push(t));
        times
    }

    /// Calls `add` with the time of each of the `count` iterates from index `first` on.
    fn each_at(&mut self, first: u64, count: u64, mut add: impl FnMut(f64)) {
        self.next = first.saturating_add(count);
        let rng = &mut self.rng;
        match self.model {
            IterateTimeModel::Constant(t) => {
                for _ in 0..count {
                    add(t);
                }
            }
            IterateTimeModel::Uniform { low, high } => {
                for _ in 0..count {
                    add(low + (high - low) * rng.open01());
                }
            }
            IterateTimeModel::Normal { mean, sd } => {
                for _ in 0..count {
                    let t = loop {
                        let t = mean + sd * rng.normal();
                        if t >= 0.0 {
                            break t;
                        }
                    };
                    add(t);
                }
            }
            IterateTimeModel::Exponential { mean } => {
                for _ in 0..count {
                    add(mean * rng.exp1());
                }
            }
            IterateTimeModel::Gamma { shape, scale } => {
                for _ in 0..count {
                    add(scale * rng.gamma(shape));
                }
            }
            IterateTimeModel::Bimodal { p, a, b } => {
                for _ in 0..count {
                    add(if rng.open01() < p { a } else { b });
                }
            }
            IterateTimeModel::Linear { first: a, last: b } => {
                let span = if self.n > 1 {
                    (b - a) / (self.n - 1) as f64
                } else {
                    0.0
                };
                for i in first..first + count {
                    add(a + span * i as f64);
                }
            }
            IterateTimeModel::Recorded { ref times, .. } => {
                for i in first..first + count {
                    // Past the end (only if check_len was skipped) the list repeats.
                    add(times[(i % times.len() as u64) as usize]);
                }
            }
        }
    }
}

impl FromStr for IterateTimeModel {
    type Err = SimError;

    fn from_str(text: &str) -> Result<Self, SimError> {
        let text = text.trim();
        let (name, rest) = text.split_once(':').unwrap_or((text, ""));
        let name = name.trim().to_ascii_lowercase();
        if name == "file" {
            if rest.trim().is_empty() {
                return Err(SimError::new(
                    "--iterate-time: `file:` needs a path (file:PATH, one time per line)",
                ));
            }
            return IterateTimeModel::from_file(rest.trim());
        }
        let args: Vec<&str> = if rest.is_empty() {
            Vec::new()
        } else {
            rest.split(':').collect()
        };
        let usage = |form: &str| {
            SimError::new(format!(
                "--iterate-time: `{text}` does not match {form}; models: {}",
                IterateTimeModel::SYNTAX
            ))
        };
        let arity = |k: usize, form: &str| {
            if args.len() == k {
                Ok(())
            } else {
                Err(usage(form))
            }
        };
        let dur = |i: usize, label: &str| -> Result<f64, SimError> {
            parse_duration(args[i], &format!("--iterate-time {name} {label}"))
        };
        let positive = |v: f64, label: &str| -> Result<f64, SimError> {
            if v > 0.0 {
                Ok(v)
            } else {
                Err(SimError::new(format!(
                    "--iterate-time {name}: {label} must be > 0, got `{text}`"
                )))
            }
        };
        let number = |i: usize, label: &str| -> Result<f64, SimError> {
            args[i]
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    SimError::new(format!(
                        "--iterate-time {name}: {label} must be a number, got `{}`",
                        args[i]
                    ))
                })
        };
        match name.as_str() {
            "const" | "constant" => {
                arity(1, "const:T")?;
                Ok(IterateTimeModel::Constant(dur(0, "T")?))
            }
            "uniform" => {
                arity(2, "uniform:LOW:HIGH")?;
                let (low, high) = (dur(0, "LOW")?, dur(1, "HIGH")?);
                if high < low {
                    return Err(SimError::new(format!(
                        "--iterate-time uniform: HIGH must be >= LOW, got `{text}`"
                    )));
                }
                Ok(IterateTimeModel::Uniform { low, high })
            }
            "normal" => {
                arity(2, "normal:MEAN:SD")?;
                let mean = positive(dur(0, "MEAN")?, "MEAN")?;
                Ok(IterateTimeModel::Normal {
                    mean,
                    sd: dur(1, "SD")?,
                })
            }
            "exp" | "exponential" => {
                arity(1, "exp:MEAN")?;
                Ok(IterateTimeModel::Exponential {
                    mean: positive(dur(0, "MEAN")?, "MEAN")?,
                })
            }
            "gamma" => {
                arity(2, "gamma:K:THETA")?;
                let shape = positive(number(0, "K (shape)")?, "K (shape)")?;
                let scale = positive(dur(1, "THETA")?, "THETA (scale)")?;
                Ok(IterateTimeModel::Gamma { shape, scale })
            }
            "bimodal" => {
                arity(3, "bimodal:P:A:B")?;
                let p = number(0, "P (probability of A)")?;
                if !(0.0..=1.0).contains(&p) {
                    return Err(SimError::new(format!(
                        "--iterate-time bimodal: P must be between 0 and 1, got `{text}`"
                    )));
                }
                Ok(IterateTimeModel::Bimodal {
                    p,
                    a: dur(1, "A")?,
                    b: dur(2, "B")?,
                })
            }
            "linear" => {
                arity(2, "linear:FIRST:LAST")?;
                Ok(IterateTimeModel::Linear {
                    first: dur(0, "FIRST")?,
                    last: dur(1, "LAST")?,
                })
            }
            _ => Err(SimError::new(format!(
                "--iterate-time: unknown model `{name}`; models: {}",
                IterateTimeModel::SYNTAX
            ))),
        }
    }
}

impl fmt::Display for IterateTimeModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = format_duration;
        match self {
            IterateTimeModel::Constant(t) => write!(f, "const:{}", d(*t)),
            IterateTimeModel::Uniform { low, high } => {
                write!(f, "uniform:{}:{}", d(*low), d(*high))
            }
            IterateTimeModel::Normal { mean, sd } => write!(f, "normal:{}:{}", d(*mean), d(*sd)),
            IterateTimeModel::Exponential { mean } => write!(f, "exp:{}", d(*mean)),
            IterateTimeModel::Gamma { shape, scale } => write!(f, "gamma:{shape}:{}", d(*scale)),
            IterateTimeModel::Bimodal { p, a, b } => write!(f, "bimodal:{p}:{}:{}", d(*a), d(*b)),
            IterateTimeModel::Linear { first, last } => {
                write!(f, "linear:{}:{}", d(*first), d(*last))
            }
            IterateTimeModel::Recorded { source, .. } => write!(f, "file:{source}"),
        }
    }
}

/// Complementary error function, relative error below 1.2e-7 everywhere (Chebyshev fit of
/// Press et al., Numerical Recipes, §6.2).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: u64 = 200_000;

    /// Sample mean and standard deviation of the first `n` iterates.
    fn sample_moments(model: &str, n: u64, seed: u64) -> (f64, f64) {
        let m: IterateTimeModel = model.parse().unwrap();
        let mut s = m.sampler(n, seed);
        let xs: Vec<f64> = (0..n).map(|_| s.next_time()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        (mean, var.sqrt())
    }

    fn assert_close(got: f64, want: f64, rel: f64, what: &str) {
        assert!(
            (got - want).abs() <= rel * want.abs().max(1e-12),
            "{what}: got {got}, want {want}"
        );
    }

    #[test]
    fn constant_is_exact() {
        let m: IterateTimeModel = "const:10us".parse().unwrap();
        let mut s = m.sampler(1000, 1);
        assert!((0..10).all(|_| s.next_time() == 1e-5));
        assert_eq!(s.take(990), (990.0 * 1e-5, 1e-5));
        assert_eq!(m.moments(1000), Some((1e-5, 0.0)));
    }

    #[test]
    fn uniform_moments() {
        let (m, s) = sample_moments("uniform:1ms:3ms", N, 1);
        assert_close(m, 2e-3, 0.01, "mean");
        assert_close(s, 2e-3 / 12f64.sqrt(), 0.02, "sd");
    }

    /// Issue 43 R4-8: the drawn mean of a truncated normal is what the sampler draws, and a
    /// move of more than 1% is warned of.
    #[test]
    fn the_truncated_mean_is_computed_and_warned_of() {
        for (text, seed) in [("normal:1ms:100ms", 11), ("normal:1ms:2ms", 12)] {
            let model: IterateTimeModel = text.parse().unwrap();
            let (m, _) = sample_moments(text, N, seed);
            assert_close(m, model.drawn_mean(N).unwrap(), 0.03, text);
            assert!(model.truncation_warning().is_some(), "{text}");
        }
        let mild: IterateTimeModel = "normal:1ms:0.4ms".parse().unwrap();
        assert!(mild.truncation_warning().is_none());
        assert!(IterateTimeModel::Constant(1e-3)
            .truncation_warning()
            .is_none());
    }

    #[test]
    fn normal_moments_and_truncation() {
        let (m, s) = sample_moments("normal:1ms:0.2ms", N, 2);
        assert_close(m, 1e-3, 0.01, "mean");
        assert_close(s, 2e-4, 0.02, "sd");
        // Heavy truncation: no negative times, mean pushed above the nominal mean.
        let model: IterateTimeModel = "normal:1ms:2ms".parse().unwrap();
        let mut smp = model.sampler(N, 3);
        let xs: Vec<f64> = (0..10_000).map(|_| smp.next_time()).collect();
        assert!(xs.iter().all(|x| *x >= 0.0));
        assert!(xs.iter().sum::<f64>() / 10_000.0 > 1.5e-3);
    }

    #[test]
    fn exponential_moments() {
        let (m, s) = sample_moments("exp:1ms", N, 4);
        assert_close(m, 1e-3, 0.01, "mean");
        assert_close(s, 1e-3, 0.02, "sd");
    }

    #[test]
    fn gamma_moments() {
        let (m, s) = sample_moments("gamma:0.25:4ms", N, 5);
        assert_close(m, 1e-3, 0.03, "mean");
        assert_close(s, 2e-3, 0.05, "sd");
        let (m, s) = sample_moments("gamma:4:0.25ms", N, 6);
        assert_close(m, 1e-3, 0.01, "mean");
        assert_close(s, 0.5e-3, 0.02, "sd");
    }

    #[test]
    fn bimodal_moments() {
        let (m, s) = sample_moments("bimodal:0.1:10ms:1ms", N, 7);
        assert_close(m, 1.9e-3, 0.02, "mean");
        assert_close(s, 0.3 * 9e-3, 0.02, "sd");
    }

    #[test]
    fn linear_is_exact_and_decreasing_works() {
        let up: IterateTimeModel = "linear:1ms:5ms".parse().unwrap();
        let mut s = up.sampler(5, 0);
        let xs: Vec<f64> = (0..5).map(|_| s.next_time()).collect();
        assert_eq!(xs, [1e-3, 2e-3, 3e-3, 4e-3, 5e-3]);
        let down: IterateTimeModel = "linear:5s:1s".parse().unwrap();
        assert_eq!(down.sampler(5, 0).take(5), (15.0, 5.0));
        let (m, sd) = sample_moments("linear:1ms:5ms", 5, 0);
        let (em, esd) = up.moments(5).unwrap();
        assert_close(m, em, 1e-12, "mean");
        assert_close(sd, esd, 1e-9, "sd");
    }

    #[test]
    fn recorded_from_file() {
        let path = std::env::temp_dir().join(format!("dls_sim_times_{}.txt", std::process::id()));
        std::fs::write(&path, "1ms\n\n2ms # slow one\n0.5e-3\n").unwrap();
        let spec = format!("file:{}", path.display());
        let m: IterateTimeModel = spec.parse().unwrap();
        assert_eq!(m.sampler(3, 0).take(3), (3.5e-3, 2e-3));
        assert_eq!(m.to_string(), spec);
        assert!(m.check_len(4).is_err());
        std::fs::write(&path, "1ms\nfast\n").unwrap();
        let e = spec.parse::<IterateTimeModel>().unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
        std::fs::remove_file(&path).unwrap();
        let e = "file:/nonexistent/dls"
            .parse::<IterateTimeModel>()
            .unwrap_err();
        assert!(e.to_string().contains("cannot read"));
    }

    #[test]
    fn deterministic_per_seed() {
        assert_eq!(
            sample_moments("exp:1ms", 1000, 9),
            sample_moments("exp:1ms", 1000, 9)
        );
        assert_ne!(
            sample_moments("exp:1ms", 1000, 9),
            sample_moments("exp:1ms", 1000, 10)
        );
    }

    #[test]
    fn take_in_chunks_equals_one_by_one() {
        let m: IterateTimeModel = "gamma:2:1ms".parse().unwrap();
        let mut a = m.sampler(100, 3);
        let mut b = m.sampler(100, 3);
        let (sum, max) = a.take(100);
        let xs: Vec<f64> = (0..100).map(|_| b.next_time()).collect();
        assert!((sum - xs.iter().sum::<f64>()).abs() < 1e-12);
        assert_eq!(max, xs.iter().cloned().fold(0.0, f64::max));
    }

    #[test]
    fn display_round_trips() {
        for text in [
            "const:10us",
            "uniform:1ms:3ms",
            "normal:1ms:200us",
            "exp:1ms",
            "gamma:0.5:2ms",
            "bimodal:0.25:10ms:1ms",
            "linear:5ms:1ms",
        ] {
            let m: IterateTimeModel = text.parse().unwrap();
            assert_eq!(m.to_string(), text);
            assert_eq!(m.to_string().parse::<IterateTimeModel>().unwrap(), m);
        }
    }

    #[test]
    fn bad_specs_name_the_option_and_the_models() {
        for bad in [
            "expo:1ms",
            "exp",
            "exp:1ms:2ms",
            "exp:0",
            "uniform:3ms:1ms",
            "normal:-1ms:1ms",
            "gamma:x:1ms",
            "gamma:0:1ms",
            "bimodal:1.5:1ms:2ms",
            "const:-3us",
            "file:",
        ] {
            let e = bad.parse::<IterateTimeModel>().unwrap_err().to_string();
            assert!(e.starts_with("--iterate-time"), "{bad}: {e}");
        }
        let e = "expo:1ms"
            .parse::<IterateTimeModel>()
            .unwrap_err()
            .to_string();
        assert!(e.contains("gamma:K:THETA") && e.contains("exp:MEAN"), "{e}");
    }
}
