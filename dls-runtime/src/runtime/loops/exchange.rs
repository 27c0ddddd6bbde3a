//! The processes' seam: how a loop's partial results travel between its processes (MPI: the
//! loop's communicator; in tests, an in-process exchange). A chunk source names it
//! (`ChunkSource::exchange`); the combine strategies (`runtime/combine/`) run on it.

use crate::runtime::error::DlsError;

/// How partial results travel between the processes of a loop (MPI: the loop's communicator).
pub(crate) trait Exchange {
    /// This process's index, `0..size()`.
    fn rank(&self) -> usize;

    /// Number of processes.
    fn size(&self) -> usize;

    /// Every process's `mine`, in rank order, on every process (collective).
    fn all_words(&self, mine: [u64; 2]) -> Vec<[u64; 2]>;

    /// Every process's byte count, in rank order, on every process (collective).
    fn all_lengths(&self, mine: u64) -> Vec<u64> {
        self.all_words([mine, 0]).iter().map(|w| w[0]).collect()
    }

    /// Hands every process's bytes to `take`, in rank order, on every process (collective);
    /// `lens` are every process's byte counts ([`Exchange::all_lengths`]). An implementation may
    /// pass them one process at a time, so that a big value never needs all processes' bytes in
    /// memory at once (MPI: above `STREAM_ABOVE` bytes in all, one broadcast per process). An
    /// error of `take` is returned after the collective is complete.
    fn each_process_of(
        &self,
        mine: Vec<u8>,
        lens: &[u64],
        take: &mut dyn FnMut(&[u8]) -> Result<(), DlsError>,
    ) -> Result<(), DlsError>;

    /// Sends `bytes` to process `to` (point-to-point, any length).
    fn send(&self, to: usize, bytes: &[u8]);

    /// Receives the bytes process `from` sends with [`Exchange::send`], waiting politely.
    fn receive(&self, from: usize) -> Vec<u8>;

    /// `root`'s bytes (`Some` on the root) on every process (collective).
    fn broadcast(&self, root: usize, bytes: Option<Vec<u8>>) -> Vec<u8>;

    /// [`Exchange::all_lengths`] and then [`Exchange::each_process_of`].
    fn each_process(
        &self,
        mine: Vec<u8>,
        take: &mut dyn FnMut(&[u8]) -> Result<(), DlsError>,
    ) -> Result<(), DlsError> {
        let lens = self.all_lengths(mine.len() as u64);
        self.each_process_of(mine, &lens, take)
    }
}
