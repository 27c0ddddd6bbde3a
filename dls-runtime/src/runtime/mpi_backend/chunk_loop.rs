//! One loop on an MPI communicator: the scheduler side (rank 0) and the worker side.

use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Instant;

use mpi::collective::{CommunicatorCollectives, Root};
use mpi::datatype::PartitionMut;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::Communicator;
use mpi::Count;

use super::super::error::DlsError;
use super::super::loop_handle::lock;
use super::super::sched_core::SchedCore;
use super::super::wire::{self, Wire};
use super::backoff;
use super::comm::LoopComm;
use super::messages::{Reply, Request, REPLY_WORDS, TAG_REPLY, TAG_REQUEST};
use super::service;
use crate::report::LoopReport;
use crate::{Chunk, ChunkTiming, Technique};

enum Role {
    /// Rank 0: the scheduler state, shared with the service thread.
    Scheduler {
        core: Arc<Mutex<SchedCore>>,
        service: Mutex<Option<JoinHandle<()>>>,
        /// False for a coordinator, which schedules only (see [`MpiLoop::start_private`]).
        computes: bool,
    },
    /// Other ranks: whether the scheduler said `Done` (or this rank left).
    Worker { done: Mutex<bool> },
}

/// A loop in progress on this rank.
pub(crate) struct MpiLoop {
    comm: Arc<LoopComm>,
    rank: usize,
    size: usize,
    role: Role,
}

impl MpiLoop {
    /// `DLS_StartLoop` on `comm` (collective over `comm`): validates the technique (and the
    /// weights, if any) on every rank (so that all fail alike, before any communication),
    /// duplicates the communicator and, on rank 0, starts the service thread.
    pub(crate) fn start<C: Communicator>(
        comm: &C,
        technique: &Technique,
        n: u64,
        weights: Option<Vec<f64>>,
    ) -> Result<MpiLoop, DlsError> {
        let mut core = SchedCore::new(technique, n, comm.size() as usize)?;
        if let Some(w) = weights {
            core.set_weights(w)?;
        }
        Ok(Self::launch(
            Arc::new(LoopComm(comm.duplicate())),
            core,
            false,
        ))
    }

    /// `DLS_StartLoop` on a communicator that the caller keeps private to loops run one after
    /// the other (the inner loops of a group, the outer loops of a two-level loop), without
    /// duplicating it: no `MPI_Comm_dup` per loop. Collective over `comm`; validates the
    /// technique on every rank first.
    ///
    /// Successive loops on one communicator cannot mix their messages: a rank leaves a loop
    /// (`finish` or `finish_quietly`) only after it received every reply addressed to it, and
    /// only after rank 0's end-of-loop broadcast, which follows the end of the service thread,
    /// that is the receipt of every request of the loop; so every message of a loop is received
    /// before any rank sends one of the next.
    ///
    /// With `coordinator`, rank 0 schedules and executes no iterate (seed 004 fig. 3.4's
    /// coordinator): the iterates are shared among ranks `1..size`, scheduler slot `r - 1` for
    /// rank `r`, and the report's ranks are those slots.
    pub(crate) fn start_private(
        comm: &Arc<LoopComm>,
        technique: &Technique,
        n: u64,
        coordinator: bool,
    ) -> Result<MpiLoop, DlsError> {
        let size = comm.0.size() as usize;
        let core = SchedCore::new(technique, n, size - usize::from(coordinator))?;
        Ok(Self::launch(comm.clone(), core, coordinator))
    }

    fn launch(comm: Arc<LoopComm>, core: SchedCore, coordinator: bool) -> MpiLoop {
        let size = comm.0.size() as usize;
        let rank = comm.0.rank() as usize;
        let role = if rank == 0 {
            let core = Arc::new(Mutex::new(core));
            let first = usize::from(coordinator);
            let service = (size > 1).then(|| {
                let (c, k) = (comm.clone(), core.clone());
                thread::Builder::new()
                    .name("dls-scheduler".into())
                    .spawn(move || service::serve(&c, &k, size - 1, first))
                    .expect("dls: cannot start the scheduler's service thread")
            });
            Role::Scheduler {
                core,
                service: Mutex::new(service),
                computes: !coordinator,
            }
        } else {
            Role::Worker {
                done: Mutex::new(false),
            }
        };
        MpiLoop {
            comm,
            rank,
            size,
            role,
        }
    }

    /// This rank in the loop's communicator.
    pub(crate) fn rank(&self) -> usize {
        self.rank
    }

    /// Ranks in the loop's communicator (P).
    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// The next chunk for this rank; `finished` is the timing of its previous chunk.
    pub(crate) fn next(&self, finished: Option<ChunkTiming>) -> Option<Chunk> {
        match &self.role {
            Role::Scheduler { core, computes, .. } => {
                if *computes {
                    lock(core).serve(0, finished)
                } else {
                    None
                }
            }
            Role::Worker { done } => {
                let mut done = lock(done);
                if *done {
                    return None;
                }
                let root = self.comm.0.process_at_rank(0);
                root.send_with_tag(&Request::Next(finished).encode()[..], TAG_REQUEST);
                // A blocking receive: the reply is due within a round trip (the service thread
                // answers at once), and spinning for it is what makes a request cost no more than
                // a raw MPI ping-pong.
                let mut buf = [0u64; REPLY_WORDS];
                root.receive_into_with_tag(&mut buf[..], TAG_REPLY);
                match Reply::decode(&buf) {
                    Some(Reply::Chunk(c)) => Some(c),
                    Some(Reply::Done) => {
                        *done = true;
                        None
                    }
                    None => {
                        panic!("dls: malformed reply from the scheduler: {buf:?} (internal error)")
                    }
                }
            }
        }
    }

