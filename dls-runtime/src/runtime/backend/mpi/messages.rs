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

use crate::runtime::tolerance::reexecution::Verdict;
use crate::{Chunk, ChunkTiming};

/// Tag of worker → scheduler messages ([`Request`]).
pub(crate) const TAG_REQUEST: i32 = 1;
/// Tag of scheduler → worker messages ([`Reply`]).
pub(crate) const TAG_REPLY: i32 = 2;
/// Tag of a partial result sent to another rank by a reduction strategy (serialised bytes, any
/// length; `combine.rs`).
pub(crate) const TAG_PARTIAL: i32 = 3;
/// Tag of a scheduler → worker message `[ordinal]`: the worker's `ordinal`-th chunk of the loop
/// is redundant (every iterate confirmed by other copies; re-execution), stop executing it. A
/// worker checks for it every few iterates and drains stale ones when it leaves the loop.
pub(crate) const TAG_CANCEL: i32 = 4;
/// Tag of a scheduler → worker message `[ordinal, keep]`: an idle worker could take part of
/// the worker's `ordinal`-th chunk (`runtime/tolerance/split.rs`); the worker splits it, keeping `keep`
/// quarters of what it has not started, and answers with [`Request::Split`] before its next
/// request (or refuses). A worker checks for it every 0.2 ms or so inside a chunk and drops
/// stale ones when it leaves the loop.
pub(crate) const TAG_SPLIT: i32 = 5;

/// Where the tags of threads 1, 2, … of a rank begin (threads inside ranks with re-execution or
/// checkpoints, `chunk_loop.rs`): thread `t`'s replies, cancellations and asks to split have tags
/// of their own, so that each thread receives only its own.
const THREAD_TAGS: i32 = 1000;

/// The tag of message kind `tag` ([`TAG_REPLY`], [`TAG_CANCEL`], [`TAG_SPLIT`]) addressed to
/// thread `thread` of a rank: the kind's own tag for thread 0 (every rank of one thread), one of
/// its own for every other thread (below the 32767 every MPI library allows, for 1024 threads).
pub(crate) fn thread_tag(tag: i32, thread: usize) -> i32 {
    if thread == 0 {
        tag
    } else {
        THREAD_TAGS + 8 * thread as i32 + tag
    }
}

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
    /// The answer to a [`TAG_SPLIT`] message about the worker's `ordinal`-th chunk: it now ends
    /// after `s` of its iterates and `[s, limit)` (offsets in the chunk) are for another worker;
    /// `s = limit = 0`: refused (too little left, or the chunk already ended); `s = 0, limit =
    /// 1`: not started yet, ask again. No reply.
    Split { ordinal: u64, s: u64, limit: u64 },
}

/// Scheduler → worker. Each reply carries the verdict on the worker's previous chunk
/// (re-execution: `Discard` when another copy of it finished first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reply {
    /// Execute iterates `[start, start + size)` (offsets from the loop's first index).
    Chunk(Chunk, Verdict),
    /// The loop is terminated for this worker: every iterate has been handed out (and, with
    /// re-execution, confirmed).
    Done(Verdict),
}

/// Group leader → every rank of its group, a broadcast on the group's communicator (two-level
/// loops): the outer chunk the leader got from the coordinator, which the whole group executes in
/// lock step, or `None` at the end of the outer loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Handout(pub Option<Chunk>);

/// A rank with threads inside (`hybrid.rs`) → the scheduler, with tag [`TAG_REQUEST`]: "give me
/// `count` chunks" (0: the rank leaves the loop, no reply), with the timing of the rank's chunks
/// finished since its previous request, per thread share `j` of the rank (scheduler slot
/// `rank·k + j`; the sum where a share finished several). Encoded as `[kind, count, then per
/// share: has, iterates, work bits, elapsed bits]`: `2 + 4k` words for `k` threads.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BatchRequest {
    /// Chunks wanted (0: the rank leaves).
    pub count: usize,
    /// Per thread share of the rank: its finished work since the last request.
    pub finished: Vec<Option<ChunkTiming>>,
}

