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
