//! Every message of the scheduler/worker protocol, in one place.
//!
//! Messages travel on the loop's own communicator (a duplicate made by `DLS_StartLoop`), so no
//! message of one loop can be received by another loop or by another communicator, whatever the
//! tags: MPI matches messages by communicator context first. Inside a loop's communicator the tags
//! below separate the message kinds. Later features (pipelined reductions, fault checks,
//! checkpoints) add variants and tags here.
//!
//! Messages are fixed-size arrays of `u64` words (floats as their bits), sent as MPI `u64`
//! buffers: no serialisation cost on the request path.

use crate::{Chunk, ChunkTiming};

/// Tag of worker → scheduler messages ([`Request`]).
pub(crate) const TAG_REQUEST: i32 = 1;
/// Tag of scheduler → worker messages ([`Reply`]).
pub(crate) const TAG_REPLY: i32 = 2;

/// Words in an encoded [`Request`].
pub(crate) const REQUEST_WORDS: usize = 5;
/// Words in an encoded [`Reply`].
pub(crate) const REPLY_WORDS: usize = 3;
/// Words in an encoded [`Handout`].
pub(crate) const HANDOUT_WORDS: usize = 2;

/// Worker → scheduler.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Request {
    /// "Give me a chunk", carrying the timing of the chunk the worker just finished (none on the
    /// first request): Cariño & Banicescu's (2007) `DLS_EndChunk` + `DLS_StartChunk`.
    Next(Option<ChunkTiming>),
    /// The worker stops taking chunks before the loop is done (it called `finish` early);
    /// carries the timing of its open chunk. No reply.
    Leave(Option<ChunkTiming>),
}

/// Scheduler → worker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reply {
    /// Execute iterates `[start, start + size)` (offsets from the loop's first index).
    Chunk(Chunk),
    /// Every iterate has been handed out: the loop is terminated for this worker.
    Done,
}

/// Group leader → every rank of its group, a broadcast on the group's communicator (two-level
/// loops): the outer chunk the leader got from the coordinator, which the whole group executes in
/// lock step, or `None` at the end of the outer loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Handout(pub Option<Chunk>);

const NEXT: u64 = 1;
const LEAVE: u64 = 2;
const CHUNK: u64 = 1;
const DONE: u64 = 2;

impl Request {
    pub(crate) fn encode(&self) -> [u64; REQUEST_WORDS] {
        let (kind, t) = match *self {
            Request::Next(t) => (NEXT, t),
            Request::Leave(t) => (LEAVE, t),
        };
        match t {
            Some(t) => [
                kind,
                1,
                t.iterates,
                t.work_s.to_bits(),
                t.elapsed_s.to_bits(),
            ],
            None => [kind, 0, 0, 0, 0],
        }
    }

    /// `None` for a malformed message (never sent by dls).
    pub(crate) fn decode(w: &[u64; REQUEST_WORDS]) -> Option<Request> {
        let t = (w[1] == 1).then(|| ChunkTiming {
            iterates: w[2],
            work_s: f64::from_bits(w[3]),
            elapsed_s: f64::from_bits(w[4]),
        });
        match w[0] {
            NEXT => Some(Request::Next(t)),
            LEAVE => Some(Request::Leave(t)),
            _ => None,
        }
    }
}

impl Reply {
    pub(crate) fn encode(&self) -> [u64; REPLY_WORDS] {
        match *self {
            Reply::Chunk(c) => [CHUNK, c.start, c.size],
            Reply::Done => [DONE, 0, 0],
        }
    }

    /// `None` for a malformed message (never sent by dls).
    pub(crate) fn decode(w: &[u64; REPLY_WORDS]) -> Option<Reply> {
        match w[0] {
            CHUNK => Some(Reply::Chunk(Chunk {
                start: w[1],
                size: w[2],
            })),
            DONE => Some(Reply::Done),
            _ => None,
        }
    }
}

impl Handout {
    /// `[start, size]`; a size of 0 (no chunk is empty) ends the outer loop.
    pub(crate) fn encode(&self) -> [u64; HANDOUT_WORDS] {
        match self.0 {
            Some(c) => [c.start, c.size],
            None => [0, 0],
        }
    }

    pub(crate) fn decode(w: &[u64; HANDOUT_WORDS]) -> Handout {
        Handout((w[1] > 0).then_some(Chunk {
            start: w[0],
            size: w[1],
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let t = ChunkTiming {
            iterates: 7,
            work_s: 0.25,
            elapsed_s: 0.5,
        };
        for r in [
            Request::Next(None),
            Request::Next(Some(t)),
            Request::Leave(Some(t)),
            Request::Leave(None),
        ] {
            assert_eq!(Request::decode(&r.encode()), Some(r));
        }
        for r in [Reply::Chunk(Chunk { start: 3, size: 9 }), Reply::Done] {
            assert_eq!(Reply::decode(&r.encode()), Some(r));
        }
        assert_eq!(Request::decode(&[9, 0, 0, 0, 0]), None);
        assert_eq!(Reply::decode(&[0, 0, 0]), None);
        for h in [Handout(Some(Chunk { start: 4, size: 2 })), Handout(None)] {
            assert_eq!(Handout::decode(&h.encode()), h);
        }
    }
}
