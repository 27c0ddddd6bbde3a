//! The loom models of the runtime's hand-made synchronisation, run by
//! `RUSTFLAGS="--cfg loom" cargo test -p dls-runtime --release --lib loom` (scripts/test.sh, in
//! its own target folder `target/loom`). Under `cfg(loom)` the pool, the slot lock and the claim
//! counter take their atomics, locks, condition variables, threads and `UnsafeCell`s from loom
//! (`runtime/shim.rs`): loom runs each model under every interleaving of its threads (up to a
//! bound on preemptions) and every value a load may read under the C11 memory model (loom
//! models `SeqCst` fences, which the pool's two sleep handshakes use), and fails a model on a
//! deadlock, a data race on an `UnsafeCell`, or a failed assertion.
//!
//! What each model checks is written on it; `backend/README.md` lists them beside the protocol.
//! Their run time is stated in scripts/test.sh.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::runtime::backend::pool::Pool;
use crate::runtime::sched::claim::{Claimed, Claims};
use crate::runtime::sched::reporting::ReportingScheduler;
use crate::runtime::shim::{lock, Mutex};
use crate::runtime::sync::SlotLock;
use crate::{Chunk, ChunkTiming, Technique};

/// Preemptions explored per execution: loom's own examples use 2 or 3; every interleaving with
/// at most this many preemptions is run.
const PREEMPTIONS: usize = 2;

fn model(f: impl Fn() + Sync + Send + 'static) {
    bounded(Some(PREEMPTIONS), f);
}

/// `f` under loom with at most `preemptions` preemptions per execution (`None`: no bound).
fn bounded(preemptions: Option<usize>, f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = preemptions;
    // The spin-then-yield waits (the slot lock's, a watching thread's) take more branches per
    // execution than loom's default 1,000.
    builder.max_branches = 100_000;
    builder.check(f);
}

/// Counts per worker slot of one loop.
fn hits(n: usize) -> Arc<Vec<AtomicUsize>> {
    Arc::new((0..n).map(|_| AtomicUsize::new(0)).collect())
}

fn counts(h: &[AtomicUsize]) -> Vec<usize> {
    h.iter().map(|a| a.load(Ordering::Relaxed)).collect()
}

/// The pool, two loops in a row (closed, then not): with one starter and a pool thread that
/// sleeps at once, every worker runs at most once in the closed loop (worker 0 exactly once),
/// every worker exactly once in the open one, `run` returns only after every entered worker
/// ended (the counts are final when read), and no execution deadlocks (neither sleep handshake
/// loses a wake-up). The job cell is loom's `UnsafeCell`: a read of the job not ordered after its
/// write fails the model.
#[test]
fn loom_pool_two_loops_in_a_row() {
    model(|| {
        let pool = Pool::new(1, 1 << 16, Duration::ZERO).unwrap();
        let first = hits(2);
        pool.run(
            &|slot| {
                first[slot].fetch_add(1, Ordering::Relaxed);
            },
            1,
            true,
        );
        let c = counts(&first);
        assert!(c[0] == 1 && c[1] <= 1, "{c:?}");
        let second = hits(2);
        pool.run(
            &|slot| {
                second[slot].fetch_add(1, Ordering::Relaxed);
            },
            1,
            false,
        );
        assert_eq!(counts(&second), [1, 1]);
        assert_eq!(
            counts(&first),
            c,
            "no worker of the first loop ran after it returned"
        );
    });
}

/// Two pool threads, a loop that needs one of them: it runs exactly once, the other thread's
/// job never runs, and dropping the pool wakes and joins both (the unneeded thread was not
/// woken by the loop).
#[test]
fn loom_pool_a_loop_of_one_of_two_threads() {
    model(|| {
        let pool = Pool::new(2, 1 << 16, Duration::ZERO).unwrap();
        let h = hits(3);
        pool.run(
            &|slot| {
                h[slot].fetch_add(1, Ordering::Relaxed);
            },
            1,
            false,
        );
        assert_eq!(counts(&h), [1, 1, 0]);
    });
}

