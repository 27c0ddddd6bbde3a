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

pub(crate) use crate::runtime::sync::cores;

/// Bits of the ticket that count the pool threads taking part (the rest is the generation).
const HELPER_BITS: u32 = 24;
/// The entry word's bit that closes a loop to threads that have not entered it.
const ENTRY_CLOSED: u64 = 1 << HELPER_BITS;
/// Where the entry word's generation begins.
const ENTRY_GEN: u32 = HELPER_BITS + 1;

/// A generation as the entry word holds it (its low bits: it wraps, as the ticket's does).
fn entry_generation(generation: u64) -> u64 {
    generation & ((1 << (64 - ENTRY_GEN)) - 1)
}

/// A job: worker `slot` of a loop, borrowed from the starting thread for the length of one
/// [`Pool::run`].
type Job = *const (dyn Fn(usize) + Sync);

/// What the pool's threads and the starting thread share.
struct Shared {
    /// `generation << HELPER_BITS | helpers`: a new value starts a loop on threads `1..=helpers`.
    ticket: Padded<AtomicU64>,
    /// The loop's job, written before the ticket that announces it.
    job: UnsafeCell<Option<Job>>,
    /// Pool threads that took part in the current loop: `generation << ENTRY_GEN |` the
    /// threads that entered it, with [`ENTRY_CLOSED`] once the starting thread ended its own
    /// worker (a thread that has not entered by then does not: see [`Pool::run`]).
    entry: Padded<AtomicU64>,
    /// Pool threads of the current loop that ended their worker.
    done: Padded<AtomicUsize>,
    /// Threads asleep (or about to sleep) waiting for a ticket, and the starting thread asleep
    /// waiting for `done` to reach the loop's entered threads.
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
// reads it: before a ticket is published, every pool thread that entered the previous loop has
// ended its worker (`done` reached the count of the closed entry word), and a thread that did not
// enter never reads it. Pool threads read it only after entering the loop of the ticket that
// announces it (Acquire on the ticket and on the entry word, both written after the job). The
// job it points to is `Sync`.
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
            entry: Padded(AtomicU64::new(0)),
            done: Padded(AtomicUsize::new(0)),
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
    /// after that. With `close`, a pool thread that has not begun its `job(slot)` when `job(0)`
    /// ends does not run it: the jobs of a loop's workers take chunks until none is left, and
    /// once this thread's worker has seen the loop's end a late one would find none (a loop of a
    /// few cheap iterates then costs no wait for a pool thread's wake-up).
    pub(crate) fn run(&self, job: &(dyn Fn(usize) + Sync), helpers: usize, close: bool) {
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
        s.done.store(0, Ordering::Relaxed);
        let generation = (s.ticket.load(Ordering::Relaxed) >> HELPER_BITS) + 1;
        s.entry
            .store(entry_generation(generation) << ENTRY_GEN, Ordering::Release);
        // SeqCst with the load of `sleepers` (and a sleeper's increment, then load of the
        // ticket): one of the two sees the other, so no thread sleeps through its loop.
        s.ticket
            .store(generation << HELPER_BITS | helpers as u64, Ordering::SeqCst);
        if s.sleepers.load(Ordering::SeqCst) > 0 {
            let _guard = lock(&s.lock);
            s.wake_pool.notify_all();
        }
        let mine = catch_unwind(AssertUnwindSafe(|| job(0)));
        // Closed: a thread that has not entered stays out; wait for those that did. Without
        // `close`, every helper enters: wait for all of them.
        let entered = if close {
            (s.entry.fetch_or(ENTRY_CLOSED, Ordering::AcqRel) & (ENTRY_CLOSED - 1)) as usize
        } else {
            helpers
        };
        self.wait_for_pool(entered);
        // SAFETY: every pool thread has ended the job.
        unsafe { *s.job.get() = None };
        if let Err(payload) = mine {
            resume_unwind(payload);
        }
        if let Some(payload) = lock(&s.panic).take() {
            resume_unwind(payload);
        }
    }

