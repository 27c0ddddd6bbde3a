//! Loops over the lanes of a collection with a shape: `for row in a.rows()` and
//! `for sub in a.outer_iter()` (with `.enumerate()` too) become loops over the lane's index, as
//! `for x in &v` becomes a loop over the element's. Implemented for ndarray's arrays with dls's
//! feature `ndarray` ([`crate::nd::lanes`]); without it, such a loop is a compile error that says
//! so.
//!
//! The macro calls `rows_of(&a)` (or `outer_of(&a)`) once before the loop, then
//! [`Lanes::count`] for the loop's range and [`Lanes::lane`] in each iterate.

/// The lanes of one kind, by index: what the iterates of a loop over them read.
pub trait Lanes {
    /// One lane (a view).
    type Lane;
    /// How many lanes there are.
    fn count(&self) -> usize;
    /// Lane `index`, the `index`-th that the serial iterator yields.
    fn lane(&self, index: usize) -> Self::Lane;
}

/// A collection whose rows (`a.rows()`) a loop iterates over.
#[diagnostic::on_unimplemented(
    message = "`#[par_doall]` loops over `x.rows()` of an ndarray array (dls's feature `ndarray`), and `{Self}` is not one",
    label = "not a reference to an ndarray array",
    note = "for an ndarray array, enable the feature: dls = {{ …, features = [\"ndarray\"] }}; for another type, loop over `0..n` and take row `i` in the body"
)]
pub trait RowsOf {
    /// The rows by index.
    type Rows: Lanes;
    /// The rows.
    fn rows_by_index(self) -> Self::Rows;
}

/// A collection whose subviews along its first axis (`a.outer_iter()`) a loop iterates over.
#[diagnostic::on_unimplemented(
    message = "`#[par_doall]` loops over `x.outer_iter()` of an ndarray array (dls's feature `ndarray`), and `{Self}` is not one",
    label = "not a reference to an ndarray array",
    note = "for an ndarray array, enable the feature: dls = {{ …, features = [\"ndarray\"] }}; for another type, loop over `0..n` and take item `i` in the body"
)]
pub trait OuterOf {
    /// The subviews by index.
    type Outer: Lanes;
    /// The subviews.
    fn outer_by_index(self) -> Self::Outer;
}

/// The rows of `collection` by index (`for row in a.rows()`).
pub fn rows_of<C: RowsOf>(collection: C) -> C::Rows {
    collection.rows_by_index()
}

/// The subviews of `collection` along its first axis by index (`for sub in a.outer_iter()`).
pub fn outer_of<C: OuterOf>(collection: C) -> C::Outer {
    collection.outer_by_index()
}
