//! Locking helpers shared by the runtime.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex, ignoring poisoning (a panicking iterate never leaves scheduler state half-done:
/// the scheduler's critical sections do not run user code).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
