//! Durations as text: `"10us"`, `"1.5ms"`, `"2s"`, `"1e-3"` (a bare number is seconds).

use super::error::SimError;

/// Units accepted by [`parse_duration`], with the number of units in one second (dividing
/// rounds correctly: `3ns` is exactly the `f64` nearest 3e-9).
const UNITS: [(&str, f64); 6] = [
    ("ns", 1e9),
    ("us", 1e6),
    ("µs", 1e6),
    ("ms", 1e3),
    ("s", 1.0),
    ("", 1.0),
];

/// Parses a non-negative, finite duration in seconds from text such as `"10us"`, `"1.5ms"`,
/// `"2s"`, `"250ns"` or `"0.001"` (a bare number is seconds). `what` names the setting in the
/// error message.
///
/// ```
/// use dls_runtime::sim::parse_duration;
/// assert_eq!(parse_duration("5us", "--overhead").unwrap(), 5e-6);
/// assert_eq!(parse_duration("2", "--overhead").unwrap(), 2.0);
/// assert!(parse_duration("5 parsecs", "--overhead").unwrap_err().to_string().contains("--overhead"));
/// ```
pub fn parse_duration(text: &str, what: &str) -> Result<f64, SimError> {
    let t = text.trim();
    for (unit, per_second) in UNITS {
        if let Some(number) = t.strip_suffix(unit) {
            if let Ok(v) = number.trim().parse::<f64>() {
                let seconds = v / per_second;
                if !seconds.is_finite() || seconds < 0.0 {
                    break;
                }
                return Ok(seconds);
            }
        }
    }
    Err(SimError::new(format!(
        "{what}: `{text}` is not a duration; use a non-negative number with a unit ns, us, ms or s \
         (e.g. 5us, 1.5ms, 2s; a bare number is seconds)"
    )))
}

/// Formats seconds with a readable unit (`"1.5ms"`, `"20us"`), round-tripping through
/// [`parse_duration`] up to six significant digits.
///
/// ```
/// use dls_runtime::sim::format_duration;
/// assert_eq!(format_duration(0.0015), "1.5ms");
/// assert_eq!(format_duration(2.0), "2s");
/// assert_eq!(format_duration(0.0), "0s");
/// assert_eq!(format_duration(1e300), "1e300s");
/// ```
pub fn format_duration(seconds: f64) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_unit() {
        assert_eq!(parse_duration("3ns", "x").unwrap(), 3e-9);
        assert_eq!(parse_duration("3us", "x").unwrap(), 3e-6);
        assert_eq!(parse_duration("3µs", "x").unwrap(), 3e-6);
        assert_eq!(parse_duration("3ms", "x").unwrap(), 3e-3);
        assert_eq!(parse_duration("3s", "x").unwrap(), 3.0);
        assert_eq!(parse_duration(" 0.5 ", "x").unwrap(), 0.5);
    }

    #[test]
    fn rejects_negative_nan_and_garbage() {
        for bad in ["-1ms", "nan", "inf", "", "ms", "1 hour", "1m"] {
            let e = parse_duration(bad, "--latency").unwrap_err().to_string();
            assert!(e.contains("--latency") && e.contains("ms"), "{bad}: {e}");
        }
    }

    #[test]
    fn format_round_trips() {
        for v in [1e-9, 2.5e-6, 1e-3, 0.125, 3.0, 12.5, 3.5e7, 1e300] {
            let back = parse_duration(&format_duration(v), "x").unwrap();
            assert!((back - v).abs() <= 1e-9 * v, "{v} -> {back}");
        }
    }
}
