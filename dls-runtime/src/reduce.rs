//! Reduction operators: what `reduce(+: x)`, `reduce(*: x)`, `reduce(max: x)`, `reduce(min: x)`,
//! `reduce(append: v)`, `reduce(path::to::merge_fn: x)` and
//! `reduce(path::to::merge_fn, identity = <expr>: x)` of `#[par_doall]` mean, as plain values the
//! explicit API can use too.
//!
//! A reduction is an associative operator `⊕` with an identity `e` (OpenMP 5.2 §5.5.5 semantics):
//! every worker starts its private copy at `e`, folds its iterates into it, the partial results are
//! combined with `⊕`, and finally the variable's value from before the loop is combined with the
//! total: `x_after = x_before ⊕ (p_1 ⊕ … ⊕ p_k)`. Because partial results may be combined in any
//! order, `⊕` must be associative and commutative for the result to equal the serial one
//! (floating-point `+` and `*` agree up to rounding).
//!
//! The built-in operators `+`, `*`, `max` and `min` ([`Sum`], [`Product`], [`Max`], [`Min`])
//! combine numbers, and **element by element** the [`Reducible`] containers of them: `Vec<T>`,
//! `[T; N]`, `Box<[T]>` (nested too: `Vec<[f64; 3]>`, `Vec<Vec<f64>>`), and `HashMap<K, V>` and
//! `BTreeMap<K, V>` (keys united, the values of a key combined). The macro starts each worker from
//! [`Operator::identity_like`] the variable: a vector of the variable's length whose elements are
//! all the identity, so `forces[j] -= f` works in the body. [`Append`] keeps the items an iterate
//! pushes in iteration order, and [`Merge`] and [`MergeFrom`] take a user function.
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
//! // Element by element, starting from an identity shaped like the variable.
//! let forces = vec![1.0, 2.0];
//! let mine = Sum.identity_like(&forces);
//! assert_eq!(mine, [0.0, 0.0]);
//! assert_eq!(Sum.combine(forces, vec![0.5, -2.0]), [1.5, 0.0]);
//! ```

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::ops::{Add, Deref, DerefMut};

use serde::{Deserialize, Serialize};

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
    /// The identity shaped like `like`, the value a worker's private copy of the variable `like`
    /// starts from: for the element-wise operators a vector of `like`'s length (an array, a
    /// nested vector of the same shape) whose elements are the identity, so that the body can
    /// index it. By default [`Operator::identity`].
    ///
    /// ```
    /// use dls_runtime::reduce::{Min, Operator};
    /// assert_eq!(Min.identity_like(&vec![[1_u8, 2]; 2]), [[u8::MAX; 2]; 2]);
    /// ```
    fn identity_like(&self, like: &T) -> T {
        let _ = like;
        self.identity()
    }
    /// `a ⊕ b`.
    fn combine(&self, a: T, b: T) -> T;
}

/// `reduce(+: x)`: sum; identity zero. On numbers and, element by element, on the [`Reducible`]
/// containers and maps of them. (The macro also accepts `+` for a type of the program's own
/// that implements `Add` and `Default`, through [`AddDefault`].)
///
/// ```
/// use dls_runtime::reduce::{Operator, Sum};
/// assert_eq!(Sum.combine(Sum.identity(), 1.5_f64), 1.5);
/// assert_eq!(Sum.combine([1, 2], [10, 20]), [11, 22]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Sum;

/// `reduce(*: x)`: product; identity [`Bounds::ONE`]. On numbers and, element by element, on the
/// [`Reducible`] containers and maps of them.
///
/// ```
/// use dls_runtime::reduce::{Operator, Product};
/// assert_eq!(Product.combine(3_i8, 4), 12);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Product;

/// `reduce(max: x)`: maximum; identity [`Bounds::LOWEST`] (`-inf` for floats). A NaN partial result
/// is ignored, as `f64::max` does. On numbers and, element by element, on the [`Reducible`]
/// containers and maps of them.
///
/// ```
/// use dls_runtime::reduce::{Max, Operator};
/// assert_eq!(Max.combine(Max.identity(), -3_i32), -3);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Max;

/// `reduce(min: x)`: minimum; identity [`Bounds::HIGHEST`] (`+inf` for floats). A NaN partial
/// result is ignored, as `f64::min` does. On numbers and, element by element, on the
/// [`Reducible`] containers and maps of them.
///
/// ```
/// use dls_runtime::reduce::{Min, Operator};
/// assert_eq!(Min.combine(Min.identity(), 9_u8), 9);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Min;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Sum {}
    impl Sealed for super::Product {}
    impl Sealed for super::Max {}
    impl Sealed for super::Min {}
}

/// The built-in element-wise operators [`Sum`], [`Product`], [`Max`] and [`Min`] (sealed): what
/// the containers of [`Reducible`] combine their elements with.
///
/// ```
/// use dls_runtime::reduce::{BuiltIn, Max};
/// assert_eq!(Max::SYMBOL, "max");
/// ```
pub trait BuiltIn: Copy + Sync + Send + sealed::Sealed {
    /// How the operator is written in `reduce(<op>: x)`: `+`, `*`, `max` or `min`.
    const SYMBOL: &'static str;
}

