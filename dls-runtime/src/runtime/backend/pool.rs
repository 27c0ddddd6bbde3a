//! The threads backend's pool: `threads - 1` threads that run the workers 1, 2, … of each loop
//! while the thread that starts the loop runs worker 0.
//!
//! A loop is handed to the pool through one word, the *ticket* (the loop's generation and how
//! many pool threads take part), and the job itself (a borrowed `Fn(usize)`) next to it. A pool
//! thread between loops first watches the ticket for a while ([`Pool::new`]'s spin time, as
//! OpenMP runtimes do: GNU's `GOMP_SPINCOUNT`) and only then sleeps on a condition variable of
//! its own, so that the loops of a time loop, a few microseconds apart, start without waking a
//! sleeping thread, and a loop wakes only the sleeping threads it needs. The starting thread
//! waits for the pool's part the same way: watching a counter, then sleeping. With more threads
//! than cores nobody watches (a watcher would take the core of a thread with work): they sleep at
//! once.
//!
//! A panic in a pool thread's worker is caught there and raised again on the starting thread once
//! every worker has ended, so that the job (which borrows the starting thread's stack) is never
//! used after `run` returns.
//!
//! The guards: [`Pool::run`] called from inside a job (of any pool) panics, naming the rule,
//! instead of waiting for itself; a pool thread that ends outside that protocol (a panic of the
//! pool's own code) is noticed, and the loop waiting for it panics naming the thread; dropping
//! the pool joins its threads.
//!
//! The protocol (states, who wakes whom, the invariants, and what the loom models check) is
//! written out in `backend/README.md`; the models are in `backend/loom_models.rs`.

use std::any::Any;
use std::cell::Cell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use crate::runtime::shim::{
    fence, lock, thread, wait, AtomicBool, AtomicU64, AtomicUsize, Condvar, Mutex, UnsafeCell,
    Watch,
};
use crate::runtime::sync::Padded;

pub(crate) use crate::runtime::sync::cores;

/// Bits of the ticket that count the pool threads taking part (the rest is the generation).
const HELPER_BITS: u32 = 24;
/// The entry word's bit that closes a loop to threads that have not entered it.
const ENTRY_CLOSED: u64 = 1 << HELPER_BITS;
/// Where the entry word's generation begins.
const ENTRY_GEN: u32 = HELPER_BITS + 1;

/// What [`Pool::run`] called from inside a job panics with: the rule it broke.
pub(crate) const NESTED_RUN: &str = "dls: a loop was started on a pool of worker threads from \
    inside a job of a pool (a worker of a running loop): the rule is that Pool::run is never \
    called from inside a job, since the pool would wait for itself. A loop started inside an \
    iterate runs serially on its thread (the engine's make_loop); this is a bug of dls, please \
    report it";

/// A generation as the entry word holds it (its low bits: it wraps, as the ticket's does).
fn entry_generation(generation: u64) -> u64 {
    generation & ((1 << (64 - ENTRY_GEN)) - 1)
}

/// A job: worker `slot` of a loop, borrowed from the starting thread for the length of one
/// [`Pool::run`].
type Job = *const (dyn Fn(usize) + Sync);

#[cfg(not(loom))]
thread_local! {
    /// Whether this thread runs a job of a pool now: a pool thread always (it runs user code
    /// only inside jobs), the thread that started a loop while it runs its worker 0.
    static IN_JOB: Cell<bool> = const { Cell::new(false) };
}
#[cfg(loom)]
loom::thread_local! {
    static IN_JOB: Cell<bool> = Cell::new(false);
}

/// Marks the calling thread as running a job until dropped (also when a panic unwinds).
struct InJob(bool);

impl InJob {
    fn enter() -> InJob {
        InJob(IN_JOB.with(|j| j.replace(true)))
    }
}

impl Drop for InJob {
    fn drop(&mut self) {
        IN_JOB.with(|j| j.set(self.0));
    }
}

