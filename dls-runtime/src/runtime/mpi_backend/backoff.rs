//! Polite waiting for MPI: poll, spinning briefly and then sleeping, instead of blocking in MPI.
//!
//! Open MPI's blocking calls busy-poll a core for as long as they wait. The scheduler's service
//! thread between requests, and a worker waiting at the end of a loop for the scheduler's last
//! chunk, would then steal the CPU from the threads doing real work (rank 0's compute thread
//! shares its rank's cores with the service thread; oversubscribed ranks share cores with each
//! other). These long waits therefore poll: they spin for [`SPIN`] after they started (or after
//! the last message), then sleep [`SLEEP`] between polls (plus the kernel's timer slack, 50 µs by
//! default). Sleeping rather than yielding keeps the thread's scheduling priority high on a
//! loaded machine, so it is woken promptly. (A worker's wait for a reply is short — one round
//! trip — and uses a blocking receive.)

use std::thread;
use std::time::{Duration, Instant};

use mpi::request::{Request, Scope};

/// Pure spinning after a wait starts.
pub(crate) const SPIN: Duration = Duration::from_micros(100);
/// Sleep between polls after the spin.
pub(crate) const SLEEP: Duration = Duration::from_micros(20);

/// The longest sleep of a [`Backoff::patient`] wait.
pub(crate) const PATIENT_SLEEP: Duration = Duration::from_millis(1);

/// Waits between polls: spin, then sleep.
#[derive(Debug, Default)]
pub(crate) struct Backoff {
    idle_since: Option<Instant>,
    /// Patient waits double their sleep up to [`PATIENT_SLEEP`]; `None`: always [`SLEEP`].
    patient: Option<Duration>,
}

impl Backoff {
    /// A wait that may last long and whose end needs no prompt answer (ranks waiting for the
    /// others at a loop start or a reduction): after the spin it sleeps 20 µs, doubling up to
    /// 1 ms, so a rank waiting a second for a slow one uses a few percent of a core, not all of it.
    pub(crate) fn patient() -> Backoff {
        Backoff {
            idle_since: None,
            patient: Some(SLEEP),
        }
    }

    /// Something arrived: the next wait spins again.
    pub(crate) fn reset(&mut self) {
        self.idle_since = None;
    }

    /// One pause between two polls.
    pub(crate) fn wait(&mut self) {
        let idle = self.idle_since.get_or_insert_with(Instant::now).elapsed();
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
