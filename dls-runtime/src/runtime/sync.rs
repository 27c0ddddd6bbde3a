//! Locking helpers shared by the runtime.

use std::sync::{Mutex, MutexGuard};

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
/// instructions that run no user code.
#[derive(Debug, Default)]
pub(crate) struct SlotLock<T> {
    held: std::sync::atomic::AtomicBool,
    value: std::cell::UnsafeCell<T>,
}

// SAFETY: the value is reached only through a guard, and one guard at a time exists (`lock`).
unsafe impl<T: Send> Sync for SlotLock<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for SlotLock<T> {}

/// Access to a [`SlotLock`]'s value; gives the lock back when dropped.
pub(crate) struct SlotGuard<'a, T>(&'a SlotLock<T>);

impl<T> SlotLock<T> {
    /// A lock around `value`.
    pub(crate) fn new(value: T) -> Self {
        SlotLock {
            held: std::sync::atomic::AtomicBool::new(false),
            value: std::cell::UnsafeCell::new(value),
        }
    }

    /// Takes the lock (waiting while another holds it).
    #[inline]
    pub(crate) fn lock(&self) -> SlotGuard<'_, T> {
        use std::sync::atomic::Ordering;
        let mut spins = 0u32;
        while self.held.swap(true, Ordering::Acquire) {
            while self.held.load(Ordering::Relaxed) {
                spins += 1;
                if spins < 64 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
        SlotGuard(self)
    }
}

impl<T> std::ops::Deref for SlotGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: this guard is the only one (see `SlotLock::lock`).
        unsafe { &*self.0.value.get() }
    }
}

impl<T> std::ops::DerefMut for SlotGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: this guard is the only one (see `SlotLock::lock`).
        unsafe { &mut *self.0.value.get() }
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
