//! Loops over an ndarray array's lanes: `for row in a.rows()` (the lanes along the last axis, in
//! row-major order, as ndarray yields them) and `for sub in a.outer_iter()` (the subviews along
//! the first axis) become loops over the lane's index; each iterate reads its lane as the view
//! the serial iterator would have given it.
//!
//! ```
//! use dls_runtime::lanes::{outer_of, rows_of, Lanes};
//! let a = ndarray::Array3::<u32>::from_shape_fn((2, 3, 4), |(i, j, k)| (100 * i + 10 * j + k) as u32);
//! let rows = rows_of(&a);
//! assert_eq!(rows.count(), 6);
//! for (r, row) in a.rows().into_iter().enumerate() {
//!     assert_eq!(rows.lane(r), row);
//! }
//! let outer = outer_of(&a);
//! assert_eq!(outer.count(), 2);
//! assert_eq!(outer.lane(1), a.index_axis(ndarray::Axis(0), 1));
//! ```

use ndarray::{ArrayBase, ArrayView, ArrayView1, ArrayView2, Axis, Data, Dimension, RemoveAxis};

use super::layout::standard_elements;
use crate::lanes::{Lanes, OuterOf, RowsOf};

/// The rows of an array in standard layout, as a two-axis view: every axis but the last, then the
/// last.
///
/// ```
/// use dls_runtime::lanes::{rows_of, Lanes};
/// let a = ndarray::array![[1, 2], [3, 4]];
/// assert_eq!(rows_of(&a).lane(1), ndarray::array![3, 4]);
/// ```
#[derive(Debug)]
pub struct Rows<'a, T>(ArrayView2<'a, T>);

impl<'a, T> Lanes for Rows<'a, T> {
    type Lane = ArrayView1<'a, T>;
    fn count(&self) -> usize {
        self.0.nrows()
    }
    fn lane(&self, index: usize) -> ArrayView1<'a, T> {
        self.0.index_axis_move(Axis(0), index)
    }
}

impl<'a, S: Data, D: Dimension> RowsOf for &'a ArrayBase<S, D> {
    type Rows = Rows<'a, S::Elem>;
    #[track_caller]
    fn rows_by_index(self) -> Rows<'a, S::Elem> {
        let elements = standard_elements(self);
        let shape = self.shape();
        let last = shape.last().copied().unwrap_or(1);
        let count = shape.iter().rev().skip(1).product();
        match ArrayView2::from_shape((count, last), elements) {
            Ok(rows) => Rows(rows),
            Err(_) => unreachable!("a standard-layout array's elements are its rows"),
        }
    }
}

impl<'r, S: Data, D: Dimension> RowsOf for &&'r ArrayBase<S, D> {
    type Rows = Rows<'r, S::Elem>;
    #[track_caller]
    fn rows_by_index(self) -> Rows<'r, S::Elem> {
        (*self).rows_by_index()
    }
}

/// The subviews of an array along its first axis, by index; any layout.
///
/// ```
/// use dls_runtime::lanes::{outer_of, Lanes};
/// let a = ndarray::array![[1, 2], [3, 4]];
/// assert_eq!(outer_of(&a).lane(0), ndarray::array![1, 2]);
/// ```
#[derive(Debug)]
pub struct Outer<'a, T, D: Dimension>(ArrayView<'a, T, D>);

impl<'a, T, D: RemoveAxis> Lanes for Outer<'a, T, D> {
    type Lane = ArrayView<'a, T, D::Smaller>;
    fn count(&self) -> usize {
        self.0.len_of(Axis(0))
    }
    fn lane(&self, index: usize) -> Self::Lane {
        self.0.clone().index_axis_move(Axis(0), index)
    }
}

impl<'a, S: Data, D: RemoveAxis> OuterOf for &'a ArrayBase<S, D> {
    type Outer = Outer<'a, S::Elem, D>;
    fn outer_by_index(self) -> Self::Outer {
        Outer(self.view())
    }
}

impl<'r, S: Data, D: RemoveAxis> OuterOf for &&'r ArrayBase<S, D> {
    type Outer = Outer<'r, S::Elem, D>;
    fn outer_by_index(self) -> Self::Outer {
        (*self).outer_by_index()
    }
}
