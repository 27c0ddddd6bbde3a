//! Durations as text: `"10us"`, `"1.5ms"`, `"2s"`, `"1e-3"` (a bare number is seconds). The
//! parser and formatter are the technique crate's ([`crate::technique::parse_duration`],
//! [`crate::technique::format_duration_short`]); the simulator adds its range check and an
//! error that names the setting.

use super::error::SimError;
pub use crate::technique::format_duration_short as format_duration;

/// Parses a non-negative, finite duration in seconds from text such as `"10us"`, `"1.5ms"`,
/// `"2s"`, `"250ns"` or `"0.001"` (a bare number is seconds). `what` names the setting in the
/// error message.
///
/// ```
/// use dls_model::sim::parse_duration;
/// assert_eq!(parse_duration("5us", "--overhead").unwrap(), 5e-6);
/// assert_eq!(parse_duration("2", "--overhead").unwrap(), 2.0);
/// assert!(parse_duration("5 parsecs", "--overhead").unwrap_err().to_string().contains("--overhead"));
/// ```
pub fn parse_duration(text: &str, what: &str) -> Result<f64, SimError> {
    match crate::technique::parse_duration(text) {
        Some(seconds) if seconds.is_finite() && seconds >= 0.0 => Ok(seconds),
        _ => Err(SimError::new(format!(
            "{what}: `{text}` is not a duration; use a non-negative number with a unit ns, us, ms \
             or s (e.g. 5us, 1.5ms, 2s; a bare number is seconds)"
        ))),
    }
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
