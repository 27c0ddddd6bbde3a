//! What the generic two-level loop ([`Groups::fold_2d`](super::Groups::fold_2d)) needs from the
//! backend: the seam between `groups.rs` and the MPI communicators of `two_level_mpi.rs`.

use std::time::Instant;

use super::inner::{InnerTally, Team};
use super::layout::{GroupLayout, Role};
use crate::report::LoopReport;
use crate::runtime::{ChunkSource, DlsError, Exchange};
use crate::Technique;

/// The communicators of a two-level loop (MPI, 3 or more ranks): what the generic two-level
/// loop ([`Groups::fold_2d`](super::Groups::fold_2d)) needs from the backend.
pub(crate) trait TwoLevel {
    /// The groups.
    fn layout(&self) -> &GroupLayout;
    /// What the calling rank does.
    fn role(&self) -> Role;
    /// The calling rank in `MPI_COMM_WORLD`.
    fn world_rank(&self) -> usize;
    /// Waits until every rank starts the loop (collective over every rank).
    fn start_together(&self);
    /// The coordinator's part of an outer loop of `m` iterates: it schedules and executes no
    /// iterate. Returns the outer loop's report (chunk map and per-group tallies).
    fn coordinate(
        &self,
        technique: &Technique,
        m: u64,
        name: &str,
        started: Instant,
    ) -> Result<LoopReport, DlsError>;
    /// The outer loop of `m` iterates as seen by a rank of a group (its leader relays the
    /// coordinator's chunks to the group).
    fn outer(&self, technique: &Technique, m: u64) -> Result<Box<dyn ChunkSource>, DlsError>;
    /// The calling rank's group (None on the coordinator and idle ranks).
    fn team(&self) -> Option<&dyn Team>;
    /// How partial results travel between all ranks.
    fn world(&self) -> &dyn Exchange;
    /// The two-level report, from every rank's tally and time (collective over every rank).
    fn report(
        &self,
        name: &str,
        technique: &Technique,
        m: u64,
        time_s: f64,
        inner: InnerTally,
        outer: Option<LoopReport>,
    ) -> Result<LoopReport, DlsError>;
}
