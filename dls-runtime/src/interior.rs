//! Which variables a `#[par_doall]` body captures have interior mutability (issue 27 case 7,
//! issue 43 R4-1).
//!
//! The macro rejects a change it can see (`counter.fetch_add(1, ..)` in the body), but not one a
//! step away: a helper function, a method or a local alias that calls `fetch_add` or `lock()`.
//! On threads such a change is shared by every worker; under `mpirun` every rank changes its own
//! copy and the others' changes are lost (a counter reads 562 on rank 0 and 438 on rank 1 of
//! 1000). So generated code asks, for each variable of the enclosing function the body uses
//! without a clause (and each one that a closure defined before the loop and used in the body
//! captures), whether its type can change through a shared reference ([`Interior`]: std's
//! atomics, cells, locks and channel senders, and references, boxes, collections, options and
//! tuples holding one), with autoref specialisation ([`Probe`]): a compile-time choice, no cost
//! per iterate. Variables the body visibly only reads (`flag.load(..)`, `lock.read().unwrap()
//! .len()`) are left out by the macro. Under MPI with more than one rank, [`interior`] then ends
//! the program naming the variable and the clauses that work. Types of the program's own that
//! contain such a field are not seen: the book says so.

use std::cell::{Cell, OnceCell, RefCell, UnsafeCell};
use std::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize, AtomicPtr, AtomicU16,
    AtomicU32, AtomicU64, AtomicU8, AtomicUsize,
};
use std::sync::mpsc::{Sender, SyncSender};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// A type whose interior mutability dls can tell: [`INTERIOR`](Interior::INTERIOR) says whether
/// a shared reference to it can change a value inside it. True for std's atomics, cells, locks
/// and channel senders; false for numbers, `bool`, `char`, `String`, `str` and `()`; for
/// references, `Box`, `Rc`, `Arc`, `Vec`, `VecDeque`, arrays, slices, `Option`, `Result`,
/// `HashMap`, `BTreeMap`, `HashSet`, `BTreeSet` and tuples of up to 12 elements, whether any
/// element type has it (issue 43 R4-1). A type of the program's own has no implementation, nor
/// does anything that contains one: the probe then says nothing ([`NoInterior`]).
///
/// ```
/// use dls_runtime::interior::Interior;
/// use std::collections::HashMap;
/// use std::sync::atomic::AtomicU64;
/// use std::sync::{Arc, Mutex};
/// assert!(AtomicU64::INTERIOR);
/// assert!(<Arc<Mutex<Vec<u8>>>>::INTERIOR);
/// assert!(<&[std::cell::Cell<u8>]>::INTERIOR);
/// assert!(<(AtomicU64, u64)>::INTERIOR);
/// assert!(<HashMap<String, AtomicU64>>::INTERIOR);
/// assert!(!<(u64, Vec<String>)>::INTERIOR);
/// assert!(!<HashMap<String, Vec<f64>>>::INTERIOR);
/// ```
pub trait Interior {
    /// Whether a shared reference to a value of this type can change something inside it.
    const INTERIOR: bool;
}

macro_rules! leaf {
    ($v:expr; $($t:ty),* $(,)?) => { $(impl Interior for $t { const INTERIOR: bool = $v; })* };
}
leaf!(true;
    AtomicBool,
    AtomicI8,
    AtomicI16,
    AtomicI32,
    AtomicI64,
    AtomicIsize,
    AtomicU8,
    AtomicU16,
    AtomicU32,
    AtomicU64,
    AtomicUsize,
);
leaf!(false;
    bool, char, (), u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64,
    String, str, std::path::PathBuf, std::path::Path, std::time::Duration,
);

