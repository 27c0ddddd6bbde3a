//! Which variables a `#[par_doall]` body captures have interior mutability (issue 27 case 7).
//!
//! The macro rejects a change it can see (`counter.fetch_add(1, ..)` in the body), but not one a
//! step away: a helper function, a method or a local alias that calls `fetch_add` or `lock()`.
//! On threads such a change is shared by every worker; under `mpirun` every rank changes its own
//! copy and the others' changes are lost (a counter reads 562 on rank 0 and 438 on rank 1 of
//! 1000). So generated code asks, for each variable of the enclosing function the body uses
//! without a clause, whether its type is one of the interior-mutable types of std (atomics,
//! `Cell`, `RefCell`, `Mutex`, `RwLock`, `OnceCell`, `OnceLock`, channel senders) or a reference,
//! `Box`, `Rc`, `Arc`, `Vec`, array, slice or `Option` of one ([`InteriorMutable`]), with
//! autoref specialisation ([`Probe`]): a compile-time choice, no cost per iterate. Under MPI
//! with more than one rank, [`interior`] then ends the program naming the variable and the
//! clauses that work. Types of the program's own that contain such a field are not seen: the
//! book says so.

use std::cell::{Cell, OnceCell, RefCell, UnsafeCell};
use std::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize, AtomicPtr, AtomicU16,
    AtomicU32, AtomicU64, AtomicU8, AtomicUsize,
};
use std::sync::mpsc::{Sender, SyncSender};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// A type through which a shared reference can change a value: std's atomics, cells, locks and
/// channel senders, and references, boxes, `Rc`, `Arc`, vectors, arrays, slices and options of
/// them.
///
/// ```
/// use dls_runtime::interior::InteriorMutable;
/// fn has<T: InteriorMutable + ?Sized>() {}
/// has::<std::sync::atomic::AtomicU64>();
/// has::<std::sync::Arc<std::sync::Mutex<Vec<u8>>>>();
/// has::<&[std::cell::Cell<u8>]>();
/// ```
pub trait InteriorMutable {}

macro_rules! interior {
    ($($t:ty),* $(,)?) => { $(impl InteriorMutable for $t {})* };
}
interior!(
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
impl<T> InteriorMutable for AtomicPtr<T> {}
impl<T: ?Sized> InteriorMutable for Cell<T> {}
impl<T: ?Sized> InteriorMutable for RefCell<T> {}
impl<T: ?Sized> InteriorMutable for UnsafeCell<T> {}
impl<T> InteriorMutable for OnceCell<T> {}
impl<T: ?Sized> InteriorMutable for Mutex<T> {}
impl<T: ?Sized> InteriorMutable for RwLock<T> {}
impl<T> InteriorMutable for OnceLock<T> {}
impl<T> InteriorMutable for Sender<T> {}
impl<T> InteriorMutable for SyncSender<T> {}
impl<T: InteriorMutable + ?Sized> InteriorMutable for &T {}
impl<T: InteriorMutable + ?Sized> InteriorMutable for &mut T {}
impl<T: InteriorMutable + ?Sized> InteriorMutable for Box<T> {}
impl<T: InteriorMutable + ?Sized> InteriorMutable for std::rc::Rc<T> {}
impl<T: InteriorMutable + ?Sized> InteriorMutable for Arc<T> {}
impl<T: InteriorMutable> InteriorMutable for Vec<T> {}
impl<T: InteriorMutable> InteriorMutable for [T] {}
impl<T: InteriorMutable, const N: usize> InteriorMutable for [T; N] {}
impl<T: InteriorMutable> InteriorMutable for Option<T> {}

/// A reference to a captured variable, probed by `(&Probe(&x)).interior()` with both
/// [`FoundInterior`] and [`NoInterior`] in scope: the first applies when the type is
/// [`InteriorMutable`], the second (one auto-reference further) to every other type.
///
/// ```
/// use dls_runtime::interior::{FoundInterior as _, NoInterior as _, Probe};
/// let counter = std::sync::atomic::AtomicU64::new(0);
/// let plain = 3_u64;
/// assert_eq!((&Probe(&counter)).interior(), Some("core::sync::atomic::AtomicU64"));
/// assert_eq!((&Probe(&plain)).interior(), None);
/// ```
pub struct Probe<'a, T: ?Sized>(pub &'a T);

impl<T: ?Sized> std::fmt::Debug for Probe<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Probe<{}>", std::any::type_name::<T>())
    }
}

/// See [`Probe`]: the type's name, for an interior-mutable type.
pub trait FoundInterior {
    /// The type's name.
    fn interior(&self) -> Option<&'static str>;
}

impl<T: InteriorMutable + ?Sized> FoundInterior for Probe<'_, T> {
    fn interior(&self) -> Option<&'static str> {
        Some(std::any::type_name::<T>())
    }
}

/// See [`Probe`]: `None`, for every other type.
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
/// mutability) holds such a variable, naming it and the clauses that work. Nothing otherwise (on
/// threads every worker shares the variable, as in the serial loop).
///
/// ```
/// // On threads nothing happens.
/// dls_runtime::interior::interior("example", &[("counter", Some("AtomicU64")), ("n", None)]);
/// ```
pub fn interior(loop_name: &str, found: &[(&str, Option<&'static str>)]) {
    let Some((var, ty)) = found.iter().find_map(|(v, t)| t.map(|t| (*v, t))) else {
        return;
    };
    let Ok(rt) = crate::current() else {
        return;
    };
    if !matches!(rt.backend(), crate::Backend::Mpi { size, .. } if size > 1) {
        return;
    }
    crate::runtime::loops::panic_ctx::say_line(&format!(
        "error: loop {loop_name}: its body uses `{var}` (of type `{ty}`, which can change \
         through a shared reference) without a clause. Under mpirun every rank has its own \
         `{var}`, so what the iterates change through it (fetch_add, lock, set, borrow_mut, send, \
         here or in a function or method the body calls) happens per rank and the other ranks' \
         changes are lost. Make it a result: reduce(+: n) with a plain number, reduce(append: v) \
         with a Vec, or another reduce(...); or, if per-process state is what you want, declare \
         it: shared({var})"
    ));
    std::process::exit(1)
}