/// A late thread: the pool thread that has not entered a closed loop when worker 0 ends arrives
/// while the next loop is announced (its entry word reset against the thread's `enter`), and
/// watches (spin) so that it also reads tickets late. It never runs the ended loop's job after
/// `run` returned, runs the next loop's at most once, and the job cell is never raced.
#[test]
fn loom_pool_late_thread_as_the_next_loop_is_announced() {
    model(|| {
        let pool = Pool::new(1, 1 << 16, Duration::from_micros(1)).unwrap();
        let ended = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let first = hits(2);
        pool.run(
            &|slot| {
                assert!(!ended.load(Ordering::SeqCst), "a job ran after its loop");
                first[slot].fetch_add(1, Ordering::Relaxed);
            },
            1,
            true,
        );
        ended.store(true, Ordering::SeqCst);
        let second = hits(2);
        pool.run(
            &|slot| {
                second[slot].fetch_add(1, Ordering::Relaxed);
            },
            1,
            true,
        );
        let (a, b) = (counts(&first), counts(&second));
        assert!(
            a[0] == 1 && a[1] <= 1 && b[0] == 1 && b[1] <= 1,
            "{a:?} {b:?}"
        );
    });
}

/// Dropping the pool while its thread goes to sleep (between announcing itself asleep and
/// waiting), before any loop and after one: `drop` wakes it and joins it in every interleaving
/// (a lost wake-up would be a deadlock).
#[test]
fn loom_pool_drop_while_a_thread_goes_to_sleep() {
    model(|| {
        drop(Pool::new(1, 1 << 16, Duration::ZERO).unwrap());
    });
    model(|| {
        let pool = Pool::new(1, 1 << 16, Duration::ZERO).unwrap();
        let h = hits(2);
        pool.run(
            &|slot| {
                h[slot].fetch_add(1, Ordering::Relaxed);
            },
            1,
            false,
        );
        drop(pool);
        assert_eq!(counts(&h), [1, 1]);
    });
}

/// A job panics (worker 0's, on the starting thread, or the pool thread's): the panic comes back
/// on the starting thread after every worker ended, and the next loop completes with every
/// worker.
fn panicking_job_then_a_loop(panics: usize) {
    model(move || {
        let pool = Pool::new(1, 1 << 16, Duration::ZERO).unwrap();
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool.run(
                &|slot| {
                    if slot == panics {
                        std::panic::panic_any(7u8);
                    }
                },
                1,
                false,
            )
        }));
        assert_eq!(result.unwrap_err().downcast_ref::<u8>(), Some(&7));
        let h = hits(2);
        pool.run(
            &|slot| {
                h[slot].fetch_add(1, Ordering::Relaxed);
            },
            1,
            false,
        );
        assert_eq!(counts(&h), [1, 1]);
    });
}

#[test]
fn loom_pool_panicking_job_then_a_loop_that_completes() {
    panicking_job_then_a_loop(0);
}

#[test]
fn loom_pool_panicking_pool_thread_job_then_a_loop_that_completes() {
    panicking_job_then_a_loop(1);
}

/// The slot lock: two threads add to a plain (non-atomic) value under it. Loom fails the model
/// if the two critical sections overlap (a race on the cell) or one misses the other's write.
#[test]
fn loom_slot_lock_excludes() {
    bounded(None, || {
        let lock = Arc::new(SlotLock::new(0u64));
        let other = lock.clone();
        let t = loom::thread::spawn(move || {
            *other.lock() += 1;
        });
        *lock.lock() += 1;
        t.join().unwrap();
        assert_eq!(*lock.lock(), 2);
    });
}

fn timing(c: Chunk) -> ChunkTiming {
    ChunkTiming {
        iterates: c.size,
        work_s: 0.0,
        elapsed_s: 0.0,
    }
}

/// Slot `slot`'s claims until the loop has no more for it: its chunks.
fn claim_all(claims: &Claims, slot: usize) -> Vec<Chunk> {
    let mut mine = Vec::new();
    let mut last = None;
    while let Claimed::Chunk(c) = claims.next(slot, last, Instant::now(), false, None) {
        mine.push(c);
        last = Some(timing(c));
    }
    mine
}

