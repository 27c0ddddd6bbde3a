//! What a panic says when a `reduce` variable's workers started from `T::default()`.
//!
//! The built-in operators start each worker from the identity shaped like the variable
//! ([`Operator::identity_like`](crate::reduce::Operator::identity_like): a vector or an ndarray
//! array of its shape). Two forms cannot know a shape: `reduce(+: x)` on a type of the program's
//! own with `Add` and `Default` ([`AddDefault`]), and a merge function without `identity = …`
//! ([`Merge`]). Each worker's copy then starts from `T::default()`, which for a type with a shape
//! (a grid, a matrix of a library dls has no support for) is empty, and the first `x[k] += …`
//! panics with the type's own message (an index out of bounds). dls cannot tell a type with a
//! shape from one without (`Complex`, `Duration`, a `struct Vec3`, for which `Default` is right)
//! before the loop runs, and refusing `+` on every `Add + Default` type would refuse those too;
//! so the loop keeps the form, and a panic that leaves an iterate of such a loop is followed by a
//! note that names the variable, its type, where its workers started, and the fix
//! (`reduce(merge, identity = …: x)`). The built-in operators carry no such note: their guard is
//! `()`, which costs nothing.
//!
//! ```
//! use dls_runtime::default_start::default_start_note;
//! use dls_runtime::reduce::{AddDefault, Sum};
//! let () = default_start_note(&Sum, &vec![1.0], "v");
//! let _note = default_start_note(&AddDefault, &std::time::Duration::ZERO, "t");
//! ```

use std::marker::PhantomData;

use crate::reduce::{AddDefault, Max, Merge, Min, Product, Sum};

/// Which operators start a worker from `T::default()` rather than from a value shaped like the
/// variable, as the guard a run of iterates holds: `()` for the others.
pub trait StartNote<T> {
    /// What a run of iterates holds while it runs.
    type Guard;
    /// The guard for the variable `var`.
    fn guard(&self, var: &'static str) -> Self::Guard;
}

macro_rules! shaped {
    ($($op:ty),*) => {$(
        impl<T> StartNote<T> for $op {
            type Guard = ();
            fn guard(&self, _var: &'static str) {}
        }
    )*};
}
shaped!(Sum, Product, Max, Min);

impl<T> StartNote<T> for AddDefault {
    type Guard = DefaultStart<T>;
    fn guard(&self, var: &'static str) -> DefaultStart<T> {
        DefaultStart::new(var, "+")
    }
}

impl<T, F> StartNote<T> for Merge<F> {
    type Guard = DefaultStart<T>;
    fn guard(&self, var: &'static str) -> DefaultStart<T> {
        DefaultStart::new(var, "merge")
    }
}

/// Prints, when a panic unwinds through it, that the variable's workers started from
/// `T::default()`, and the fix.
///
/// ```
/// let note = dls_runtime::default_start::DefaultStart::<Vec<f64>>::new("grid", "+");
/// assert!(note.text().contains("reduce(path::to::merge, identity = "));
/// ```
pub struct DefaultStart<T> {
    var: &'static str,
    op: &'static str,
    ty: PhantomData<fn() -> T>,
}

impl<T> std::fmt::Debug for DefaultStart<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DefaultStart")
            .field("var", &self.var)
            .finish_non_exhaustive()
    }
}

impl<T> DefaultStart<T> {
    /// The note for `reduce(op: var)`.
    ///
    /// ```
    /// let _ = dls_runtime::default_start::DefaultStart::<u8>::new("x", "+");
    /// ```
    pub fn new(var: &'static str, op: &'static str) -> Self {
        DefaultStart {
            var,
            op,
            ty: PhantomData,
        }
    }

    /// What the note says.
    ///
    /// ```
    /// let note = dls_runtime::default_start::DefaultStart::<String>::new("s", "merge");
    /// assert!(note.text().contains("`alloc::string::String::default()`"));
    /// ```
    pub fn text(&self) -> String {
        let (var, ty) = (self.var, std::any::type_name::<T>());
        let clause = match self.op {
            "+" => format!("reduce(+: {var})"),
            _ => format!("reduce(<merge>: {var})"),
        };
        format!(
            "dls: note: in this loop, {clause} started each worker's copy of `{var}` from \
             `{ty}::default()` (dls knows no identity shaped like `{var}` for this type). If the \
             panic above comes from indexing `{var}` (an index out of bounds on an empty value), \
             give every worker a start of `{var}`'s shape: \
             reduce(path::to::merge, identity = <a value like {var}, every element the identity>: \
             {var}); an ndarray array takes reduce(+: {var}) with dls's feature `ndarray`"
        )
    }
}

impl<T> Drop for DefaultStart<T> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("{}", self.text());
        }
    }
}

/// The guard of a run of iterates for the `reduce` variable `var` (`like` only names its type):
/// `()` for the built-in operators, a [`DefaultStart`] for the forms that start from
/// `T::default()`.
///
/// ```
/// use dls_runtime::default_start::default_start_note;
/// let () = default_start_note(&dls_runtime::reduce::Max, &1.0_f64, "m");
/// ```
pub fn default_start_note<O: StartNote<T>, T>(op: &O, like: &T, var: &'static str) -> O::Guard {
    let _ = like;
    op.guard(var)
}