    /// `DLS_Terminated` for this rank.
    pub(crate) fn terminated(&self) -> bool {
        match &self.role {
            Role::Scheduler { core, .. } => lock(core).remaining() == 0,
            Role::Worker { done } => *lock(done),
        }
    }

    /// `DLS_EndLoop` without a report (collective): waits for the end of the loop on every rank,
    /// for loops whose caller keeps its own tally (the inner loops of a two-level loop). This
    /// rank's chunks must all have been handed in (`next` returned `None`). Rank 0 sends one word
    /// after the service thread ended, so every rank leaves after the loop's last message.
    pub(crate) fn finish_quietly(&self) {
        let root = self.comm.0.process_at_rank(0);
        let mut word = 0u64;
        match &self.role {
            Role::Scheduler { service, .. } => {
                if let Some(h) = lock(service).take() {
                    // A panic on the service thread has already aborted the job (panic hook).
                    let _ = h.join();
                }
                broadcast_politely(&root, &mut word);
            }
            Role::Worker { done } => {
                {
                    let mut done = lock(done);
                    if !*done {
                        root.send_with_tag(&Request::Leave(None).encode()[..], TAG_REQUEST);
                        *done = true;
                    }
                }
                broadcast_politely(&root, &mut word);
            }
        }
    }

    /// `DLS_EndLoop` (collective): hands in this rank's open chunk, waits for the end of the loop
    /// and returns the report, identical on every rank except that only rank 0 has the chunk map.
    pub(crate) fn finish(
        &self,
        open: Option<ChunkTiming>,
        name: &str,
        started: Instant,
    ) -> LoopReport {
        let root = self.comm.0.process_at_rank(0);
        match &self.role {
            Role::Scheduler { core, service, .. } => {
                if let Some(t) = open {
                    lock(core).record(0, t);
                }
                if let Some(h) = lock(service).take() {
                    // A panic on the service thread has already aborted the job (panic hook).
                    let _ = h.join();
                }
                let report = lock(core).report(name, started.elapsed().as_secs_f64());
                let shared = LoopReport {
                    chunk_map: Vec::new(),
                    ..report.clone()
                };
                let mut bytes =
                    serde_json::to_vec(&shared).expect("dls: a loop report always serialises");
                let mut len = bytes.len() as u64;
                broadcast_politely(&root, &mut len);
                broadcast_politely(&root, &mut bytes[..]);
                report
            }
            Role::Worker { done } => {
                {
                    let mut done = lock(done);
                    if !*done {
                        root.send_with_tag(&Request::Leave(open).encode()[..], TAG_REQUEST);
                        *done = true;
                    }
                }
                let mut len = 0u64;
                broadcast_politely(&root, &mut len);
                let mut bytes = vec![0u8; len as usize];
                broadcast_politely(&root, &mut bytes[..]);
                serde_json::from_slice(&bytes)
                    .expect("dls: the scheduler's loop report always deserialises")
            }
        }
    }

    /// Every rank's value, in rank order, on every rank (collective over the loop's communicator).
    pub(crate) fn all_gather_values<T: Wire>(&self, value: &T) -> Result<Vec<T>, DlsError> {
        all_gather_values(&self.comm.0, value)
    }
}

/// Every rank's value, in rank order, on every rank (collective over `comm`; values travel
/// serialised, [`Wire`]).
pub(crate) fn all_gather_values<C: Communicator, T: Wire>(
    comm: &C,
    value: &T,
) -> Result<Vec<T>, DlsError> {
    let bytes = wire::encode(value)?;
    let mine = bytes.len() as u64;
    let mut lens = vec![0u64; comm.size() as usize];
    comm.all_gather_into(&mine, &mut lens[..]);
    let total: u64 = lens.iter().sum();
    if total > Count::MAX as u64 {
        return Err(DlsError::Wire(format!(
            "the reduction values of all ranks take {total} bytes; at most {} can be gathered",
            Count::MAX
        )));
    }
    let counts: Vec<Count> = lens.iter().map(|&l| l as Count).collect();
    let displs: Vec<Count> = counts
        .iter()
        .scan(0, |acc, &c| {
            let d = *acc;
            *acc += c;
            Some(d)
        })
        .collect();
    let mut all = vec![0u8; total as usize];
    {
        let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
        comm.all_gather_varcount_into(&bytes[..], &mut partition);
    }
    counts
        .iter()
        .zip(&displs)
        .map(|(&c, &d)| wire::decode(&all[d as usize..(d + c) as usize]))
        .collect()
}

/// `MPI_Ibcast` completed by polling (a worker may wait here for the scheduler's last chunk).
fn broadcast_politely<R: Root, B: mpi::datatype::BufferMut + ?Sized>(root: &R, buf: &mut B) {
    mpi::request::scope(|scope| backoff::complete(root.immediate_broadcast_into(scope, buf)));
}
