//! Happens-before annotations for valgrind's race detectors (DRD, Helgrind), behind the
//! feature `valgrind` of dls-runtime (off by default; `scripts/valgrind.sh` turns it on).
//!
//! DRD and Helgrind see only pthread calls and annotated code. The runtime synchronises with
//! std's futex-based `Mutex` and `Condvar` and with hand-made atomics, which neither tool
//! sees: without annotations every access under a lock is a "race" (4,380 reports on the pool's
//! stress test). With the feature, the types of [`sync`] are thin wrappers of std's that
//! tell the tool what they do:
//! - a mutex's unlock is a happens-before mark on the mutex's address and its lock a
//!   happens-after mark on it (a condition variable's wait is an unlock and a lock);
//! - an atomic store or read-modify-write with `Release`, `AcqRel` or `SeqCst` ordering is a
//!   happens-before mark on the atomic's address, issued before the operation; a load or
//!   read-modify-write with `Acquire`, `AcqRel` or `SeqCst` a happens-after mark, issued after
//!   it. The atomic's own bytes are not checked (an atomic access is never a data race);
//! - a `OnceLock`'s initialisation is a happens-before mark on the cell, issued when the value
//!   is computed (before std's `Once` publishes it), and every `get_or_init` or `get` that
//!   returns a value a happens-after mark; the cell's own bytes (std's `Once` state and the
//!   value, written once before that publication and never again through `&self`) are not
//!   checked.
//!
//! The marks are what valgrind's `ANNOTATE_HAPPENS_BEFORE`/`ANNOTATE_HAPPENS_AFTER` macros
//! (`drd.h`, `helgrind.h`; both tools take the same request codes) send: a client request, the
//! "magic" instruction sequence that valgrind recognises and that does nothing on a real CPU.
//! It is written here as ten lines of inline assembly instead of a dependency (a crate such as
//! `crabgrind` compiles valgrind's C header with a build script and a C compiler, for three
//! requests). On targets other than x86_64 the marks are empty (and the race verdict then
//! meaningless; CI runs x86_64).
//!
//! An over-approximation to know when reading a clean verdict: a happens-after mark on an
//! atomic takes every earlier happens-before mark on it, also those of stores that the load did
//! not read. A race hidden only by that would need an acquire load that reads an older value
//! than a release store already made: the tool can miss it; the loom models
//! (`backend/loom_models.rs`) check the orderings themselves.
//!
//! Without the feature [`sync`] re-exports std's types: no cost.

/// The client request codes (valgrind's `drd.h` and `helgrind.h`, which share them).
#[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
mod request {
    /// `VG_USERREQ_TOOL_BASE('H','G') + 256 + 33`: `ANNOTATE_HAPPENS_BEFORE`.
    pub(super) const HAPPENS_BEFORE: usize = 0x4847_0121;
    /// `VG_USERREQ_TOOL_BASE('H','G') + 256 + 34`: `ANNOTATE_HAPPENS_AFTER`.
    pub(super) const HAPPENS_AFTER: usize = 0x4847_0122;
    /// `VG_USERREQ__DRD_START_SUPPRESSION` (`DRD_IGNORE_VAR`): DRD checks no access to the range.
    pub(super) const DRD_IGNORE: usize = 0x4452_0002;
}

/// Sends a client request to valgrind (a no-op on a real CPU: the four rotations of `rdi` add
/// up to 128 bits, and `xchg rbx, rbx` changes nothing).
#[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
#[inline(always)]
fn client_request(code: usize, a1: usize, a2: usize) {
    let args: [usize; 6] = [code, a1, a2, 0, 0, 0];
    // SAFETY: the sequence only rotates rdi by a multiple of its width and exchanges rbx with
    // itself (valgrind's documented magic sequence, valgrind.h, amd64-linux); valgrind reads
    // the six words at rax and writes its answer to rdx, declared clobbered.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") 0usize => _,
            out("rdi") _,
            options(nostack),
        );
    }
}

/// A happens-before mark on `addr`: what this thread did so far happens before what a thread
/// does after a later [`happens_after`] on the same address.
#[cfg_attr(not(feature = "valgrind"), allow(dead_code))]
#[inline(always)]
fn happens_before<T: ?Sized>(addr: *const T) {
    #[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
    client_request(request::HAPPENS_BEFORE, addr as *const () as usize, 0);
    #[cfg(not(all(feature = "valgrind", target_arch = "x86_64")))]
    let _ = addr;
}

