//! Polite waiting for MPI: poll, spinning briefly and then sleeping, instead of blocking in MPI.
//!
//! Open MPI's blocking calls busy-poll a core for as long as they wait. The scheduler's service
//! thread between requests, a worker waiting for the scheduler's reply, and ranks waiting for
//! each other would then steal the CPU from the threads doing real work (oversubscribed ranks
//! share cores with each other). These waits therefore poll: they spin for [`SPIN`] after they
//! started (or after the last message), then sleep [`SLEEP`] between polls (plus the kernel's
//! timer slack, 50 µs by default). Sleeping rather than yielding keeps the thread's scheduling
//! priority high on a loaded machine, so it is woken promptly.
//!
//! **The service thread's waits.** While every remote worker is inside a chunk, the service
//! thread sleeps until shortly before the first should finish at its measured pace
//! ([`Backoff::wait_expecting`], at most [`EXPECTED_SLEEP_MAX`] per sleep) instead of spinning
//! 100 µs after each request and then waking every 20-70 µs. When mpirun binds rank 0 to one
//! core (Open MPI does for up to 2 ranks), its compute thread keeps that core busy, and the
//! service thread may run on the job's other cores (`service.rs`). Measured under `mpirun -np 2`
//! (BENCHMARKS.md, "Adaptive techniques on loops whose cost follows the index"); a variant that spun
//! less and slept with a 1 µs timer slack and a short EEVDF slice on the shared core cost
//! 4-5% everywhere and was dropped.

use std::thread;
use std::time::{Duration, Instant};

use mpi::request::{Request, Scope};

/// Polling without sleeping after a wait starts.
pub(crate) const SPIN: Duration = Duration::from_micros(100);
/// Polls of a wait that expects its message before it asks when ([`Backoff::wait_expecting`]):
/// a request due within a round trip comes in that time.
const BUSY_POLLS: u32 = 16;
/// Sleep between polls after the spin.
pub(crate) const SLEEP: Duration = Duration::from_micros(20);

/// The longest sleep of a wait that expects its message at a known time
/// ([`Backoff::wait_expecting`]).
pub(crate) const EXPECTED_SLEEP_MAX: Duration = Duration::from_micros(250);
/// How long before the expected time such a wait goes back to polling.
pub(crate) const EXPECTED_MARGIN: Duration = Duration::from_micros(150);

/// The longest pause of a wait whose message is overdue ([`Backoff::wait_expecting`]): the
/// pause grows with the lateness (an eighth of it), so a message late by 2 ms or more is
/// noticed within 12.5% of its lateness, and a service thread waiting for a worker whose chunk
/// runs far beyond its measured pace (a copy of a slow iterate) wakes 4,000 times a second, not
/// 10,000 (0.48 s of CPU in 1.5 s on rank 0 of `mpi_idle_cpu` before).
pub(crate) const OVERDUE_SLEEP_MAX: Duration = Duration::from_micros(250);

/// The longest sleep of a [`Backoff::patient`] wait: a rank waiting for the others wakes at
/// most 4,000 times a second (about 1% of a core) and notices their arrival within a quarter of
/// a millisecond. With 1 ms, rank 1 of `mpirun -np 2`, waiting at a loop's start while rank 0
/// ran serial code, started its first chunk 4.2 ms after rank 0 (several waits in a row); with
/// 250 µs, 0.8-1.7 ms. The adaptive techniques read such a late start as the ranks' speeds.
pub(crate) const PATIENT_SLEEP: Duration = Duration::from_micros(250);

/// Waits between polls: spin, then sleep.
#[derive(Debug, Default)]
pub(crate) struct Backoff {
    idle_since: Option<Instant>,
    /// Polls since the wait started.
    polls: u32,
    /// The expected time of the message, once computed in this wait (`Some(None)`: unknown).
    expected: Option<Option<Instant>>,
    /// Patient waits double their sleep up to [`PATIENT_SLEEP`]; `None`: always [`SLEEP`].
    patient: Option<Duration>,
    /// The expected time of the message once it was near or past ([`Backoff::wait_expecting`]).
    overdue_from: Option<Instant>,
}

impl Backoff {
    /// A wait that may last long and whose end needs no prompt answer (ranks waiting for the
    /// others at a loop start or a reduction): after the spin it sleeps 20 µs, doubling up to
    /// [`PATIENT_SLEEP`], so a rank waiting a second for a slow one uses about 1% of a core, not
    /// all of it.
    pub(crate) fn patient() -> Backoff {
        Backoff {
            idle_since: None,
            polls: 0,
            expected: None,
            patient: Some(SLEEP),
            overdue_from: None,
        }
    }

