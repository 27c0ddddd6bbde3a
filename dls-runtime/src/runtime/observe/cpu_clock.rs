//! The calling thread's CPU clock: how long the thread has run on a core, as opposed to the wall
//! clock. A worker's CPU time over its chunks beside their wall time (the report's `cpu_time_s`
//! and `work_time_s`) shows when it waited for a core.
//!
//! POSIX `clock_gettime(CLOCK_THREAD_CPUTIME_ID)` through `libc` (already built for MPI and the
//! terminal code): one system call, under a microsecond on Linux, read twice per worker and loop
//! (see `UntypedLoop::next` for why not around every chunk). Elsewhere the clock reads `None` and
//! the report's CPU time stays 0.

/// Seconds of CPU time the calling thread has used, or `None` without a thread CPU clock.
#[cfg(unix)]
pub(crate) fn thread_cpu_s() -> Option<f64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the call writes only into it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then_some(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9)
}

/// Seconds of CPU time the calling thread has used, or `None` without a thread CPU clock.
#[cfg(not(unix))]
pub(crate) fn thread_cpu_s() -> Option<f64> {
    None
}

#[cfg(test)]
mod tests {
    use super::thread_cpu_s;
    use std::time::{Duration, Instant};

    #[cfg(unix)]
    #[test]
    fn busy_work_counts_and_sleep_does_not() {
        let a = thread_cpu_s().unwrap();
        let t = Instant::now();
        let mut x = 0u64;
        // Spin until the thread's CPU clock shows 10 ms (however long a loaded machine takes to
        // give them), or 5 s of wall time: a clock that does not count busy work fails.
        while thread_cpu_s().unwrap() - a < 0.01 && t.elapsed() < Duration::from_secs(5) {
            for _ in 0..1000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
        let b = thread_cpu_s().unwrap();
        std::thread::sleep(Duration::from_millis(30));
        let c = thread_cpu_s().unwrap();
        // Busy work shows on the clock; sleeping 30 ms uses almost none.
        assert!(b - a >= 0.01, "busy: {} in {:?}", b - a, t.elapsed());
        assert!(c - b < 0.005, "asleep: {}", c - b);
    }
}
