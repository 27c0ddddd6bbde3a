//! Which ndarray arrays the clauses take, and as which elements: an array in standard layout
//! (row-major and contiguous, as `Array::zeros`, `Array::from_shape_vec` and `array!` make them)
//! is its elements in row-major order, a slice. A loop over one (`for x in a.iter()`) is a loop
//! over that slice ([`Indexable`]), and `gather(a)` writes into it ([`GatherTarget`]) when the
//! array is owned (`Array1`, `Array2`, `Array3`, `ArrayD`, …): a view (`ArrayView`,
//! `ArrayViewMut`) is refused at compile time, and an array in another layout (a transpose, a
//! column-major array, a slice with steps) at the start of the loop, with the fix
//! ([`standard_elements`]).
//!
//! ```
//! use dls_runtime::collection::Indexable;
//! use dls_runtime::gather::GatherTarget;
//! use ndarray::array;
//! let mut a = array![[1, 2], [3, 4]];
//! assert_eq!(a.as_elements(), &[1, 2, 3, 4]);
//! a.elements_mut()[1] = 9;
//! assert_eq!(a, array![[1, 9], [3, 4]]);
//! ```

use ndarray::{Array, ArrayBase, Data, Dimension};

use crate::collection::Indexable;
use crate::gather::GatherTarget;

/// What to write when an array is not in standard layout.
const FIX: &str = "dls reads and writes an ndarray array by its elements in row-major order, \
                   so the array must be in standard layout (row-major and contiguous); this one \
                   is not (a transpose, a column-major array or a slice with steps). Before the \
                   loop, write `let a = a.as_standard_layout().into_owned();` (a copy in \
                   standard layout), and after it, if the layout matters, convert back";

/// The elements of `a` in row-major order, or a panic that says how to get them: an array that is
/// not in standard layout cannot be read or written by a flat index.
///
/// ```
/// use ndarray::{Array2, ShapeBuilder};
/// let a = Array2::<f64>::zeros((2, 3));
/// assert_eq!(dls_runtime::nd::layout::standard_elements(&a).len(), 6);
/// let f = Array2::<f64>::zeros((2, 3).f());
/// let refused = std::panic::catch_unwind(|| dls_runtime::nd::layout::standard_elements(&f).len());
/// assert!(refused.is_err());
/// ```
#[track_caller]
pub fn standard_elements<S: Data, D: Dimension>(a: &ArrayBase<S, D>) -> &[S::Elem] {
    match a.as_slice() {
        Some(elements) => elements,
        None => panic!("{FIX}"),
    }
}

impl<S: Data, D: Dimension> Indexable for ArrayBase<S, D> {
    type Item = S::Elem;
    fn as_elements(&self) -> &[S::Elem] {
        standard_elements(self)
    }
}

impl<T, D: Dimension> GatherTarget for Array<T, D> {
    const IS_ND_ARRAY: bool = true;

    fn elements_mut(&mut self) -> &mut [T] {
        if !self.is_standard_layout() {
            panic!("{FIX}");
        }
        match self.as_slice_mut() {
            Some(elements) => elements,
            None => unreachable!("an owned array in standard layout is contiguous"),
        }
    }
}
