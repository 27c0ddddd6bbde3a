//! A communicator that can be shared with the scheduler's service thread.

use mpi::collective::{CommunicatorCollectives, Root};
use mpi::datatype::PartitionMut;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::Count;

use mpi::point_to_point::{Destination, MatchedReceiveVec, Source};

use super::backoff::Backoff;
use super::messages::TAG_PARTIAL;
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

/// Above this many bytes from all processes together, [`Exchange::each_process`] broadcasts each
/// process's bytes in turn instead of gathering them all into one buffer.
pub(crate) const STREAM_ABOVE: u64 = 8 << 20;

impl Exchange for LoopComm {
    fn rank(&self) -> usize {
        self.0.rank() as usize
    }

    fn size(&self) -> usize {
        self.0.size() as usize
    }

    fn all_words(&self, mine: [u64; 2]) -> Vec<[u64; 2]> {
        let comm = &self.0;
        let mut words = vec![0u64; 2 * comm.size() as usize];
        // Ranks finish their share of a loop at different times; the early ones wait here for the
        // others, polling politely instead of busy-polling a core in a blocking collective.
        mpi::request::scope(|scope| {
            super::backoff::complete_patiently(comm.immediate_all_gather_into(
                scope,
                &mine[..],
                &mut words[..],
            ))
        });
        words.chunks_exact(2).map(|w| [w[0], w[1]]).collect()
    }

    fn each_process_of(
        &self,
        mine: Vec<u8>,
        lens: &[u64],
        take: &mut dyn FnMut(&[u8]) -> Result<(), DlsError>,
    ) -> Result<(), DlsError> {
        let comm = &self.0;
        // Every rank knows every length, so every rank takes the same path below.
        let total: u64 = lens.iter().sum();
        if total <= STREAM_ABOVE {
            return all_gather(comm, &mine, lens, take);
        }
        too_big(lens)?;
        // One process at a time: only this process's bytes and one other's are held at once.
        let me = comm.rank() as usize;
        let mut mine = Some(mine);
        let mut failed = None;
        for (r, &len) in lens.iter().enumerate() {
            let mut bytes = match mine.take_if(|_| r == me) {
                Some(own) => own,
                None => vec![0u8; len as usize],
            };
            if len > 0 {
                comm.process_at_rank(r as i32)
                    .broadcast_into(&mut bytes[..]);
            }
            if failed.is_none() {
                failed = take(&bytes).err();
            }
        }
        failed.map_or(Ok(()), Err)
    }

    fn send(&self, to: usize, bytes: &[u8]) {
        // Never an empty slice (its dangling pointer): a value always encodes to at least one
        // byte (`Option`'s tag), but say so here too.
        assert!(!bytes.is_empty(), "dls: empty partial result message");
        self.0
            .process_at_rank(to as i32)
            .send_with_tag(bytes, TAG_PARTIAL);
    }

    fn receive(&self, from: usize) -> Vec<u8> {
        // The sender may still be computing: probe politely, then receive what arrived (its
        // length comes with it).
        let source = self.0.process_at_rank(from as i32);
        let mut backoff = Backoff::patient();
        loop {
            if let Some(probed) = source.immediate_matched_probe_with_tag(TAG_PARTIAL) {
                return probed.matched_receive_vec::<u8>().0;
            }
            backoff.wait();
        }
    }

    fn broadcast(&self, root: usize, bytes: Option<Vec<u8>>) -> Vec<u8> {
        let root = self.0.process_at_rank(root as i32);
        let mut len = bytes.as_ref().map_or(0, |b| b.len() as u64);
        // The root may still be combining: the others wait politely for the length.
        mpi::request::scope(|scope| {
            super::backoff::complete_patiently(root.immediate_broadcast_into(scope, &mut len))
        });
        let mut bytes = bytes.unwrap_or_else(|| vec![0u8; len as usize]);
        if len > 0 {
            root.broadcast_into(&mut bytes[..]);
        }
        bytes
    }
}

/// Values too long for one MPI message.
fn too_big(lens: &[u64]) -> Result<(), DlsError> {
    match lens.iter().find(|&&l| l > Count::MAX as u64) {
        Some(big) => Err(DlsError::Wire(format!(
            "one rank's reduction value takes {big} bytes; at most {} can be sent",
            Count::MAX
        ))),
        None => Ok(()),
    }
}