    /// Waits until the `entered` pool threads of the current loop have ended their workers.
    fn wait_for_pool(&self, entered: usize) {
        let s = &*self.shared;
        let until = Instant::now() + s.spin;
        let mut spins = 0u32;
        while s.done.load(Ordering::Acquire) != entered {
            if s.spin.is_zero() || (spins % 64 == 63 && Instant::now() >= until) {
                let mut guard = lock(&s.lock);
                s.starter_asleep.store(true, Ordering::SeqCst);
                while s.done.load(Ordering::SeqCst) != entered {
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
        if slot > helpers || !enter(s, seen) {
            continue;
        }
        // SAFETY: this thread entered the loop the ticket (Acquire) announced; its job stays
        // valid until this thread raises `done` below.
        let job = unsafe { (*s.job.get()).expect("a ticket comes with its job") };
        // SAFETY: see above.
        let result = catch_unwind(AssertUnwindSafe(|| unsafe { (*job)(slot) }));
        if let Err(payload) = result {
            let mut first = lock(&s.panic);
            if first.is_none() {
                *first = Some(payload);
            }
        }
        s.done.fetch_add(1, Ordering::SeqCst);
        if s.starter_asleep.load(Ordering::SeqCst) {
            let _guard = lock(&s.lock);
            s.wake_starter.notify_all();
        }
    }
}

/// Enters the loop of `generation` unless the starting thread closed it (or started another).
fn enter(s: &Shared, generation: u64) -> bool {
    let mut word = s.entry.load(Ordering::Acquire);
    loop {
        if word >> ENTRY_GEN != entry_generation(generation) || word & ENTRY_CLOSED != 0 {
            return false;
        }
        match s
            .entry
            .compare_exchange_weak(word, word + 1, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => return true,
            Err(now) => word = now,
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
                        // Worker 0 waits for the others (a loop whose work they share).
                        let t = Instant::now();
                        while slot == 0
                            && hits[1..=helpers]
                                .iter()
                                .any(|h| h.load(Ordering::Relaxed) == 0)
                            && t.elapsed() < Duration::from_secs(5)
                        {
                            std::hint::spin_loop();
                        }
                    },
                    helpers,
                    true,
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
                true,
            )
        }));
        let payload = result.unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"worker two"));
        assert_eq!(ended.load(Ordering::SeqCst), 2, "workers 0 and 1 had ended");
        let hits = AtomicU64::new(0);
        pool.run(
            &|slot| {
                hits.fetch_add(1, Ordering::SeqCst);
                while slot == 0 && hits.load(Ordering::SeqCst) < 3 {
                    std::hint::spin_loop();
                }
            },
            2,
            true,
        );
        assert_eq!(hits.load(Ordering::SeqCst), 3);
    }

    /// Without `close` every worker runs once, also when worker 0 returns at once (a loop whose
    /// worker 0 takes no chunk).
    #[test]
    fn without_close_every_worker_runs_even_when_worker_0_returns_at_once() {
        let pool = Pool::new(3, 1 << 20, Duration::from_micros(200)).unwrap();
        for round in 0..2000u64 {
            let hits: Vec<AtomicU64> = (0..4).map(|_| AtomicU64::new(0)).collect();
            pool.run(
                &|slot| {
                    hits[slot].fetch_add(1, Ordering::Relaxed);
                },
                3,
                false,
            );
            for (slot, h) in hits.iter().enumerate() {
                assert_eq!(h.load(Ordering::Relaxed), 1, "round {round}, slot {slot}");
            }
        }
    }

    /// A pool thread that has not begun its worker when the starting thread's ends stays out of
    /// that loop: each worker runs at most once per loop, worker 0 always, and the pool goes on
    /// loop after loop (also when its threads sleep between loops).
    #[test]
    fn a_late_pool_thread_stays_out_of_an_ended_loop() {
        for spin in [Duration::ZERO, Duration::from_micros(200)] {
            let pool = Pool::new(3, 1 << 20, spin).unwrap();
            for round in 0..5000u64 {
                let hits: Vec<AtomicU64> = (0..4).map(|_| AtomicU64::new(0)).collect();
                pool.run(
                    &|slot| {
                        hits[slot].fetch_add(1, Ordering::Relaxed);
                    },
                    3,
                    true,
                );
                assert_eq!(hits[0].load(Ordering::Relaxed), 1, "round {round}");
                for h in &hits[1..] {
                    let n = h.load(Ordering::Relaxed);
                    assert!(n <= 1, "round {round}: a worker ran {n} times");
                }
            }
        }
    }
}
