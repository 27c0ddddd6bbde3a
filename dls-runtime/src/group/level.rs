//! One scheduling level of a two-level loop on MPI: a communicator plus a loop counter, and the
//! scheduler-worker protocol of seed 004 fig. 3.3 over it.
//!
//! Each level has its own communicator (the outer one: coordinator and group leaders; an inner
//! one per group), split from a private duplicate of `MPI_COMM_WORLD`, so no message of one level
//! can ever match a receive of the other, nor any message of the one-level runtime. Within a
//! communicator, the tags of a loop carry the loop's sequence number (every rank of the
//! communicator runs the same loops in the same order), and a rank leaves a loop only after every
//! message of that loop addressed to it has been received.
//!
//! Messages (all `u64` arrays):
//! - request, worker → rank 0: `[iterates, work_s bits, elapsed_s bits]` of the worker's previous
//!   chunk (`iterates = 0` on the first request);
//! - reply, rank 0 → worker: `[start, size]`, `size = 0` meaning "loop finished".
//!
//! Rank 0 schedules. On an inner communicator it also executes iterates and answers pending
//! requests after every iterate (`MPI_Iprobe`), so a worker waits at most one iterate of the
//! leader. The coordinator of the outer communicator only schedules.

use std::time::Instant;

use mpi::point_to_point::{Destination, Source};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::Root;

use super::wire::{decode, encode};
use crate::runtime::sched_core::SchedCore;
use crate::runtime::{DlsError, Wire};
use crate::{Chunk, ChunkTiming, Technique, TechniqueError};

/// Tags of one loop: request, reply, reduction.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tags {
    pub req: i32,
    pub rep: i32,
    pub red: i32,
}

/// A communicator used for one level, with the count of loops run on it.
pub(crate) struct Level {
    pub comm: SimpleCommunicator,
    seq: u64,
}

/// What the calling rank did in one loop.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tally {
    pub iterates: u64,
    pub chunks: u64,
    pub work_s: f64,
}

fn encode_timing(t: Option<ChunkTiming>) -> [u64; 3] {
    match t {
        Some(t) => [t.iterates, t.work_s.to_bits(), t.elapsed_s.to_bits()],
        None => [0, 0, 0],
    }
}

fn decode_timing(m: [u64; 3]) -> Option<ChunkTiming> {
    (m[0] > 0).then(|| ChunkTiming {
        iterates: m[0],
        work_s: f64::from_bits(m[1]),
        elapsed_s: f64::from_bits(m[2]),
    })
}

impl Level {
    pub fn new(comm: SimpleCommunicator) -> Self {
        Level { comm, seq: 0 }
    }

    pub fn rank(&self) -> usize {
        self.comm.rank() as usize
    }

    pub fn size(&self) -> usize {
        self.comm.size() as usize
    }

    /// The tags of the next loop (tags stay below 32767, the smallest `MPI_TAG_UB` allowed).
    pub fn next_tags(&mut self) -> Tags {
        let base = 1 + 3 * (self.seq % 10_000) as i32;
        self.seq += 1;
        Tags {
            req: base,
            rep: base + 1,
            red: base + 2,
        }
    }

    /// Rank 0: answers one request from `src`; returns false when it told `src` to stop.
    fn serve(&self, core: &mut SchedCore, tags: Tags, src: usize, msg: [u64; 3]) -> bool {
        let reply = match core.serve(src, decode_timing(msg)) {
            Some(c) => [c.start, c.size],
            None => [0, 0],
        };
        self.comm
            .process_at_rank(src as i32)
            .send_with_tag(&reply[..], tags.rep);
        reply[1] > 0
    }

    /// Rank 0: answers every pending request without blocking; returns how many were told to stop.
    fn serve_pending(&self, core: &mut SchedCore, tags: Tags) -> usize {
        let mut stopped = 0;
        while let Some(st) = self.comm.any_process().immediate_probe_with_tag(tags.req) {
            let src = st.source_rank();
            let mut msg = [0u64; 3];
            self.comm
                .process_at_rank(src)
                .receive_into_with_tag(&mut msg[..], tags.req);
            if !self.serve(core, tags, src as usize, msg) {
                stopped += 1;
            }
        }
        stopped
    }

    /// Rank 0: answers requests (blocking) until `workers` ranks have been told to stop.
    fn serve_until_done(&self, core: &mut SchedCore, tags: Tags, mut workers: usize) {
        while workers > 0 {
            let mut msg = [0u64; 3];
            let st = self
                .comm
                .any_process()
                .receive_into_with_tag(&mut msg[..], tags.req);
            if !self.serve(core, tags, st.source_rank() as usize, msg) {
                workers -= 1;
            }
        }
    }

    /// A worker: asks rank 0 for a chunk, reporting the previous one.
    pub fn request(&self, tags: Tags, previous: Option<ChunkTiming>) -> Option<Chunk> {
        let root = self.comm.process_at_rank(0);
        root.send_with_tag(&encode_timing(previous)[..], tags.req);
        let mut reply = [0u64; 2];
        root.receive_into_with_tag(&mut reply[..], tags.rep);
        (reply[1] > 0).then_some(Chunk {
            start: reply[0],
            size: reply[1],
        })
    }

