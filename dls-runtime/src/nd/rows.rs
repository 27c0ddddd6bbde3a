//! In-place rows of a gathered ndarray array: a loop whose iterate `i` uses the array `a` only at
//! indices whose first component is `i` (`a[[i, j]]` on an `Array2`, `a[[i, j, k]]` on an
//! `Array3`, `a[(i, j)]`) writes row `i` of axis 0 in place, with no clause argument. The array's
//! shape gives the row: in the standard-layout buffer, row `i` is the block of contiguous
//! elements `i * row_len .. (i + 1) * row_len`, with `row_len` the product of the other axes'
//! lengths ([`NdBlockPlace::row_len`]), so the flat machinery of `gather(v: rows(W))`
//! ([`BlockPlace`] with [`Rows`], `dls-runtime/src/gather/blocks.rs`) carries it: an index is
//! turned into its row-major position (checked axis by axis, as ndarray checks it), and the
//! position is written in place where it lies in the iterate's own row and the place writes in
//! place (threads, each iterate run once; under MPI a body that only assigns plain elements, on
//! each rank, the rows then exchanged after the loop: [`Place::exchanged`]), else logged and
//! checked after the loop (MPI for a body that reads its row, checkpoints, a copy under
//! re-execution on a process of several worker threads).
//!
//! The macro chooses this form from the body's syntax (`dls-macros/src/in_place_nd.rs`): every
//! use of the array is an element at an index whose first component is the loop's name, or a
//! question about its shape (`a.shape()`, `a.nrows()`, `a.ncols()`, `a.ndim()`, `a.len()`,
//! `a.dim()`). Any other body keeps the logged view of `dls-runtime/src/nd/slot.rs`. An array
//! that is not in standard layout is refused at the start of the loop with the fix
//! ([`crate::nd::layout::standard_elements`]).
//!
//! ```
//! use dls_runtime::gather::{GatherBuf, Place};
//! use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
//! let mut a = ndarray::Array2::<u32>::zeros((3, 2));
//! let shape = dls_runtime::nd::rows::standard_shape(&a);
//! let mut log = GatherBuf::new();
//! {
//!     // SAFETY: iterate i's one access, on this thread, reaches row i alone.
//!     let place = unsafe { Place::new(a.as_slice_mut().unwrap(), true) };
//!     let rows = NdBlockPlace::new(place, shape, 0..3, "a");
//!     for i in 0..3 {
//!         let mut r = NdBlockAccess::new(&rows, &mut log, i, false);
//!         for j in 0..2 {
//!             r[[i, j]] = (10 * i + j) as u32; // in place
//!         }
//!         r.set([i, 0], r[[i, 1]] + 100);
//!     }
//! }
//! assert_eq!(log.len(), 0, "every write was in place");
//! assert_eq!(a, ndarray::array![[101, 1], [111, 11], [121, 21]]);
//! ```

use std::ops::{Deref, Index, IndexMut, Range};

use ndarray::{ArrayBase, Axis, Data, Dimension, IntoDimension};

use super::layout::standard_elements;
use crate::gather::{
    BlockAccess, BlockPlace, BlockRest, BlockRow, BlockSet, GatherBuf, Place, Rows,
};

/// The shape of `a`, which must be in standard layout (else the panic of
/// [`standard_elements`], which says how to convert it): taken before the loop borrows the
/// array's elements to write them.
///
/// ```
/// use ndarray::Dimension as _;
/// let a = ndarray::Array3::<u8>::zeros((2, 3, 4));
/// assert_eq!(dls_runtime::nd::rows::standard_shape(&a).slice(), &[2, 3, 4]);
/// ```
#[track_caller]
pub fn standard_shape<S: Data, D: Dimension>(a: &ArrayBase<S, D>) -> D {
    let _ = standard_elements(a);
    a.raw_dim()
}

/// A gathered array during a loop whose iterate `i` owns row `i` of axis 0: its elements' place
/// with the blocks [`Rows`] of one row's length, and its shape.
///
/// ```
/// use dls_runtime::gather::Place;
/// use dls_runtime::nd::rows::NdBlockPlace;
/// let mut a = ndarray::Array3::<f64>::zeros((4, 2, 3));
/// let shape = a.raw_dim();
/// let rows = NdBlockPlace::new(Place::logged(a.as_slice_mut().unwrap()), shape, 0..4, "a");
/// assert_eq!(rows.row_len(), 6);
/// ```
pub struct NdBlockPlace<'a, T, D> {
    block: BlockPlace<'a, T, Rows>,
    shape: D,
    row_len: usize,
}

