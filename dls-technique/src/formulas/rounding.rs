//! Conversions of real-valued chunk formulas to whole chunk sizes.
//!
//! Formulas such as `w_i · ceil(R/(2P))` with `w_i = 2/3` land on whole numbers that floating
//! point may miss by one unit in the last place (`41.99999999999999`); a plain `ceil` would then
//! be off by one. Values within a relative `1e-9` of a whole number count as that number.
//! NaN and negative values give 0 (the calculator then raises the chunk to the minimum chunk);
//! huge values saturate at `u64::MAX` (the calculator caps the chunk at R).

/// `ceil(x)`, tolerant of rounding noise.
pub(crate) fn ceil_chunk(x: f64) -> u64 {
    snap(x).unwrap_or_else(|| x.ceil()) as u64
}

/// `floor(x)`, tolerant of rounding noise.
pub(crate) fn floor_chunk(x: f64) -> u64 {
    snap(x).unwrap_or_else(|| x.floor()) as u64
}

/// The nearest whole number when `x` is within rounding noise of it.
fn snap(x: f64) -> Option<f64> {
    let r = x.round();
    ((x - r).abs() <= 1e-9 * x.abs().max(1.0)).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snaps_rounding_noise_and_saturates() {
        assert_eq!(ceil_chunk(41.99999999999999), 42);
        assert_eq!(ceil_chunk(42.000000000001), 42);
        assert_eq!(ceil_chunk(41.5), 42);
        assert_eq!(floor_chunk(83.333), 83);
        assert_eq!(floor_chunk(116.99999999999999), 117);
        assert_eq!(ceil_chunk(f64::NAN), 0);
        assert_eq!(ceil_chunk(-3.5), 0);
        assert_eq!(ceil_chunk(f64::INFINITY), u64::MAX);
    }
}