impl BatchRequest {
    /// The words of a request of a rank of `k` threads.
    pub(crate) fn words(k: usize) -> usize {
        2 + 4 * k
    }

    pub(crate) fn encode(&self) -> Vec<u64> {
        let mut w = Vec::with_capacity(Self::words(self.finished.len()));
        w.push(BATCH);
        w.push(self.count as u64);
        for t in &self.finished {
            match t {
                Some(t) => w.extend([1, t.iterates, t.work_s.to_bits(), t.elapsed_s.to_bits()]),
                None => w.extend([0, 0, 0, 0]),
            }
        }
        w
    }

    /// `None` for a malformed message (never sent by dls).
    pub(crate) fn decode(w: &[u64], k: usize) -> Option<BatchRequest> {
        if w.len() < Self::words(k) || w[0] != BATCH {
            return None;
        }
        let finished = w[2..2 + 4 * k]
            .chunks_exact(4)
            .map(|q| {
                (q[0] == 1).then(|| ChunkTiming {
                    iterates: q[1],
                    work_s: f64::from_bits(q[2]),
                    elapsed_s: f64::from_bits(q[3]),
                })
            })
            .collect();
        Some(BatchRequest {
            count: usize::try_from(w[1]).ok()?,
            finished,
        })
    }
}

/// Scheduler → a rank with threads inside (`hybrid.rs`), with tag [`TAG_REPLY`]: the chunks
/// of the rank's batch, each with the thread share `j` it was handed to; an empty batch ends the
/// loop on the rank. Encoded as `[count, start, size, j, …]`: `1 + 3k` words at most.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Batch;

impl Batch {
    /// The words of the longest batch for `k` threads.
    pub(crate) fn words(k: usize) -> usize {
        1 + 3 * k
    }

    pub(crate) fn encode(chunks: &[(Chunk, usize)]) -> Vec<u64> {
        let mut w = Vec::with_capacity(Self::words(chunks.len()));
        w.push(chunks.len() as u64);
        for (c, j) in chunks {
            w.extend([c.start, c.size, *j as u64]);
        }
        w
    }

    /// `None` for a malformed message (never sent by dls).
    pub(crate) fn decode(w: &[u64]) -> Option<Vec<(Chunk, usize)>> {
        let count = usize::try_from(*w.first()?).ok()?;
        let words = w.get(1..1 + 3 * count)?;
        Some(
            words
                .chunks_exact(3)
                .map(|q| {
                    (
                        Chunk {
                            start: q[0],
                            size: q[1],
                        },
                        q[2] as usize,
                    )
                })
                .collect(),
        )
    }
}

const NEXT: u64 = 1;
const LEAVE: u64 = 2;
const SPLIT: u64 = 3;
const BATCH: u64 = 4;
const CHUNK: u64 = 1;
const DONE: u64 = 2;
/// Added to a reply's kind: the previous chunk is discarded.
const DISCARD: u64 = 1 << 8;

impl Request {
    /// The words of a request from thread `thread` of a rank: the thread rides in the upper half
    /// of the kind word ([`sender_thread`]).
    pub(crate) fn encode_from(&self, thread: usize) -> [u64; REQUEST_WORDS] {
        let from = (thread as u64) << 32;
        let (kind, t) = match *self {
            Request::Next(t) => (NEXT | from, t),
            Request::Leave(t) => (LEAVE | from, t),
            Request::Split { ordinal, s, limit } => {
                return [SPLIT | from, ordinal, s, limit, 0];
            }
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
        match w[0] & 0xffff_ffff {
            NEXT => Some(Request::Next(t)),
            LEAVE => Some(Request::Leave(t)),
            SPLIT => Some(Request::Split {
                ordinal: w[1],
                s: w[2],
                limit: w[3],
            }),
            _ => None,
        }
    }
}

/// The thread of its rank that sent request `w` (0 for a rank of one thread).
pub(crate) fn sender_thread(w: &[u64; REQUEST_WORDS]) -> usize {
    (w[0] >> 32) as usize
}

impl Reply {
    pub(crate) fn encode(&self) -> [u64; REPLY_WORDS] {
        let flag = |v: Verdict| match v {
            Verdict::Keep => 0,
            Verdict::Discard => DISCARD,
        };
        match *self {
            Reply::Chunk(c, v) => [CHUNK | flag(v), c.start, c.size],
            Reply::Done(v) => [DONE | flag(v), 0, 0],
        }
    }

