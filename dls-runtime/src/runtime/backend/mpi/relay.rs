//! The chunk source of the outer loop of a two-level loop, on the ranks of a group: the group
//! leader is a worker of the outer loop (the coordinator schedules) and relays each outer chunk
//! to its group ([`Handout`], a broadcast on the group's communicator), so that every rank of the
//! group executes the group's outer iterates in lock step.

use crate::runtime::annotate::sync::AtomicBool;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use mpi::collective::Root;
use mpi::topology::Communicator;

use super::chunk_loop::{MpiLoop, Rank0};
use super::comm::LoopComm;
use super::messages::{Handout, HANDOUT_WORDS};
use crate::report::LoopReport;
use crate::runtime::combine::Exchange;
use crate::runtime::error::DlsError;
use crate::runtime::loops::source::ChunkSource;
use crate::runtime::tolerance::reexecution::Verdict;
use crate::{Chunk, ChunkTiming, Technique};

/// The outer loop as seen by one rank of a group.
pub(crate) struct OuterRelay {
    /// The leader's side of the outer loop (over the coordinator and the leaders); `None` on the
    /// group's other ranks.
    outer: Option<MpiLoop>,
    /// The group (leader = rank 0).
    group: Arc<LoopComm>,
    /// Number of groups (P of the outer loop).
    groups: usize,
    done: AtomicBool,
}

impl OuterRelay {
    /// Starts the outer loop of `m` iterates on a rank of `group`; the leader passes the outer
    /// communicator (collective over it, with the coordinator).
    pub(crate) fn start(
        outer: Option<&Arc<LoopComm>>,
        group: &Arc<LoopComm>,
        groups: usize,
        technique: &Technique,
        m: u64,
    ) -> Result<OuterRelay, DlsError> {
        let outer = outer
            .map(|o| MpiLoop::start_private(o, technique, m, Rank0::Coordinates))
            .transpose()?;
        Ok(OuterRelay {
            outer,
            group: group.clone(),
            groups,
            done: AtomicBool::new(false),
        })
    }
}

impl OuterRelay {
    /// The group's next outer chunk: the leader asks the coordinator and broadcasts the answer.
    fn relay(&self, finished: Option<ChunkTiming>) -> Option<Chunk> {
        if self.done.load(Ordering::Relaxed) {
            return None;
        }
        let chunk = self.outer.as_ref().and_then(|o| o.next(finished));
        let mut msg: [u64; HANDOUT_WORDS] = Handout(chunk).encode();
        self.group.0.process_at_rank(0).broadcast_into(&mut msg[..]);
        let Handout(chunk) = Handout::decode(&msg);
        if chunk.is_none() {
            self.done.store(true, Ordering::Relaxed);
        }
        chunk
    }
}

impl ChunkSource for OuterRelay {
    fn next(
        &self,
        _slot: usize,
        finished: Option<ChunkTiming>,
        _now: Instant,
    ) -> (Option<Chunk>, Verdict) {
        (self.relay(finished), Verdict::Keep)
    }

    fn terminated(&self) -> bool {
        self.done.load(Ordering::Relaxed)
    }

    fn workers(&self) -> usize {
        self.groups
    }

    fn local_slots(&self) -> usize {
        1
    }

    fn rank(&self) -> usize {
        self.group.0.rank() as usize
    }

    fn stop_flag(&self) -> Option<&Arc<crate::runtime::annotate::sync::AtomicBool>> {
        None
    }

    fn finish(
        &self,
        open: Vec<(usize, ChunkTiming)>,
        cpu: Vec<(usize, f64)>,
        _report: Option<(&str, Instant)>,
    ) -> Option<LoopReport> {
        // The coordinator builds and broadcasts the outer loop's report (the two-level report is
        // built from every rank's record afterwards); a leader receives it to stay in step.
        if let Some(o) = &self.outer {
            ChunkSource::finish(o, open, cpu, Some(("", Instant::now())));
        }
        None
    }

    fn exchange(&self) -> Option<&dyn Exchange> {
        Some(&*self.group)
    }
}
