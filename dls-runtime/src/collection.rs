//! Collections a `#[par_doall]` loop can iterate over by index: `for x in &v`, `for x in v.iter()`
//! and `for (i, x) in v.iter().enumerate()` become a loop over `0..v.len()` that reads `&v[i]`.
//!
//! ```
//! let v = vec![3, 4];
//! assert_eq!(dls_runtime::collection::elements(&v), &[3, 4]);
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

/// The elements of `collection` as a slice (what the rewritten loop indexes).
///
/// ```
/// let a = [1.0, 2.0];
/// let s: &[f64] = &a[..];
/// assert_eq!(dls_runtime::collection::elements(&s), &[1.0, 2.0]);
/// ```
pub fn elements<C: Indexable + ?Sized>(collection: &C) -> &[C::Item] {
    collection.as_elements()
}

/// A reference to an [`Indexable`] collection, as in `for x in v` where `v: &Vec<T>` or `v: &[T]`.
///
/// ```
/// use dls_runtime::collection::Borrowed;
/// let v = vec![1, 2];
/// let r = &v;
/// assert_eq!(r.slice(), &[1, 2]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`#[par_doall]` would iterate over `{Self}` by value; it loops over a range or a reference to an indexable collection (Vec, array, slice)",
    label = "not a range or a reference to a Vec, array or slice",
    note = "loop over `&v` (the items are then references), or over `0..n` and look the items up by index"
)]
pub trait Borrowed<'a> {
    /// Element type.
    type Item: 'a;
    /// The elements as a slice.
    fn slice(self) -> &'a [Self::Item];
}

impl<'a, C: Indexable + ?Sized> Borrowed<'a> for &'a C {
    type Item = C::Item;
    fn slice(self) -> &'a [C::Item] {
        self.as_elements()
    }
}

/// The elements behind a reference to a collection (what `for x in v` reads when `v` is a
/// reference).
///
/// ```
/// let a = [5, 6];
/// let r: &[i32] = &a;
/// assert_eq!(dls_runtime::collection::borrowed(r), &[5, 6]);
/// ```
pub fn borrowed<'a, B: Borrowed<'a>>(reference: B) -> &'a [B::Item] {
    reference.slice()
}