impl BuiltIn for Sum {
    const SYMBOL: &'static str = "+";
}
impl BuiltIn for Product {
    const SYMBOL: &'static str = "*";
}
impl BuiltIn for Max {
    const SYMBOL: &'static str = "max";
}
impl BuiltIn for Min {
    const SYMBOL: &'static str = "min";
}

macro_rules! symbol_display {
    ($($op:ty),*) => {$(
        impl fmt::Display for $op {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(<$op as BuiltIn>::SYMBOL)
            }
        }
        impl<T: Reducible<$op>> Operator<T> for $op {
            fn identity(&self) -> T {
                T::identity(self)
            }
            fn identity_like(&self, like: &T) -> T {
                like.identity_like(self)
            }
            fn combine(&self, a: T, b: T) -> T {
                T::combine(self, a, b)
            }
        }
    )*};
}
symbol_display!(Sum, Product, Max, Min);

/// A value that the built-in operator `O` ([`Sum`], [`Product`], [`Max`], [`Min`]) combines: the
/// primitive numbers, and element by element `Vec<T>`, `[T; N]`, `Box<[T]>`, `HashMap<K, T>` and
/// `BTreeMap<K, T>` of any `T: Reducible<O>` (so nested containers too).
///
/// Vectors combine element by element and must have the same length; an empty vector counts as
/// the identity (it is [`Reducible::identity`]), so `combine(identity, x) == x` holds. Combining
/// two non-empty vectors of different lengths panics with a message naming both lengths: it cannot
/// happen in a `#[par_doall]` loop that does not change the vector's length, because every worker
/// starts from [`Reducible::identity_like`] the variable. Maps unite their keys and combine the
/// values of a key present in both; their identity is the empty map.
///
/// A type of the program's own can implement this trait to be combined by the built-in operators,
/// inside containers too.
///
/// ```
/// use std::collections::BTreeMap;
/// use dls_runtime::reduce::{Max, Operator, Sum};
/// let a = BTreeMap::from([("x", vec![1, 5]), ("y", vec![2, 2])]);
/// let b = BTreeMap::from([("x", vec![3, 4])]);
/// let m = Max.combine(a, b);
/// assert_eq!(m["x"], [3, 5]);
/// assert_eq!(m["y"], [2, 2]);
/// assert_eq!(Sum.identity_like(&vec![[1.0_f64; 3]; 2]), vec![[0.0; 3]; 2]);
/// ```
#[diagnostic::on_unimplemented(
    message = "the built-in reduction operator `{O}` cannot combine values of type `{Self}`",
    label = "not a number, nor a Vec, array, Box<[T]>, HashMap or BTreeMap of numbers",
    note = "reduce(+: x), reduce(*: x), reduce(max: x) and reduce(min: x) work on the primitive numbers and, element by element, on Vec<T>, [T; N], Box<[T]>, HashMap<K, T> and BTreeMap<K, T> of them (nested too); reduce(+: x) also works on a type with `Add<Output = Self>` and `Default` when the variable's type is known before the loop",
    note = "for any other type, write an associative and commutative merge function fn(T, T) -> T and use reduce(path::to::merge: x), or reduce(path::to::merge, identity = <expr>: x) when the identity is not T::default(); to collect pushed items in iteration order use reduce(append: v)"
)]
pub trait Reducible<O>: Sized {
    /// The identity of `op` with no elements: the number's identity, an empty vector or map, an
    /// array of identities.
    fn identity(op: &O) -> Self;
    /// The identity with the shape of `self`: the same length and nesting, every number the
    /// identity; maps give the empty map.
    fn identity_like(&self, op: &O) -> Self;
    /// `a ⊕ b`, element by element.
    fn combine(op: &O, a: Self, b: Self) -> Self;
}

/// Keeps the NaN rule of `f64::max`: a NaN operand is ignored.
#[allow(clippy::eq_op)]
fn larger<T: PartialOrd>(a: T, b: T) -> T {
    // `b > a` is false when b is NaN; `a != a` detects a NaN a.
    if b > a || a != a {
        b
    } else {
        a
    }
}

/// Keeps the NaN rule of `f64::min`: a NaN operand is ignored.
#[allow(clippy::eq_op)]
fn smaller<T: PartialOrd>(a: T, b: T) -> T {
    if b < a || a != a {
        b
    } else {
        a
    }
}