/// Where one pool thread sleeps between loops: a loop wakes only the threads it needs.
struct Bed {
    /// Raised before the thread looks at the ticket for the last time and sleeps.
    asleep: AtomicBool,
    lock: Mutex<()>,
    wake: Condvar,
    /// How often the thread woke from its condition variable (the test that only the
    /// threads a loop needs are woken).
    #[cfg(test)]
    wakes: crate::runtime::annotate::sync::AtomicU64,
}

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
    /// Pool threads asleep (or about to sleep) waiting for a ticket: a loop reads the threads'
    /// beds only when some sleep.
    sleepers: AtomicUsize,
    /// Pool thread `k`'s bed at `k - 1`.
    beds: Box<[Padded<Bed>]>,
    /// The starting thread asleep waiting for `done` to reach the loop's entered threads.
    starter_asleep: AtomicBool,
    starter_lock: Mutex<()>,
    wake_starter: Condvar,
    /// The first panic of a pool thread's worker in the current loop.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// The slot of a pool thread that ended outside the protocol (0: none).
    dead: AtomicUsize,
    /// How long a waiting thread watches before it sleeps (zero: it sleeps at once).
    spin: Duration,
    shutdown: AtomicBool,
}

// SAFETY: `job` is written only by the starting thread (under `Pool::serial`) while no pool thread
// reads it: before a ticket is published, every pool thread that entered the previous loop has
// ended its worker (`done` reached the count of the closed entry word), and a thread that did not
// enter never reads it. Pool threads read it only after entering the loop of the ticket that
// announces it (Acquire on the entry word, written after the job). The job it points to is
// `Sync`. The loom models check this protocol (`backend/loom_models.rs`).
unsafe impl Sync for Shared {}
// SAFETY: as above; the raw pointer is only dereferenced under that protocol.
unsafe impl Send for Shared {}

