//! Reduction operators: what `reduce(+: x)`, `reduce(*: x)`, `reduce(max: x)`, `reduce(min: x)` and
//! `reduce(path::to::merge_fn: x)` of `#[par_doall]` mean, as plain values the explicit API can use
//! too.
//!
//! A reduction is an associative operator `⊕` with an identity `e` (OpenMP 5.2 §5.5.5 semantics):
//! every worker starts its private copy at `e`, folds its iterates into it, the partial results are
//! combined with `⊕`, and finally the variable's value from before the loop is combined with the
//! total: `x_after = x_before ⊕ (p_1 ⊕ … ⊕ p_k)`. Because partial results may be combined in any
//! order, `⊕` must be associative and commutative for the result to equal the serial one
//! (floating-point `+` and `*` agree up to rounding).
//!
//! The operator only says *what* to combine. *How* the partial results travel (to a master, along a
//! tree, or pipelined as in the parallel-pipeline model of Kuntraruk, Pottenger and Ross, IEEE
//! TPDS, 2005) is the runtime's reduction strategy and can change without touching code that names
//! an operator.
//!
//! ```
//! use dls_runtime::reduce::{Max, Operator, Sum};
//! let parts = [3_i64, 4, 5];
//! let total = parts.iter().fold(Sum.identity(), |a, &b| Sum.combine(a, b));
//! assert_eq!(total, 12);
//! assert_eq!(Max.combine(Max.identity(), 2.5_f64), 2.5);
//! ```

use std::ops::{Add, Mul};

/// An associative, commutative operator with an identity element, over values of type `T`.
///
/// ```
/// use dls_runtime::reduce::{Operator, Product};
/// let one: u32 = Product.identity();
/// assert_eq!(Product.combine(one, 7_u32), 7);
/// ```
pub trait Operator<T>: Sync {
    /// The identity `e`: `combine(e, x) == x` for every `x`.
    fn identity(&self) -> T;
    /// `a ⊕ b`.
    fn combine(&self, a: T, b: T) -> T;
}

/// `reduce(+: x)`: sum; identity `T::default()` (zero for every number type).
///
/// ```
/// use dls_runtime::reduce::{Operator, Sum};
/// assert_eq!(Sum.combine(Sum.identity(), 1.5_f64), 1.5);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Sum;

impl<T: Default + Add<Output = T>> Operator<T> for Sum {
    fn identity(&self) -> T {
        T::default()
    }
    fn combine(&self, a: T, b: T) -> T {
        a + b
    }
}

/// `reduce(*: x)`: product; identity [`Bounds::ONE`].
///
/// ```
/// use dls_runtime::reduce::{Operator, Product};
/// assert_eq!(Product.combine(3_i8, 4), 12);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Product;

impl<T: Bounds + Mul<Output = T>> Operator<T> for Product {
    fn identity(&self) -> T {
        T::ONE
    }
    fn combine(&self, a: T, b: T) -> T {
        a * b
    }
}

/// `reduce(max: x)`: maximum; identity [`Bounds::LOWEST`] (`-inf` for floats). A NaN partial result
/// is ignored, as `f64::max` does.
///
/// ```
/// use dls_runtime::reduce::{Max, Operator};
/// assert_eq!(Max.combine(Max.identity(), -3_i32), -3);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Max;

impl<T: Bounds + PartialOrd> Operator<T> for Max {
    fn identity(&self) -> T {
        T::LOWEST
    }
    fn combine(&self, a: T, b: T) -> T {
        // `b > a` is false when b is NaN; `a != a` detects a NaN a.
        #[allow(clippy::eq_op)]
        if b > a || a != a {
            b
        } else {
            a
        }
    }
}

/// `reduce(min: x)`: minimum; identity [`Bounds::HIGHEST`] (`+inf` for floats). A NaN partial
/// result is ignored, as `f64::min` does.
///
/// ```
/// use dls_runtime::reduce::{Min, Operator};
/// assert_eq!(Min.combine(Min.identity(), 9_u8), 9);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Min;