macro_rules! number_reducible {
    ($($t:ty),*) => {$(
        impl Reducible<Sum> for $t {
            fn identity(_: &Sum) -> Self {
                <$t>::default()
            }
            fn identity_like(&self, op: &Sum) -> Self {
                Self::identity(op)
            }
            fn combine(_: &Sum, a: Self, b: Self) -> Self {
                a + b
            }
        }
        impl Reducible<Product> for $t {
            fn identity(_: &Product) -> Self {
                <$t as Bounds>::ONE
            }
            fn identity_like(&self, op: &Product) -> Self {
                Self::identity(op)
            }
            fn combine(_: &Product, a: Self, b: Self) -> Self {
                a * b
            }
        }
        impl Reducible<Max> for $t {
            fn identity(_: &Max) -> Self {
                <$t as Bounds>::LOWEST
            }
            fn identity_like(&self, op: &Max) -> Self {
                Self::identity(op)
            }
            fn combine(_: &Max, a: Self, b: Self) -> Self {
                larger(a, b)
            }
        }
        impl Reducible<Min> for $t {
            fn identity(_: &Min) -> Self {
                <$t as Bounds>::HIGHEST
            }
            fn identity_like(&self, op: &Min) -> Self {
                Self::identity(op)
            }
            fn combine(_: &Min, a: Self, b: Self) -> Self {
                smaller(a, b)
            }
        }
    )*};
}
number_reducible!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);

/// The error of combining two non-empty vectors of different lengths element by element.
#[track_caller]
fn length_mismatch<O: BuiltIn>(a: usize, b: usize) -> ! {
    panic!(
        "reduce({op}: …) combines vectors element by element, but two partial results have \
         lengths {a} and {b}: every partial result must have the length of the variable before \
         the loop (each worker starts from a copy of its shape). An iterate that pushes into or \
         resizes the vector changes its length; to collect pushed items in iteration order use \
         reduce(append: v), or write a merge function and use reduce(path::to::merge: v)",
        op = O::SYMBOL
    )
}

/// Spare capacity, in elements, that keeps a worker's partial vector off the cache lines of the
/// next allocation: a worker adds into its partial at every iterate, and an allocator hands out
/// neighbouring blocks to different threads (a block freed by one thread is reused by another),
/// so without it two workers' partials can share a cache line, which then moves between their
/// cores at every write (false sharing).
fn apart<T>() -> usize {
    const GAP: usize = 128;
    match std::mem::size_of::<T>() {
        0 => 0,
        size => GAP.div_ceil(size),
    }
}

/// `a ⊕ b` element by element for two vectors (an empty one is the identity).
fn combine_vecs<O: BuiltIn, T: Reducible<O>>(op: &O, a: Vec<T>, b: Vec<T>) -> Vec<T> {
    if b.is_empty() {
        return a;
    }
    if a.is_empty() {
        return b;
    }
    if a.len() != b.len() {
        length_mismatch::<O>(a.len(), b.len());
    }
    a.into_iter()
        .zip(b)
        .map(|(x, y)| T::combine(op, x, y))
        .collect()
}

impl<O: BuiltIn, T: Reducible<O>> Reducible<O> for Vec<T> {
    fn identity(_: &O) -> Self {
        Vec::new()
    }
    fn identity_like(&self, op: &O) -> Self {
        let mut v = Vec::with_capacity(self.len() + apart::<T>());
        v.extend(self.iter().map(|x| x.identity_like(op)));
        v
    }
    fn combine(op: &O, a: Self, b: Self) -> Self {
        combine_vecs(op, a, b)
    }
}

impl<O: BuiltIn, T: Reducible<O>> Reducible<O> for Box<[T]> {
    fn identity(_: &O) -> Self {
        Box::default()
    }
    fn identity_like(&self, op: &O) -> Self {
        self.iter().map(|x| x.identity_like(op)).collect()
    }
    fn combine(op: &O, a: Self, b: Self) -> Self {
        combine_vecs(op, a.into_vec(), b.into_vec()).into_boxed_slice()
    }
}

impl<O: BuiltIn, T: Reducible<O>, const N: usize> Reducible<O> for [T; N] {
    fn identity(op: &O) -> Self {
        std::array::from_fn(|_| T::identity(op))
    }
    fn identity_like(&self, op: &O) -> Self {
        std::array::from_fn(|k| self[k].identity_like(op))
    }
    fn combine(op: &O, a: Self, b: Self) -> Self {
        let mut b = b.into_iter();
        a.map(|x| match b.next() {
            Some(y) => T::combine(op, x, y),
            None => unreachable!("both arrays have N elements"),
        })
    }
}

impl<O: BuiltIn, K: Eq + Hash, V: Reducible<O>, S: BuildHasher + Default> Reducible<O>
    for HashMap<K, V, S>
{
    fn identity(_: &O) -> Self {
        HashMap::default()
    }
    fn identity_like(&self, op: &O) -> Self {
        Self::identity(op)
    }
    fn combine(op: &O, a: Self, b: Self) -> Self {
        use std::collections::hash_map::Entry;
        // The smaller map's entries go into the larger one, each with one look-up (a key in both
        // combines in place); `a`'s value stays the left operand.
        let (mut into, from, from_is_left) = if a.len() >= b.len() {
            (a, b, false)
        } else {
            (b, a, true)
        };
        for (k, v) in from {
            match into.entry(k) {
                Entry::Occupied(mut e) => {
                    let held = std::mem::replace(e.get_mut(), V::identity(op));
                    *e.get_mut() = if from_is_left {
                        V::combine(op, v, held)
                    } else {
                        V::combine(op, held, v)
                    };
                }
                Entry::Vacant(e) => {
                    e.insert(v);
                }
            }
        }
        into
    }
}