/// A happens-after mark on `addr` (see [`happens_before`]).
#[cfg_attr(not(feature = "valgrind"), allow(dead_code))]
#[inline(always)]
fn happens_after<T: ?Sized>(addr: *const T) {
    #[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
    client_request(request::HAPPENS_AFTER, addr as *const () as usize, 0);
    #[cfg(not(all(feature = "valgrind", target_arch = "x86_64")))]
    let _ = addr;
}

/// Asks DRD not to check accesses to `*addr` (an atomic: its accesses are never data races).
#[cfg_attr(not(feature = "valgrind"), allow(dead_code))]
#[inline(always)]
fn ignore<T>(addr: *const T) {
    #[cfg(all(feature = "valgrind", target_arch = "x86_64"))]
    client_request(request::DRD_IGNORE, addr as usize, std::mem::size_of::<T>());
    #[cfg(not(all(feature = "valgrind", target_arch = "x86_64")))]
    let _ = addr;
}

/// std's `Mutex`, `Condvar` and atomics, annotated under the feature `valgrind` (see the
/// module's doc); std's own otherwise.
pub(crate) mod sync {
    #[cfg(not(feature = "valgrind"))]
    pub(crate) use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
    #[cfg(not(feature = "valgrind"))]
    pub(crate) use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};

    // A path from the crate's root, not `super::`: the import-cycle test reads `super` from an
    // inline module as the file's parent (`tests/import_cycles.rs`).
    #[cfg(feature = "valgrind")]
    pub(crate) use crate::runtime::annotate::annotated::{
        AtomicBool, AtomicU64, AtomicUsize, Condvar, Mutex, MutexGuard, OnceLock,
    };
}

#[cfg(feature = "valgrind")]
#[allow(dead_code)]
mod annotated {
    use std::mem::ManuallyDrop;
    use std::ops::{Deref, DerefMut};
    use std::sync::atomic::Ordering;
    use std::sync::{LockResult, PoisonError, TryLockError, TryLockResult, WaitTimeoutResult};
    use std::time::Duration;

    use crate::runtime::annotate::{happens_after, happens_before, ignore};

    /// Whether an operation with `order` releases (its mark goes before it).
    fn releases(order: Ordering) -> bool {
        matches!(
            order,
            Ordering::Release | Ordering::AcqRel | Ordering::SeqCst
        )
    }

    /// Whether an operation with `order` acquires (its mark goes after it).
    fn acquires(order: Ordering) -> bool {
        matches!(
            order,
            Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst
        )
    }

    /// `std::sync::Mutex`, whose lock and unlock valgrind sees.
    #[derive(Debug, Default)]
    pub(crate) struct Mutex<T: ?Sized>(std::sync::Mutex<T>);

    /// The guard of an annotated [`Mutex`]: its drop is a happens-before mark.
    #[derive(Debug)]
    pub(crate) struct MutexGuard<'a, T: ?Sized + 'a> {
        guard: ManuallyDrop<std::sync::MutexGuard<'a, T>>,
        mutex: *const (),
    }

    // SAFETY: the guard is std's (Sync where T is) and a plain address used only as a tag.
    unsafe impl<T: ?Sized + Sync> Sync for MutexGuard<'_, T> {}

