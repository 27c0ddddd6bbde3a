//! The exchange of gathered elements written in place (issue 42 part 4): after a loop over every
//! rank whose body assigned plain elements of a `gather(v)` vector at the loop's index, each
//! rank holds the elements its own iterates wrote, in place, and the merged gather log lists who
//! wrote which range (`gather::Place::exchanged`). Every rank sends its ranges' bytes to every
//! other rank, straight out of its vector, and receives the others' straight into it: one
//! message per pair of ranks, each described by an MPI datatype of the ranges (an `hindexed`
//! type of bytes), so nothing is copied into a buffer of dls's own, logged, encoded or decoded,
//! as in an `MPI_Allgatherv` of the ranks' blocks.
//!
//! The ranks wait with `MPI_Waitall` (polling with back-off, as the loop's own waits do, left the
//! 4 MB transfer stalled between polls: 1.8-2.8x an `MPI_Allgatherv` against 0.9-1.7x, BENCHMARKS.md).
//!
//! The messages go over a communicator of their own (a duplicate of `MPI_COMM_WORLD`, made at
//! the first exchange, collectively: every rank holds the same merged log, so every rank comes
//! here for the same loops), so that no other message of dls or of the program can match them.

use std::ffi::c_void;

use mpi::datatype::{Equivalence, UserDatatype};
use mpi::raw::AsRaw;
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::{ffi, Address, Count};

use crate::runtime::error::DlsError;

/// The tag of the exchange's messages, on its own communicator.
const TAG_PLACED: i32 = 1;

/// Sends this rank's ranges of `bytes` (the vector's elements of `elem` bytes each) to every
/// other rank of `comm` and receives theirs into `bytes`. `placed` is `(rank, first element,
/// element count)`, the same list on every rank, sorted, the ranges disjoint and inside the
/// vector (`GatherBuf::scatter_values` checked both). Collective over `comm`.
pub(crate) fn exchange(
    comm: &SimpleCommunicator,
    bytes: &mut [u8],
    elem: usize,
    placed: &[(u32, u64, u64)],
) -> Result<(), DlsError> {
    let me = comm.rank() as u32;
    let size = comm.size() as u32;
    if elem == 0 || placed.is_empty() || size < 2 {
        return Ok(());
    }
    let total = bytes.len();
    // Each rank's ranges as an MPI datatype over the whole vector (None: the rank wrote none).
    let mut types: Vec<Option<UserDatatype>> = Vec::with_capacity(size as usize);
    for rank in 0..size {
        let start = placed.partition_point(|&(r, _, _)| r < rank);
        let stop = placed.partition_point(|&(r, _, _)| r <= rank);
        types.push(ranges_type(&placed[start..stop], elem, total)?);
    }
    let base = bytes.as_mut_ptr().cast::<c_void>();
    let mut requests: Vec<ffi::MPI_Request> = Vec::with_capacity(2 * size as usize);
    for other in (0..size).filter(|&r| r != me) {
        if let Some(theirs) = &types[other as usize] {
            // SAFETY: the datatype reaches only bytes of `bytes` (`ranges_type` checks each range
            // against its length), which lives, and is not otherwise touched, until every
            // request has completed below. The receives write the other ranks' ranges, the sends
            // read this rank's: disjoint ranges, so no byte is both sent and received.
            requests.push(unsafe {
                post(|req| {
                    ffi::MPI_Irecv(
                        base,
                        1,
                        theirs.as_raw(),
                        other as i32,
                        TAG_PLACED,
                        comm.as_raw(),
                        req,
                    )
                })
            });
        }
    }
    if let Some(mine) = &types[me as usize] {
        for other in (0..size).filter(|&r| r != me) {
            // SAFETY: as above.
            requests.push(unsafe {
                post(|req| {
                    ffi::MPI_Isend(
                        base.cast_const(),
                        1,
                        mine.as_raw(),
                        other as i32,
                        TAG_PLACED,
                        comm.as_raw(),
                        req,
                    )
                })
            });
        }
    }
    // The ranks come here together, straight from the all-gather of the loop's partial
    // results: a blocking wait, which drives MPI's progress while the bytes move (Open MPI
    // yields the core when idle, `OMPI_MCA_mpi_yield_when_idle`, set by `MpiEnv::init`).
    // SAFETY: `requests` holds requests posted above; statuses are ignored.
    let code = unsafe {
        ffi::MPI_Waitall(
            requests.len() as i32,
            requests.as_mut_ptr(),
            ffi::RSMPI_STATUSES_IGNORE,
        )
    };
    if code != 0 {
        return Err(DlsError::Mpi(format!(
            "the exchange of gathered elements written in place failed (MPI error {code})"
        )));
    }
    Ok(())
}

/// Posts one non-blocking operation, returning its request.
///
/// # Safety
///
/// `op`'s buffer must stay valid until the request completes.
unsafe fn post(op: impl FnOnce(*mut ffi::MPI_Request) -> i32) -> ffi::MPI_Request {
    // SAFETY: an MPI_Request is a handle that MPI writes before it is read.
    let mut request: ffi::MPI_Request = unsafe { std::mem::zeroed() };
    op(&mut request);
    request
}

/// The MPI datatype of `ranges` (`(rank, first element, count)`) in a vector of `total` bytes
/// whose elements are `elem` bytes: one block of bytes per range (a range over `i32::MAX` bytes
/// split). `None` for no range.
fn ranges_type(
    ranges: &[(u32, u64, u64)],
    elem: usize,
    total: usize,
) -> Result<Option<UserDatatype>, DlsError> {
    if ranges.is_empty() {
        return Ok(None);
    }
    let mut lens: Vec<Count> = Vec::with_capacity(ranges.len());
    let mut displs: Vec<Address> = Vec::with_capacity(ranges.len());
    for &(_, first, count) in ranges {
        let start = usize::try_from(first)
            .ok()
            .and_then(|f| f.checked_mul(elem));
        let len = usize::try_from(count)
            .ok()
            .and_then(|c| c.checked_mul(elem));
        let (Some(mut start), Some(len)) = (start, len) else {
            return Err(out_of_range(first, count));
        };
        let end = start.checked_add(len).filter(|&e| e <= total);
        let Some(end) = end else {
            return Err(out_of_range(first, count));
        };
        while start < end {
            let piece = (end - start).min(Count::MAX as usize);
            lens.push(piece as Count);
            displs.push(start as Address);
            start += piece;
        }
    }
    Ok(Some(UserDatatype::heterogeneous_indexed(
        &lens,
        &displs,
        &u8::equivalent_datatype(),
    )))
}

/// The error of a range that is not inside the vector (cannot come from a log of this loop).
fn out_of_range(first: u64, count: u64) -> DlsError {
    DlsError::Mpi(format!(
        "a gathered range written in place ({count} elements from {first}) is not inside the \
         vector on this rank: the ranks' vectors differ in length"
    ))
}