impl<T, D: Dimension> std::fmt::Debug for NdBlockPlace<'_, T, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NdBlockPlace")
            .field("shape", &self.shape.slice())
            .field("block", &self.block)
            .finish()
    }
}

impl<'a, T, D: Dimension> NdBlockPlace<'a, T, D> {
    /// The array of shape `shape` whose elements (in row-major order) are `place`, written by
    /// the iterates `iterates` (row numbers); `var` names it in messages. Where `place` writes
    /// in place, [`Place::new`]'s contract covers the [`NdBlockAccess`]es made from this value
    /// as [`BlockPlace::new`] states it: the one of iterate `i` reaches the elements of row `i`
    /// (unless it is a copy).
    ///
    /// `shape` is meant to be the shape of the array whose elements `place` holds; were it not,
    /// positions would name the wrong elements, but never one past the place's (the flat
    /// access bounds every access by the place's length).
    ///
    /// ```
    /// use dls_runtime::gather::Place;
    /// use dls_runtime::nd::rows::NdBlockPlace;
    /// let mut v = vec![0_u8; 6];
    /// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix2(3, 2), 1..3, "a");
    /// assert_eq!(rows.iterates(), 1..3);
    /// ```
    pub fn new(place: Place<'a, T>, shape: D, iterates: Range<usize>, var: &'a str) -> Self {
        let row_len = shape.slice().iter().skip(1).product();
        NdBlockPlace {
            block: BlockPlace::new(place, Rows::new(row_len), iterates, var),
            shape,
            row_len,
        }
    }

    /// The length of one row `a[[i, ..]]`: the product of the lengths of every axis but the
    /// first (1 for a one-axis array).
    ///
    /// ```
    /// use dls_runtime::gather::Place;
    /// let mut v = vec![0_u8; 6];
    /// let rows = dls_runtime::nd::rows::NdBlockPlace::new(
    ///     Place::logged(&mut v), ndarray::Ix1(6), 0..6, "a");
    /// assert_eq!(rows.row_len(), 1);
    /// ```
    pub fn row_len(&self) -> usize {
        self.row_len
    }

    /// The loop's iterates (row numbers).
    ///
    /// ```
    /// use dls_runtime::gather::Place;
    /// let mut v = vec![0_u8; 4];
    /// let rows = dls_runtime::nd::rows::NdBlockPlace::new(
    ///     Place::logged(&mut v), ndarray::Ix2(2, 2), 0..2, "a");
    /// assert_eq!(rows.iterates(), 0..2);
    /// ```
    pub fn iterates(&self) -> Range<usize> {
        self.block.iterates()
    }

    /// Whether the iterates write their rows in place.
    ///
    /// ```
    /// use dls_runtime::gather::Place;
    /// let mut v = vec![0_u8; 4];
    /// let rows = dls_runtime::nd::rows::NdBlockPlace::new(
    ///     Place::logged(&mut v), ndarray::Ix2(2, 2), 0..2, "a");
    /// assert!(!rows.in_place());
    /// ```
    pub fn in_place(&self) -> bool {
        self.block.in_place()
    }
}

/// The shape of a gathered array during a loop, and the questions about it a body may ask
/// (`a.shape()`, `a.nrows()`, …, as ndarray answers them): what [`NdBlockAccess`] and
/// [`NdBlockRow`] dereference to. Kept by value, so that it stays in registers across the
/// loop's in-place writes, which the compiler cannot prove leave a shared shape untouched.
///
/// ```
/// use dls_runtime::nd::rows::NdShape;
/// let s = NdShape::new(ndarray::Ix2(2, 3));
/// assert_eq!((s.shape(), s.dim(), s.len()), (&[2, 3][..], (2, 3), 6));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct NdShape<D> {
    shape: D,
}

impl<D: Dimension> std::fmt::Debug for NdShape<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("NdShape").field(&self.shape.slice()).finish()
    }
}

impl<D: Dimension> NdShape<D> {
    /// The shape `shape`.
    ///
    /// ```
    /// let s = dls_runtime::nd::rows::NdShape::new(ndarray::Ix3(1, 2, 3));
    /// assert_eq!(s.ndim(), 3);
    /// ```
    pub fn new(shape: D) -> Self {
        NdShape { shape }
    }