/// `threads - 1` threads that run loops with the thread that starts them.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    helpers: usize,
    /// One loop at a time (two threads that start loops at once take turns).
    serial: Mutex<()>,
    /// The pool's threads, joined when the pool is dropped.
    threads: Vec<thread::JoinHandle<()>>,
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
    #[cfg(test)]
    pub(crate) fn new(helpers: usize, stack: usize, spin: Duration) -> std::io::Result<Pool> {
        Self::pinned(helpers, stack, spin, None)
    }

    /// [`new`](Self::new), with pool thread `slot` pinned to core `cpus[slot % cpus.len()]`
    /// when `cpus` is given (`DLS_PIN=cores`, `backend/cores.rs`).
    pub(crate) fn pinned(
        helpers: usize,
        stack: usize,
        spin: Duration,
        cpus: Option<Vec<usize>>,
    ) -> std::io::Result<Pool> {
        let cpus = cpus.map(Arc::new);
        assert!(helpers < 1 << HELPER_BITS, "too many threads");
        let shared = Arc::new(Shared {
            ticket: Padded(AtomicU64::new(0)),
            job: UnsafeCell::new(None),
            entry: Padded(AtomicU64::new(0)),
            done: Padded(AtomicUsize::new(0)),
            sleepers: AtomicUsize::new(0),
            beds: (0..helpers)
                .map(|_| {
                    Padded(Bed {
                        asleep: AtomicBool::new(false),
                        lock: Mutex::new(()),
                        wake: Condvar::new(),
                        #[cfg(test)]
                        wakes: crate::runtime::annotate::sync::AtomicU64::new(0),
                    })
                })
                .collect(),
            starter_asleep: AtomicBool::new(false),
            starter_lock: Mutex::new(()),
            wake_starter: Condvar::new(),
            panic: Mutex::new(None),
            dead: AtomicUsize::new(0),
            spin,
            shutdown: AtomicBool::new(false),
        });
        let mut pool = Pool {
            shared: shared.clone(),
            helpers,
            serial: Mutex::new(()),
            threads: Vec::with_capacity(helpers),
        };
        for slot in 1..=helpers {
            let mine = shared.clone();
            let cpus = cpus.clone();
            let spawned = thread::Builder::new()
                .name(format!("dls-worker-{slot}"))
                .stack_size(stack)
                .spawn(move || {
                    if let Some(cpus) = cpus {
                        super::cores::pin_this_thread(&cpus, slot);
                    }
                    pool_thread(&mine, slot)
                });
            match spawned {
                Ok(handle) => pool.threads.push(handle),
                // The threads already started end (and are joined) with the pool.
                Err(e) => return Err(e),
            }
        }
        Ok(pool)
    }

    /// Runs `job(0)` on this thread and `job(1)`, …, `job(helpers)` on the pool (at most
    /// `self.helpers`), and returns once all have ended; a panic of any of them is raised here
    /// after that. With `close`, a pool thread that has not begun its `job(slot)` when `job(0)`
    /// ends does not run it: the jobs of a loop's workers take chunks until none is left, and
    /// once this thread's worker has seen the loop's end a late one would find none (a loop of a
    /// few cheap iterates then costs no wait for a pool thread's wake-up).
    ///
    /// # Panics
    ///
    /// Called from inside a job of a pool (this one or another: a worker of a running loop), it
    /// panics with [`NESTED_RUN`] instead of waiting for itself. If a pool thread has ended
    /// outside the protocol (a panic in the pool's own code), the loop that waits for it panics
    /// naming the thread, once every thread that entered the loop has ended its job, and so does
    /// every later loop.
    pub(crate) fn run(&self, job: &(dyn Fn(usize) + Sync), helpers: usize, close: bool) {
        assert!(!IN_JOB.with(Cell::get), "{NESTED_RUN}");
        let helpers = helpers.min(self.helpers);
        if helpers == 0 {
            let _in = InJob::enter();
            job(0);
            return;
        }
        let s = &*self.shared;
        self.check_alive();
        let serial = lock(&self.serial);
        // SAFETY: the pointer outlives its use: this function does not return (nor unwind)
        // before every pool thread that took the job has ended it (`wait_for_pool`).
        let erased: Job = unsafe {
            std::mem::transmute::<&(dyn Fn(usize) + Sync), &'static (dyn Fn(usize) + Sync)>(job)
        };
        // SAFETY: no pool thread reads `job` now (see `Shared`).
        s.job.with_mut(|p| unsafe { *p = Some(erased) });
        s.done.store(0, Ordering::Relaxed);
        let generation = (s.ticket.load(Ordering::Relaxed) >> HELPER_BITS) + 1;
        s.entry
            .store(entry_generation(generation) << ENTRY_GEN, Ordering::Release);
        s.ticket.store(
            generation << HELPER_BITS | helpers as u64,
            Ordering::Release,
        );
        // With a sleeper's fence between raising its bed's flag and its last look at the
        // ticket: one of the two sees the other, so no thread sleeps through its loop.
        fence(Ordering::SeqCst);
        if s.sleepers.load(Ordering::Relaxed) > 0 {
            for bed in &s.beds[..helpers] {
                if bed.asleep.load(Ordering::Relaxed) {
                    let _guard = lock(&bed.lock);
                    bed.wake.notify_one();
                }
            }
        }
        let mine = {
            let _in = InJob::enter();
            catch_unwind(AssertUnwindSafe(|| job(0)))
        };
        // Closed: a thread that has not entered stays out; wait for those that did. Without
        // `close`, every helper enters: wait for all of them.
        let entered = if close { self.close() } else { helpers };
        self.wait_for_pool(entered);
        // SAFETY: every pool thread that entered has ended the job; no other reads it.
        s.job.with_mut(|p| unsafe { *p = None });
        let theirs = lock(&s.panic).take();
        // Given back before a panic is raised (no guard is dropped while unwinding: loom's
        // mutexes do not support poisoning).
        drop(serial);
        self.check_alive();
        if let Err(payload) = mine {
            resume_unwind(payload);
        }
        if let Some(payload) = theirs {
            resume_unwind(payload);
        }
    }

    /// Panics naming a pool thread that ended outside the protocol, if one did.
    fn check_alive(&self) {
        let dead = self.shared.dead.load(Ordering::Acquire);
        assert!(
            dead == 0,
            "dls: the pool's thread dls-worker-{dead} has ended (a panic in the pool's own code, \
             outside the loop's iterates: a bug of dls, please report it); the loops of this \
             runtime cannot run on its threads"
        );
    }

    /// Closes the current loop to the threads that have not entered it: how many did.
    fn close(&self) -> usize {
        let word = self.shared.entry.fetch_or(ENTRY_CLOSED, Ordering::AcqRel);
        (word & (ENTRY_CLOSED - 1)) as usize
    }

    /// Waits until the `entered` pool threads of the current loop have ended their workers. If
    /// a pool thread dies meanwhile, the loop is closed and only the threads that entered it
    /// are waited for (a dead thread that had entered counts itself as ended).
    fn wait_for_pool(&self, mut entered: usize) {
        let s = &*self.shared;
        let mut closed = false;
        let mut watch = Watch::new(s.spin);
        loop {
            if !closed && s.dead.load(Ordering::Acquire) != 0 {
                entered = self.close();
                closed = true;
            }
            if s.done.load(Ordering::Acquire) == entered {
                return;
            }
            if watch.again() {
                continue;
            }
            // With a pool thread's fence between raising `done` and reading this flag: one of
            // the two sees the other, so this thread does not sleep through the last `done`.
            s.starter_asleep.store(true, Ordering::Relaxed);
            fence(Ordering::SeqCst);
            let mut guard = lock(&s.starter_lock);
            while s.done.load(Ordering::Acquire) != entered
                && (closed || s.dead.load(Ordering::Acquire) == 0)
            {
                guard = wait(&s.wake_starter, guard);
            }
            drop(guard);
            s.starter_asleep.store(false, Ordering::Relaxed);
        }
    }

    /// The pool threads asleep now (the tests wait for them to fall asleep).
    #[cfg(test)]
    fn asleep(&self) -> usize {
        self.shared.sleepers.load(Ordering::SeqCst)
    }
}

