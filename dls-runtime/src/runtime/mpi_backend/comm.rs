//! A communicator that can be shared with the scheduler's service thread.

use std::ops::Range;

use mpi::collective::CommunicatorCollectives;
use mpi::datatype::PartitionMut;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::Count;

use crate::runtime::combine::Exchange;
use crate::runtime::error::DlsError;

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

impl Exchange for LoopComm {
    fn all_gather_bytes(&self, mine: &[u8]) -> Result<(Vec<u8>, Vec<Range<usize>>), DlsError> {
        let comm = &self.0;
        let mut lens = vec![0u64; comm.size() as usize];
        // Ranks finish their share of a loop at different times; the early ones wait here for the
        // others, polling politely instead of busy-polling a core in a blocking collective.
        let len = mine.len() as u64;
        mpi::request::scope(|scope| {
            super::backoff::complete_patiently(comm.immediate_all_gather_into(
                scope,
                &len,
                &mut lens[..],
            ))
        });
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
        // Neither buffer may be an empty slice: an empty slice's pointer is dangling (0x1), which
        // Open MPI reads as MPI_IN_PLACE (MPI_ERR_ARG in MPI_Allgatherv; issue 17 case 0: a
        // reduction over `()`). Both buffers are real allocations of at least one byte, of which
        // only the first `len` are sent or received.
        let mut send = Vec::with_capacity(mine.len().max(1));
        send.extend_from_slice(mine);
        send.push(0);
        let mut all = vec![0u8; total as usize + 1];
        {
            let mut partition =
                PartitionMut::new(&mut all[..total as usize + 1], &counts[..], &displs[..]);
            comm.all_gather_varcount_into(&send[..mine.len()], &mut partition);
        }
        all.truncate(total as usize);
        let ranges = counts
            .iter()
            .zip(&displs)
            .map(|(&c, &d)| d as usize..(d + c) as usize)
            .collect();
        Ok((all, ranges))
    }
}