    /// The row-major position of the element at `index`, or the panic ndarray gives for an
    /// index out of bounds (checked axis by axis: an index past one axis never reaches another
    /// row).
    #[inline]
    #[track_caller]
    fn position<I: IntoDimension>(&self, index: I) -> usize {
        let ix = index.into_dimension();
        let (ix, shape) = (ix.slice(), self.shape.slice());
        if ix.len() != shape.len() {
            out_of_bounds(ix, shape);
        }
        let mut at = 0;
        for (&k, &n) in ix.iter().zip(shape) {
            if k >= n {
                out_of_bounds(ix, shape);
            }
            at = at * n + k;
        }
        at
    }

    /// The array's shape (as before the loop: the loop writes elements, never the shape).
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
    /// let mut v = vec![0_u8; 6];
    /// let mut log = GatherBuf::new();
    /// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix3(1, 2, 3), 0..1, "a");
    /// assert_eq!(NdBlockAccess::new(&rows, &mut log, 0, false).shape(), &[1, 2, 3]);
    /// ```
    pub fn shape(&self) -> &[usize] {
        self.shape.slice()
    }

    /// The shape as ndarray's `dim()` gives it (a tuple for a fixed number of axes).
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
    /// let mut v = vec![0_u8; 6];
    /// let mut log = GatherBuf::new();
    /// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix2(2, 3), 0..2, "a");
    /// assert_eq!(NdBlockAccess::new(&rows, &mut log, 0, false).dim(), (2, 3));
    /// ```
    pub fn dim(&self) -> D::Pattern {
        self.shape.clone().into_pattern()
    }

    /// The number of axes.
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
    /// let mut v = vec![0_u8; 6];
    /// let mut log = GatherBuf::new();
    /// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix3(1, 2, 3), 0..1, "a");
    /// assert_eq!(NdBlockAccess::new(&rows, &mut log, 0, false).ndim(), 3);
    /// ```
    pub fn ndim(&self) -> usize {
        self.shape.ndim()
    }

    /// The number of elements.
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
    /// let mut v = vec![0_u8; 6];
    /// let mut log = GatherBuf::new();
    /// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix2(2, 3), 0..2, "a");
    /// assert_eq!(NdBlockAccess::new(&rows, &mut log, 0, false).len(), 6);
    /// ```
    pub fn len(&self) -> usize {
        self.shape.size()
    }

    /// Whether the array has no elements.
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
    /// let mut v: Vec<u8> = Vec::new();
    /// let mut log = GatherBuf::new();
    /// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix2(0, 3), 0..0, "a");
    /// assert!(NdBlockAccess::new(&rows, &mut log, 0, false).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.shape.size() == 0
    }

    /// The length of axis 0 (ndarray's `nrows` of a two-axis array).
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
    /// let mut v = vec![0_u8; 6];
    /// let mut log = GatherBuf::new();
    /// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix2(2, 3), 0..2, "a");
    /// assert_eq!(NdBlockAccess::new(&rows, &mut log, 0, false).nrows(), 2);
    /// ```
    pub fn nrows(&self) -> usize {
        self.shape.slice().first().copied().unwrap_or(1)
    }

    /// The length of axis 1 (ndarray's `ncols` of a two-axis array).
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
    /// let mut v = vec![0_u8; 6];
    /// let mut log = GatherBuf::new();
    /// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix2(2, 3), 0..2, "a");
    /// assert_eq!(NdBlockAccess::new(&rows, &mut log, 0, false).ncols(), 3);
    /// ```
    pub fn ncols(&self) -> usize {
        self.shape.slice().get(1).copied().unwrap_or(1)
    }

    /// The length of axis `axis`.
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
    /// let mut v = vec![0_u8; 6];
    /// let mut log = GatherBuf::new();
    /// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix2(2, 3), 0..2, "a");
    /// assert_eq!(NdBlockAccess::new(&rows, &mut log, 0, false).len_of(ndarray::Axis(1)), 3);
    /// ```
    #[track_caller]
    pub fn len_of(&self, axis: Axis) -> usize {
        self.shape.slice()[axis.index()]
    }
}

