//! What the name of a gathered ndarray array means in a loop's body: an [`NdGatherSlot`], indexed
//! as the array is (`a[[i, j]]`, `a[(i, j)]`, `a[i]` on one axis, `a[&[i, j, k][..]]` or
//! `a[IxDyn(…)]` on `ArrayD`). An index is turned into the element's position in row-major order,
//! and the element is read and written through the [`GatherSlot`] of the array's elements: reads
//! see the array as it was before the loop (or this iterate's own write), writes go into the
//! worker's log, which is scattered into the array after the loop. Everything else (`a.shape()`,
//! `a.nrows()`, `a.row(i)`, `a.iter()`) reads the array as it was before the loop, through
//! `Deref` to an `ArrayView`.
//!
//! Once in-place writes of a block of contiguous elements per iterate exist for flat vectors, the
//! row `a[[i, ..]]` of a standard-layout array is such a block (`i * row_len .. (i + 1) *
//! row_len`, with `row_len` the product of the other axes' lengths): [`NdView::row_len`].
//!
//! ```
//! use dls_runtime::gather::GatherBuf;
//! use dls_runtime::gather_view::{gather_slot, ViewOf, ViewOfFlat, ViewOfShaped};
//! use ndarray::Array2;
//! let mut a = Array2::<f64>::zeros((2, 3));
//! let view = (&&ViewOf(&a)).__dls_view();
//! let mut log = GatherBuf::new();
//! {
//!     let mut slot = gather_slot(&view, &mut log);
//!     slot[[1, 2]] = 5.0;
//!     slot[[1, 0]] += slot[[1, 2]];
//!     assert_eq!(slot.nrows(), 2);
//! }
//! drop(view);
//! log.scatter_into(&mut a).unwrap();
//! assert_eq!(a, ndarray::array![[0.0, 0.0, 0.0], [5.0, 0.0, 5.0]]);
//! ```

use std::ops::{Deref, Index, IndexMut};

use ndarray::{Array, ArrayBase, ArrayView, Data, Dimension, IntoDimension};

use super::layout::standard_elements;
use crate::gather::{GatherBuf, GatherSlot};
use crate::gather_view::{GatherView, ViewOf, ViewOfShaped};

/// A gathered array as it was before the loop: its elements in row-major order and its view,
/// shared by the iterates. Made at the start of the loop, which refuses an array that is not in
/// standard layout ([`standard_elements`]).
///
/// ```
/// use dls_runtime::nd::slot::NdView;
/// let a = ndarray::Array3::<u8>::zeros((4, 2, 3));
/// assert_eq!(NdView::new(&a).row_len(), 6);
/// ```
#[derive(Debug)]
pub struct NdView<'a, T, D: Dimension> {
    elements: &'a [T],
    view: ArrayView<'a, T, D>,
}

impl<'a, T, D: Dimension> NdView<'a, T, D> {
    /// The view of `a`, which must be in standard layout.
    ///
    /// ```
    /// let a = ndarray::array![1, 2];
    /// let _ = dls_runtime::nd::slot::NdView::new(&a);
    /// ```
    #[track_caller]
    pub fn new<S: Data<Elem = T>>(a: &'a ArrayBase<S, D>) -> Self {
        NdView {
            elements: standard_elements(a),
            view: a.view(),
        }
    }

    /// The elements of one subarray along the first axis (`a[[i, ..]]`): the block of contiguous
    /// elements an iterate `i` owns when it writes only its row.
    ///
    /// ```
    /// let a = ndarray::Array2::<f64>::zeros((3, 5));
    /// assert_eq!(dls_runtime::nd::slot::NdView::new(&a).row_len(), 5);
    /// ```
    pub fn row_len(&self) -> usize {
        self.view.shape().iter().skip(1).product()
    }
}

// Every array, views too: a view is refused by `gather`'s check of its target (`GatherTarget`,
// owned arrays only), and its body then reads as the array's, with no second error.
impl<'a, S: Data, D: Dimension> ViewOfShaped for &ViewOf<'a, ArrayBase<S, D>> {
    type View = NdView<'a, S::Elem, D>;
    #[track_caller]
    fn __dls_view(&self) -> NdView<'a, S::Elem, D> {
        NdView::new(self.0)
    }
}

impl<'a, T, D: Dimension> ViewOfShaped for &ViewOf<'a, &mut Array<T, D>> {
    type View = NdView<'a, T, D>;
    #[track_caller]
    fn __dls_view(&self) -> NdView<'a, T, D> {
        NdView::new(&**self.0)
    }
}

