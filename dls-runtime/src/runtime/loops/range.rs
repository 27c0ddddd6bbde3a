//! Loop ranges: which index types and bounds a loop accepts.
//!
//! A loop runs over a [`LoopRange`]: `a..b` or `a..=b` of any primitive integer type, empty ranges
//! and bounds at the limits of the type included (`i8::MIN..=i8::MAX`, `0..=u64::MAX - 1`). The
//! scheduler counts iterates from 0 as `u64` offsets; a range whose length does not fit in a `u64`
//! (for instance `0..=u64::MAX`, or a long `i128` range) is refused with
//! [`DlsError::RangeTooLong`].

use std::fmt;
use std::ops::{Range, RangeInclusive};

use crate::runtime::error::DlsError;

/// A primitive integer type usable as a loop index.
///
/// `I::offset_from(first, k)` is the `k`-th index of a loop starting at `first`; the scheduler only
/// ever asks for offsets inside the loop, so the result is always representable.
///
/// ```
/// use dls_runtime::LoopIndex;
/// assert_eq!(i8::offset_from(-128, 255), 127);
/// assert_eq!(u64::offset_from(10, 5), 15);
/// ```
pub trait LoopIndex: Copy + Send + Sync + PartialOrd + fmt::Debug + fmt::Display + 'static {
    /// The index `offset` steps after `first` (wrapping arithmetic, exact inside the loop).
    fn offset_from(first: Self, offset: u64) -> Self;
    /// Number of indices in `lo..=hi` minus one, i.e. `hi - lo` as an unsigned number
    /// (`hi >= lo` is required).
    fn span(lo: Self, hi: Self) -> u128;
    /// The bits of the value, for storing it without its type (panic messages).
    fn to_bits(self) -> u128;
    /// Inverse of [`LoopIndex::to_bits`].
    fn from_bits(bits: u128) -> Self;
}

/// Formats index `first + offset` of a loop whose first index has bits `first_bits` (the panic
/// context stores a loop's first index without its type).
pub(crate) fn format_index<I: LoopIndex>(first_bits: u128, offset: u64) -> String {
    I::offset_from(I::from_bits(first_bits), offset).to_string()
}

macro_rules! impl_loop_index {
    ($($t:ty => $u:ty),* $(,)?) => {$(
        impl LoopIndex for $t {
            #[inline]
            fn offset_from(first: Self, offset: u64) -> Self {
                first.wrapping_add(offset as Self)
            }
            #[inline]
            fn span(lo: Self, hi: Self) -> u128 {
                hi.wrapping_sub(lo) as $u as u128
            }
            #[inline]
            fn to_bits(self) -> u128 {
                self as $u as u128
            }
            #[inline]
            fn from_bits(bits: u128) -> Self {
                bits as $u as Self
            }
        }
    )*};
}

impl_loop_index!(
    u8 => u8, u16 => u16, u32 => u32, u64 => u64, u128 => u128, usize => usize,
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128, isize => usize,
);

/// A loop's iteration space: its first index and its number of iterates.
///
/// Implemented for `Range<I>` and `RangeInclusive<I>` of every primitive integer type `I`.
///
/// ```
/// use dls_runtime::LoopRange;
/// assert_eq!((3..7).first_and_len().unwrap(), (3, 4));
/// assert_eq!((5u8..2).first_and_len().unwrap().1, 0);
/// assert_eq!((i8::MIN..=i8::MAX).first_and_len().unwrap(), (-128, 256));
/// assert!((0..=u64::MAX).first_and_len().is_err());
/// ```
pub trait LoopRange {
    /// The index type.
    type Index: LoopIndex;
    /// The first index and the number of iterates (the first index is meaningless when the
    /// length is 0). Errs when the length does not fit in a `u64`.
    fn first_and_len(&self) -> Result<(Self::Index, u64), DlsError>;
}