impl<O: BuiltIn, K: Ord, V: Reducible<O>> Reducible<O> for BTreeMap<K, V> {
    fn identity(_: &O) -> Self {
        BTreeMap::new()
    }
    fn identity_like(&self, op: &O) -> Self {
        Self::identity(op)
    }
    fn combine(op: &O, a: Self, b: Self) -> Self {
        if a.len() >= b.len() {
            let mut a = a;
            for (k, y) in b {
                let v = match a.remove(&k) {
                    Some(x) => V::combine(op, x, y),
                    None => y,
                };
                a.insert(k, v);
            }
            a
        } else {
            let mut b = b;
            for (k, x) in a {
                let v = match b.remove(&k) {
                    Some(y) => V::combine(op, x, y),
                    None => x,
                };
                b.insert(k, v);
            }
            b
        }
    }
}

/// `reduce(+: x)` on a type of the program's own that implements `Add<Output = Self>` and
/// `Default` (a complex number, a `Duration`, a statistics record): identity `T::default()`,
/// combined with `+`. [`Sum`] itself cannot also cover these types (Rust's coherence rules do not
/// allow both a blanket implementation over `Add` types and the element-wise one over `Vec`,
/// which the standard library could one day make `Add`); the macro picks `AddDefault` for `+`
/// when the variable's type is known before the loop and is not [`Reducible`]. In the explicit
/// API, name it directly.
///
/// ```
/// use std::time::Duration;
/// use dls_runtime::reduce::{AddDefault, Operator};
/// let t = AddDefault.combine(AddDefault.identity(), Duration::from_millis(3));
/// assert_eq!(t, Duration::from_millis(3));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct AddDefault;

impl<T: Default + Add<Output = T>> Operator<T> for AddDefault {
    fn identity(&self) -> T {
        T::default()
    }
    fn combine(&self, a: T, b: T) -> T {
        a + b
    }
}

/// `reduce(path::to::merge_fn: x)`: any user function `fn(T, T) -> T` that is associative and
/// commutative, with `T::default()` as its identity (an empty `Vec`, an empty `HashMap`, …). When
/// the identity is another value, use [`MergeFrom`].
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

/// `reduce(path::to::merge_fn, identity = <expr>: x)`: a user function `fn(T, T) -> T`
/// (associative and commutative) with the identity given as a value, for a type that is not
/// `Default` or whose identity is not its default: `vec![0.0; n]` for an element-wise sum the body
/// indexes, a matrix of a given size, an interval `[+inf, -inf]`. Each worker starts from a clone
/// of the identity. The identity must be neutral (`merge(identity, x) == x`): each worker
/// starts from it, so a value that is not would be counted once per worker.
///
/// ```
/// use dls_runtime::reduce::{MergeFrom, Operator};
/// fn add(mut a: Vec<f64>, b: Vec<f64>) -> Vec<f64> {
///     a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
///     a
/// }
/// let m = MergeFrom(add, vec![0.0; 3]);
/// let mut part = m.identity();
/// part[2] += 1.5;
/// assert_eq!(m.combine(vec![1.0; 3], part), [1.0, 1.0, 2.5]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct MergeFrom<F, T>(pub F, pub T);

impl<T: Clone + Sync, F: Fn(T, T) -> T + Sync> Operator<T> for MergeFrom<F, T> {
    fn identity(&self) -> T {
        self.1.clone()
    }
    fn combine(&self, a: T, b: T) -> T {
        (self.0)(a, b)
    }
}

/// `reduce(append: v)`: the items the iterates push into `v` (a `Vec`), appended to `v` **in
/// iteration order**, as the serial loop leaves them, whatever the schedule and the number of
/// workers. Each worker logs every iterate's items with the iterate's index in an [`AppendBuf`]
/// (through an [`AppendSlot`], which is what `v` means inside the body); the logs are combined by
/// [`AppendBuf::merge`] and sorted by index once, at the end ([`AppendBuf::append_to`]).
///
/// ```
/// use dls_runtime::reduce::{Append, AppendBuf, AppendSlot, Operator};
/// let (mut a, mut b) = (Append.identity(), Append.identity());
/// for i in [0_u32, 1, 4] {
///     AppendSlot::new(&mut a, i).push(i * 10);
/// }
/// for i in [2_u32, 3] {
///     AppendSlot::new(&mut b, i).extend([i * 10, i * 10 + 1]);
/// }
/// let mut v = vec![7];
/// Append.combine(b, a).append_to(&mut v);
/// assert_eq!(v, [7, 0, 10, 20, 21, 30, 31, 40]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Append;

impl<T> Operator<AppendBuf<T>> for Append {
    fn identity(&self) -> AppendBuf<T> {
        AppendBuf::new()
    }
    fn combine(&self, a: AppendBuf<T>, b: AppendBuf<T>) -> AppendBuf<T> {
        AppendBuf::merge(a, b)
    }
}

