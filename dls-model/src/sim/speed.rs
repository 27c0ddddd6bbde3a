//! Rank speeds: per-rank time factors (heterogeneity) and slowdowns during the loop.
//!
//! A rank's *time factor* multiplies the time of every iterate it executes: factor 3 means the rank
//! is three times slower than a rank of factor 1. A [`Slowdown`] multiplies a rank's factor from
//! some point of the loop on.

use std::fmt;
use std::str::FromStr;

use super::duration::{format_duration, parse_duration};
use super::error::SimError;

/// When a [`Slowdown`] starts.
///
/// ```
/// use dls_model::sim::{Slowdown, SlowdownStart};
/// assert_eq!("0@0.25x2".parse::<Slowdown>().unwrap().start, SlowdownStart::LoopFraction(0.25));
/// assert_eq!("0@3sx2".parse::<Slowdown>().unwrap().start, SlowdownStart::Time(3.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SlowdownStart {
    /// Once this fraction (0 to 1) of the loop's iterates has been handed out: chunks the rank
    /// receives from then on (chunks starting at iterate `fraction × N` or later) run at the new
    /// speed.
    LoopFraction(f64),
    /// At this simulated time, seconds from the loop start; exact: a chunk running at that moment
    /// finishes its remaining work at the new speed.
    Time(f64),
}

/// Rank `rank` becomes `factor` times slower (its time factor is multiplied by `factor`) from
/// `start` on. Text form `RANK@WHENxFACTOR`: WHEN is a plain number between 0 and 1 (a fraction
/// of the loop's iterates handed out) or a duration (a simulated time).
///
/// ```
/// use dls_model::sim::{Slowdown, SlowdownStart};
/// let s: Slowdown = "2@0.5x4".parse().unwrap();
/// assert_eq!(s, Slowdown { rank: 2, start: SlowdownStart::LoopFraction(0.5), factor: 4.0 });
/// let t: Slowdown = "1@20msx3".parse().unwrap();
/// assert_eq!(t.start, SlowdownStart::Time(0.02));
/// assert_eq!(t.to_string(), "1@20msx3");
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slowdown {
    /// The rank that slows down.
    pub rank: usize,
    /// When it slows down.
    pub start: SlowdownStart,
    /// By how much its time factor is multiplied (below 1 is a speed-up).
    pub factor: f64,
}

impl Slowdown {
    /// The syntax, for error and help messages.
    ///
    /// ```
    /// assert!(dls_model::sim::Slowdown::SYNTAX.starts_with("RANK@WHENxFACTOR"));
    /// ```
    pub const SYNTAX: &'static str = "RANK@WHENxFACTOR, WHEN a fraction of the loop (0.5) or a \
        simulated time (20ms); e.g. 2@0.5x4: rank 2 becomes 4x slower at half the loop";
}

impl FromStr for Slowdown {
    type Err = SimError;

    fn from_str(text: &str) -> Result<Self, SimError> {
        let bad = |why: &str| {
            SimError::new(format!(
                "--slowdown: `{text}` {why}; syntax {}",
                Slowdown::SYNTAX
            ))
        };
        let (rank, rest) = text
            .trim()
            .split_once('@')
            .ok_or_else(|| bad("has no `@`"))?;
        let (when, factor) = rest
            .rsplit_once(['x', 'X'])
            .ok_or_else(|| bad("has no `x`"))?;
        let rank: usize = rank
            .trim()
            .parse()
            .map_err(|_| bad("has no rank number before `@`"))?;
        let factor: f64 = factor
            .trim()
            .parse()
            .ok()
            .filter(|f: &f64| f.is_finite() && *f > 0.0)
            .ok_or_else(|| bad("needs a factor > 0 after `x`"))?;
        let when = when.trim();
        let start = match when.parse::<f64>() {
            Ok(f) if (0.0..=1.0).contains(&f) => SlowdownStart::LoopFraction(f),
            Ok(_) => {
                return Err(bad(
                    "has a fraction outside 0..1 (give a time a unit, e.g. 2s)",
                ))
            }
            Err(_) => SlowdownStart::Time(
                parse_duration(when, "--slowdown").map_err(|_| bad("has a bad WHEN"))?,
            ),
        };
        Ok(Slowdown {
            rank,
            start,
            factor,
        })
    }
}

impl fmt::Display for Slowdown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.start {
            SlowdownStart::LoopFraction(x) => write!(f, "{}@{x}x{}", self.rank, self.factor),
            SlowdownStart::Time(t) => {
                write!(f, "{}@{}x{}", self.rank, format_duration(t), self.factor)
            }
        }
    }
}

