//! Plain element types: values that are their bytes, so that a run of them travels between
//! processes as one contiguous range of memory instead of element by element.
//!
//! The seam is bytemuck's [`Pod`] ("plain old data": every bit pattern is a value, no padding, no
//! pointers): numbers, `bool`-free arrays of them of any length, and a user's `#[repr(C)]` struct
//! of them that implements [`Pod`] (derived with bytemuck's `derive` feature, or
//! `unsafe impl dls::bytemuck::Pod for P {}` with [`Zeroable`](bytemuck::Zeroable)). A gathered
//! vector of such elements (`gather(v)` of `Vec<f64>`, `Vec<[f32; 3]>`, …) travels under MPI as
//! its runs of bytes (`crate::partials::Plain`); any other element type travels serialised, one
//! element at a time. The bytes are the machine's own: every rank of a job shares one byte order
//! and layout, as `MPI_BYTE` transfers assume.
//!
//! ```
//! let v = [1.5_f64, -2.0];
//! let bytes = dls_runtime::plain::as_bytes(&v);
//! assert_eq!(bytes.len(), 16);
//! assert_eq!(dls_runtime::plain::from_bytes::<f64>(bytes, 2), Some(v.to_vec()));
//! ```

pub use bytemuck::Pod;

/// The bytes of `values`, in memory order.
///
/// ```
/// assert_eq!(dls_runtime::plain::as_bytes(&[1_u16]), 1_u16.to_ne_bytes());
/// ```
pub fn as_bytes<T: Pod>(values: &[T]) -> &[u8] {
    bytemuck::cast_slice(values)
}

/// `len` values of `T` read from `bytes` (written by [`as_bytes`]; need not be aligned), or
/// `None` when `bytes` does not hold exactly `len` of them.
///
/// ```
/// assert_eq!(dls_runtime::plain::from_bytes::<u32>(&[0; 3], 1), None);
/// ```
pub fn from_bytes<T: Pod>(bytes: &[u8], len: usize) -> Option<Vec<T>> {
    if len.checked_mul(std::mem::size_of::<T>())? != bytes.len() {
        return None;
    }
    let mut values: Vec<T> = Vec::with_capacity(len);
    // SAFETY: `values` has room for `len` elements, that is `bytes.len()` bytes (checked above);
    // the two buffers do not overlap (`values` is new); every bit pattern is a `T` (`Pod`), so the
    // `len` elements are initialised once their bytes are copied.
    unsafe {
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            values.as_mut_ptr().cast::<u8>(),
            bytes.len(),
        );
        values.set_len(len);
    }
    Some(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_and_zero_sized_values_round_trip() {
        let v = vec![[1.0_f32, 2.0, 3.0], [f32::NAN, -0.0, f32::INFINITY]];
        let back: Vec<[f32; 3]> = from_bytes(as_bytes(&v), 2).unwrap();
        let bits =
            |v: &[[f32; 3]]| -> Vec<u32> { v.iter().flatten().map(|x| x.to_bits()).collect() };
        assert_eq!(bits(&back), bits(&v));
        assert_eq!(from_bytes::<()>(&[], 5), Some(vec![(); 5]));
        assert_eq!(from_bytes::<u64>(&[0; 8], usize::MAX), None);
        // Unaligned bytes are read as well.
        let mut raw = [0_u8; 9];
        raw[1..].copy_from_slice(&7_u64.to_ne_bytes());
        assert_eq!(from_bytes::<u64>(&raw[1..], 1), Some(vec![7]));
    }
}