/// A loop index's position in the iteration order, as a `u128` that orders like the index: what
/// [`AppendSlot`] records. Implemented for every primitive integer type (the loop index types).
///
/// ```
/// use dls_runtime::reduce::IterateKey;
/// assert!((-1_i8).order_key() < 0_i8.order_key());
/// assert_eq!(0_u64.order_key() + 1, 1_u64.order_key());
/// ```
pub trait IterateKey: Copy {
    /// A key that orders like the index, consecutive for consecutive indices.
    fn order_key(self) -> u128;
}

macro_rules! iterate_key {
    ($($t:ty => $u:ty),*) => {$(
        impl IterateKey for $t {
            #[inline]
            fn order_key(self) -> u128 {
                // Shifting by the type's minimum maps it to 0 and keeps the order.
                self.wrapping_sub(<$t>::MIN) as $u as u128
            }
        }
    )*};
}
iterate_key!(
    u8 => u8, u16 => u16, u32 => u32, u64 => u64, u128 => u128, usize => usize,
    i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128, isize => usize
);

/// One worker's log for `reduce(append: v)`: runs `(key of the first iterate, items)`, each the
/// items of consecutive iterates the worker ran, in their order. Sent between ranks, so it is
/// serialisable when `T` is.
///
/// ```
/// use dls_runtime::reduce::{AppendBuf, AppendSlot};
/// let mut log = AppendBuf::new();
/// AppendSlot::new(&mut log, 5_usize).push('b');
/// AppendSlot::new(&mut log, 2_usize).push('a');
/// assert_eq!(log.len(), 2);
/// assert_eq!(log.into_vec(), ['a', 'b']);
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AppendBuf<T> {
    /// `(order key of the run's first iterate, the items of its iterates)`.
    runs: Vec<(u128, Vec<T>)>,
    /// The key of the iterate whose items would continue the last run (the iterate after the
    /// last one this worker ran), if the last run is still open.
    #[serde(skip)]
    next: Option<u128>,
    /// An empty vector whose capacity the next iterate's items reuse.
    #[serde(skip)]
    spare: Vec<T>,
}

impl<T> Default for AppendBuf<T> {
    fn default() -> Self {
        AppendBuf::new()
    }
}

impl<T> AppendBuf<T> {
    /// An empty log (the identity of [`AppendBuf::merge`]).
    ///
    /// ```
    /// assert!(dls_runtime::reduce::AppendBuf::<u8>::new().is_empty());
    /// ```
    pub fn new() -> Self {
        AppendBuf {
            runs: Vec::new(),
            next: None,
            spare: Vec::new(),
        }
    }

    /// Number of items logged.
    ///
    /// ```
    /// assert_eq!(dls_runtime::reduce::AppendBuf::<u8>::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.runs.iter().map(|(_, items)| items.len()).sum()
    }

    /// True when no item was logged.
    ///
    /// ```
    /// assert!(dls_runtime::reduce::AppendBuf::<u8>::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Logs the items of the iterate with key `key` (emptying `items`).
    fn log(&mut self, key: u128, items: &mut Vec<T>) {
        let continues = self.next == Some(key) && !self.runs.is_empty();
        let pushed = !items.is_empty();
        if pushed {
            if continues {
                let last = self.runs.len() - 1;
                self.runs[last].1.append(items);
            } else {
                // The run before is complete: give back what its growth reserved.
                if let Some((_, done)) = self.runs.last_mut() {
                    done.shrink_to_fit();
                }
                self.runs.push((key, std::mem::take(items)));
            }
        }
        self.next = if continues || pushed {
            key.checked_add(1)
        } else {
            None
        };
    }

    /// Both logs in one (moves the runs of the shorter list after the longer's; items are not
    /// copied). The order of the runs does not matter: [`AppendBuf::append_to`] sorts them.
    ///
    /// ```
    /// use dls_runtime::reduce::{AppendBuf, AppendSlot};
    /// let (mut a, mut b) = (AppendBuf::new(), AppendBuf::new());
    /// AppendSlot::new(&mut a, 1_u8).push(1);
    /// AppendSlot::new(&mut b, 0_u8).push(0);
    /// assert_eq!(AppendBuf::merge(a, b).into_vec(), [0, 1]);
    /// ```
    pub fn merge(mut a: Self, mut b: Self) -> Self {
        if a.runs.len() < b.runs.len() {
            std::mem::swap(&mut a, &mut b);
        }
        a.runs.append(&mut b.runs);
        a.next = None;
        a
    }

    /// Appends every logged item to `out`, in the order of the iterates that pushed them.
    ///
    /// ```
    /// use dls_runtime::reduce::{AppendBuf, AppendSlot};
    /// let mut log = AppendBuf::new();
    /// AppendSlot::new(&mut log, -1_i32).push("b");
    /// AppendSlot::new(&mut log, -5_i32).push("a");
    /// let mut out = vec!["old"];
    /// log.append_to(&mut out);
    /// assert_eq!(out, ["old", "a", "b"]);
    /// ```
    pub fn append_to(mut self, out: &mut Vec<T>) {
        // Every run holds iterates no other run holds, so ordering the runs by their first
        // iterate orders the items.
        self.runs.sort_unstable_by_key(|(key, _)| *key);
        out.reserve(self.len());
        for (_, mut items) in self.runs {
            out.append(&mut items);
        }
    }

    /// The logged items in the order of the iterates that pushed them.
    ///
    /// ```
    /// assert!(dls_runtime::reduce::AppendBuf::<u8>::new().into_vec().is_empty());
    /// ```
    pub fn into_vec(self) -> Vec<T> {
        let mut out = Vec::new();
        self.append_to(&mut out);
        out
    }
}