impl Drop for Pool {
    /// Shuts the pool down and joins its threads (a thread of the pool dropping it is not
    /// joined: it ends on its own once it returns from its job).
    fn drop(&mut self) {
        let s = &*self.shared;
        s.shutdown.store(true, Ordering::Release);
        // Every bed's lock taken: a thread about to sleep sees the shutdown under it, or sleeps
        // before and is notified.
        for bed in s.beds.iter() {
            let _guard = lock(&bed.lock);
            bed.wake.notify_one();
        }
        let me = thread::current().id();
        for handle in self.threads.drain(..) {
            if handle.thread().id() != me {
                // A thread that died has told the loops already (`Shared::dead`).
                let _ = handle.join();
            }
        }
    }
}

/// A test's way to end a pool thread outside the protocol: a job that panics with it is raised
/// again outside the job's `catch_unwind`, as a panic of the pool's own code would be.
#[cfg(test)]
struct DieForTest;

/// A pool thread's life: if it ends by a panic (of the pool's own code: a job's panics are
/// caught), the pool is told which thread died, the loop it had entered counts it as ended, and
/// the starting thread is woken to notice.
struct Life<'a> {
    s: &'a Shared,
    slot: usize,
    /// In a loop's job (entered, `done` not yet raised).
    entered: bool,
}

impl Drop for Life<'_> {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            return;
        }
        let s = self.s;
        let _ = s
            .dead
            .compare_exchange(0, self.slot, Ordering::AcqRel, Ordering::Relaxed);
        if self.entered {
            s.done.fetch_add(1, Ordering::Release);
        }
        // Under the lock the starting thread checks `dead` under: it sees it or is woken.
        let _guard = lock(&s.starter_lock);
        s.wake_starter.notify_all();
    }
}