macro_rules! always {
    ($($t:ident),*) => { $(impl<T: ?Sized> Interior for $t<T> { const INTERIOR: bool = true; })* };
}
always!(Cell, RefCell, UnsafeCell, Mutex, RwLock);
impl<T> Interior for AtomicPtr<T> {
    const INTERIOR: bool = true;
}
impl<T> Interior for OnceCell<T> {
    const INTERIOR: bool = true;
}
impl<T> Interior for OnceLock<T> {
    const INTERIOR: bool = true;
}
impl<T> Interior for Sender<T> {
    const INTERIOR: bool = true;
}
impl<T> Interior for SyncSender<T> {
    const INTERIOR: bool = true;
}

macro_rules! inner {
    ($($t:ty),*) => { $(impl<T: Interior + ?Sized> Interior for $t { const INTERIOR: bool = T::INTERIOR; })* };
}
inner!(&T, &mut T, Box<T>, std::rc::Rc<T>, Arc<T>);
macro_rules! inner_sized {
    ($($t:ty),*) => { $(impl<T: Interior> Interior for $t { const INTERIOR: bool = T::INTERIOR; })* };
}
inner_sized!(
    Vec<T>,
    [T],
    Option<T>,
    std::collections::VecDeque<T>,
    std::collections::BTreeSet<T>
);
impl<T: Interior, const N: usize> Interior for [T; N] {
    const INTERIOR: bool = T::INTERIOR;
}
impl<T: Interior, E: Interior> Interior for Result<T, E> {
    const INTERIOR: bool = T::INTERIOR || E::INTERIOR;
}
impl<K: Interior, V: Interior, S> Interior for std::collections::HashMap<K, V, S> {
    const INTERIOR: bool = K::INTERIOR || V::INTERIOR;
}
impl<K: Interior, V: Interior> Interior for std::collections::BTreeMap<K, V> {
    const INTERIOR: bool = K::INTERIOR || V::INTERIOR;
}
impl<T: Interior, S> Interior for std::collections::HashSet<T, S> {
    const INTERIOR: bool = T::INTERIOR;
}

macro_rules! tuple {
    ($($t:ident)+) => {
        impl<$($t: Interior),+> Interior for ($($t,)+) {
            const INTERIOR: bool = false $(|| $t::INTERIOR)+;
        }
    };
}
tuple!(A);
tuple!(A B);
tuple!(A B C);
tuple!(A B C D);
tuple!(A B C D E);
tuple!(A B C D E F);
tuple!(A B C D E F G);
tuple!(A B C D E F G H);
tuple!(A B C D E F G H I);
tuple!(A B C D E F G H I J);
tuple!(A B C D E F G H I J K);
tuple!(A B C D E F G H I J K L);

/// A reference to a captured variable, probed by `(&Probe(&x)).interior()` with both
/// [`FoundInterior`] and [`NoInterior`] in scope: the first applies when the type implements
/// [`Interior`] (its answer is the type's), the second (one auto-reference further) to every
/// other type.
///
/// ```
/// use dls_runtime::interior::{FoundInterior as _, NoInterior as _, Probe};
/// let counter = std::sync::atomic::AtomicU64::new(0);
/// let plain = 3_u64;
/// assert_eq!((&Probe(&counter)).interior(), Some("core::sync::atomic::AtomicU64"));
/// assert_eq!((&Probe(&plain)).interior(), None);
/// let pair = (std::sync::atomic::AtomicU64::new(0), 0_u64);
/// assert!((&Probe(&pair)).interior().is_some());
/// ```
pub struct Probe<'a, T: ?Sized>(pub &'a T);

impl<T: ?Sized> std::fmt::Debug for Probe<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Probe<{}>", std::any::type_name::<T>())
    }
}

/// See [`Probe`]: the type's name, for a type that [`Interior`] says has interior mutability.
pub trait FoundInterior {
    /// The type's name.
    fn interior(&self) -> Option<&'static str>;
}

impl<T: Interior + ?Sized> FoundInterior for Probe<'_, T> {
    fn interior(&self) -> Option<&'static str> {
        T::INTERIOR.then(std::any::type_name::<T>)
    }
}