/// One iterate's view of an [`NdBlockPlace`] (what the array's name means in the body): indexed
/// as the array (`a[[i, j]]`, `a[(i, j)]`, `a[&[i, j, k][..]]`), its own row in place where the
/// place writes in place and the run is no copy, else logged; its shape readable (it
/// dereferences to its [`NdShape`]: `a.shape()`, `a.nrows()` and the like). See the module.
///
/// ```
/// use dls_runtime::gather::{GatherBuf, Place};
/// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
/// let mut a = ndarray::Array2::<i64>::ones((2, 2));
/// let mut log = GatherBuf::new();
/// {
///     let rows = NdBlockPlace::new(Place::logged(a.as_slice_mut().unwrap()), ndarray::Ix2(2, 2), 0..2, "a");
///     let mut r = NdBlockAccess::new(&rows, &mut log, 1, false);
///     r[[1, 0]] += 5; // logged: the place logs
///     assert_eq!((r[[1, 0]], r.nrows()), (6, 2));
/// }
/// log.scatter_into(a.as_slice_mut().unwrap()).unwrap();
/// assert_eq!(a, ndarray::array![[1, 1], [6, 1]]);
/// ```
pub struct NdBlockAccess<'a, T, D> {
    flat: BlockAccess<'a, T, Rows>,
    shape: NdShape<D>,
}

impl<T, D: Dimension> std::fmt::Debug for NdBlockAccess<'_, T, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NdBlockAccess")
            .field("shape", &self.shape.shape())
            .field("flat", &self.flat)
            .finish()
    }
}

impl<T, D> Deref for NdBlockAccess<'_, T, D> {
    type Target = NdShape<D>;
    #[inline(always)]
    fn deref(&self) -> &NdShape<D> {
        &self.shape
    }
}

impl<'a, T, D: Dimension> NdBlockAccess<'a, T, D> {
    /// Iterate `iterate`'s access to `place`, logging into `log`; `copy`: the run is a copy of
    /// iterates another worker may be running (re-execution), which logs its row's writes and
    /// must not read its row ([`NdBlockAccess::set`] only). As [`BlockAccess::new`].
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
    /// let mut v = vec![0_u8; 4];
    /// let mut log = GatherBuf::new();
    /// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix2(2, 2), 0..2, "a");
    /// NdBlockAccess::new(&rows, &mut log, 0, true).set([0, 1], 3);
    /// assert_eq!(log.len(), 1);
    /// ```
    #[inline]
    pub fn new(
        place: &'a NdBlockPlace<'a, T, D>,
        log: &'a mut GatherBuf<T>,
        iterate: usize,
        copy: bool,
    ) -> Self {
        NdBlockAccess {
            flat: BlockAccess::new(&place.block, log, iterate, copy),
            shape: NdShape::new(place.shape.clone()),
        }
    }

    /// `a[index] = value`, without reading the element: in place in the iterate's own row (where
    /// the access writes in place), else logged.
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
    /// let mut v = vec![0_u8; 4];
    /// let mut log = GatherBuf::new();
    /// {
    ///     // SAFETY: the one access of iterate 1 reaches row 1 alone.
    ///     let place = unsafe { Place::new(&mut v, true) };
    ///     let rows = NdBlockPlace::new(place, ndarray::Ix2(2, 2), 0..2, "a");
    ///     NdBlockAccess::new(&rows, &mut log, 1, false).set([1, 1], 9);
    /// }
    /// assert_eq!((v[3], log.len()), (9, 0));
    /// ```
    #[inline]
    #[track_caller]
    pub fn set<I: IntoDimension>(&mut self, index: I, value: T) {
        let at = self.shape.position(index);
        self.flat.set(at, value);
    }

    /// Whether this access writes its own row in place (the place writes in place and the run
    /// is no copy): then [`NdBlockAccess::split`] hands the row out as a slice.
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
    /// let mut v = vec![0_u8; 4];
    /// let mut log = GatherBuf::new();
    /// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix2(2, 2), 0..2, "a");
    /// assert!(!NdBlockAccess::new(&rows, &mut log, 0, false).in_place());
    /// ```
    #[inline]
    pub fn in_place(&self) -> bool {
        self.flat.in_place()
    }