    /// Whether this wait is still in its first polls or its [`SPIN`] (since it started, or
    /// since something arrived).
    pub(crate) fn fresh(&self) -> bool {
        self.polls < BUSY_POLLS || self.idle_since.is_none_or(|t| t.elapsed() < SPIN)
    }

    /// Something arrived: the next wait spins again.
    pub(crate) fn reset(&mut self) {
        self.idle_since = None;
        self.polls = 0;
        self.expected = None;
        self.overdue_from = None;
        if let Some(sleep) = self.patient.as_mut() {
            *sleep = SLEEP;
        }
    }

    /// One pause between two polls of a wait whose message is expected at a time `expect`
    /// computes (called once per wait, after its first [`BUSY_POLLS`] polls): until shortly
    /// before that time the pauses are sleeps of at most [`EXPECTED_SLEEP_MAX`], so the service
    /// thread neither spins 100 µs after each request nor wakes every 70 µs while every worker is
    /// inside a chunk; without an expected time, or once it is near or past, this is
    /// [`wait`](Self::wait). A message that comes earlier than expected (a chunk of cheaper
    /// iterates) waits at most one such sleep.
    pub(crate) fn wait_expecting(&mut self, expect: impl FnOnce() -> Option<Instant>) {
        if self.polls < BUSY_POLLS {
            self.spin_unclocked();
            return;
        }
        let idle = self.idle_since.get_or_insert_with(Instant::now).elapsed();
        if self.polls >= BUSY_POLLS || idle >= SPIN {
            if self.expected.is_none() {
                self.expected = Some(expect());
            }
            if let Some(Some(at)) = self.expected {
                let now = Instant::now();
                if let Some(left) = at.checked_duration_since(now) {
                    if left > EXPECTED_MARGIN + SLEEP {
                        thread::sleep((left - EXPECTED_MARGIN).min(EXPECTED_SLEEP_MAX));
                        return;
                    }
                }
                // Near or past the expected time: poll densely again, then back off.
                self.expected = Some(None);
                self.overdue_from = Some(at);
                if let Some(sleep) = self.patient.as_mut() {
                    *sleep = SLEEP;
                }
            }
            // Overdue: pauses of an eighth of the lateness, from SLEEP up to OVERDUE_SLEEP_MAX.
            if let Some(at) = self.overdue_from {
                let late = Instant::now().saturating_duration_since(at);
                if late > EXPECTED_MARGIN {
                    self.polls = self.polls.saturating_add(1);
                    thread::sleep((late / 8).clamp(SLEEP, OVERDUE_SLEEP_MAX));
                    return;
                }
            }
        }
        self.wait();
    }

    /// One pause between two polls.
    /// One of a wait's first [`BUSY_POLLS`] pauses: a spin without reading the clock, so that
    /// a message that comes within a round trip is seen a clock read sooner (the spin's
    /// [`SPIN`] is counted from the end of these polls).
    fn spin_unclocked(&mut self) {
        self.polls += 1;
        std::hint::spin_loop();
    }

    pub(crate) fn wait(&mut self) {
        if self.polls < BUSY_POLLS {
            self.spin_unclocked();
            return;
        }
        let idle = self.idle_since.get_or_insert_with(Instant::now).elapsed();
        self.polls = self.polls.saturating_add(1);
        if idle < SPIN {
            std::hint::spin_loop();
        } else if let Some(sleep) = self.patient.as_mut() {
            thread::sleep(*sleep);
            *sleep = (*sleep * 2).min(PATIENT_SLEEP);
        } else {
            thread::sleep(SLEEP);
        }
    }
}

/// Completes a non-blocking request by polling it with a [`Backoff`].
pub(crate) fn complete<'a, D: ?Sized, S: Scope<'a>>(request: Request<'a, D, S>) {
    complete_with(request, Backoff::default())
}

/// Completes a non-blocking request that may wait long, with a [`Backoff::patient`].
pub(crate) fn complete_patiently<'a, D: ?Sized, S: Scope<'a>>(request: Request<'a, D, S>) {
    complete_with(request, Backoff::patient())
}

fn complete_with<'a, D: ?Sized, S: Scope<'a>>(
    mut request: Request<'a, D, S>,
    mut backoff: Backoff,
) {
    loop {
        match request.test() {
            Ok(_) => return,
            Err(r) => {
                request = r;
                backoff.wait();
            }
        }
    }
}