/// What the name of an `append` variable means inside the body, for one iterate: a `Vec` of this
/// iterate's own items (it derefs to one, so `v.push(x)`, `v.extend(…)`, `v.len()` work), logged
/// with the iterate's index when the iterate ends. Reads see only this iterate's items, not the
/// vector before the loop nor other iterates' items.
///
/// ```
/// use dls_runtime::reduce::{AppendBuf, AppendSlot};
/// let mut log = AppendBuf::new();
/// {
///     let mut v = AppendSlot::new(&mut log, 3_u64);
///     v.push(1.5);
///     v.extend([2.5, 3.5]);
///     assert_eq!(v.len(), 3);
/// }
/// assert_eq!(log.into_vec(), [1.5, 2.5, 3.5]);
/// ```
pub struct AppendSlot<'a, T> {
    buf: &'a mut AppendBuf<T>,
    key: u128,
    items: Vec<T>,
}

impl<T> fmt::Debug for AppendSlot<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AppendSlot")
            .field("items", &self.items.len())
            .finish_non_exhaustive()
    }
}

impl<'a, T> AppendSlot<'a, T> {
    /// The slot of the iterate with loop index `index`, logging into `buf`.
    ///
    /// ```
    /// let mut log = dls_runtime::reduce::AppendBuf::<u8>::new();
    /// assert!(dls_runtime::reduce::AppendSlot::new(&mut log, 0_u8).is_empty());
    /// ```
    pub fn new<I: IterateKey>(buf: &'a mut AppendBuf<T>, index: I) -> Self {
        let items = std::mem::take(&mut buf.spare);
        AppendSlot {
            buf,
            key: index.order_key(),
            items,
        }
    }
}

impl<T> Drop for AppendSlot<'_, T> {
    /// The iterate ends: its items go to the log.
    fn drop(&mut self) {
        self.buf.log(self.key, &mut self.items);
        self.items.clear();
        self.buf.spare = std::mem::take(&mut self.items);
    }
}

impl<T> Deref for AppendSlot<'_, T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.items
    }
}

impl<T> DerefMut for AppendSlot<'_, T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.items
    }
}

/// The variable of `reduce(append: v)`: a `Vec` (or a mutable reference to one), which the items
/// are appended to after the loop.
///
/// ```
/// use dls_runtime::reduce::{AppendBuf, AppendTarget};
/// let mut v = vec![1];
/// v.append_log(AppendBuf::new());
/// assert_eq!(v, [1]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`reduce(append: …)` collects items into a `Vec`, not into `{Self}`",
    label = "not a Vec",
    note = "for numbers use reduce(+: x); for another collection write a merge function and use reduce(path::to::merge: x)"
)]
pub trait AppendTarget {
    /// The element type.
    type Item;
    /// Appends the log's items in iteration order ([`AppendBuf::append_to`]).
    fn append_log(&mut self, log: AppendBuf<Self::Item>);
}

impl<T> AppendTarget for Vec<T> {
    type Item = T;
    fn append_log(&mut self, log: AppendBuf<T>) {
        log.append_to(self);
    }
}