    /// Runs a loop of `n` iterates over every rank of the communicator; rank 0 schedules and
    /// executes. `body(k)` executes iterate offset `k`. Every rank must call this with the same
    /// `n` and technique. Returns what this rank did (and, on rank 0, the scheduler state).
    pub fn run_loop(
        &mut self,
        technique: &Technique,
        n: u64,
        body: &mut dyn FnMut(u64),
    ) -> Result<(Tally, Option<SchedCore>), TechniqueError> {
        let size = self.size();
        let mut core = SchedCore::new(technique, n, size)?;
        let tags = self.next_tags();
        let mut tally = Tally::default();
        if self.rank() == 0 {
            let mut stopped = 0;
            let mut previous = None;
            while let Some(c) = core.serve(0, previous.take()) {
                let t0 = Instant::now();
                let mut serving = 0.0;
                for k in c.start..c.start + c.size {
                    body(k);
                    if size > 1 {
                        let s0 = Instant::now();
                        stopped += self.serve_pending(&mut core, tags);
                        serving += s0.elapsed().as_secs_f64();
                    }
                }
                let elapsed = t0.elapsed().as_secs_f64();
                tally.iterates += c.size;
                tally.chunks += 1;
                tally.work_s += elapsed - serving;
                previous = Some(ChunkTiming {
                    iterates: c.size,
                    work_s: elapsed - serving,
                    elapsed_s: elapsed,
                });
            }
            self.serve_until_done(&mut core, tags, size - 1 - stopped);
            Ok((tally, Some(core)))
        } else {
            let mut previous = None;
            while let Some(c) = self.request(tags, previous) {
                let t0 = Instant::now();
                for k in c.start..c.start + c.size {
                    body(k);
                }
                let elapsed = t0.elapsed().as_secs_f64();
                tally.iterates += c.size;
                tally.chunks += 1;
                tally.work_s += elapsed;
                previous = Some(ChunkTiming {
                    iterates: c.size,
                    work_s: elapsed,
                    elapsed_s: elapsed,
                });
            }
            Ok((tally, None))
        }
    }

    /// The coordinator (rank 0 of the outer communicator): schedules `n` iterates among ranks
    /// `1..size`, executing none. Rank 0's slot in the scheduler is unused.
    pub fn coordinate(
        &mut self,
        technique: &Technique,
        n: u64,
    ) -> Result<SchedCore, TechniqueError> {
        let workers = self.size() - 1;
        let mut core = SchedCore::new(technique, n, workers.max(1))?;
        let tags = self.next_tags();
        let mut open = workers;
        while open > 0 {
            let mut msg = [0u64; 3];
            let st = self
                .comm
                .any_process()
                .receive_into_with_tag(&mut msg[..], tags.req);
            let src = st.source_rank() as usize;
            let reply = match core.serve(src - 1, decode_timing(msg)) {
                Some(c) => [c.start, c.size],
                None => [0, 0],
            };
            if reply[1] == 0 {
                open -= 1;
            }
            self.comm
                .process_at_rank(src as i32)
                .send_with_tag(&reply[..], tags.rep);
        }
        Ok(core)
    }

    /// Combines one optional byte string per rank at rank 0, in rank order, and gives the result
    /// to every rank. `combine(acc, next)` folds the values; ranks passing `None` contribute
    /// nothing.
    pub fn all_combine(
        &mut self,
        mine: Option<Vec<u8>>,
        combine: &mut dyn FnMut(Option<Vec<u8>>, Vec<u8>) -> Option<Vec<u8>>,
    ) -> Option<Vec<u8>> {
        let tags = self.next_tags();
        let root = self.comm.process_at_rank(0);
        let mut result = None;
        if self.rank() == 0 {
            if let Some(m) = mine {
                result = combine(None, m);
            }
            for r in 1..self.size() {
                let (msg, _) = self
                    .comm
                    .process_at_rank(r as i32)
                    .receive_vec_with_tag::<u8>(tags.red);
                if let Some((&flag, body)) = msg.split_first() {
                    if flag == 1 {
                        result = combine(result, body.to_vec());
                    }
                }
            }
        } else {
            let mut msg = Vec::with_capacity(1 + mine.as_ref().map_or(0, Vec::len));
            match mine {
                Some(m) => {
                    msg.push(1);
                    msg.extend_from_slice(&m);
                }
                None => msg.push(0),
            }
            root.send_with_tag(&msg[..], tags.red);
        }
        // Broadcast: flag + length, then the bytes.
        let mut head = match &result {
            Some(b) => [1u64, b.len() as u64],
            None => [0u64, 0],
        };
        root.broadcast_into(&mut head[..]);
        if head[0] == 0 {
            return None;
        }
        let mut bytes = result.unwrap_or_else(|| vec![0u8; head[1] as usize]);
        root.broadcast_into(&mut bytes[..]);
        Some(bytes)
    }

    /// Combines one optional value per rank (in rank order) at rank 0 and gives the total to
    /// every rank; the total is `identity()` when no rank passes a value.
    pub fn combine_all<T: Wire>(
        &mut self,
        mine: Option<T>,
        identity: &dyn Fn() -> T,
        combine: &dyn Fn(T, T) -> T,
    ) -> Result<T, DlsError> {
        let mine = mine.map(|v| encode(&v)).transpose()?;
        let mut failure = None;
        let total = self.all_combine(mine, &mut |so_far, next| {
            let step = || -> Result<Vec<u8>, DlsError> {
                let next: T = decode(&next)?;
                let merged = match &so_far {
                    None => next,
                    Some(b) => combine(decode(b)?, next),
                };
                encode(&merged)
            };
            match step() {
                Ok(b) => Some(b),
                Err(e) => {
                    failure = Some(e);
                    so_far
                }
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        match total {
            Some(b) => decode(&b),
            None => Ok(identity()),
        }
    }
}