/// The claim counter: two slots claim the chunks of a loop of 3 iterates in chunks of 1 (one
/// atomic add per claim, each slot's log under its slot lock); every index is claimed exactly
/// once, and the logs fold into the scheduler's report with every chunk and iterate counted once.
#[test]
fn loom_claim_counter_is_a_partition() {
    model(|| {
        let t: Technique = "ss".parse().unwrap();
        let mut sched = ReportingScheduler::new(&t, 3, 2).unwrap();
        let claims = Arc::new(Claims::new(
            1,
            3,
            2,
            100,
            Instant::now(),
            sched.done_counter(),
        ));
        let other = claims.clone();
        let t1 = loom::thread::spawn(move || claim_all(&other, 1));
        let mut all = claim_all(&claims, 0);
        all.extend(t1.join().unwrap());
        all.sort_by_key(|c| c.start);
        assert_eq!(
            all.iter().map(|c| (c.start, c.size)).collect::<Vec<_>>(),
            [(0, 1), (1, 1), (2, 1)]
        );
        assert!(claims.all_out());
        claims.fold_into(&mut sched);
        let report = sched.report("model", Instant::now());
        assert_eq!(report.ranks.iter().map(|r| r.iterates).sum::<u64>(), 3);
        assert_eq!(report.ranks.iter().map(|r| r.chunks).sum::<u64>(), 3);
        assert_eq!(report.chunk_map.len(), 3);
    });
}

/// Re-execution's hand-over: in a re-executing loop, the slot that finds every chunk out hands
/// the loop's tail to the scheduler (`Claims::hand_over`, which locks every slot's log at once)
/// while the other slot may be claiming or handing in. Whatever the interleaving, every chunk is
/// claimed once, the scheduler ends up holding each chunk still in progress (its holder hands it
/// in there), and every iterate is counted exactly once in the scheduler's report, as
/// `SharedSource::next` does it.
#[test]
fn loom_reexecution_hand_over() {
    model(|| {
        let t: Technique = "ss".parse().unwrap();
        let mut sched = ReportingScheduler::new(&t, 2, 2).unwrap();
        sched.reexecute();
        let claims = Arc::new(Claims::new(
            1,
            2,
            2,
            100,
            Instant::now(),
            sched.done_counter(),
        ));
        claims.tail_to_scheduler();
        let sched = Arc::new(Mutex::new(sched));
        let work = move |claims: &Claims, sched: &Mutex<ReportingScheduler>, slot: usize| {
            let mut mine = Vec::new();
            let mut last = None;
            loop {
                match claims.next(slot, last, Instant::now(), false, None) {
                    Claimed::Chunk(c) => {
                        mine.push(c);
                        last = Some(timing(c));
                    }
                    Claimed::Done => return mine,
                    Claimed::Tail { recorded } => {
                        let mut s = lock(sched);
                        claims.hand_over(&mut s);
                        if let (Some(t), false) = (last, recorded) {
                            s.hand_in(slot, t, Instant::now());
                        }
                        return mine;
                    }
                }
            }
        };
        let (c1, s1) = (claims.clone(), sched.clone());
        let t1 = loom::thread::spawn(move || work(&c1, &s1, 1));
        let mut all = work(&claims, &sched, 0);
        all.extend(t1.join().unwrap());
        all.sort_by_key(|c| c.start);
        assert_eq!(
            all.iter().map(|c| (c.start, c.size)).collect::<Vec<_>>(),
            [(0, 1), (1, 1)]
        );
        assert!(claims.handed_over(), "the tail went to the scheduler");
        let s = lock(&sched);
        assert_eq!(s.unconfirmed(), 0, "no chunk left in progress");
        let report = s.report("model", Instant::now());
        assert_eq!(report.ranks.iter().map(|r| r.iterates).sum::<u64>(), 2);
    });
}