impl<'b, 'a: 'b, T, D: Dimension> GatherView<'b> for &'b NdView<'a, T, D> {
    type Item = T;
    type Slot = NdGatherSlot<'b, T, D>;
    fn slot(self, log: &'b mut GatherBuf<T>) -> NdGatherSlot<'b, T, D> {
        NdGatherSlot {
            flat: GatherSlot::new(self.elements, log),
            view: &self.view,
        }
    }
}

/// One iterate's gathered array; see the module.
///
/// ```
/// use dls_runtime::gather::GatherBuf;
/// use dls_runtime::gather_view::GatherView;
/// use dls_runtime::nd::slot::NdView;
/// let a = ndarray::ArrayD::<i32>::zeros(ndarray::IxDyn(&[2, 2, 2]));
/// let view = NdView::new(&a);
/// let mut log = GatherBuf::new();
/// let mut s = (&view).slot(&mut log);
/// s[[1, 1, 0]] = 3;
/// assert_eq!(s[&[1, 1, 0][..]], 3);
/// ```
pub struct NdGatherSlot<'b, T, D: Dimension> {
    flat: GatherSlot<'b, T>,
    view: &'b ArrayView<'b, T, D>,
}

impl<T, D: Dimension> std::fmt::Debug for NdGatherSlot<'_, T, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NdGatherSlot")
            .field("shape", &self.view.shape())
            .finish_non_exhaustive()
    }
}

impl<T, D: Dimension> NdGatherSlot<'_, T, D> {
    /// The row-major position of the element at `index`, or the panic ndarray gives for an index
    /// out of bounds.
    #[track_caller]
    fn position<I: IntoDimension>(&self, index: I) -> usize {
        let ix = index.into_dimension();
        let shape = self.view.shape();
        let fits = ix.ndim() == shape.len() && (0..shape.len()).all(|k| ix[k] < shape[k]);
        if !fits {
            let ix: Vec<usize> = (0..ix.ndim()).map(|k| ix[k]).collect();
            panic!("ndarray: index {ix:?} is out of bounds for an array of shape {shape:?}");
        }
        (0..shape.len()).fold(0, |at, k| at * shape[k] + ix[k])
    }
}

impl<'b, T, D: Dimension> Deref for NdGatherSlot<'b, T, D> {
    type Target = ArrayView<'b, T, D>;
    fn deref(&self) -> &ArrayView<'b, T, D> {
        self.view
    }
}

impl<T, D: Dimension, I: IntoDimension> Index<I> for NdGatherSlot<'_, T, D> {
    type Output = T;
    #[track_caller]
    fn index(&self, index: I) -> &T {
        let at = self.position(index);
        &self.flat[at]
    }
}

impl<T: Clone, D: Dimension, I: IntoDimension> IndexMut<I> for NdGatherSlot<'_, T, D> {
    #[track_caller]
    fn index_mut(&mut self, index: I) -> &mut T {
        let at = self.position(index);
        &mut self.flat[at]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gather_view::ViewOfFlat as _;
    use ndarray::{Array1, Array3};

    #[test]
    fn writes_of_several_workers_scatter_like_the_serial_loop() {
        let mut serial = Array3::<i64>::from_shape_fn((3, 4, 2), |(i, j, k)| (i + j + k) as i64);
        let mut parallel = serial.clone();
        let view = (&&ViewOf(&parallel)).__dls_view();
        let mut logs = vec![GatherBuf::new(), GatherBuf::new()];
        for i in 0..3 {
            let mut s = (&view).slot(&mut logs[i % 2]);
            for j in 0..4 {
                for k in 0..2 {
                    s[[i, j, k]] = s[[i, j, k]] * 10 + 1;
                }
            }
        }
        for i in 0..3 {
            for j in 0..4 {
                for k in 0..2 {
                    serial[[i, j, k]] = serial[[i, j, k]] * 10 + 1;
                }
            }
        }
        let [a, b]: [GatherBuf<i64>; 2] = logs.try_into().unwrap();
        GatherBuf::merge(a, b).scatter_into(&mut parallel).unwrap();
        assert_eq!(parallel, serial);
    }

    #[test]
    #[should_panic(expected = "index [2, 0] is out of bounds for an array of shape [2, 3]")]
    fn out_of_bounds_panics_with_the_shape() {
        let a = ndarray::Array2::<u8>::zeros((2, 3));
        let view = NdView::new(&a);
        let mut log = GatherBuf::new();
        let s = (&view).slot(&mut log);
        let _ = s[[2, 0]];
    }

    #[test]
    fn one_axis_takes_a_plain_index() {
        let a = Array1::<u8>::zeros(3);
        let view = NdView::new(&a);
        let mut log = GatherBuf::new();
        let mut s = (&view).slot(&mut log);
        s[2] = 1;
        assert_eq!(s[[2]], 1);
    }

    #[test]
    fn a_vector_keeps_the_flat_view() {
        let v = vec![1, 2];
        // As the macro writes it: autoref picks the flat view for a `Vec`.
        #[allow(clippy::needless_borrow)]
        let flat: &[i32] = (&&ViewOf(&v)).__dls_view();
        assert_eq!(flat, [1, 2]);
    }
}