/// Parses per-rank time factors from a comma-separated list (`"1,1,1,3"`: rank 3 is three times
/// slower). Every factor must be finite and > 0.
///
/// ```
/// assert_eq!(dls_model::sim::parse_speeds("1, 1,3").unwrap(), vec![1.0, 1.0, 3.0]);
/// assert!(dls_model::sim::parse_speeds("1,0").unwrap_err().to_string().contains("--speeds"));
/// ```
pub fn parse_speeds(text: &str) -> Result<Vec<f64>, SimError> {
    text.split(',')
        .map(|s| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite() && *f > 0.0)
                .ok_or_else(|| {
                    SimError::new(format!(
                        "--speeds: `{}` is not a time factor; give one number > 0 per rank, \
                         comma-separated (e.g. 1,1,1,3: rank 3 is 3x slower)",
                        s.trim()
                    ))
                })
        })
        .collect()
}

/// The speed of every rank over one loop: base time factors plus slowdowns, resolved per rank.
///
/// ```
/// use dls_model::sim::RankSpeeds;
/// let s = RankSpeeds::new(&[1.0, 2.0], &["1@1sx3".parse().unwrap()], 2, 100).unwrap();
/// // Rank 1 starts 1 s of base work at t = 0.5 s: 0.25 s of it done by t = 1 s, the rest 6x slower.
/// assert_eq!(s.duration(1, 0.5, 1.0, 0), 0.5 + 0.75 * 6.0);
/// assert_eq!(s.duration(0, 0.5, 1.0, 0), 1.0);
/// ```
#[derive(Debug, Clone)]
pub struct RankSpeeds {
    base: Vec<f64>,
    /// Per rank: (first iterate, multiplier) of loop-fraction slowdowns.
    by_iterate: Vec<Vec<(u64, f64)>>,
    /// Per rank: (time, multiplier) of timed slowdowns, sorted by time.
    by_time: Vec<Vec<(f64, f64)>>,
}

impl RankSpeeds {
    /// Speeds of `p` ranks running a loop of `n` iterates. `factors` is empty (all 1) or holds one
    /// time factor per rank. Slowdowns must name ranks below `p`; a loop fraction f starts at
    /// iterate `ceil(f·n)`.
    ///
    /// ```
    /// use dls_model::sim::RankSpeeds;
    /// assert!(RankSpeeds::new(&[1.0, 3.0], &[], 2, 10).is_ok());
    /// let e = RankSpeeds::new(&[1.0, 3.0], &[], 4, 10).unwrap_err();
    /// assert!(e.to_string().contains("--speeds"));
    /// ```
    pub fn new(
        factors: &[f64],
        slowdowns: &[Slowdown],
        p: usize,
        n: u64,
    ) -> Result<Self, SimError> {
        if !factors.is_empty() && factors.len() != p {
            return Err(SimError::new(format!(
                "--speeds: {} factors given but p = {p}; give one time factor per rank (or none)",
                factors.len()
            )));
        }
        if let Some(f) = factors.iter().find(|f| !(f.is_finite() && **f > 0.0)) {
            return Err(SimError::new(format!(
                "--speeds: time factor {f} is not allowed; every factor must be finite and > 0"
            )));
        }
        let mut s = RankSpeeds {
            base: if factors.is_empty() {
                vec![1.0; p]
            } else {
                factors.to_vec()
            },
            by_iterate: vec![Vec::new(); p],
            by_time: vec![Vec::new(); p],
        };
        for sd in slowdowns {
            if sd.rank >= p {
                return Err(SimError::new(format!(
                    "--slowdown: `{sd}` names rank {} but ranks are 0..{} (p = {p})",
                    sd.rank,
                    p.saturating_sub(1)
                )));
            }
            if !(sd.factor.is_finite() && sd.factor > 0.0) {
                return Err(SimError::new(format!(
                    "--slowdown: `{sd}` needs a finite factor > 0"
                )));
            }
            match sd.start {
                SlowdownStart::LoopFraction(f) => {
                    if !(0.0..=1.0).contains(&f) {
                        return Err(SimError::new(format!(
                            "--slowdown: `{sd}` has a loop fraction outside 0..1"
                        )));
                    }
                    let first = (f * n as f64).ceil() as u64;
                    s.by_iterate[sd.rank].push((first, sd.factor));
                }
                SlowdownStart::Time(t) => {
                    if !(t.is_finite() && t >= 0.0) {
                        return Err(SimError::new(format!(
                            "--slowdown: `{sd}` needs a finite time >= 0"
                        )));
                    }
                    s.by_time[sd.rank].push((t, sd.factor));
                }
            }
        }
        for v in &mut s.by_time {
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        Ok(s)
    }

    /// Number of ranks.
    ///
    /// ```
    /// assert_eq!(dls_model::sim::RankSpeeds::new(&[], &[], 3, 0).unwrap().len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        self.base.len()
    }