impl<V: AppendTarget + ?Sized> AppendTarget for &mut V {
    type Item = V::Item;
    fn append_log(&mut self, log: AppendBuf<V::Item>) {
        (**self).append_log(log);
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

    /// A worker's partial vector ends in 128 bytes of spare capacity (nested ones too), and
    /// keeps it through the combine of two partials, which adds into the first one's block.
    #[test]
    fn partial_vectors_keep_apart_from_the_next_block() {
        let like = vec![1.5_f64; 8];
        let a = Sum.identity_like(&like);
        assert_eq!(a, [0.0; 8]);
        assert!(a.capacity() >= 8 + 16, "capacity {}", a.capacity());
        let nested = Sum.identity_like(&vec![vec![7_u32; 3]; 2]);
        assert!(nested.iter().all(|v| v.capacity() >= 3 + 32));
        let block = a.as_ptr();
        let sum = Sum.combine(a, vec![1.0; 8]);
        assert_eq!((sum.as_ptr(), sum.len()), (block, 8));
        assert!(sum.capacity() >= 8 + 16);
        assert_eq!(apart::<()>(), 0);
        assert_eq!(apart::<[u8; 200]>(), 1);
    }

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

    #[test]
    fn element_wise_on_vec_array_box_and_nested() {
        assert_eq!(Sum.combine(vec![1, 2, 3], vec![10, 20, 30]), [11, 22, 33]);
        assert_eq!(Product.combine([2.0, 3.0], [4.0, 0.5]), [8.0, 1.5]);
        assert_eq!(Max.combine(vec![1_u8, 9], vec![5, 2]), [5, 9]);
        assert_eq!(Min.combine(vec![1_i64, 9], vec![5, 2]), [1, 2]);
        let boxed: Box<[u32]> = Sum.combine(vec![1, 2].into(), vec![3, 4].into());
        assert_eq!(&*boxed, &[4, 6]);
        let nested = Sum.combine(vec![[1.0, 2.0, 3.0]; 2], vec![[0.5, 0.5, 0.5]; 2]);
        assert_eq!(nested, vec![[1.5, 2.5, 3.5]; 2]);
        let rows = Sum.combine(vec![vec![1, 2], vec![3]], vec![vec![10, 20], vec![30]]);
        assert_eq!(rows, [vec![11, 22], vec![33]]);
        // NaN partial results are ignored element by element, as by f64::max.
        assert_eq!(
            Max.combine(vec![f64::NAN, 1.0], vec![2.0, f64::NAN]),
            [2.0, 1.0]
        );
    }

    #[test]
    fn identity_like_has_the_shape_of_the_variable() {
        assert_eq!(Sum.identity_like(&vec![3.0; 4]), [0.0; 4]);
        assert_eq!(
            Product.identity_like(&vec![vec![5_u8; 2], vec![]]),
            [vec![1, 1], vec![]]
        );
        assert_eq!(Max.identity_like(&[[1_i16; 2]; 3]), [[i16::MIN; 2]; 3]);
        let boxed: Box<[f32]> = vec![1.0; 2].into();
        assert_eq!(&*Min.identity_like(&boxed), &[f32::INFINITY; 2]);
        let counts = HashMap::from([("a", 3_u64)]);
        assert!(Sum.identity_like(&counts).is_empty());
        // Numbers: the identity itself.
        assert_eq!(Sum.identity_like(&7_i32), 0);
        assert_eq!(Merge(|a: u8, b: u8| a + b).identity_like(&4), 0);
        assert_eq!(MergeFrom(|a: u8, b: u8| a + b, 9).identity_like(&4), 9);
    }

    #[test]
    fn an_empty_vector_is_the_identity_and_the_law_holds() {
        let x = vec![1.5, -2.0];
        assert_eq!(Sum.combine(Sum.identity(), x.clone()), x);
        assert_eq!(Sum.combine(x.clone(), Sum.identity()), x);
        assert_eq!(Sum.combine(Sum.identity_like(&x), x.clone()), x);
        assert_eq!(Max.combine(Max.identity_like(&x), x.clone()), x);
        assert_eq!(Product.combine(Product.identity_like(&x), x.clone()), x);
        let a: [u8; 3] = Min.identity();
        assert_eq!(Min.combine(a, [4, 5, 6]), [4, 5, 6]);
    }

    #[test]
    fn vectors_of_different_lengths_are_an_error_naming_both() {
        let r = std::panic::catch_unwind(|| Sum.combine(vec![1.0; 3], vec![1.0; 5]));
        let e = r.expect_err("lengths 3 and 5 must not combine");
        let why = e.downcast_ref::<String>().expect("a formatted message");
        assert!(why.contains("reduce(+: …)"), "{why}");
        assert!(why.contains("lengths 3 and 5"), "{why}");
        assert!(why.contains("reduce(append: v)"), "{why}");
        // Nested: the inner vectors too.
        let r = std::panic::catch_unwind(|| Max.combine(vec![vec![1]], vec![vec![1, 2]]));
        let e = r.expect_err("inner lengths 1 and 2");
        let why = e.downcast_ref::<String>().unwrap();
        assert!(
            why.contains("reduce(max: …)") && why.contains("lengths 1 and 2"),
            "{why}"
        );
    }

    #[test]
    fn maps_unite_keys_and_combine_values() {
        use std::collections::BTreeMap;
        let a = HashMap::from([("to".to_string(), 2_u64), ("be".to_string(), 1)]);
        let b = HashMap::from([("be".to_string(), 3_u64), ("or".to_string(), 1)]);
        let c = Sum.combine(Sum.combine(Sum.identity(), a.clone()), b.clone());
        assert_eq!(c.len(), 3);
        assert_eq!((c["to"], c["be"], c["or"]), (2, 4, 1));
        // Either operand may be the larger one.
        assert_eq!(Sum.combine(b, a), c);
        let m = Max.combine(
            BTreeMap::from([(1, [1.0, 5.0])]),
            BTreeMap::from([(1, [3.0, 2.0]), (2, [0.0, 0.0])]),
        );
        assert_eq!(m, BTreeMap::from([(1, [3.0, 5.0]), (2, [0.0, 0.0])]));
        let p = Product.combine(
            BTreeMap::from([('x', 3)]),
            BTreeMap::from([('x', 4), ('y', 5)]),
        );
        assert_eq!(p, BTreeMap::from([('x', 12), ('y', 5)]));
        let lo = Min.combine(HashMap::from([(0, 3_i8)]), HashMap::from([(0, -4_i8)]));
        assert_eq!(lo[&0], -4);
        let nested = Sum.combine(
            BTreeMap::from([("a", vec![1, 1])]),
            BTreeMap::from([("a", vec![2, 3])]),
        );
        assert_eq!(nested["a"], [3, 4]);
    }

    #[test]
    fn append_keeps_iteration_order_across_workers_and_runs() {
        // Three workers ran interleaved chunks of 0..12 (as SS on three threads may), some
        // iterates pushing nothing, one pushing several items.
        let chunks: [&[i32]; 3] = [&[0, 1, 6, 11], &[2, 3, 4, 9], &[5, 7, 8, 10]];
        let items = |i: i32| -> Vec<i32> {
            match i % 4 {
                0 => vec![],
                1 => vec![i * 10],
                _ => vec![i * 10, i * 10 + 1],
            }
        };
        let mut logs: Vec<AppendBuf<i32>> = Vec::new();
        for chunk in chunks {
            let mut log = Append.identity();
            for &i in chunk {
                let mut v = AppendSlot::new(&mut log, i - 6);
                v.extend(items(i));
            }
            logs.push(log);
        }
        let serial: Vec<i32> = (0..12).flat_map(items).collect();
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
            let mut parts: Vec<_> = order.iter().map(|&k| logs[k].clone()).collect();
            let mut total = parts.remove(0);
            for p in parts {
                total = Append.combine(p, total);
            }
            let mut out = vec![-1];
            total.append_to(&mut out);
            assert_eq!(out[0], -1);
            assert_eq!(out[1..], serial[..], "order {order:?}");
        }
    }