    fn wrap<'a, T: ?Sized>(
        mutex: *const (),
        r: LockResult<std::sync::MutexGuard<'a, T>>,
    ) -> LockResult<MutexGuard<'a, T>> {
        happens_after(mutex);
        match r {
            Ok(guard) => Ok(MutexGuard {
                guard: ManuallyDrop::new(guard),
                mutex,
            }),
            Err(e) => Err(PoisonError::new(MutexGuard {
                guard: ManuallyDrop::new(e.into_inner()),
                mutex,
            })),
        }
    }

    impl<T> Mutex<T> {
        pub(crate) const fn new(value: T) -> Mutex<T> {
            Mutex(std::sync::Mutex::new(value))
        }

        pub(crate) fn into_inner(self) -> LockResult<T> {
            self.0.into_inner()
        }
    }

    impl<T: ?Sized> Mutex<T> {
        fn tag(&self) -> *const () {
            self as *const Self as *const ()
        }

        pub(crate) fn lock(&self) -> LockResult<MutexGuard<'_, T>> {
            wrap(self.tag(), self.0.lock())
        }

        pub(crate) fn try_lock(&self) -> TryLockResult<MutexGuard<'_, T>> {
            match self.0.try_lock() {
                Ok(g) => Ok(wrap(self.tag(), Ok(g)).unwrap_or_else(PoisonError::into_inner)),
                Err(TryLockError::Poisoned(e)) => Err(TryLockError::Poisoned(PoisonError::new(
                    wrap(self.tag(), Ok(e.into_inner())).unwrap_or_else(PoisonError::into_inner),
                ))),
                Err(TryLockError::WouldBlock) => Err(TryLockError::WouldBlock),
            }
        }

        pub(crate) fn get_mut(&mut self) -> LockResult<&mut T> {
            self.0.get_mut()
        }

        pub(crate) fn is_poisoned(&self) -> bool {
            self.0.is_poisoned()
        }
    }

    impl<'a, T: ?Sized> MutexGuard<'a, T> {
        /// The std guard, after a happens-before mark (the lock is about to be released).
        fn release(self) -> (std::sync::MutexGuard<'a, T>, *const ()) {
            let mut me = ManuallyDrop::new(self);
            happens_before(me.mutex);
            // SAFETY: `me` is never dropped: the guard is taken out once.
            (unsafe { ManuallyDrop::take(&mut me.guard) }, me.mutex)
        }
    }

    impl<T: ?Sized> Drop for MutexGuard<'_, T> {
        fn drop(&mut self) {
            happens_before(self.mutex);
            // SAFETY: dropped once, here.
            unsafe { ManuallyDrop::drop(&mut self.guard) }
        }
    }

    impl<T: ?Sized> Deref for MutexGuard<'_, T> {
        type Target = T;
        fn deref(&self) -> &T {
            &self.guard
        }
    }

    impl<T: ?Sized> DerefMut for MutexGuard<'_, T> {
        fn deref_mut(&mut self) -> &mut T {
            &mut self.guard
        }
    }

    /// `std::sync::Condvar` taking annotated guards: a wait is an unlock and a lock.
    #[derive(Debug, Default)]
    pub(crate) struct Condvar(std::sync::Condvar);

    impl Condvar {
        pub(crate) const fn new() -> Condvar {
            Condvar(std::sync::Condvar::new())
        }

        pub(crate) fn notify_one(&self) {
            self.0.notify_one()
        }

        pub(crate) fn notify_all(&self) {
            self.0.notify_all()
        }

        pub(crate) fn wait<'a, T>(
            &self,
            guard: MutexGuard<'a, T>,
        ) -> LockResult<MutexGuard<'a, T>> {
            let (g, mutex) = guard.release();
            wrap(mutex, self.0.wait(g))
        }

        pub(crate) fn wait_timeout<'a, T>(
            &self,
            guard: MutexGuard<'a, T>,
            dur: Duration,
        ) -> LockResult<(MutexGuard<'a, T>, WaitTimeoutResult)> {
            let (g, mutex) = guard.release();
            match self.0.wait_timeout(g, dur) {
                Ok((g, t)) => Ok((
                    wrap(mutex, Ok(g)).unwrap_or_else(PoisonError::into_inner),
                    t,
                )),
                Err(e) => {
                    let (g, t) = e.into_inner();
                    let g = wrap(mutex, Ok(g)).unwrap_or_else(PoisonError::into_inner);
                    Err(PoisonError::new((g, t)))
                }
            }
        }
    }

    /// `std::sync::OnceLock`, whose initialisation valgrind sees.
    #[derive(Debug, Default)]
    pub(crate) struct OnceLock<T>(std::sync::OnceLock<T>);

    impl<T> OnceLock<T> {
        pub(crate) const fn new() -> OnceLock<T> {
            OnceLock(std::sync::OnceLock::new())
        }

        pub(crate) fn get_or_init(&self, f: impl FnOnce() -> T) -> &T {
            ignore(&self.0);
            let value = self.0.get_or_init(|| {
                let value = f();
                happens_before(&self.0);
                value
            });
            happens_after(&self.0);
            value
        }

        pub(crate) fn get(&self) -> Option<&T> {
            ignore(&self.0);
            let value = self.0.get();
            if value.is_some() {
                happens_after(&self.0);
            }
            value
        }

        pub(crate) fn set(&self, value: T) -> Result<(), T> {
            ignore(&self.0);
            happens_before(&self.0);
            self.0.set(value)
        }
    }

    macro_rules! atomic {
        ($name:ident, $std:ty, $t:ty) => {
            /// A std atomic whose release and acquire operations valgrind sees.
            #[derive(Debug, Default)]
            #[repr(transparent)]
            pub(crate) struct $name($std);

            impl $name {
                pub(crate) const fn new(v: $t) -> Self {
                    Self(<$std>::new(v))
                }

                #[inline]
                fn before(&self, order: Ordering) {
                    ignore(&self.0);
                    if releases(order) {
                        happens_before(self);
                    }
                }

                #[inline]
                fn after(&self, order: Ordering) {
                    if acquires(order) {
                        happens_after(self);
                    }
                }

                pub(crate) fn into_inner(self) -> $t {
                    self.0.into_inner()
                }

                pub(crate) fn get_mut(&mut self) -> &mut $t {
                    self.0.get_mut()
                }

                pub(crate) fn load(&self, order: Ordering) -> $t {
                    ignore(&self.0);
                    let v = self.0.load(order);
                    self.after(order);
                    v
                }

                pub(crate) fn store(&self, v: $t, order: Ordering) {
                    self.before(order);
                    self.0.store(v, order)
                }

                pub(crate) fn swap(&self, v: $t, order: Ordering) -> $t {
                    self.before(order);
                    let r = self.0.swap(v, order);
                    self.after(order);
                    r
                }

                pub(crate) fn compare_exchange(
                    &self,
                    current: $t,
                    new: $t,
                    success: Ordering,
                    failure: Ordering,
                ) -> Result<$t, $t> {
                    self.before(success);
                    let r = self.0.compare_exchange(current, new, success, failure);
                    self.after(if r.is_ok() { success } else { failure });
                    r
                }

                pub(crate) fn compare_exchange_weak(
                    &self,
                    current: $t,
                    new: $t,
                    success: Ordering,
                    failure: Ordering,
                ) -> Result<$t, $t> {
                    self.before(success);
                    let r = self.0.compare_exchange_weak(current, new, success, failure);
                    self.after(if r.is_ok() { success } else { failure });
                    r
                }

                pub(crate) fn fetch_update<F>(
                    &self,
                    set: Ordering,
                    fetch: Ordering,
                    f: F,
                ) -> Result<$t, $t>
                where
                    F: FnMut($t) -> Option<$t>,
                {
                    self.before(set);
                    let r = self.0.fetch_update(set, fetch, f);
                    self.after(if r.is_ok() { set } else { fetch });
                    r
                }

                pub(crate) fn fetch_or(&self, v: $t, order: Ordering) -> $t {
                    self.before(order);
                    let r = self.0.fetch_or(v, order);
                    self.after(order);
                    r
                }

                pub(crate) fn fetch_and(&self, v: $t, order: Ordering) -> $t {
                    self.before(order);
                    let r = self.0.fetch_and(v, order);
                    self.after(order);
                    r
                }
            }
        };
    }

    macro_rules! atomic_int {
        ($name:ident, $std:ty, $t:ty) => {
            atomic!($name, $std, $t);

            impl $name {
                pub(crate) fn fetch_add(&self, v: $t, order: Ordering) -> $t {
                    self.before(order);
                    let r = self.0.fetch_add(v, order);
                    self.after(order);
                    r
                }

                pub(crate) fn fetch_sub(&self, v: $t, order: Ordering) -> $t {
                    self.before(order);
                    let r = self.0.fetch_sub(v, order);
                    self.after(order);
                    r
                }

                pub(crate) fn fetch_max(&self, v: $t, order: Ordering) -> $t {
                    self.before(order);
                    let r = self.0.fetch_max(v, order);
                    self.after(order);
                    r
                }

                pub(crate) fn fetch_min(&self, v: $t, order: Ordering) -> $t {
                    self.before(order);
                    let r = self.0.fetch_min(v, order);
                    self.after(order);
                    r
                }
            }
        };
    }

    atomic!(AtomicBool, std::sync::atomic::AtomicBool, bool);
    atomic_int!(AtomicU64, std::sync::atomic::AtomicU64, u64);
    atomic_int!(AtomicUsize, std::sync::atomic::AtomicUsize, usize);
}
