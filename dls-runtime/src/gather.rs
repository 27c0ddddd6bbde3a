//! Gathering outputs written at the loop index: what `gather(out)` of `#[par_doall]` means, usable
//! from the explicit API too.
//!
//! Inside the loop body, `out` is shadowed by a [`GatherSlot`]: reads see the vector as it was
//! before the loop, and every write `out[k] = v` (or `out[k] += v`, `out[k][j] = v`, …) is recorded
//! as the pair `(k, new value of out[k])` in the worker's [`GatherBuf`]. The buffers of all workers
//! (threads or MPI ranks) are concatenated, every rank receives the whole log, and
//! [`GatherBuf::scatter_into`] writes it into the real vector. Afterwards every rank holds exactly
//! what the serial loop would have produced, provided that, as in any parallel loop, no element is
//! written by two iterates and no iterate reads an element another iterate writes.
//!
//! ```
//! use dls_runtime::gather::{GatherBuf, GatherSlot};
//! let mut out = vec![0_u32; 4];
//! let mut left = GatherBuf::new();
//! let mut right = GatherBuf::new();
//! for i in 0..2 {
//!     GatherSlot::new(&out, &mut left)[i] = 10 * i as u32;
//! }
//! for i in 2..4 {
//!     GatherSlot::new(&out, &mut right)[i] += 10 * i as u32;
//! }
//! GatherBuf::merge(left, right).scatter_into(&mut out);
//! assert_eq!(out, [0, 10, 20, 30]);
//! ```

use std::ops::{Deref, Index, IndexMut};

use serde::{Deserialize, Serialize};

use crate::collection::Indexable;

/// A contiguous collection that `gather(...)` can write into: `Vec<T>`, arrays, slices, boxed
/// slices, and mutable references to any of them. The read side is [`Indexable`], the trait of
/// the collections a loop can iterate over, so each type states its elements once.
///
/// ```
/// use dls_runtime::collection::Indexable;
/// use dls_runtime::gather::GatherTarget;
/// let mut a = [1, 2, 3];
/// a.elements_mut()[0] = 9;
/// assert_eq!(a.as_elements(), &[9, 2, 3]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`gather({Self})` needs a Vec, an array or a slice",
    label = "not a Vec, array or slice"
)]
pub trait GatherTarget: Indexable {
    /// The elements, writable.
    fn elements_mut(&mut self) -> &mut [Self::Item];
}

impl<T> GatherTarget for Vec<T> {
    fn elements_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T> GatherTarget for [T] {
    fn elements_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T, const N: usize> GatherTarget for [T; N] {
    fn elements_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T> GatherTarget for Box<[T]> {
    fn elements_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<C: GatherTarget + ?Sized> GatherTarget for &mut C {
    fn elements_mut(&mut self) -> &mut [C::Item] {
        (**self).elements_mut()
    }
}

/// One worker's log of writes `(index, value)`, in the order they happened. Sent between ranks, so
/// it is serialisable when `T` is.
///
/// ```
/// let mut b = dls_runtime::gather::GatherBuf::new();
/// dls_runtime::gather::GatherSlot::new(&[0_i8; 3], &mut b)[2] = 5;
/// assert_eq!(b.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GatherBuf<T> {
    writes: Vec<(u64, T)>,
}

impl<T> Default for GatherBuf<T> {
    fn default() -> Self {
        GatherBuf::new()
    }
}

impl<T> GatherBuf<T> {
    /// An empty log (the identity of [`GatherBuf::merge`]).
    ///
    /// ```
    /// assert!(dls_runtime::gather::GatherBuf::<f64>::new().is_empty());
    /// ```
    pub fn new() -> Self {
        GatherBuf { writes: Vec::new() }
    }

    /// Number of recorded writes.
    ///
    /// ```
    /// assert_eq!(dls_runtime::gather::GatherBuf::<u8>::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.writes.len()
    }

    /// True when nothing was written.
    ///
    /// ```
    /// assert!(dls_runtime::gather::GatherBuf::<u8>::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }

    /// Both logs in one (appends the shorter to the longer, so merging is linear overall).
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, GatherSlot};
    /// let (mut a, mut b) = (GatherBuf::new(), GatherBuf::new());
    /// GatherSlot::new(&[0; 2], &mut a)[0] = 1;
    /// GatherSlot::new(&[0; 2], &mut b)[1] = 2;
    /// assert_eq!(GatherBuf::merge(a, b).len(), 2);
    /// ```
    pub fn merge(mut a: Self, mut b: Self) -> Self {
        if a.writes.len() < b.writes.len() {
            std::mem::swap(&mut a, &mut b);
        }
        a.writes.append(&mut b.writes);
        a
    }

    /// Writes every recorded value into `target` at its index. Indices were bounds-checked
    /// against a vector of the same length when recorded; an index beyond `target` (only possible
    /// if the target was resized meanwhile) is skipped.
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, GatherSlot};
    /// let mut out = [0_u8; 3];
    /// let mut b = GatherBuf::new();
    /// GatherSlot::new(&out, &mut b)[1] = 7;
    /// b.scatter_into(&mut out);
    /// assert_eq!(out, [0, 7, 0]);
    /// ```
    pub fn scatter_into<G: GatherTarget<Item = T> + ?Sized>(self, target: &mut G) {
        let elements = target.elements_mut();
        for (index, value) in self.writes {
            if let Some(slot) = usize::try_from(index)
                .ok()
                .and_then(|k| elements.get_mut(k))
            {
                *slot = value;
            }
        }
    }
}