/// See [`Probe`]: `None`, for every type without an [`Interior`] implementation.
pub trait NoInterior {
    /// `None`.
    fn interior(&self) -> Option<&'static str>;
}

impl<T: ?Sized> NoInterior for &Probe<'_, T> {
    fn interior(&self) -> Option<&'static str> {
        None
    }
}

/// Under MPI with more than one rank: ends the program when `found` (each variable a
/// `#[par_doall]` loop's body uses without a clause, with its type's name when it has interior
/// mutability) holds such a variable, naming it and the clauses that work. A variable reached
/// through a closure the body uses is written `var@closure`. Nothing otherwise (on
/// threads every worker shares the variable, as in the serial loop).
///
/// ```
/// // On threads nothing happens.
/// dls_runtime::interior::interior("example", &[("counter", Some("AtomicU64")), ("n", None)]);
/// ```
pub fn interior(loop_name: &str, found: &[(&str, Option<&'static str>)]) {
    let Some((label, ty)) = found.iter().find_map(|(v, t)| t.map(|t| (*v, t))) else {
        return;
    };
    let (var, via) = match label.split_once('@') {
        Some((var, closure)) => (var, format!(" through the closure `{closure}`")),
        None => (label, String::new()),
    };
    let Ok(rt) = crate::current() else {
        return;
    };
    if !matches!(rt.backend(), crate::Backend::Mpi { size, .. } if size > 1) {
        return;
    }
    crate::runtime::loops::panic_ctx::say_line(&format!(
        "error: loop {loop_name}: its body uses `{var}`{via} (of type `{ty}`, which can change \
         through a shared reference) without a clause. Under mpirun every rank has its own \
         `{var}`, so what the iterates change through it (fetch_add, lock, set, borrow_mut, send, \
         here or in a function or method the body calls) happens per rank and the other ranks' \
         changes are lost. Make it a result: reduce(+: n) with a plain number, reduce(append: v) \
         with a Vec, or another reduce(...); or, if per-process state is what you want, declare \
         it: shared({var}). If the iterates only read it, read it in the body itself with a \
         method that only reads (load, get, read, lock ... len), or into a plain variable \
         before the loop"
    ));
    std::process::exit(1)
}

#[cfg(test)]
// The `&` before `Probe` is the autoref specialisation, not a needless borrow.
#[allow(clippy::needless_borrow)]
mod tests {
    use super::{FoundInterior as _, NoInterior as _, Probe};
    use std::collections::{BTreeMap, HashMap};
    use std::sync::atomic::AtomicU64;
    use std::sync::{Arc, Mutex, RwLock};

    #[test]
    fn tuples_and_collections_of_interior_types_are_seen() {
        let pair = (AtomicU64::new(0), 0_u64);
        let map: HashMap<String, AtomicU64> = HashMap::new();
        let tree: BTreeMap<u32, Vec<Arc<Mutex<u8>>>> = BTreeMap::new();
        let twelve = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, RwLock::new(0));
        assert!((&Probe(&pair)).interior().is_some());
        assert!((&Probe(&map)).interior().is_some());
        assert!((&Probe(&tree)).interior().is_some());
        assert!((&Probe(&twelve)).interior().is_some());
        assert!((&Probe(&&pair)).interior().is_some());
    }

    #[test]
    fn plain_data_and_unknown_types_are_not() {
        struct Own;
        let plain = (1_u64, String::new(), vec![1.0_f64]);
        let map: HashMap<String, Vec<u64>> = HashMap::new();
        let own = (AtomicU64::new(0), Own);
        let counter = AtomicU64::new(0);
        let closure = || counter.load(std::sync::atomic::Ordering::Relaxed);
        assert_eq!((&Probe(&plain)).interior(), None);
        assert_eq!((&Probe(&map)).interior(), None);
        // A type of the program's own, or a closure, hides what it holds.
        assert_eq!((&Probe(&own)).interior(), None);
        assert_eq!((&Probe(&closure)).interior(), None);
        let _ = (Own, closure());
    }
}