    /// The iterate's own row (its elements within the array) as a `&mut [T]`, with the access
    /// for every other element: an [`NdBlockRow`]. Where the access does not write in place the
    /// slice is empty and every element goes through the access (logged). As
    /// [`BlockAccess::split`], which says why the generated code hands the slice to the body
    /// as a closure's parameter ([`nd_with_row`]).
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
    /// let mut a = ndarray::Array2::<u8>::zeros((3, 2));
    /// let mut log = GatherBuf::new();
    /// {
    ///     // SAFETY: the one access of iterate 1 reaches row 1, and row 0 through the log.
    ///     let place = unsafe { Place::new(a.as_slice_mut().unwrap(), true) };
    ///     let rows = NdBlockPlace::new(place, ndarray::Ix2(3, 2), 1..3, "a");
    ///     let mut acc = NdBlockAccess::new(&rows, &mut log, 1, false);
    ///     let mut r = acc.split();
    ///     r.row2()[1] = 7; // a[[1, 1]], in place
    ///     r[[1, 0]] = 6; // the row, by the array's index
    ///     r[[0, 0]] = 1; // row 0, no iterate's: logged
    /// }
    /// assert_eq!((a[[1, 0]], a[[1, 1]], log.len()), (6, 7, 1));
    /// ```
    #[inline]
    pub fn split(&mut self) -> NdBlockRow<'_, 'a, T, D> {
        NdBlockRow {
            flat: self.flat.split(),
            shape: self.shape.clone(),
        }
    }
}

/// `a[index] = value` without reading the element, on what a gathered array's name means in
/// the body of a loop that writes its rows in place: an [`NdBlockAccess`], or an
/// [`NdBlockRow`] where the iterate's row is handed out as a slice. The macro rewrites a body's
/// plain assignments `a[[i, j]] = x` to it.
///
/// ```
/// use dls_runtime::gather::{GatherBuf, Place};
/// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace, NdBlockSet};
/// let mut v = vec![0_u8; 4];
/// let mut log = GatherBuf::new();
/// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix2(2, 2), 0..2, "a");
/// {
///     let mut acc = NdBlockAccess::new(&rows, &mut log, 0, false);
///     NdBlockSet::set(&mut acc, [0, 1], 5);
///     NdBlockSet::set(&mut acc.split(), (0, 0), 4);
/// }
/// assert_eq!(log.len(), 2);
/// ```
pub trait NdBlockSet<T> {
    /// Writes `value` at `index`.
    fn set<I: IntoDimension>(&mut self, index: I, value: T);
}

impl<T, D: Dimension> NdBlockSet<T> for NdBlockAccess<'_, T, D> {
    #[inline]
    #[track_caller]
    fn set<I: IntoDimension>(&mut self, index: I, value: T) {
        NdBlockAccess::set(self, index, value)
    }
}

/// An iterate's own row as a `&mut [T]` ([`NdBlockRow::row2`]: `a[[i, j]]` is `row2()[j]`),
/// with its access to every other element of the array ([`NdBlockAccess`]'s rules: logged, or
/// refused in another iterate's row). Indexing by the array's index, `r[[i, j]]`, reaches the
/// row in place where the index is in it. Made by [`NdBlockAccess::split`]; dereferences to the
/// array's [`NdShape`].
///
/// ```
/// use dls_runtime::gather::{GatherBuf, Place};
/// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace, NdBlockSet};
/// let mut v = vec![0_i32; 4];
/// let mut log = GatherBuf::new();
/// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix2(2, 2), 0..2, "a");
/// let mut acc = NdBlockAccess::new(&rows, &mut log, 1, false);
/// let mut r = acc.split();
/// assert!(r.row2().is_empty(), "a logged access hands out no row");
/// r.set([1, 1], 4);
/// assert_eq!((r[[1, 1]], r.ncols()), (4, 2));
/// ```
pub struct NdBlockRow<'r, 'a, T, D> {
    flat: BlockRow<'r, 'a, T, Rows>,
    shape: NdShape<D>,
}

impl<T, D: Dimension> std::fmt::Debug for NdBlockRow<'_, '_, T, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NdBlockRow")
            .field("shape", &self.shape.shape())
            .field("flat", &self.flat)
            .finish()
    }
}

impl<T, D> Deref for NdBlockRow<'_, '_, T, D> {
    type Target = NdShape<D>;
    #[inline(always)]
    fn deref(&self) -> &NdShape<D> {
        &self.shape
    }
}

