//! The MPI backend: Cariño & Banicescu's (2007) scheduler/worker strategy (fig. 3.3) over any communicator.
//!
//! **Roles.** Rank 0 of the loop's communicator is the scheduler *and* a worker. Its compute thread
//! (the thread that calls `next_chunk`, normally `main`) takes its chunks straight from the shared
//! `ReportingScheduler` (`runtime/sched/reporting.rs`) under a mutex. A dedicated *service
//! thread*, started for the
//! loop's duration, answers the other ranks' requests, so a request is answered promptly whatever
//! the length of the iterates rank 0 is executing (measured while rank 0 runs 100 ms iterates,
//! `test-programs/tests/mpi_latency.rs`: a median of 30–50 µs on a quiet 2-core machine, ~0.1 ms when loaded;
//! the 99th percentile, ~3 ms, is the OS time slice when Open MPI binds the rank, and so both of
//! its threads, to one core; since then the service thread of a rank bound to one core may run on
//! the job's other cores, `service.rs`). The service thread posts a receive for the next request
//! and polls it without blocking in MPI (see `backoff.rs`: while every remote worker is inside a
//! chunk it sleeps until shortly before the first should finish at its measured pace; otherwise
//! it spins 100 µs after the last message, then sleeps 20 µs between polls), so an idle scheduler
//! does not eat a core and a busy one answers at once; workers wait for the end of the loop the
//! same way. Measured on this 2-core machine: a request costs 1.32× a raw MPI ping-pong at P = 2
//! and 1.16× at P = 4 (`benches/src/bin/mpi_overhead.rs`).
//!
//! **Yielding.** Open MPI busy-polls without yielding the CPU when it believes each rank has a
//! core to itself (for instance 2 ranks on 2 cores). The scheduler rank runs two threads, so
//! before `MPI_Init` dls sets `OMPI_MCA_mpi_yield_when_idle=1` unless the variable is already
//! set. On a loaded 2-core machine this made the exactly-once test at P = 2 7× faster (0.65 s
//! instead of 4.5 s).
//!
//! **Threads and MPI.** `init` asks for `MPI_THREAD_MULTIPLE` and refuses to run without it, so the
//! service thread and the compute thread may both call MPI. Each loop duplicates the communicator
//! it runs on (`MPI_Comm_dup`, collective, in `DLS_StartLoop`); the duplicate is owned by the loop
//! and shared with the service thread through a wrapper that is `Send` (see `comm.rs`).
//!
//! **Isolation.** Because every loop has its own duplicated communicator, no message of one loop
//! can be received by another loop, by an enclosing or nested loop on another communicator, or by
//! the program's own MPI traffic: MPI matches on the communicator's context before tags. (The
//! loops of a two-level loop share, one after the other, communicators private to them; a loop's
//! last message is received before the next loop's first is sent, see `MpiLoop::start_private`.)
//!
//! **Protocol** (`backend/mpi/messages.rs`). A worker sends `Request::Next(timing of its previous chunk)` and
//! waits for `Reply::Chunk` or `Reply::Done`; the piggybacked timing goes to
//! `ChunkScheduler::record`, so adaptive techniques adapt. Every worker receives exactly one
//! `Done`, so every rank learns of termination; the service thread ends after the last `Done`.
//! `finish` (`DLS_EndLoop`) joins the service thread and broadcasts the loop report (without the
//! chunk map, which stays on rank 0) to every rank.
//!
//! **Any communicator.** `MpiLoop::start` takes any communicator, so loops can run over a group
//! of ranks or over a coordinator and group leaders (two-level loops, Cariño & Banicescu (2007) fig. 3.4); see
//! `Runtime::start_loop_on`. Two-level loops (`group` module) run their outer loop and every
//! inner loop on this machinery too (`MpiLoop::start_private`: on a communicator private to the
//! two-level code, without a duplicate per loop; on the outer level rank 0 is a coordinator that
//! executes no iterate), so the group leader's service thread answers its group's requests
//! promptly while the leader executes inner iterates. A leader relays its outer chunks to its
//! group with `OuterRelay` (`relay.rs`, the `Handout` broadcast of `messages.rs`).
//!
//! **Threads inside ranks.** With `DLS_THREADS=k` under a launcher, every rank runs `k` worker
//! threads (the calling thread and a pool, as on the threads backend) over a `HybridLoop`
//! (`hybrid.rs`): rank 0's scheduler computes the chunks for all `P·k` threads and hands a rank
//! a batch of them per request (`BatchRequest` and `Batch` in `messages.rs`); the rank's
//! threads share the batch through a local queue, and the rank asks for more before they run
//! dry while chunks are short beside a round trip.
//!
//! **The seam.** `MpiLoop`, `HybridLoop` and `OuterRelay` are chunk sources (`runtime/loops/source.rs`): the runtime
//! and the group code call only the `ChunkSource` trait, and combine partial results through the
//! `Exchange` that `LoopComm` implements (`comm.rs`, used by `runtime/combine/mod.rs`).

pub(crate) mod agreement;
mod backoff;
mod chunk_loop;
mod comm;
mod env;
mod hybrid;
pub(crate) mod messages;
mod placed;
mod service;

mod relay;

pub(crate) use chunk_loop::{MpiLoop, Rank0};
pub(crate) use comm::LoopComm;
pub(crate) use env::MpiEnv;
pub(crate) use relay::OuterRelay;