    /// `None` for a malformed message (never sent by dls).
    pub(crate) fn decode(w: &[u64; REPLY_WORDS]) -> Option<Reply> {
        let verdict = match w[0] & !0xff {
            0 => Verdict::Keep,
            DISCARD => Verdict::Discard,
            _ => return None,
        };
        match w[0] & 0xff {
            CHUNK => Some(Reply::Chunk(
                Chunk {
                    start: w[1],
                    size: w[2],
                },
                verdict,
            )),
            DONE => Some(Reply::Done(verdict)),
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

    /// Every thread's replies, cancellations and asks to split have tags of their own, apart
    /// from every other message kind's and within the 32767 every MPI library allows.
    #[test]
    fn thread_tags_are_distinct() {
        let mut seen = vec![TAG_REQUEST, TAG_PARTIAL];
        for thread in 0..1024 {
            for tag in [TAG_REPLY, TAG_CANCEL, TAG_SPLIT] {
                let t = thread_tag(tag, thread);
                assert!(t <= 32767 && !seen.contains(&t), "{tag} {thread}: {t}");
                seen.push(t);
            }
        }
    }

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
            Request::Split {
                ordinal: 3,
                s: 40,
                limit: 100,
            },
        ] {
            for thread in [0, 1, 7, 1023] {
                let w = r.encode_from(thread);
                assert_eq!((Request::decode(&w), sender_thread(&w)), (Some(r), thread));
            }
        }
        for r in [
            Reply::Chunk(Chunk { start: 3, size: 9 }, Verdict::Keep),
            Reply::Chunk(Chunk { start: 3, size: 9 }, Verdict::Discard),
            Reply::Done(Verdict::Keep),
            Reply::Done(Verdict::Discard),
        ] {
            assert_eq!(Reply::decode(&r.encode()), Some(r));
        }
        assert_eq!(Request::decode(&[9, 0, 0, 0, 0]), None);
        assert_eq!(Reply::decode(&[0, 0, 0]), None);
        for h in [Handout(Some(Chunk { start: 4, size: 2 })), Handout(None)] {
            assert_eq!(Handout::decode(&h.encode()), h);
        }
    }
}

/// Words in an encoded [`Step`].
pub(crate) const STEP_WORDS: usize = 7;

/// What a rank is about to do at a collective step of `MPI_COMM_WORLD`: start a loop, set up
/// two-level groups, or end (its runtime is dropped). Every rank all-gathers its `Step` before the
/// step's own collectives, so ranks that disagree (one returned from `main` early, skipped a loop,
/// started loops in another order, or with another range or technique) are found and the job ends
/// with the cause instead of hanging in mismatched collectives.
///
/// Encoded as `[kind, hash of the loop name, iterates, hash of the technique text, hash of the
/// first index, hash of the kind of loop, hash of the loop's options]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// `DLS_StartLoop` of a loop over every rank.
    StartLoop {
        /// The loop's name (its source location, or the name the program gave).
        name: String,
        /// Its number of iterates.
        n: u64,
        /// Its technique, as text (after `DLS_SCHEDULE`).
        technique: String,
        /// Its first index, as text.
        first: String,
        /// What kind of loop, with its result type (an explicit loop, a `doall`, a loop with a
        /// result, a checked loop).
        kind: String,
        /// The loop's options as the program chose them on this rank, resolved against the
        /// settings (strategy, re-execution, order, check, …): `(what, value)` pairs, which a
        /// disagreement names one by one.
        options: Vec<(String, String)>,
    },
    /// `DLS_GroupSetup` of two-level loops.
    GroupSetup,
    /// The end of the program on this rank: its runtime is dropped and MPI finalised.
    End,
}