impl<'r, 'a, T, D: Dimension> NdBlockRow<'r, 'a, T, D> {
    /// The iterate's own row of a two-axis array, in place: element `j` is `a[[i, j]]` (empty
    /// where the access logs). An array of another number of axes panics, as ndarray does on an
    /// index `[i, j]` of it.
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace};
    /// let mut v = vec![0_u8; 6];
    /// let mut log = GatherBuf::new();
    /// {
    ///     // SAFETY: the one access of iterate 2 reaches row 2 alone.
    ///     let place = unsafe { Place::new(&mut v, true) };
    ///     let rows = NdBlockPlace::new(place, ndarray::Ix2(3, 2), 0..3, "a");
    ///     NdBlockAccess::new(&rows, &mut log, 2, false).split().row2().fill(9);
    /// }
    /// assert_eq!(v, [0, 0, 0, 0, 9, 9]);
    /// ```
    #[inline(always)]
    #[track_caller]
    pub fn row2(&mut self) -> &mut [T] {
        if self.shape.shape.ndim() != 2 {
            not_two_axes(self.shape.shape());
        }
        self.flat.row()
    }

    /// The row and the rest, apart: what [`nd_with_row`] hands its body.
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace, NdBlockRow};
    /// let mut v = vec![0_u8; 4];
    /// let mut log = GatherBuf::new();
    /// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix2(2, 2), 0..2, "a");
    /// let mut acc = NdBlockAccess::new(&rows, &mut log, 0, false);
    /// let (row, rest) = acc.split().parts();
    /// assert_eq!(NdBlockRow::new(row, rest)[[0, 1]], 0);
    /// ```
    #[inline(always)]
    pub fn parts(self) -> (&'r mut [T], NdBlockRest<'r, 'a, T, D>) {
        let (row, flat) = self.flat.parts();
        (
            row,
            NdBlockRest {
                flat,
                shape: self.shape,
            },
        )
    }

    /// The row and the rest together again ([`NdBlockRow::parts`]). A `row` that is not the
    /// one `parts` gave is never read instead of the array's row: the rest refuses with a panic
    /// to reach the iterate's own elements.
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, Place};
    /// use dls_runtime::nd::rows::{NdBlockAccess, NdBlockPlace, NdBlockRow};
    /// let mut v = vec![0_u8; 4];
    /// let mut log = GatherBuf::new();
    /// let rows = NdBlockPlace::new(Place::logged(&mut v), ndarray::Ix2(2, 2), 0..2, "a");
    /// let mut acc = NdBlockAccess::new(&rows, &mut log, 1, false);
    /// let (row, rest) = acc.split().parts();
    /// assert_eq!(NdBlockRow::new(row, rest)[(1, 0)], 0);
    /// ```
    #[inline(always)]
    pub fn new(row: &'r mut [T], rest: NdBlockRest<'r, 'a, T, D>) -> Self {
        NdBlockRow {
            flat: BlockRow::new(row, rest.flat),
            shape: rest.shape,
        }
    }
}

/// An [`NdBlockRow`] without its row ([`NdBlockRow::parts`]): the access to every other element,
/// and the shape.
pub struct NdBlockRest<'r, 'a, T, D> {
    flat: BlockRest<'r, 'a, T, Rows>,
    shape: NdShape<D>,
}

impl<T, D: Dimension> std::fmt::Debug for NdBlockRest<'_, '_, T, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NdBlockRest")
            .field("shape", &self.shape.shape())
            .field("flat", &self.flat)
            .finish()
    }
}