    /// True when there are no ranks.
    ///
    /// ```
    /// assert!(!dls_model::sim::RankSpeeds::new(&[], &[], 1, 0).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.base.is_empty()
    }

    /// The time factor of `rank` for a chunk starting at iterate `chunk_start`, before timed
    /// slowdowns.
    ///
    /// ```
    /// use dls_model::sim::RankSpeeds;
    /// let s = RankSpeeds::new(&[2.0], &["0@0.5x3".parse().unwrap()], 1, 10).unwrap();
    /// assert_eq!(s.factor_for_chunk(0, 4), 2.0);
    /// assert_eq!(s.factor_for_chunk(0, 5), 6.0);
    /// ```
    pub fn factor_for_chunk(&self, rank: usize, chunk_start: u64) -> f64 {
        let mut f = self.base[rank];
        for &(first, m) in &self.by_iterate[rank] {
            if chunk_start >= first {
                f *= m;
            }
        }
        f
    }

    /// Seconds `rank` needs for `work` seconds of base work (iterate times at factor 1) that it
    /// starts at time `start`, on a chunk starting at iterate `chunk_start`. Timed slowdowns are
    /// applied exactly: the work left at the moment of a slowdown runs at the new speed.
    ///
    /// ```
    /// use dls_model::sim::RankSpeeds;
    /// let s = RankSpeeds::new(&[], &["0@2sx2".parse().unwrap()], 1, 10).unwrap();
    /// assert_eq!(s.duration(0, 0.0, 1.0, 0), 1.0); // done before 2 s
    /// assert_eq!(s.duration(0, 1.0, 2.0, 0), 1.0 + 1.0 * 2.0); // half before, half after
    /// assert_eq!(s.duration(0, 3.0, 1.0, 0), 2.0); // all after
    /// ```
    pub fn duration(&self, rank: usize, start: f64, work: f64, chunk_start: u64) -> f64 {
        let mut f = self.factor_for_chunk(rank, chunk_start);
        let timed = &self.by_time[rank];
        if timed.is_empty() {
            return work * f;
        }
        let mut t = start;
        let mut left = work;
        for &(at, m) in timed {
            if at > t {
                let can = (at - t) / f;
                if left <= can {
                    return t + left * f - start;
                }
                left -= can;
                t = at;
            }
            f *= m;
        }
        t + left * f - start
    }

    /// The smallest time factor `rank` can ever have (its fastest moment), for lower bounds.
    ///
    /// ```
    /// use dls_model::sim::RankSpeeds;
    /// let s = RankSpeeds::new(&[3.0], &["0@0.5x0.5".parse().unwrap()], 1, 10).unwrap();
    /// assert_eq!(s.min_factor(0), 1.5);
    /// ```
    pub fn min_factor(&self, rank: usize) -> f64 {
        let speedups = self.by_iterate[rank]
            .iter()
            .map(|e| e.1)
            .chain(self.by_time[rank].iter().map(|e| e.1))
            .filter(|m| *m < 1.0)
            .product::<f64>();
        self.base[rank] * speedups
    }

    /// max(total base work / total speed, longest iterate at the fastest speed), where a rank's
    /// speed is 1 / its smallest time factor over the loop: the makespan's lower bound.
    pub(crate) fn lower_bound(&self, base_work: f64, longest: f64) -> f64 {
        let total_speed: f64 = (0..self.len()).map(|r| 1.0 / self.min_factor(r)).sum();
        let fastest = (0..self.len())
            .map(|r| self.min_factor(r))
            .fold(f64::INFINITY, f64::min);
        if total_speed <= 0.0 || !fastest.is_finite() {
            return 0.0;
        }
        (base_work / total_speed).max(longest * fastest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slowdown_syntax_errors_name_the_option() {
        for bad in [
            "2x4", "2@0.5", "a@0.5x4", "2@0.5x0", "2@1.5x4", "2@fastx4", "2@0.5x-1",
        ] {
            let e = bad.parse::<Slowdown>().unwrap_err().to_string();
            assert!(
                e.starts_with("--slowdown") && e.contains("RANK@WHENxFACTOR"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn slowdown_rank_must_exist() {
        let e = RankSpeeds::new(&[], &["4@0.5x2".parse().unwrap()], 4, 10).unwrap_err();
        assert!(e.to_string().contains("ranks are 0..3"), "{e}");
    }

    #[test]
    fn several_timed_slowdowns_compose() {
        let sds: Vec<Slowdown> = ["0@1sx2", "0@2sx2"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let s = RankSpeeds::new(&[], &sds, 1, 1).unwrap();
        // 1 s at factor 1, then 0.5 units in [1,2] at factor 2, then 0.5 units at factor 4.
        assert_eq!(s.duration(0, 0.0, 2.0, 0), 1.0 + 1.0 + 2.0);
        assert_eq!(s.min_factor(0), 1.0);
    }

    #[test]
    fn speeds_list_rejects_bad_entries() {
        for bad in ["1,,2", "1,x", "1,-2", "nan", "1,inf"] {
            assert!(parse_speeds(bad).is_err(), "{bad}");
        }
    }
}