/// What the name of a gathered vector means inside the loop body: indexing reads the original
/// vector (or this iterate's latest write to the same index) and indexing for writing records the
/// write in the worker's [`GatherBuf`]. Derefs to the original slice for `len()`, `iter()`, ….
///
/// ```
/// use dls_runtime::gather::{GatherBuf, GatherSlot};
/// let rows = vec![vec![0_u8; 2]; 3];
/// let mut buf = GatherBuf::new();
/// let mut out = GatherSlot::new(&rows, &mut buf);
/// out[1][0] = 4;
/// out[1][1] = 5;
/// assert_eq!(out[1], [4, 5]);
/// assert_eq!(out.len(), 3);
/// ```
pub struct GatherSlot<'a, T> {
    original: &'a [T],
    buf: &'a mut GatherBuf<T>,
}

impl<T> std::fmt::Debug for GatherSlot<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatherSlot")
            .field("len", &self.original.len())
            .finish_non_exhaustive()
    }
}

impl<'a, T> GatherSlot<'a, T> {
    /// A slot over `original` logging into `buf`.
    ///
    /// ```
    /// let mut buf = dls_runtime::gather::GatherBuf::new();
    /// let s = dls_runtime::gather::GatherSlot::new(&[1, 2, 3], &mut buf);
    /// assert_eq!(s[2], 3);
    /// ```
    pub fn new(original: &'a [T], buf: &'a mut GatherBuf<T>) -> Self {
        GatherSlot { original, buf }
    }
}

impl<T> Deref for GatherSlot<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.original
    }
}

impl<T> Index<usize> for GatherSlot<'_, T> {
    type Output = T;
    fn index(&self, index: usize) -> &T {
        match self.buf.writes.last() {
            Some((k, value)) if *k == index as u64 => value,
            _ => &self.original[index],
        }
    }
}

impl<T: Clone> IndexMut<usize> for GatherSlot<'_, T> {
    fn index_mut(&mut self, index: usize) -> &mut T {
        let repeat = matches!(self.buf.writes.last(), Some((k, _)) if *k == index as u64);
        if !repeat {
            let value = self.original[index].clone();
            self.buf.writes.push((index as u64, value));
        }
        let last = self.buf.writes.len() - 1;
        &mut self.buf.writes[last].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_bounds_write_panics_like_the_vector() {
        let v = vec![0; 2];
        let mut b = GatherBuf::new();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            GatherSlot::new(&v, &mut b)[2] = 1;
        }));
        assert!(r.is_err());
        assert!(b.is_empty());
    }

    #[test]
    fn compound_assignment_starts_from_the_original() {
        let v = vec![5_i32; 3];
        let mut b = GatherBuf::new();
        {
            let mut s = GatherSlot::new(&v, &mut b);
            s[0] += 1;
            s[2] *= 2;
        }
        let mut out = v.clone();
        b.scatter_into(&mut out);
        assert_eq!(out, [6, 5, 10]);
    }

    #[test]
    fn logs_round_trip_through_json() {
        let mut b = GatherBuf::new();
        GatherSlot::new(&[0.0_f64; 2], &mut b)[1] = 0.5;
        let text = serde_json::to_string(&b).unwrap();
        let back: GatherBuf<f64> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, b);
    }

    #[test]
    fn scatter_into_a_slice_reference() {
        let mut data = vec![0_u8; 3];
        let mut b = GatherBuf::new();
        GatherSlot::new(&data, &mut b)[0] = 1;
        let mut target: &mut [u8] = &mut data;
        b.scatter_into(&mut target);
        assert_eq!(data, [1, 0, 0]);
    }
}