/// A pool thread: waits for each ticket and, when it takes part, runs its worker.
fn pool_thread(s: &Shared, slot: usize) {
    // A pool thread runs user code only inside jobs.
    IN_JOB.with(|j| j.set(true));
    let mut life = Life {
        s,
        slot,
        entered: false,
    };
    let mut seen = 0u64;
    while let Some(ticket) = next_ticket(s, slot, seen) {
        seen = ticket >> HELPER_BITS;
        let helpers = (ticket & ((1 << HELPER_BITS) - 1)) as usize;
        if slot > helpers || !enter(s, seen) {
            continue;
        }
        life.entered = true;
        // SAFETY: this thread entered the loop the ticket announced (Acquire on the entry word,
        // written after the job); the job stays valid until this thread raises `done` below.
        let job = s
            .job
            .with(|p| unsafe { *p })
            .expect("a ticket comes with its job");
        // SAFETY: see above.
        let result = catch_unwind(AssertUnwindSafe(|| unsafe { (*job)(slot) }));
        if let Err(payload) = result {
            #[cfg(test)]
            if payload.is::<DieForTest>() {
                resume_unwind(payload);
            }
            let mut first = lock(&s.panic);
            if first.is_none() {
                *first = Some(payload);
            }
        }
        s.done.fetch_add(1, Ordering::Release);
        life.entered = false;
        // With the starting thread's fence between raising its flag and its last look at
        // `done` (`Pool::wait_for_pool`).
        fence(Ordering::SeqCst);
        if s.starter_asleep.load(Ordering::Relaxed) {
            let _guard = lock(&s.starter_lock);
            s.wake_starter.notify_one();
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

/// The next ticket after generation `seen` for pool thread `slot`, watched for the spin time and
/// then slept for in the thread's bed; `None` when the pool shuts down.
fn next_ticket(s: &Shared, slot: usize, seen: u64) -> Option<u64> {
    let fresh = |t: u64| t >> HELPER_BITS != seen;
    let mut watch = Watch::new(s.spin);
    loop {
        let t = s.ticket.load(Ordering::Acquire);
        if fresh(t) {
            return Some(t);
        }
        if s.shutdown.load(Ordering::Relaxed) {
            return None;
        }
        if !watch.again() {
            break;
        }
    }
    let bed = &s.beds[slot - 1];
    s.sleepers.fetch_add(1, Ordering::Relaxed);
    bed.asleep.store(true, Ordering::Relaxed);
    // With `run`'s fence between publishing the ticket and reading these flags: one of the two
    // sees the other.
    fence(Ordering::SeqCst);
    let mut guard = lock(&bed.lock);
    let found = loop {
        let t = s.ticket.load(Ordering::Acquire);
        if fresh(t) {
            break Some(t);
        }
        if s.shutdown.load(Ordering::Acquire) {
            break None;
        }
        guard = wait(&bed.wake, guard);
        #[cfg(test)]
        bed.wakes.fetch_add(1, Ordering::Relaxed);
    };
    drop(guard);
    bed.asleep.store(false, Ordering::Relaxed);
    s.sleepers.fetch_sub(1, Ordering::Relaxed);
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::annotate::sync::AtomicU64;
    use std::sync::mpsc;
    use std::thread::sleep;
    use std::time::Instant;

    /// `f` on a thread of its own, its result (or panic) within `secs` seconds: a test of a hang
    /// fails instead of hanging (the hung thread is left behind).
    fn within<T: Send + 'static>(
        secs: u64,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> std::thread::Result<T> {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(catch_unwind(AssertUnwindSafe(f)));
        });
        rx.recv_timeout(Duration::from_secs(secs))
            .unwrap_or_else(|_| panic!("still running after {secs} s: a hang"))
    }

    fn message(payload: &(dyn Any + Send)) -> String {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    }

    /// Waits until `n` pool threads sleep.
    fn until_asleep(pool: &Pool, n: usize) {
        let t = Instant::now();
        while pool.asleep() != n {
            assert!(t.elapsed() < Duration::from_secs(10), "threads never slept");
            sleep(Duration::from_micros(100));
        }
    }

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
                    sleep(Duration::from_millis(2));
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
                    sleep(Duration::from_millis(20));
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

    /// `run` from inside a job panics naming the rule, from worker 0's job and from a pool
    /// thread's (before the guard, both hung forever on the pool's `serial` lock); the pool
    /// then runs the next loop.
    #[test]
    fn run_inside_a_job_panics_naming_the_rule() {
        for nested_on in [0usize, 1] {
            let pool = Arc::new(Pool::new(2, 1 << 20, Duration::from_micros(50)).unwrap());
            let inner = pool.clone();
            let outcome = within(20, move || {
                inner.run(
                    &|slot| {
                        if slot == nested_on {
                            inner.run(&|_| {}, 2, true);
                        }
                    },
                    2,
                    false,
                );
            });
            let payload = outcome.expect_err("the nested run panics");
            let text = message(&*payload);
            assert!(
                text.contains("Pool::run is never called from inside a job"),
                "worker {nested_on}: {text}"
            );
            let hits = Arc::new(AtomicU64::new(0));
            let (p, h) = (pool.clone(), hits.clone());
            within(20, move || {
                p.run(
                    &|_| {
                        h.fetch_add(1, Ordering::SeqCst);
                    },
                    2,
                    false,
                )
            })
            .unwrap();
            assert_eq!(hits.load(Ordering::SeqCst), 3);
        }
    }

    /// A pool thread that ends outside the protocol is named by the loop that waits for it,
    /// which ends instead of hanging (with and without `close`, whether the thread had entered
    /// the loop or dies between loops), and by every later loop.
    #[test]
    fn a_dead_pool_thread_is_named_not_waited_for() {
        for close in [false, true] {
            let pool = Arc::new(Pool::new(3, 1 << 20, Duration::ZERO).unwrap());
            let p = pool.clone();
            let outcome = within(20, move || {
                p.run(
                    &|slot| {
                        if slot == 2 {
                            std::panic::panic_any(DieForTest);
                        }
                        if slot == 0 {
                            // Long enough for the others to enter.
                            sleep(Duration::from_millis(20));
                        }
                    },
                    3,
                    close,
                )
            });
            let text = message(&*outcome.expect_err("the loop panics"));
            assert!(text.contains("dls-worker-2 has ended"), "{text}");
            let p = pool.clone();
            let outcome = within(20, move || p.run(&|_| {}, 3, false));
            let text = message(&*outcome.expect_err("the next loop panics"));
            assert!(text.contains("dls-worker-2 has ended"), "{text}");
        }
    }

    /// A loop of one pool thread wakes that thread only, not every sleeper (before, every
    /// sleeper woke at every loop and went back to sleep).
    #[test]
    fn a_loop_wakes_only_the_threads_it_needs() {
        let pool = Pool::new(3, 1 << 20, Duration::ZERO).unwrap();
        let hits = AtomicU64::new(0);
        for _ in 0..50 {
            until_asleep(&pool, 3);
            pool.run(
                &|_| {
                    hits.fetch_add(1, Ordering::Relaxed);
                },
                1,
                false,
            );
        }
        assert_eq!(hits.load(Ordering::Relaxed), 100);
        let wakes: Vec<u64> = pool
            .shared
            .beds
            .iter()
            .map(|b| b.wakes.load(Ordering::Relaxed))
            .collect();
        assert!(wakes[0] >= 49, "thread 1 woke for its loops: {wakes:?}");
        assert_eq!(wakes[1..], [0, 0], "threads 2 and 3 slept on: {wakes:?}");
    }

    /// Dropping the pool joins its threads: once `drop` returns, none holds the shared state
    /// (before, they ended after `drop` had returned), whether they slept or watched.
    #[test]
    fn dropping_the_pool_joins_its_threads() {
        for spin in [Duration::ZERO, Duration::from_micros(200)] {
            for round in 0..50 {
                let pool = Pool::new(3, 1 << 20, spin).unwrap();
                pool.run(&|_| {}, 3, round % 2 == 0);
                if round % 10 == 0 {
                    until_asleep(&pool, 3);
                }
                let shared = Arc::downgrade(&pool.shared);
                drop(pool);
                assert_eq!(
                    shared.strong_count(),
                    0,
                    "round {round}: a thread still runs"
                );
            }
        }
    }
}
