//! A communicator that can be shared with the scheduler's service thread.

use mpi::topology::SimpleCommunicator;

/// A loop's private communicator (a duplicate), shared by the rank's compute thread and, on the
/// scheduler, its service thread.
pub(crate) struct LoopComm(pub(crate) SimpleCommunicator);

// SAFETY: an MPI communicator handle is an opaque reference to an MPI object. rsmpi does not mark
// it `Send` because MPI may be initialised without thread support, but dls initialises MPI with
// `MPI_THREAD_MULTIPLE` and refuses to run without it (`MpiEnv::init`). Under
// `MPI_THREAD_MULTIPLE` any thread may call MPI on any communicator, concurrently. The handle is
// freed (`MPI_Comm_free`, on drop) only after the service thread that shares it has been joined.
unsafe impl Send for LoopComm {}
// SAFETY: as above; all operations through `&LoopComm` are MPI calls, thread-safe under
// `MPI_THREAD_MULTIPLE`.
unsafe impl Sync for LoopComm {}