/// Every process's bytes in one `MPI_Allgatherv`, then handed to `take` in rank order.
fn all_gather(
    comm: &SimpleCommunicator,
    mine: &[u8],
    lens: &[u64],
    take: &mut dyn FnMut(&[u8]) -> Result<(), DlsError>,
) -> Result<(), DlsError> {
    let total: u64 = lens.iter().sum();
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
    // reduction over `()`). An empty value is sent from a real byte (none of it sent), and the
    // receive buffer is a real allocation of at least one byte. A value is sent from its own
    // bytes, not from a copy (a gathered vector's: megabytes).
    let one = [0u8; 1];
    let send: &[u8] = if mine.is_empty() { &one[..0] } else { mine };
    let mut all = vec![0u8; total as usize + 1];
    {
        let mut partition =
            PartitionMut::new(&mut all[..total as usize + 1], &counts[..], &displs[..]);
        comm.all_gather_varcount_into(send, &mut partition);
    }
    counts
        .iter()
        .zip(&displs)
        .try_for_each(|(&c, &d)| take(&all[d as usize..(d + c) as usize]))
}

/// Ends the whole job (`MPI_Abort` on `comm`) after a pause of [`ABORT_PAUSE`]: MPICH's Hydra
/// ends the job at the abort before it forwards what the rank wrote last, and the line naming
/// the rank and the cause was lost in 4 of 40 panicking jobs (in none of 50 with the pause).
///
/// Under Open MPI's `mpirun` the rank leaves with `_exit(code)` instead: `mpirun` sees a rank
/// of a running job exit non-zero without `MPI_Finalize`, kills the others and exits with
/// `code`, from what its own daemon read with `waitpid`. `MPI_Abort` there depends on messages
/// from the dying rank to `mpirun`; in one CI run (Open MPI 4.1 under Slurm) one of them arrived
/// cut short (`ORTE_ERROR_LOG: Data unpack would read past end of buffer … show_help.c`) and
/// `mpirun` exited 0 for a job whose rank had panicked. A user who set
/// `OMPI_MCA_orte_abort_non_zero_exit=0` (a rank's non-zero exit does not end the job) gets
/// `MPI_Abort`.
pub(crate) fn abort_job(comm: &SimpleCommunicator, code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stderr().flush();
    std::thread::sleep(ABORT_PAUSE);
    if exit_ends_the_job(|name| std::env::var(name).ok()) {
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        // SAFETY: `_exit` ends the process at once; nothing of this process runs after it.
        unsafe { libc::_exit(if code == 0 { 1 } else { code }) }
    }
    comm.abort(code)
}

/// Whether this rank was started by Open MPI's `mpirun` (its daemon passes the address of
/// `mpirun` in `OMPI_MCA_orte_hnp_uri`; `srun` and MPICH's Hydra do not), with a rank's non-zero
/// exit ending the job (`orte_abort_non_zero_exit`, on unless set to 0 or false).
fn exit_ends_the_job(var: impl Fn(&str) -> Option<String>) -> bool {
    var("OMPI_MCA_orte_hnp_uri").is_some_and(|uri| !uri.is_empty())
        && !var("OMPI_MCA_orte_abort_non_zero_exit")
            .is_some_and(|v| matches!(v.trim(), "0" | "false" | "no" | "off"))
}

/// How long a rank that ends the job waits before `MPI_Abort`, so that the launcher forwards its
/// last words.
const ABORT_PAUSE: std::time::Duration = std::time::Duration::from_millis(200);

#[cfg(test)]
mod tests {
    use super::exit_ends_the_job;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn only_a_rank_of_open_mpis_mpirun_ends_the_job_by_exiting() {
        let uri = (
            "OMPI_MCA_orte_hnp_uri",
            "1587478528.0;tcp://192.0.2.2:55971",
        );
        assert!(exit_ends_the_job(env(&[uri])));
        assert!(exit_ends_the_job(env(&[
            uri,
            ("OMPI_MCA_orte_abort_non_zero_exit", "1")
        ])));
        // srun, Hydra, a singleton: no mpirun to see the exit.
        assert!(!exit_ends_the_job(env(&[])));
        assert!(!exit_ends_the_job(env(&[("OMPI_MCA_orte_hnp_uri", "")])));
        assert!(!exit_ends_the_job(env(&[
            ("PMI_RANK", "1"),
            ("SLURM_STEP_ID", "0")
        ])));
        // The user told mpirun that a rank's non-zero exit does not end the job.
        for off in ["0", "false", " 0 "] {
            let pairs = [uri, ("OMPI_MCA_orte_abort_non_zero_exit", off)];
            assert!(!exit_ends_the_job(env(&pairs)), "{off:?}");
        }
    }
}