    #[test]
    fn append_runs_span_consecutive_iterates_only() {
        let mut log = AppendBuf::new();
        for i in [0_u64, 1, 2, 5, 6] {
            if i != 1 {
                AppendSlot::new(&mut log, i).push(i);
            } else {
                drop(AppendSlot::new(&mut log, i));
            }
        }
        // 0..=2 is one run (1 pushed nothing but ran here), 5..=6 another.
        assert_eq!(log.runs.len(), 2);
        assert_eq!(log.runs[0], (0, vec![0, 2]));
        assert_eq!(log.runs[1], (5, vec![5, 6]));
        let back: AppendBuf<u64> =
            serde_json::from_str(&serde_json::to_string(&log).unwrap()).unwrap();
        assert_eq!(back.into_vec(), [0, 2, 5, 6]);
    }

    #[test]
    fn iterate_keys_order_like_the_index() {
        assert_eq!(i8::MIN.order_key(), 0);
        assert_eq!(i8::MAX.order_key(), 255);
        assert!((-1_i64).order_key() < 1_i64.order_key());
        assert_eq!((-1_i64).order_key() + 1, 0_i64.order_key());
        assert_eq!(u128::MAX.order_key(), u128::MAX);
        assert_eq!(i128::MIN.order_key(), 0);
    }

    #[test]
    fn add_default_covers_own_add_types() {
        #[derive(Debug, Default, PartialEq)]
        struct Complex(f64, f64);
        impl Add for Complex {
            type Output = Complex;
            fn add(self, o: Complex) -> Complex {
                Complex(self.0 + o.0, self.1 + o.1)
            }
        }
        let z = AddDefault.combine(AddDefault.identity(), Complex(1.0, 2.0));
        assert_eq!(AddDefault.combine(z, Complex(0.5, 0.5)), Complex(1.5, 2.5));
    }

    proptest::proptest! {
        /// Element-wise sums of random partial results, combined in a random tree order, equal
        /// the serial fold of all the values.
        #[test]
        fn element_wise_sums_equal_the_serial_fold(
            len in 0_usize..20,
            values in proptest::collection::vec(-1000_i64..1000, 0..400),
            cuts in proptest::collection::vec(0_usize..400, 0..8),
            order in proptest::collection::vec(0_usize..1000, 0..16),
        ) {
            let len = len.max(1);
            let before: Vec<[i64; 2]> = (0..len as i64).map(|k| [k, -k]).collect();
            // The serial loop: iterate t adds values[t] at element t % len.
            let mut serial = before.clone();
            for (t, v) in values.iter().enumerate() {
                serial[t % len][0] += v;
                serial[t % len][1] -= 2 * v;
            }
            // The workers: cut the iterates into chunks, each folded from identity_like.
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(values.len())).collect();
            cuts.push(0);
            cuts.push(values.len());
            cuts.sort_unstable();
            let mut parts: Vec<Vec<[i64; 2]>> = cuts
                .windows(2)
                .map(|w| {
                    let mut acc = Sum.identity_like(&before);
                    for t in w[0]..w[1] {
                        acc[t % len][0] += values[t];
                        acc[t % len][1] -= 2 * values[t];
                    }
                    acc
                })
                .collect();
            // Combine in a random order of pairs.
            for pick in order {
                if parts.len() < 2 {
                    break;
                }
                let a = parts.swap_remove(pick % parts.len());
                let b = parts.swap_remove(pick % parts.len());
                parts.push(Sum.combine(a, b));
            }
            let total = parts.into_iter().fold(Sum.identity(), |a, b| Sum.combine(a, b));
            proptest::prop_assert_eq!(Sum.combine(before, total), serial);
        }
    }
}
