//! Durations as text, the one parser and formatter of dls: `200us`, `1.5ms`, `0.002` (bare
//! number = seconds). Technique specifications write them exactly ([`format_duration`]);
//! reports and notes write them readably ([`format_duration_short`]). The simulator's
//! `sim::parse_duration` wraps [`parse_duration`] with its range check and error message.
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
/// use dls_technique::parse_duration;
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
/// use dls_technique::{format_duration, parse_duration};
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

/// Formats seconds with a readable unit (`"1.5ms"`, `"20us"`), six decimals at most, trailing
/// zeros dropped: for reports and notes, where [`format_duration`]'s exact digits
/// (`"333.3333333333333us"`) would be noise. Round-trips through [`parse_duration`] up to six
/// significant digits.
///
/// ```
/// use dls_technique::format_duration_short;
/// assert_eq!(format_duration_short(0.0015), "1.5ms");
/// assert_eq!(format_duration_short(2.0), "2s");
/// assert_eq!(format_duration_short(0.0), "0s");
/// assert_eq!(format_duration_short(1e300), "1e300s");
/// ```
pub fn format_duration_short(seconds: f64) -> String {
    if seconds.abs() >= 1e6 {
        return format!("{seconds:e}s");
    }
    let (v, unit) = if seconds == 0.0 || seconds.abs() >= 1.0 {
        (seconds, "s")
    } else if seconds.abs() >= 1e-3 {
        (seconds * 1e3, "ms")
    } else if seconds.abs() >= 1e-6 {
        (seconds * 1e6, "us")
    } else {
        (seconds * 1e9, "ns")
    };
    let mut s = format!("{v:.6}");
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    format!("{s}{unit}")
}
