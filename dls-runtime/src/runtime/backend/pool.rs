//! The threads backend's pool: `threads - 1` threads that run the workers 1, 2, … of each loop
//! while the thread that starts the loop runs worker 0.
//!
//! A loop is handed to the pool through one word, the *ticket* (the loop's generation and how
//! many pool threads take part), and the job itself (a borrowed `Fn(usize)`) next to it. A pool
//! thread between loops first watches the ticket for a while ([`Pool::new`]'s spin time, as
//! OpenMP runtimes do: GNU's `GOMP_SPINCOUNT`) and only then sleeps on a condition variable, so
//! that the loops of a time loop, a few microseconds apart, start without waking a sleeping
//! thread. The starting thread waits for the pool's part the same way: watching a counter, then
//! sleeping. With more threads than cores nobody watches (a watcher would take the core of a
//! thread with work): they sleep at once.
//!
//! A panic in a pool thread's worker is caught there and raised again on the starting thread once
//! every worker has ended, so that the job (which borrows the starting thread's stack) is never
//! used after `run` returns.

use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::runtime::sync::{lock, Padded};

/// The machine's available parallelism, read once (it reads cgroup files): whether waiting
/// threads may watch (they fit the cores) or must sleep at once.
pub(crate) fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// Bits of the ticket that count the pool threads taking part (the rest is the generation).
const HELPER_BITS: u32 = 24;

/// A job: worker `slot` of a loop, borrowed from the starting thread for the length of one
/// [`Pool::run`].
type Job = *const (dyn Fn(usize) + Sync);

/// What the pool's threads and the starting thread share.
struct Shared {
    /// `generation << HELPER_BITS | helpers`: a new value starts a loop on threads `1..=helpers`.
    ticket: Padded<AtomicU64>,
    /// The loop's job, written before the ticket that announces it.
    job: UnsafeCell<Option<Job>>,
    /// Pool threads of the current loop that have not ended their worker yet.
    running: Padded<AtomicUsize>,
    /// Threads asleep (or about to sleep) waiting for a ticket, and the starting thread asleep
    /// waiting for `running` to reach 0.
    sleepers: AtomicUsize,
    starter_asleep: AtomicBool,
    /// What sleepers sleep on.
    lock: Mutex<()>,
    wake_pool: Condvar,
    wake_starter: Condvar,
    /// The first panic of a pool thread's worker in the current loop.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// How long a waiting thread watches before it sleeps (zero: it sleeps at once).
    spin: Duration,
    shutdown: AtomicBool,
}

// SAFETY: `job` is written only by the starting thread (under `Pool::serial`) while no pool thread
// reads it: before a ticket is published, every pool thread of the previous loop has ended its
// worker (`running` is 0). Pool threads read it only after the ticket that announces it (Acquire
// on the ticket, Release when it is published). The job it points to is `Sync`.
unsafe impl Sync for Shared {}
// SAFETY: as above; the raw pointer is only dereferenced under that protocol.
unsafe impl Send for Shared {}

/// `threads - 1` threads that run loops with the thread that starts them.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    helpers: usize,
    /// One loop at a time (two threads that start loops at once take turns).
    serial: Mutex<()>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("helpers", &self.helpers)
            .finish_non_exhaustive()
    }
}

impl Pool {
    /// `helpers` threads named `dls-worker-1…` with stacks of `stack` bytes; waiting threads
    /// watch for `spin` before they sleep.
    pub(crate) fn new(helpers: usize, stack: usize, spin: Duration) -> std::io::Result<Pool> {
        assert!(helpers < 1 << HELPER_BITS, "too many threads");
        let shared = Arc::new(Shared {
            ticket: Padded(AtomicU64::new(0)),
            job: UnsafeCell::new(None),
            running: Padded(AtomicUsize::new(0)),
            sleepers: AtomicUsize::new(0),
            starter_asleep: AtomicBool::new(false),
            lock: Mutex::new(()),
            wake_pool: Condvar::new(),
            wake_starter: Condvar::new(),
            panic: Mutex::new(None),
            spin,
            shutdown: AtomicBool::new(false),
        });
        for slot in 1..=helpers {
            let mine = shared.clone();
            let spawned = thread::Builder::new()
                .name(format!("dls-worker-{slot}"))
                .stack_size(stack)
                .spawn(move || pool_thread(&mine, slot));
            if let Err(e) = spawned {
                // The threads already started end with the pool.
                shared.shutdown.store(true, Ordering::SeqCst);
                let _guard = lock(&shared.lock);
                shared.wake_pool.notify_all();
                return Err(e);
            }
        }
        Ok(Pool {
            shared,
            helpers,
            serial: Mutex::new(()),
        })
    }

