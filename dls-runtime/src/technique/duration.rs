//! Durations in technique specifications: `200us`, `1.5ms`, `0.002` (bare number = seconds).
//!
//! Units: `ns`, `us` (or `µs`), `ms`, `s`. A value is stored in seconds as `number / scale`
//! (a division by an exact power of ten, so `200us` and `0.0002` give the same `f64`), and
//! formatted back in whichever unit gives the shortest text that parses to the same bits.

/// Units recognised after a number, longest suffixes first, with their count per second.
const UNITS: [(&str, f64); 5] = [
    ("ns", 1e9),
    ("us", 1e6),
    ("µs", 1e6),
    ("ms", 1e3),
    ("s", 1.0),
];

/// Parses a duration in seconds; `None` when the text is not a number with an optional unit.
/// The value is not range-checked (NaN, negative and infinite values parse; validation rejects
/// them with the parameter's name).
///
/// ```
/// use dls_runtime::technique::parse_duration;
/// assert_eq!(parse_duration("200us"), Some(0.0002));
/// assert_eq!(parse_duration("1.5MS"), Some(0.0015));
/// assert_eq!(parse_duration("2"), Some(2.0));
/// assert_eq!(parse_duration("fast"), None);
/// ```
pub fn parse_duration(text: &str) -> Option<f64> {
    let lower = text.trim().to_lowercase();
    for (unit, scale) in UNITS {
        if let Some(number) = lower.strip_suffix(unit) {
            return number.trim().parse::<f64>().ok().map(|x| x / scale);
        }
    }
    lower.parse::<f64>().ok()
}

/// Formats seconds as the shortest duration text that [`parse_duration`] reads back exactly.
///
/// ```
/// use dls_runtime::technique::{format_duration, parse_duration};
/// assert_eq!(format_duration(0.0002), "200us");
/// assert_eq!(format_duration(1.5), "1.5s");
/// let x = 1.0 / 3.0;
/// assert_eq!(parse_duration(&format_duration(x)), Some(x));
/// ```
pub fn format_duration(seconds: f64) -> String {
    let mut best = format!("{seconds}s");
    for (unit, scale) in UNITS {
        if unit == "µs" {
            continue;
        }
        let x = seconds * scale;
        let mut candidates = vec![format!("{x}{unit}")];
        if (x - x.round()).abs() <= 1e-9 * x.abs() {
            candidates.push(format!("{}{unit}", x.round()));
        }
        for c in candidates {
            let exact = parse_duration(&c).is_some_and(|v| v.to_bits() == seconds.to_bits());
            let score = |t: &str| (t.len(), t.contains(['.', 'e']));
            if exact && score(&c) <= score(&best) {
                best = c;
            }
        }
    }
    best
}
