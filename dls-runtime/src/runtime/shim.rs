//! The synchronisation primitives of the runtime's hand-made concurrency (the pool,
//! `backend/pool.rs`; the slot lock, `sync.rs`; the claim counter, `sched/claim.rs`): the
//! standard library's normally, [loom](https://docs.rs/loom)'s when built with `--cfg loom`, so
//! that the loom models (`backend/loom_models.rs`) explore every interleaving of the very code
//! that runs, as tokio's `src/loom/` and crossbeam's `primitive` modules do. Normal builds never
//! compile loom (it is a `[target.'cfg(loom)'.dependencies]` of dls-runtime).
//!
//! Under loom:
//! - a spin-wait hint is a yield (loom explores what the other threads do meanwhile);
//! - [`Watch`] (watch a while, then sleep) watches one look instead of a time, so a model does
//!   not depend on the clock;
//! - [`UnsafeCell`] is loom's, which checks that every access to the cell happens after the
//!   last conflicting one (no data race); here it is a thin wrapper of `std::cell::UnsafeCell`
//!   with the same `with`/`with_mut` interface.
//!
//! Under the feature `valgrind` (and not loom), the mutex, condition variable and atomics are
//! std's wrapped with happens-before annotations for valgrind's DRD and Helgrind
//! (`runtime/annotate.rs`, run by `scripts/valgrind.sh`).

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicBool, AtomicU64, AtomicUsize};
#[cfg(loom)]
pub(crate) use loom::sync::{Condvar, Mutex, MutexGuard};
// std's, annotated for valgrind's race detectors under the feature `valgrind` (annotate.rs).
#[cfg(not(loom))]
pub(crate) use crate::runtime::annotate::sync::{
    AtomicBool, AtomicU64, AtomicUsize, Condvar, Mutex, MutexGuard,
};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::fence;

/// Threads: `std::thread` or loom's.
pub(crate) mod thread {
    #[cfg(loom)]
    pub(crate) use loom::thread::{current, yield_now, Builder, JoinHandle};
    #[cfg(not(loom))]
    pub(crate) use std::thread::{current, yield_now, Builder, JoinHandle};
}

/// A spin-wait hint (under loom: a yield, so that the model runs the other threads).
#[cfg_attr(loom, allow(dead_code))]
#[inline]
pub(crate) fn spin_loop() {
    #[cfg(loom)]
    loom::hint::spin_loop();
    #[cfg(not(loom))]
    std::hint::spin_loop();
}

/// Locks a mutex, ignoring poisoning (the pool's critical sections run no user code).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Waits on `cond` with `guard`, ignoring poisoning.
pub(crate) fn wait<'a, T>(cond: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    cond.wait(guard).unwrap_or_else(|e| e.into_inner())
}

/// How a waiting thread watches for what it waits for before it sleeps: for `spin` (spinning,
/// and yielding its core every 64 looks), then never again. Under loom: one look if `spin` is not
/// zero (a model must not depend on the clock).
#[derive(Debug)]
pub(crate) struct Watch {
    #[cfg(not(loom))]
    until: Option<std::time::Instant>,
    #[cfg(loom)]
    watch: bool,
    spins: u32,
}

impl Watch {
    /// A watch of `spin` (zero: the thread sleeps at once).
    #[inline]
    pub(crate) fn new(spin: std::time::Duration) -> Watch {
        Watch {
            #[cfg(not(loom))]
            until: (!spin.is_zero()).then(|| std::time::Instant::now() + spin),
            #[cfg(loom)]
            watch: !spin.is_zero(),
            spins: 0,
        }
    }

    /// Waits a little (a spin hint, or a yield); false, without waiting, once the watch is over
    /// and the thread should sleep.
    #[inline]
    pub(crate) fn again(&mut self) -> bool {
        #[cfg(not(loom))]
        {
            let Some(until) = self.until else {
                return false;
            };
            self.spins = self.spins.wrapping_add(1);
            if self.spins % 64 == 0 {
                if std::time::Instant::now() >= until {
                    return false;
                }
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
            true
        }
        #[cfg(loom)]
        {
            self.spins += 1;
            if !self.watch || self.spins > 1 {
                return false;
            }
            loom::thread::yield_now();
            true
        }
    }
}

/// `std::cell::UnsafeCell` with loom's interface: the value is reached only through `with` and
/// `with_mut`, which loom checks for data races.
#[cfg(not(loom))]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    /// A cell holding `value`.
    #[inline]
    pub(crate) const fn new(value: T) -> UnsafeCell<T> {
        UnsafeCell(std::cell::UnsafeCell::new(value))
    }

    /// `f` with a pointer to the value, to read it.
    #[inline]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    /// `f` with a pointer to the value, to write it.
    #[inline]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

#[cfg(loom)]
pub(crate) use loom::cell::UnsafeCell;