/// Runs `body` on `row`'s parts: the row as a `&mut [T]` parameter of the body (which the
/// compiler then knows no other pointer reaches, see [`BlockAccess::split`]) and the rest. What
/// the generated code of a loop that writes an ndarray array's rows in place (`gather(a)`, the
/// body writing `a[[i, ..]]` only) runs each iterate's body in, where the iterate writes its
/// row in place; the body's elements `a[[i, j]]` are then `a.row2()[j]`.
///
/// ```
/// use dls_runtime::gather::{GatherBuf, Place};
/// use dls_runtime::nd::rows::{nd_with_row, NdBlockAccess, NdBlockPlace, NdBlockRow};
/// let mut a = ndarray::Array2::<u8>::zeros((2, 2));
/// let mut log = GatherBuf::new();
/// {
///     // SAFETY: the one access of iterate 1 reaches row 1 alone.
///     let place = unsafe { Place::new(a.as_slice_mut().unwrap(), true) };
///     let rows = NdBlockPlace::new(place, ndarray::Ix2(2, 2), 0..2, "a");
///     let mut acc = NdBlockAccess::new(&rows, &mut log, 1, false);
///     nd_with_row(acc.split(), |row, rest| {
///         let mut a = NdBlockRow::new(row, rest);
///         a.row2()[0] = 5;
///     });
/// }
/// assert_eq!(a, ndarray::array![[0, 0], [5, 0]]);
/// ```
#[inline(always)]
pub fn nd_with_row<'r, 'a, T, D, R, F>(row: NdBlockRow<'r, 'a, T, D>, body: F) -> R
where
    D: Dimension,
    F: FnOnce(&'r mut [T], NdBlockRest<'r, 'a, T, D>) -> R,
{
    let (row, rest) = row.parts();
    body(row, rest)
}

impl<T, D: Dimension> NdBlockSet<T> for NdBlockRow<'_, '_, T, D> {
    #[inline]
    #[track_caller]
    fn set<I: IntoDimension>(&mut self, index: I, value: T) {
        let at = self.shape.position(index);
        BlockSet::set(&mut self.flat, at, value);
    }
}

impl<T, D: Dimension, I: IntoDimension> Index<I> for NdBlockRow<'_, '_, T, D> {
    type Output = T;
    #[inline]
    #[track_caller]
    fn index(&self, index: I) -> &T {
        let at = self.shape.position(index);
        &self.flat[at]
    }
}

impl<T: Clone, D: Dimension, I: IntoDimension> IndexMut<I> for NdBlockRow<'_, '_, T, D> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: I) -> &mut T {
        let at = self.shape.position(index);
        &mut self.flat[at]
    }
}

/// The panic of an index out of bounds, as ndarray words it.
#[cold]
#[inline(never)]
#[track_caller]
fn out_of_bounds(ix: &[usize], shape: &[usize]) -> ! {
    panic!("ndarray: index {ix:?} is out of bounds for an array of shape {shape:?}")
}

/// The panic of a two-component index `a[[i, j]]` of an array that has not two axes.
#[cold]
#[inline(never)]
#[track_caller]
fn not_two_axes(shape: &[usize]) -> ! {
    panic!(
        "ndarray: an index of 2 components is out of bounds for an array of shape {shape:?} \
         ({} axes)",
        shape.len()
    )
}

impl<T, D: Dimension, I: IntoDimension> Index<I> for NdBlockAccess<'_, T, D> {
    type Output = T;
    #[inline]
    #[track_caller]
    fn index(&self, index: I) -> &T {
        let at = self.shape.position(index);
        &self.flat[at]
    }
}

