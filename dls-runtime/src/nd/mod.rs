//! ndarray's arrays in the clauses of `#[par_doall]` (dls's feature `ndarray`, off by default: a
//! program that does not ask for it builds no ndarray).
//!
//! - `reduce(+: h)`, `*`, `max`, `min` on an owned array (`Array1`, `Array2`, `ArrayD`, …) of
//!   numbers: element by element, each worker starting from an array of the variable's shape
//!   whose elements are the identity ([`reduce`]).
//! - `gather(a)` on an owned array in standard layout: `a[[i, j]] = …` is written through the
//!   gather log of the array's elements in row-major order, and reads see the array as it was
//!   before the loop ([`slot`]); [`layout`] says which arrays are gathered and loops over.
//! - `for x in a.iter()`, `for x in &a`, `for row in a.rows()` and
//!   `for (i, sub) in a.outer_iter().enumerate()` become loops over an index ([`lanes`]).
//!
//! Under MPI an array in a `reduce` travels through ndarray's serde support (its shape and its
//! elements); a gather log holds elements only, so a gathered array's elements travel as those of
//! a `Vec` do.
//!
//! ```
//! use dls_runtime::reduce::{Max, Operator, Sum};
//! use ndarray::array;
//! let h = array![[1.0, 2.0], [3.0, 4.0]];
//! let mine = Sum.identity_like(&h);
//! assert_eq!(mine, array![[0.0, 0.0], [0.0, 0.0]]);
//! assert_eq!(Max.combine(h, array![[0.0, 5.0], [0.0, 0.0]]), array![[1.0, 5.0], [3.0, 4.0]]);
//! ```

pub mod lanes;
pub mod layout;
pub mod reduce;
pub mod rows;
pub mod slot;