    /// Runs `job(0)` on this thread and `job(1)`, …, `job(helpers)` on the pool (at most
    /// `self.helpers`), and returns once all have ended; a panic of any of them is raised here
    /// after that.
    pub(crate) fn run(&self, job: &(dyn Fn(usize) + Sync), helpers: usize) {
        let helpers = helpers.min(self.helpers);
        if helpers == 0 {
            job(0);
            return;
        }
        let _serial = lock(&self.serial);
        let s = &*self.shared;
        // SAFETY: the pointer outlives its use: this function does not return (nor unwind)
        // before every pool thread that took the job has ended it (`wait_for_pool`).
        let erased: Job = unsafe {
            std::mem::transmute::<&(dyn Fn(usize) + Sync), &'static (dyn Fn(usize) + Sync)>(job)
        };
        // SAFETY: no pool thread reads `job` now (see `Shared`).
        unsafe { *s.job.get() = Some(erased) };
        s.running.store(helpers, Ordering::Relaxed);
        let generation = (s.ticket.load(Ordering::Relaxed) >> HELPER_BITS) + 1;
        // SeqCst with the load of `sleepers` (and a sleeper's increment, then load of the
        // ticket): one of the two sees the other, so no thread sleeps through its loop.
        s.ticket
            .store(generation << HELPER_BITS | helpers as u64, Ordering::SeqCst);
        if s.sleepers.load(Ordering::SeqCst) > 0 {
            let _guard = lock(&s.lock);
            s.wake_pool.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| job(0)));
        self.wait_for_pool();
        // SAFETY: every pool thread has ended the job.
        unsafe { *s.job.get() = None };
        if let Err(payload) = mine {
            resume_unwind(payload);
        }
        if let Some(payload) = lock(&s.panic).take() {
            resume_unwind(payload);
        }
    }

    /// Waits until the pool's threads have ended the current loop's workers.
    fn wait_for_pool(&self) {
        let s = &*self.shared;
        let until = Instant::now() + s.spin;
        let mut spins = 0u32;
        while s.running.load(Ordering::Acquire) != 0 {
            if s.spin.is_zero() || (spins % 64 == 63 && Instant::now() >= until) {
                let mut guard = lock(&s.lock);
                s.starter_asleep.store(true, Ordering::SeqCst);
                while s.running.load(Ordering::SeqCst) != 0 {
                    guard = s
                        .wake_starter
                        .wait(guard)
                        .unwrap_or_else(|e| e.into_inner());
                }
                s.starter_asleep.store(false, Ordering::SeqCst);
                return;
            }
            spins = spins.wrapping_add(1);
            if spins % 64 == 0 {
                thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let s = &*self.shared;
        s.shutdown.store(true, Ordering::SeqCst);
        let _guard = lock(&s.lock);
        s.wake_pool.notify_all();
    }
}

/// A pool thread: waits for each ticket and, when it takes part, runs its worker.
fn pool_thread(s: &Shared, slot: usize) {
    let mut seen = 0u64;
    loop {
        let Some(ticket) = next_ticket(s, seen) else {
            return;
        };
        seen = ticket >> HELPER_BITS;
        let helpers = (ticket & ((1 << HELPER_BITS) - 1)) as usize;
        if slot > helpers {
            continue;
        }
        // SAFETY: the ticket (Acquire) announced this job; it stays valid until this thread
        // lowers `running` below.
        let job = unsafe { (*s.job.get()).expect("a ticket comes with its job") };
        // SAFETY: see above.
        let result = catch_unwind(AssertUnwindSafe(|| unsafe { (*job)(slot) }));
        if let Err(payload) = result {
            let mut first = lock(&s.panic);
            if first.is_none() {
                *first = Some(payload);
            }
        }
        if s.running.fetch_sub(1, Ordering::SeqCst) == 1 && s.starter_asleep.load(Ordering::SeqCst)
        {
            let _guard = lock(&s.lock);
            s.wake_starter.notify_all();
        }
    }
}

/// The next ticket after generation `seen`, watched for the spin time and then slept for;
/// `None` when the pool shuts down.
fn next_ticket(s: &Shared, seen: u64) -> Option<u64> {
    let fresh = |t: u64| t >> HELPER_BITS != seen;
    let until = Instant::now() + s.spin;
    let mut spins = 0u32;
    loop {
        let t = s.ticket.load(Ordering::Acquire);
        if fresh(t) {
            return Some(t);
        }
        if s.shutdown.load(Ordering::Relaxed) {
            return None;
        }
        if s.spin.is_zero() || (spins % 64 == 63 && Instant::now() >= until) {
            break;
        }
        spins = spins.wrapping_add(1);
        if spins % 64 == 0 {
            thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
    s.sleepers.fetch_add(1, Ordering::SeqCst);
    let mut guard = lock(&s.lock);
    let found = loop {
        let t = s.ticket.load(Ordering::SeqCst);
        if fresh(t) {
            break Some(t);
        }
        if s.shutdown.load(Ordering::SeqCst) {
            break None;
        }
        guard = s.wake_pool.wait(guard).unwrap_or_else(|e| e.into_inner());
    };
    drop(guard);
    s.sleepers.fetch_sub(1, Ordering::SeqCst);
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    /// Every worker runs once per loop, loop after loop, whether the pool watches or sleeps.
    #[test]
    fn every_worker_runs_once_per_loop() {
        for spin in [Duration::ZERO, Duration::from_micros(200)] {
            let pool = Pool::new(3, 1 << 20, spin).unwrap();
            for round in 0..2000u64 {
                let hits: Vec<AtomicU64> = (0..4).map(|_| AtomicU64::new(0)).collect();
                let helpers = (round % 4) as usize;
                pool.run(
                    &|slot| {
                        hits[slot].fetch_add(1, Ordering::Relaxed);
                    },
                    helpers,
                );
                for (slot, h) in hits.iter().enumerate() {
                    let want = u64::from(slot <= helpers);
                    assert_eq!(
                        h.load(Ordering::Relaxed),
                        want,
                        "round {round}, slot {slot}"
                    );
                }
                if round % 500 == 0 {
                    // Long enough for the pool to fall asleep.
                    thread::sleep(Duration::from_millis(2));
                }
            }
        }
    }

    /// A pool thread's panic comes back on the starting thread after every worker ended, and
    /// the pool runs the next loop.
    #[test]
    fn a_panic_comes_back_after_every_worker_ended() {
        let pool = Pool::new(2, 1 << 20, Duration::from_micros(50)).unwrap();
        let ended = AtomicU64::new(0);
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool.run(
                &|slot| {
                    if slot == 2 {
                        panic!("worker two");
                    }
                    thread::sleep(Duration::from_millis(20));
                    ended.fetch_add(1, Ordering::SeqCst);
                },
                2,
            )
        }));
        let payload = result.unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"worker two"));
        assert_eq!(ended.load(Ordering::SeqCst), 2, "workers 0 and 1 had ended");
        let hits = AtomicU64::new(0);
        pool.run(
            &|_| {
                hits.fetch_add(1, Ordering::SeqCst);
            },
            2,
        );
        assert_eq!(hits.load(Ordering::SeqCst), 3);
    }
}