impl<T: Clone, D: Dimension, I: IntoDimension> IndexMut<I> for NdBlockAccess<'_, T, D> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: I) -> &mut T {
        let at = self.shape.position(index);
        &mut self.flat[at]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, Array3};

    /// In place, logged and as a copy (re-execution), every iterate's writes give the serial
    /// array; the copy writes with `set` alone.
    #[test]
    fn in_place_logged_and_copies_equal_serial() {
        let f = |i: usize, j: usize, k: usize| (100 * i + 10 * j + k) as u64;
        let serial = Array3::from_shape_fn((4, 2, 3), |(i, j, k)| {
            if (1..4).contains(&i) {
                f(i, j, k) + 1
            } else {
                0
            }
        });
        for (in_place, copy) in [(true, false), (false, false), (false, true)] {
            let mut a = Array3::<u64>::zeros((4, 2, 3));
            let shape = standard_shape(&a);
            let mut log = GatherBuf::new();
            {
                // SAFETY: one access per iterate, on this thread, one after the other.
                let place = unsafe { Place::new(a.as_slice_mut().unwrap(), in_place) };
                let rows = NdBlockPlace::new(place, shape, 1..4, "a");
                for i in 1..4 {
                    let mut r = NdBlockAccess::new(&rows, &mut log, i, copy);
                    for j in 0..2 {
                        for k in 0..3 {
                            if copy {
                                r.set([i, j, k], f(i, j, k) + 1);
                            } else {
                                r[[i, j, k]] = f(i, j, k);
                                r[(i, j, k)] += 1;
                            }
                        }
                    }
                }
            }
            assert_eq!(log.is_empty(), in_place, "in place {in_place}, copy {copy}");
            log.scatter_into(a.as_slice_mut().unwrap()).unwrap();
            assert_eq!(a, serial, "in place {in_place}, copy {copy}");
        }
    }

    /// Through the row slice of `split` (the fast body), every write gives the serial array;
    /// the rest reaches the other rows as the access does.
    #[test]
    fn the_row_slice_and_the_rest_equal_serial() {
        let serial = Array2::from_shape_fn((4, 3), |(i, j)| match i {
            0 => 100 + j as u64,
            1..=2 => (10 * i + j) as u64 + 1,
            _ => 0,
        });
        for in_place in [true, false] {
            let mut a = Array2::<u64>::zeros((4, 3));
            let shape = standard_shape(&a);
            let mut log = GatherBuf::new();
            {
                // SAFETY: one access per iterate, on this thread, one after the other.
                let place = unsafe { Place::new(a.as_slice_mut().unwrap(), in_place) };
                let rows = NdBlockPlace::new(place, shape, 1..3, "a");
                for i in 1..3 {
                    let mut acc = NdBlockAccess::new(&rows, &mut log, i, false);
                    assert_eq!(acc.in_place(), in_place);
                    nd_with_row(acc.split(), |row, rest| {
                        let mut r = NdBlockRow::new(row, rest);
                        assert_eq!(r.row2().len(), if in_place { 3 } else { 0 });
                        for j in 0..3 {
                            if in_place {
                                r.row2()[j] = (10 * i + j) as u64;
                            } else {
                                NdBlockSet::set(&mut r, [i, j], (10 * i + j) as u64);
                            }
                            r[(i, j)] += 1;
                            if i == 1 {
                                r.set([0, j], 100 + j as u64);
                            }
                        }
                    });
                }
            }
            assert_eq!(log.len(), if in_place { 3 } else { 9 });
            log.scatter_into(a.as_slice_mut().unwrap()).unwrap();
            assert_eq!(a, serial, "in place {in_place}");
        }
    }

    #[test]
    #[should_panic(expected = "through the rest of a row made with another slice")]
    fn a_row_made_with_another_slice_never_reaches_the_own_row() {
        let mut a = Array2::<u8>::zeros((2, 2));
        let mut log = GatherBuf::new();
        // SAFETY: one access, on this thread.
        let place = unsafe { Place::new(a.as_slice_mut().unwrap(), true) };
        let rows = NdBlockPlace::new(place, ndarray::Ix2(2, 2), 0..2, "a");
        let mut acc = NdBlockAccess::new(&rows, &mut log, 1, false);
        let (row, rest) = acc.split().parts();
        let mut other = [0_u8; 1];
        let r = NdBlockRow::new(&mut other, rest);
        row[1] = 1;
        let _ = r[[1, 1]];
    }

    #[test]
    #[should_panic(expected = "(3 axes)")]
    fn row2_of_a_three_axis_array_panics() {
        let mut a = Array3::<u8>::zeros((2, 2, 2));
        let mut log = GatherBuf::new();
        // SAFETY: one access, on this thread.
        let place = unsafe { Place::new(a.as_slice_mut().unwrap(), true) };
        let rows = NdBlockPlace::new(place, ndarray::Ix3(2, 2, 2), 0..2, "a");
        NdBlockAccess::new(&rows, &mut log, 1, false).split().row2()[0] = 1;
    }

    #[test]
    #[should_panic(expected = "index [1, 3] is out of bounds for an array of shape [3, 3]")]
    fn an_index_past_an_axis_never_reaches_the_next_row() {
        let mut a = Array2::<u8>::zeros((3, 3));
        let mut log = GatherBuf::new();
        // SAFETY: one access, on this thread.
        let place = unsafe { Place::new(a.as_slice_mut().unwrap(), true) };
        let rows = NdBlockPlace::new(place, ndarray::Ix2(3, 3), 0..3, "a");
        NdBlockAccess::new(&rows, &mut log, 1, false).set([1, 3], 1);
    }

    #[test]
    #[should_panic(expected = "standard layout")]
    fn a_transposed_array_is_refused() {
        let a = Array2::<u8>::zeros((2, 3));
        let _ = standard_shape(&a.t());
    }
}
