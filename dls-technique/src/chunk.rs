//! The vocabulary of a loop's chunks, shared by the scheduler, the simulator, the backends and
//! the MPI messages: a [`Chunk`] handed out and the [`ChunkTiming`] reported back.

/// A chunk of iterates `[start, start + size)`, counted from the first iterate of the loop.
///
/// ```
/// let c = dls_technique::Chunk { start: 10, size: 5 };
/// assert_eq!(c.start + c.size, 15);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// Offset of the first iterate.
    pub start: u64,
    /// Number of iterates (at least 1).
    pub size: u64,
}

/// Timing of one executed chunk, reported by the rank that executed it.
///
/// ```
/// let t = dls_technique::ChunkTiming { iterates: 8, work_s: 0.4, elapsed_s: 0.5 };
/// assert!(t.elapsed_s >= t.work_s);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ChunkTiming {
    /// Iterates in the chunk.
    pub iterates: u64,
    /// Seconds spent executing the iterates.
    pub work_s: f64,
    /// Seconds from receiving the chunk to finishing it (scheduling overhead included).
    pub elapsed_s: f64,
}

/// Adds another chunk's timing: the iterates and both times summed (what a worker finished since
/// it last reported).
///
/// ```
/// let mut t = dls_technique::ChunkTiming { iterates: 8, work_s: 0.4, elapsed_s: 0.5 };
/// t += dls_technique::ChunkTiming { iterates: 2, work_s: 0.1, elapsed_s: 0.25 };
/// assert_eq!((t.iterates, t.work_s, t.elapsed_s), (10, 0.5, 0.75));
/// ```
impl std::ops::AddAssign for ChunkTiming {
    fn add_assign(&mut self, other: ChunkTiming) {
        self.iterates += other.iterates;
        self.work_s += other.work_s;
        self.elapsed_s += other.elapsed_s;
    }
}