/// FNV-1a, 64 bits: a hash that is the same in every process and build (unlike std's, which may
/// change between Rust versions).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl Step {
    /// The start of the loop `at` under `technique`.
    pub(crate) fn start_loop(
        at: &crate::runtime::backend::platform::LoopStart<'_>,
        technique: &crate::Technique,
    ) -> Step {
        Step::StartLoop {
            name: at.name.to_string(),
            n: at.n,
            technique: technique.to_string(),
            first: (at.first)(),
            kind: (at.kind)(),
            options: (at.options)(),
        }
    }

    /// The loop's options (empty for a step that is not a loop start).
    pub(crate) fn options(&self) -> &[(String, String)] {
        match self {
            Step::StartLoop { options, .. } => options,
            _ => &[],
        }
    }

    pub(crate) fn encode(&self) -> [u64; STEP_WORDS] {
        match self {
            Step::StartLoop {
                name,
                n,
                technique,
                first,
                kind,
                options,
            } => [
                1,
                fnv1a(name),
                *n,
                fnv1a(technique),
                fnv1a(first),
                fnv1a(kind),
                fnv1a(
                    &options
                        .iter()
                        .map(|(what, value)| format!("{what}={value};"))
                        .collect::<String>(),
                ),
            ],
            Step::GroupSetup => [2, 0, 0, 0, 0, 0, 0],
            Step::End => [3, 0, 0, 0, 0, 0, 0],
        }
    }

    /// What the rank does, in words, for the error that names the disagreement.
    pub(crate) fn describe(&self) -> String {
        match self {
            Step::StartLoop {
                name,
                n,
                technique,
                first,
                kind,
                options: _,
            } => format!(
                "starts loop `{name}` over {n} iterates from index {first} with technique \
                 `{technique}`: {kind}"
            ),
            Step::GroupSetup => "sets up two-level groups (group_setup)".into(),
            Step::End => "ends: its dls runtime was dropped (main returned, perhaps with an \
                          error, or the runtime went out of scope)"
                .into(),
        }
    }
}

#[cfg(test)]
mod step_tests {
    use super::Step;

    #[test]
    fn steps_differ_by_what_the_ranks_must_agree_on() {
        let at = |name: &str, n, first: &str, kind: &str, t: &str| Step::StartLoop {
            name: name.into(),
            n,
            technique: t.into(),
            first: first.into(),
            kind: kind.into(),
            options: vec![("reduction".into(), "auto".into())],
        };
        let start = |name: &str, n, t: &str| at(name, n, "0", "with a result", t);
        let a = start("a.rs:1:1", 100, "fac2").encode();
        assert_eq!(a, start("a.rs:1:1", 100, "fac2").encode());
        for other in [
            start("a.rs:2:1", 100, "fac2"),
            start("a.rs:1:1", 101, "fac2"),
            start("a.rs:1:1", 100, "gss"),
            // Issue 27 case 5: the same n from another first index, or another kind of loop.
            at("a.rs:1:1", 100, "10", "with a result", "fac2"),
            at("a.rs:1:1", 100, "0", "checked", "fac2"),
            // Issue 43 R4-4: another option chosen by the program on one rank.
            Step::StartLoop {
                name: "a.rs:1:1".into(),
                n: 100,
                technique: "fac2".into(),
                first: "0".into(),
                kind: "with a result".into(),
                options: vec![("reduction".into(), "pipeline".into())],
            },
            Step::GroupSetup,
            Step::End,
        ] {
            assert_ne!(a, other.encode(), "{other:?}");
        }
        assert!(Step::End.describe().contains("main returned"));
    }
}
