//! `reduce(op: a)` on an owned ndarray array: the built-in operators ([`Sum`](crate::reduce::Sum),
//! [`Product`](crate::reduce::Product), [`Max`](crate::reduce::Max),
//! [`Min`](crate::reduce::Min)) combine arrays element by element, as they combine `Vec`s, and
//! each worker starts from [`Reducible::identity_like`] the variable: an array of its shape whose
//! elements are the identity, so that `h[[bin, k]] += 1.0` works in the body.
//!
//! ```
//! use dls_runtime::reduce::{Operator, Product};
//! use ndarray::{arr1, Array1};
//! let p: Array1<i64> = Product.identity_like(&arr1(&[5, 6, 7]));
//! assert_eq!(p, arr1(&[1, 1, 1]));
//! assert_eq!(Product.combine(arr1(&[2, 3, 4]), arr1(&[5, 6, 7])), arr1(&[10, 18, 28]));
//! ```

use ndarray::{Array, Dimension, Zip};

use crate::reduce::{BuiltIn, Reducible};

/// The error of combining two non-empty arrays of different shapes element by element.
#[track_caller]
fn shape_mismatch<O: BuiltIn>(a: &[usize], b: &[usize]) -> ! {
    panic!(
        "reduce({op}: …) combines ndarray arrays element by element, but two partial results \
         have shapes {a:?} and {b:?}: every partial result must have the shape of the variable \
         before the loop (each worker starts from an array of its shape). An iterate that \
         reshapes or replaces the array changes its shape; for that, write a merge function and \
         use reduce(path::to::merge: a)",
        op = O::SYMBOL
    )
}

/// An owned array combined element by element. Its identity with no elements
/// ([`Reducible::identity`]) is an empty array (every axis of length 0; a one-axis empty array
/// for `ArrayD`), and an empty array combined with another gives the other, so
/// `combine(identity, x) == x` holds. A worker of a loop starts from
/// [`Reducible::identity_like`] the variable instead: its shape, every element the identity.
///
/// ```
/// use dls_runtime::reduce::{Min, Operator, Reducible};
/// use ndarray::{ArrayD, IxDyn};
/// let a = ArrayD::from_elem(IxDyn(&[2, 1, 2]), 3_u8);
/// let e = <ArrayD<u8> as Reducible<Min>>::identity(&Min);
/// assert_eq!(Min.combine(e, a.clone()), a);
/// assert_eq!(Min.identity_like(&a), ArrayD::from_elem(IxDyn(&[2, 1, 2]), u8::MAX));
/// ```
impl<O, T, D> Reducible<O> for Array<T, D>
where
    O: BuiltIn,
    T: Reducible<O> + Clone,
    D: Dimension,
{
    fn identity(_: &O) -> Self {
        let axes = D::NDIM.unwrap_or(1);
        let empty = D::zeros(axes);
        Array::from_shape_vec(empty, Vec::new()).expect("an array with no elements has any shape")
    }

    fn identity_like(&self, op: &O) -> Self {
        // The variable's layout: the worker's copy is written by index, in any layout.
        self.map(|x| x.identity_like(op))
    }

    fn combine(op: &O, a: Self, b: Self) -> Self {
        if b.is_empty() && a.shape() != b.shape() {
            return a;
        }
        if a.is_empty() && a.shape() != b.shape() {
            return b;
        }
        if a.shape() != b.shape() {
            shape_mismatch::<O>(a.shape(), b.shape());
        }
        // `a`'s layout is kept (the variable's own, in the last combination of a loop).
        let mut a = a;
        Zip::from(&mut a).and(&b).for_each(|x, y| {
            let left = x.clone();
            *x = T::combine(op, left, y.clone());
        });
        a
    }
}

/// The shape of a one-axis empty `ArrayD`, for tests.
#[cfg(test)]
fn empty_dyn() -> ndarray::IxDyn {
    ndarray::IxDyn(&[0])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reduce::{Max, Operator, Sum};
    use ndarray::{arr2, Array2, ArrayD, ShapeBuilder};

    #[test]
    fn identity_is_empty_and_neutral() {
        let e: ArrayD<f64> = <ArrayD<f64> as Reducible<Sum>>::identity(&Sum);
        assert_eq!(e.raw_dim(), empty_dyn());
        let x = arr2(&[[1.0, 2.0]]).into_dyn();
        assert_eq!(Sum.combine(x.clone(), e.clone()), x);
        assert_eq!(Sum.combine(e, x.clone()), x);
    }

    #[test]
    fn combines_a_fortran_ordered_variable_with_a_standard_partial() {
        let mut f = Array2::<i32>::zeros((2, 3).f());
        f[[1, 2]] = 7;
        let mut p = Sum.identity_like(&f);
        p[[1, 2]] = 1;
        p[[0, 1]] = 4;
        let t = Sum.combine(f, p);
        assert_eq!(t, arr2(&[[0, 4, 0], [0, 0, 8]]));
    }

    #[test]
    #[should_panic(expected = "shapes [2, 2] and [4]")]
    fn different_shapes_panic_naming_both() {
        let _ = Max.combine(
            Array2::<u8>::zeros((2, 2)).into_dyn(),
            ndarray::Array1::<u8>::zeros(4).into_dyn(),
        );
    }
}