impl<T: Bounds + PartialOrd> Operator<T> for Min {
    fn identity(&self) -> T {
        T::HIGHEST
    }
    fn combine(&self, a: T, b: T) -> T {
        #[allow(clippy::eq_op)]
        if b < a || a != a {
            b
        } else {
            a
        }
    }
}

/// `reduce(path::to::merge_fn: x)`: any user function `fn(T, T) -> T` that is associative and
/// commutative, with `T::default()` as its identity (an empty `Vec`, an empty `HashMap`, …).
///
/// ```
/// use dls_runtime::reduce::{Merge, Operator};
/// fn merge_sorted(a: Vec<u32>, b: Vec<u32>) -> Vec<u32> {
///     let mut v = [a, b].concat();
///     v.sort();
///     v
/// }
/// let m = Merge(merge_sorted);
/// assert_eq!(m.combine(vec![1, 5], m.combine(m.identity(), vec![2])), vec![1, 2, 5]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Merge<F>(pub F);

impl<T: Default, F: Fn(T, T) -> T + Sync> Operator<T> for Merge<F> {
    fn identity(&self) -> T {
        T::default()
    }
    fn combine(&self, a: T, b: T) -> T {
        (self.0)(a, b)
    }
}

/// Identities the built-in operators need beyond `Default`: one, and the extreme values.
///
/// ```
/// use dls_runtime::reduce::Bounds;
/// assert_eq!(<f32 as Bounds>::LOWEST, f32::NEG_INFINITY);
/// assert_eq!(<u16 as Bounds>::HIGHEST, u16::MAX);
/// ```
pub trait Bounds: Sized {
    /// The multiplicative identity.
    const ONE: Self;
    /// The identity of `max`: no value is smaller.
    const LOWEST: Self;
    /// The identity of `min`: no value is larger.
    const HIGHEST: Self;
}

macro_rules! int_bounds {
    ($($t:ty),*) => {$(
        impl Bounds for $t {
            const ONE: Self = 1;
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
        }
    )*};
}
int_bounds!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl Bounds for f32 {
    const ONE: Self = 1.0;
    const LOWEST: Self = f32::NEG_INFINITY;
    const HIGHEST: Self = f32::INFINITY;
}

impl Bounds for f64 {
    const ONE: Self = 1.0;
    const LOWEST: Self = f64::NEG_INFINITY;
    const HIGHEST: Self = f64::INFINITY;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_and_min_skip_nan_like_f64_max() {
        assert_eq!(Max.combine(f64::NAN, 1.0), 1.0);
        assert_eq!(Max.combine(1.0, f64::NAN), 1.0);
        assert_eq!(Min.combine(f64::NAN, -1.0), -1.0);
        assert_eq!(Min.combine(-1.0, f64::NAN), -1.0);
    }

    #[test]
    fn identities_are_neutral() {
        for x in [-7_i64, 0, 9] {
            assert_eq!(Sum.combine(Sum.identity(), x), x);
            assert_eq!(Product.combine(Product.identity(), x), x);
            assert_eq!(Max.combine(Max.identity(), x), x);
            assert_eq!(Min.combine(Min.identity(), x), x);
        }
    }

    #[test]
    fn merge_of_word_counts_adds_counts() {
        use std::collections::HashMap;
        fn add(mut a: HashMap<String, u32>, b: HashMap<String, u32>) -> HashMap<String, u32> {
            for (k, v) in b {
                *a.entry(k).or_insert(0) += v;
            }
            a
        }
        let m = Merge(add);
        let one = HashMap::from([("a".to_string(), 1)]);
        let two = HashMap::from([("a".to_string(), 2), ("b".to_string(), 1)]);
        let got = m.combine(m.combine(m.identity(), one), two);
        assert_eq!(got["a"], 3);
        assert_eq!(got["b"], 1);
    }
}