fn fit(len: Option<u128>) -> Result<u64, DlsError> {
    match len {
        Some(l) if l <= u64::MAX as u128 => Ok(l as u64),
        Some(l) => Err(DlsError::RangeTooLong { len: Some(l) }),
        None => Err(DlsError::RangeTooLong { len: None }),
    }
}

impl<I: LoopIndex> LoopRange for Range<I> {
    type Index = I;
    fn first_and_len(&self) -> Result<(I, u64), DlsError> {
        if self.end <= self.start {
            return Ok((self.start, 0));
        }
        Ok((self.start, fit(Some(I::span(self.start, self.end)))?))
    }
}

impl<I: LoopIndex> LoopRange for RangeInclusive<I> {
    type Index = I;
    fn first_and_len(&self) -> Result<(I, u64), DlsError> {
        let (lo, hi) = (*self.start(), *self.end());
        // `is_empty` also covers an exhausted `RangeInclusive`.
        if self.is_empty() {
            return Ok((lo, 0));
        }
        Ok((lo, fit(I::span(lo, hi).checked_add(1))?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all<R: LoopRange>(r: R) -> Vec<R::Index> {
        let (first, n) = r.first_and_len().unwrap();
        (0..n).map(|k| R::Index::offset_from(first, k)).collect()
    }

    #[test]
    fn every_type_and_limit() {
        assert_eq!(
            all(i8::MIN..=i8::MAX),
            (i8::MIN..=i8::MAX).collect::<Vec<_>>()
        );
        assert_eq!(
            all(u8::MIN..=u8::MAX),
            (u8::MIN..=u8::MAX).collect::<Vec<_>>()
        );
        assert_eq!(all(i16::MAX - 3..i16::MAX), vec![32764, 32765, 32766]);
        assert_eq!(
            all(u128::MAX - 2..=u128::MAX),
            vec![u128::MAX - 2, u128::MAX - 1, u128::MAX]
        );
        assert_eq!(
            all(i128::MIN..i128::MIN + 2),
            vec![i128::MIN, i128::MIN + 1]
        );
        assert_eq!(all(isize::MIN..=isize::MIN), vec![isize::MIN]);
        assert_eq!(all(usize::MAX..usize::MAX), Vec::<usize>::new());
        // Reversed ranges are empty, as in a serial `for` loop (built from variables, as a user's
        // loop bounds would be).
        let (hi, lo) = (-3i32, -5i32);
        assert_eq!(all(hi..=lo), Vec::<i32>::new());
        let (hi, lo) = (10u16, 3u16);
        assert_eq!(all(hi..lo), Vec::<u16>::new());
        assert_eq!(all(0u32..0), Vec::<u32>::new());
        assert_eq!(all(i64::MIN..=i64::MIN + 1), vec![i64::MIN, i64::MIN + 1]);
    }

    #[test]
    fn exhausted_inclusive_range_is_empty() {
        let mut r = 1u8..=1;
        r.next();
        assert_eq!(r.first_and_len().unwrap().1, 0);
    }

    #[test]
    fn full_64_bit_ranges() {
        assert_eq!((0..u64::MAX).first_and_len().unwrap().1, u64::MAX);
        assert_eq!(
            (i64::MIN..=i64::MAX - 1).first_and_len().unwrap().1,
            u64::MAX
        );
        assert!((i64::MIN..=i64::MAX).first_and_len().is_err());
        assert!((0..=u64::MAX).first_and_len().is_err());
        assert!((0u128..=u128::MAX).first_and_len().is_err());
        assert_eq!(u64::offset_from(1, u64::MAX - 1), u64::MAX);
    }

    #[test]
    fn bits_round_trip() {
        for v in [i128::MIN, -1, 0, 7, i128::MAX] {
            assert_eq!(i128::from_bits(v.to_bits()), v);
        }
        for v in [i8::MIN, -1, 0, i8::MAX] {
            assert_eq!(i8::from_bits(v.to_bits()), v);
        }
    }
}
