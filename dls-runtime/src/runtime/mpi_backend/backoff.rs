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
//! **The service thread on a shared core.** When mpirun binds rank 0 to one core (Open MPI does
//! for up to 2 ranks; `--bind-to core` always), its service thread and its compute thread share
//! that core. Spinning there takes the core from the computation in CFS time slices of
//! milliseconds, during which a worker's request also waits; a sleeping thread is woken by the
//! kernel ahead of the computation (wake-up preemption) within its sleep plus the timer slack.
//! So a service thread that shares its core ([`Backoff::sharing_core`]) spins only a few polls,
//! then sleeps [`SLEEP`] with a timer slack of 1 µs. And while every remote worker is inside a
//! chunk, it sleeps until shortly before the first should finish at its measured pace
//! ([`Backoff::wait_expecting`]; at most [`EXPECTED_SLEEP_MAX`] per sleep), instead of waking
//! every 20-70 µs for nothing: measured on Mandelbrot per pixel and the triangular loop under
//! `mpirun -np 2` (README, "Adaptive techniques on loops whose cost follows the index").

use std::thread;
use std::time::{Duration, Instant};

use mpi::request::{Request, Scope};

/// Polling without sleeping after a wait starts.
pub(crate) const SPIN: Duration = Duration::from_micros(100);
/// Polls without sleeping of a wait on a shared core (and before a wait that expects its
/// message computes when): a reply or request due within a round trip comes in that time.
const BUSY_POLLS: u32 = 16;
/// Sleep between polls after the spin.
pub(crate) const SLEEP: Duration = Duration::from_micros(20);

/// The longest sleep of a wait that expects its message at a known time
/// ([`Backoff::wait_expecting`]).
pub(crate) const EXPECTED_SLEEP_MAX: Duration = Duration::from_millis(1);
/// How long before the expected time such a wait goes back to polling.
pub(crate) const EXPECTED_MARGIN: Duration = Duration::from_micros(150);

/// The longest sleep of a [`Backoff::patient`] wait.
pub(crate) const PATIENT_SLEEP: Duration = Duration::from_millis(1);

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
    /// The thread shares its core with a busy one: no spin beyond [`BUSY_POLLS`] polls.
    shared: bool,
}

impl Backoff {
    /// A wait that may last long and whose end needs no prompt answer (ranks waiting for the
    /// others at a loop start or a reduction): after the spin it sleeps 20 µs, doubling up to
    /// 1 ms, so a rank waiting a second for a slow one uses a few percent of a core, not all of it.
    pub(crate) fn patient() -> Backoff {
        Backoff {
            idle_since: None,
            polls: 0,
            expected: None,
            patient: Some(SLEEP),
            shared: false,
        }
    }

    /// The waits of a thread that shares its core with a busy thread (rank 0's service thread
    /// when the rank is bound to one core): [`BUSY_POLLS`] polls back to back, then sleeps of
    /// [`SLEEP`]. Sets the calling thread's timer slack to 1 µs (Linux), so those sleeps end
    /// on time.
    pub(crate) fn sharing_core() -> Backoff {
        #[cfg(target_os = "linux")]
        {
            // SAFETY: PR_SET_TIMERSLACK takes one integer argument and affects the calling
            // thread only.
            unsafe {
                libc::prctl(libc::PR_SET_TIMERSLACK, 1_000 as libc::c_ulong, 0, 0, 0);
            }
            short_slice();
        }
        Backoff {
            shared: true,
            patient: Some(SLEEP),
            ..Backoff::default()
        }
    }

    /// Something arrived: the next wait spins again.
    pub(crate) fn reset(&mut self) {
        self.idle_since = None;
        self.polls = 0;
        self.expected = None;
        if let Some(sleep) = self.patient.as_mut() {
            *sleep = SLEEP;
        }
    }

    /// One pause between two polls of a wait whose message is expected at a time `expect`
    /// computes (called once per wait, after its first [`BUSY_POLLS`] polls): until shortly
    /// before that time the pauses are sleeps of at most [`EXPECTED_SLEEP_MAX`], so a service
    /// thread that shares its core with rank 0's computation neither spins after each request nor
    /// wakes every 70 µs while every worker is inside a chunk; without an expected time, or once
    /// it is near or past, this is [`wait`](Self::wait). A message that comes earlier than
    /// expected (a chunk of cheaper iterates) waits at most one such sleep.
    pub(crate) fn wait_expecting(&mut self, expect: impl FnOnce() -> Option<Instant>) {
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
                if let Some(sleep) = self.patient.as_mut() {
                    *sleep = SLEEP;
                }
            }
        }
        self.wait();
    }

    /// One pause between two polls.
    pub(crate) fn wait(&mut self) {
        let idle = self.idle_since.get_or_insert_with(Instant::now).elapsed();
        self.polls = self.polls.saturating_add(1);
        if self.shared && self.polls <= BUSY_POLLS {
            std::hint::spin_loop();
        } else if !self.shared && idle < SPIN {
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

/// Asks the kernel for a short time slice for the calling thread (Linux 6.12 and later, EEVDF:
/// `sched_setattr` with `sched_runtime` on a normal thread; no privilege needed). A thread with a
/// shorter slice has an earlier virtual deadline, so when it wakes it preempts a thread with the
/// default slice (3 ms) at once instead of waiting for that thread's slice to end: the service
/// thread answers a request within its sleep, not milliseconds later. Older kernels ignore the
/// field or refuse the call; either way nothing else changes.
#[cfg(target_os = "linux")]
fn short_slice() {
    /// `struct sched_attr`, first version (48 bytes).
    #[repr(C)]
    struct SchedAttr {
        size: u32,
        policy: u32,
        flags: u64,
        nice: i32,
        priority: u32,
        runtime: u64,
        deadline: u64,
        period: u64,
    }
    let attr = SchedAttr {
        size: std::mem::size_of::<SchedAttr>() as u32,
        policy: 0, // SCHED_OTHER
        flags: 0,
        nice: 0,
        priority: 0,
        runtime: 100_000, // ns: the shortest slice the kernel accepts
        deadline: 0,
        period: 0,
    };
    // SAFETY: sched_setattr(0 = this thread, a valid sched_attr of the size it states, flags 0).
    unsafe {
        libc::syscall(libc::SYS_sched_setattr, 0, &attr as *const SchedAttr, 0u32);
    }
}
