//! Locking helpers shared by the runtime.

use crate::runtime::annotate::sync::{Mutex, MutexGuard};

#[cfg(not(loom))]
use crate::runtime::shim::spin_loop;
use crate::runtime::shim::{thread, AtomicBool, UnsafeCell};

/// Locks a mutex, ignoring poisoning (a panicking iterate never leaves scheduler state half-done:
/// the scheduler's critical sections do not run user code).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A value on cache lines of its own (128 bytes: adjacent-line prefetchers fetch lines in pairs),
/// for per-worker state that one worker writes at every chunk: without the padding, workers'
/// writes to neighbouring values would move one line back and forth between their cores.
#[repr(align(128))]
#[derive(Debug, Default)]
pub(crate) struct Padded<T>(pub(crate) T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// A lock for per-worker state that its own worker takes at every chunk and others take rarely
/// (at the loop's end, or a hand-over): one atomic exchange to take it and a plain store to give
/// it back, where a `Mutex` pays a second atomic operation to give it back. A taker that finds it
/// held spins a little, then yields its core, so it suits only critical sections of a few
/// instructions that run no user code. Its flag and cell come from `shim.rs`: the loom model
/// `slot_lock_excludes` (`backend/loom_models.rs`) checks that two holders never overlap and
/// that each sees the other's writes.
pub(crate) struct SlotLock<T> {
    held: AtomicBool,
    value: UnsafeCell<T>,
}

impl<T> std::fmt::Debug for SlotLock<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlotLock").finish_non_exhaustive()
    }
}

impl<T: Default> Default for SlotLock<T> {
    fn default() -> Self {
        SlotLock::new(T::default())
    }
}

// SAFETY: the value is reached only through a guard, and one guard at a time exists (`lock`).
unsafe impl<T: Send> Sync for SlotLock<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for SlotLock<T> {}

/// Access to a [`SlotLock`]'s value; gives the lock back when dropped.
///
/// `Sync` only where `T` is (as `std::sync::MutexGuard`): a shared guard gives `&T` to every
/// thread that holds it. Without the marker it would be `Sync` wherever the lock is, that is for
/// every `T: Send`, and two threads sharing the guard of a `SlotLock<Cell<_>>` could race.
pub(crate) struct SlotGuard<'a, T>(&'a SlotLock<T>, std::marker::PhantomData<*const ()>);

// SAFETY: the guard is the only access to the value while it lives (`SlotLock::lock`), and
// giving the lock back is an atomic store, right on any thread: sending the guard sends `&mut T`
// (`T: Send`).
unsafe impl<T: Send> Send for SlotGuard<'_, T> {}
// SAFETY: a shared guard gives only `&T` (`Deref`) to the threads sharing it: `T: Sync`.
unsafe impl<T: Sync> Sync for SlotGuard<'_, T> {}

impl<T> SlotLock<T> {
    /// A lock around `value`.
    pub(crate) fn new(value: T) -> Self {
        SlotLock {
            held: AtomicBool::new(false),
            value: UnsafeCell::new(value),
        }
    }

    /// Takes the lock (waiting while another holds it). The `Acquire` exchange that takes it
    /// reads the `Release` store that gave it back: the previous holder's writes are seen.
    #[inline]
    pub(crate) fn lock(&self) -> SlotGuard<'_, T> {
        use std::sync::atomic::Ordering;
        // Under loom: a failed take yields and tries again (loom runs the holder meanwhile),
        // with a compare-exchange, which writes nothing when it fails (a failed exchange writes
        // `true` again, which loom's scheduler took for progress without end); the read-only
        // wait below only saves exchanges: the lock's orderings are the taking `Acquire` and the
        // giving back `Release`, the same in both.
        #[cfg(loom)]
        while self
            .held
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            thread::yield_now();
        }
        #[cfg(not(loom))]
        let mut spins = 0u32;
        #[cfg(not(loom))]
        while self.held.swap(true, Ordering::Acquire) {
            while self.held.load(Ordering::Relaxed) {
                spins += 1;
                if spins < 64 {
                    spin_loop();
                } else {
                    thread::yield_now();
                }
            }
        }
        SlotGuard(self, std::marker::PhantomData)
    }
}

