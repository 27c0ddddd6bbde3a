//! Collections a `#[par_doall]` loop can iterate over by index: `for x in &v`, `for x in v.iter()`
//! and `for (i, x) in v.iter().enumerate()` become a loop over `0..v.len()` that reads `&v[i]`.
//!
//! [`Indexable`] is also the read side of [`crate::gather::GatherTarget`], what `gather(...)` can
//! write into.
//!
//! ```
//! use dls_runtime::collection::Indexable;
//! let v = vec![3, 4];
//! assert_eq!(v.as_elements(), &[3, 4]);
//! ```

/// A contiguous collection whose elements are reached by position: `Vec<T>`, arrays, slices,
/// boxed slices, and references to any of them.
///
/// ```
/// use dls_runtime::collection::Indexable;
/// assert_eq!([1, 2, 3].as_elements().len(), 3);
/// ```
#[diagnostic::on_unimplemented(
    message = "`#[par_doall]` can loop over a range or an indexable collection (Vec, array, slice), not over `{Self}`",
    label = "not a range, Vec, array or slice",
    note = "collect the items into a Vec first, or loop over `0..n` and look the items up by index"
)]
pub trait Indexable {
    /// Element type.
    type Item;
    /// The elements as a slice.
    fn as_elements(&self) -> &[Self::Item];
}

impl<T> Indexable for Vec<T> {
    type Item = T;
    fn as_elements(&self) -> &[T] {
        self
    }
}

impl<T> Indexable for [T] {
    type Item = T;
    fn as_elements(&self) -> &[T] {
        self
    }
}

impl<T, const N: usize> Indexable for [T; N] {
    type Item = T;
    fn as_elements(&self) -> &[T] {
        self
    }
}

impl<T> Indexable for Box<[T]> {
    type Item = T;
    fn as_elements(&self) -> &[T] {
        self
    }
}

impl<C: Indexable + ?Sized> Indexable for &C {
    type Item = C::Item;
    fn as_elements(&self) -> &[C::Item] {
        (**self).as_elements()
    }
}

impl<C: Indexable + ?Sized> Indexable for &mut C {
    type Item = C::Item;
    fn as_elements(&self) -> &[C::Item] {
        (**self).as_elements()
    }
}