impl<T> std::ops::Deref for SlotGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: this guard is the only one (see `SlotLock::lock`), and it lives as long as the
        // reference.
        self.0.value.with(|p| unsafe { &*p })
    }
}

impl<T> std::ops::DerefMut for SlotGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: this guard is the only one (see `SlotLock::lock`), and it lives as long as the
        // reference.
        self.0.value.with_mut(|p| unsafe { &mut *p })
    }
}

impl<T> Drop for SlotGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        self.0
            .held
            .store(false, std::sync::atomic::Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::SlotLock;

    /// Increments from several threads under the lock are all kept.
    #[test]
    fn slot_lock_excludes() {
        let lock = SlotLock::new(0u64);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..100_000 {
                        *lock.lock() += 1;
                    }
                });
            }
        });
        assert_eq!(*lock.lock(), 400_000);
    }
}

/// What threads waiting under a mutex for another thread's fetch (a rank's next batch or block)
/// watch: a count of arrivals, watched a while before they sleep on a condition variable (a
/// sleep and a wake-up are system calls, longer than a short chunk).
#[derive(Debug)]
pub(crate) struct Arrivals {
    count: crate::runtime::annotate::sync::AtomicU64,
    cond: crate::runtime::annotate::sync::Condvar,
    /// How long a waiting thread watches before it sleeps.
    watch: std::time::Duration,
}

impl Arrivals {
    /// Arrivals watched for `watch` before a waiting thread sleeps.
    pub(crate) fn new(watch: std::time::Duration) -> Self {
        Arrivals {
            count: crate::runtime::annotate::sync::AtomicU64::new(0),
            cond: crate::runtime::annotate::sync::Condvar::new(),
            watch,
        }
    }

    /// Something arrived (the mutex held): counted, and the sleepers woken when `sleepers`.
    pub(crate) fn arrived(&self, sleepers: bool) {
        self.count
            .fetch_add(1, std::sync::atomic::Ordering::Release);
        if sleepers {
            self.cond.notify_all();
        }
    }

    /// Wakes the sleepers without an arrival (the mutex held): what they wait for will not come.
    pub(crate) fn wake(&self) {
        self.cond.notify_all();
    }

    /// Waits with `guard` (of `mutex`) locked until the next arrival or until `pending` says no
    /// fetch is in progress, with the lock released meanwhile; `waiting` counts the thread among
    /// the waiters while it waits. May return early: the caller looks again.
    pub(crate) fn wait<'a, T>(
        &self,
        mutex: &'a Mutex<T>,
        mut guard: MutexGuard<'a, T>,
        waiting: fn(&mut T) -> &mut usize,
        pending: fn(&T) -> bool,
    ) -> MutexGuard<'a, T> {
        use std::sync::atomic::Ordering;
        *waiting(&mut guard) += 1;
        let seen = self.count.load(Ordering::Acquire);
        drop(guard);
        let watch = std::time::Instant::now();
        while self.count.load(Ordering::Acquire) == seen && watch.elapsed() < self.watch {
            std::hint::spin_loop();
        }
        let mut guard = lock(mutex);
        if pending(&guard) && self.count.load(Ordering::Acquire) == seen {
            guard = self.cond.wait(guard).unwrap_or_else(|e| e.into_inner());
        }
        *waiting(&mut guard) -= 1;
        guard
    }
}

/// The machine's available parallelism, read once (it reads cgroup files): whether waiting
/// threads may watch (they fit the cores) or must sleep at once.
pub(crate) fn cores() -> usize {
    static CORES: crate::runtime::annotate::sync::OnceLock<usize> =
        crate::runtime::annotate::sync::OnceLock::new();
    *CORES.get_or_init(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}
