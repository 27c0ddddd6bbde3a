//! The scheduler's state during one loop, shared by every backend: the technique's
//! [`ChunkScheduler`], the chunk map and the per-rank tallies that become the loop report.
//!
//! On the threads backend it sits behind a mutex that the worker threads lock once per chunk. On
//! MPI it lives on the scheduler rank (rank 0 of the loop's communicator), behind a mutex shared by
//! the rank's compute thread and its service thread that answers the workers' requests
//! (see the module docs of `runtime::mpi_backend`). It is what a chunk source adds to the
//! technique's scheduler: the chunk map and the tallies of the report. Later features that need
//! scheduler-side state (fault checks, checkpoints) extend this struct, the sources
//! (`runtime/source.rs`) and the messages of `mpi_backend/messages.rs`.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::report::{LoopReport, RankReport};

/// The most chunks a loop report lists (`DLS_CHUNK_MAP`, default
/// [`DEFAULT_CHUNK_MAP`](super::settings::DEFAULT_CHUNK_MAP)): set by the runtime from its settings.
static CHUNK_MAP_MAX: AtomicUsize = AtomicUsize::new(super::settings::DEFAULT_CHUNK_MAP);

/// Sets the most chunks a loop report lists (the runtime does, from `DLS_CHUNK_MAP`).
pub(crate) fn set_chunk_map_max(max: usize) {
    CHUNK_MAP_MAX.store(max, Ordering::Relaxed);
}
use crate::{Chunk, ChunkScheduler, ChunkTiming, Technique, TechniqueError};

/// The scheduler-side state of one loop.
#[derive(Debug)]
pub(crate) struct ReportingScheduler {
    sched: ChunkScheduler,
    technique: Technique,
    n: u64,
    /// Every chunk as `[start, size, rank]`, in the order handed out, up to `chunk_map_max`.
    chunk_map: Vec<[u64; 3]>,
    chunk_map_max: usize,
    /// Chunks handed out beyond `chunk_map_max` (counted, not listed).
    chunk_map_dropped: u64,
    /// When this state was made: the clock of `chunk_ends`.
    origin: Instant,
    /// Per listed chunk (same order as `chunk_map`): `[arrival, work]`, the seconds since
    /// `origin` when its timing arrived here and its work time; NaN until it arrives (16 bytes
    /// a chunk: with the map, 40 bytes under `DLS_CHUNK_MAP`).
    chunk_ends: Vec<[f64; 2]>,
    /// Per rank: the listed chunks handed out whose timing has not arrived yet (indices into
    /// `chunk_map`, oldest first).
    open: Vec<Vec<usize>>,
    /// Per rank: CPU seconds its worker spent in its chunks (handed in at the loop's end).
    cpu: Vec<f64>,
    /// Per rank: chunks handed out, iterates and work time reported.
    ranks: Vec<RankReport>,
    /// Iterates of finished chunks, as recorded: what the progress display reads
    /// (`runtime/progress.rs`).
    done: Arc<AtomicU64>,
}

impl ReportingScheduler {
    /// State for `n` iterates over `p` ranks; validates the technique.
    pub(crate) fn new(technique: &Technique, n: u64, p: usize) -> Result<Self, TechniqueError> {
        let sched = ChunkScheduler::new(technique, n, p)?;
        Ok(ReportingScheduler {
            sched,
            technique: technique.clone(),
            n,
            chunk_map: Vec::new(),
            chunk_map_max: CHUNK_MAP_MAX.load(Ordering::Relaxed),
            chunk_map_dropped: 0,
            origin: Instant::now(),
            chunk_ends: Vec::new(),
            open: vec![Vec::new(); p],
            cpu: vec![0.0; p],
            ranks: (0..p)
                .map(|rank| RankReport {
                    rank,
                    ..RankReport::default()
                })
                .collect(),
            done: Arc::new(AtomicU64::new(0)),
        })
    }

    /// Records the timing of `rank`'s finished chunk (if any) — adaptive techniques learn from
    /// it — then hands `rank` its next chunk, or `None` when every iterate has been handed out.
    pub(crate) fn serve(&mut self, rank: usize, finished: Option<ChunkTiming>) -> Option<Chunk> {
        if let Some(t) = finished {
            self.record(rank, t);
        }
        let chunk = self.sched.next_chunk(rank)?;
        if self.chunk_map.len() < self.chunk_map_max {
            self.open[rank].push(self.chunk_map.len());
            self.chunk_map.push([chunk.start, chunk.size, rank as u64]);
            self.chunk_ends.push([f64::NAN; 2]);
        } else {
            self.chunk_map_dropped += 1;
        }
        self.ranks[rank].chunks += 1;
        Some(chunk)
    }

    /// Sets the ranks' relative speeds (AWF's weights from earlier time steps); see
    /// [`ChunkScheduler::set_weights`].
    pub(crate) fn set_weights(&mut self, weights: Vec<f64>) -> Result<(), TechniqueError> {
        self.sched.set_weights(weights)
    }

    /// Records the timing of a chunk `rank` executed. Its arrival time here, on this process's
    /// clock, is the chunk's end in the report's `chunk_times` (see [`LoopReport::chunk_times`]).
    pub(crate) fn record(&mut self, rank: usize, t: ChunkTiming) {
        self.sched.record(rank, t);
        let open = &mut self.open[rank];
        if !open.is_empty() {
            // The rank's oldest open chunk of this size: one slot per rank, so normally its only
            // one (several slots of one rank hand in their chunks in any order).
            let k = open
                .iter()
                .position(|&i| self.chunk_map[i][1] == t.iterates)
                .unwrap_or(0);
            let i = open.remove(k);
            self.chunk_ends[i] = [self.origin.elapsed().as_secs_f64(), t.work_s];
        }
        let r = &mut self.ranks[rank];
        r.iterates += t.iterates;
        r.work_time_s += t.work_s;
        self.done.fetch_add(t.iterates, Ordering::Relaxed);
    }

    /// The counter of iterates of finished chunks (for the progress display).
    pub(crate) fn done_counter(&self) -> Arc<AtomicU64> {
        self.done.clone()
    }

    /// Adds CPU seconds `rank`'s worker spent executing its chunks (handed in at the loop's end).
    pub(crate) fn add_cpu(&mut self, rank: usize, cpu_s: f64) {
        if let Some(c) = self.cpu.get_mut(rank) {
            *c += cpu_s;
        }
    }

    /// Iterates not yet handed out.
    pub(crate) fn remaining(&self) -> u64 {
        self.sched.remaining()
    }

    /// The loop report, given the loop's name and its start on this process's clock: the
    /// parallel (wall-clock) time is the time since then, and chunk times count from then.
    pub(crate) fn report(&self, name: &str, started: Instant) -> LoopReport {
        let parallel_time_s = started.elapsed().as_secs_f64();
        let mut ranks = self.ranks.clone();
        for (r, cpu) in ranks.iter_mut().zip(&self.cpu) {
            r.idle_time_s = (parallel_time_s - r.work_time_s).max(0.0);
            r.cpu_time_s = *cpu;
        }
        // From this state's clock to the loop's: `origin` may be a little before or after
        // `started`.
        let shift = if started >= self.origin {
            -(started - self.origin).as_secs_f64()
        } else {
            (self.origin - started).as_secs_f64()
        };
        let chunk_times = self
            .chunk_ends
            .iter()
            .map(|&[at, work_s]| {
                let end = (at + shift).max(0.0);
                (!at.is_nan()).then(|| [(end - work_s).max(0.0), end])
            })
            .collect();
        let mut report = LoopReport {
            name: name.to_string(),
            technique: self.technique.to_string(),
            n: self.n,
            p: ranks.len(),
            parallel_time_s,
            ranks,
            chunk_map: self.chunk_map.clone(),
            chunk_map_dropped: self.chunk_map_dropped,
            chunk_times,
            ..LoopReport::default()
        };
        report.summarise();
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::technique::Kind;

    #[test]
    fn serves_every_iterate_once_and_tallies() {
        for kind in Kind::ALL {
            let mut core = ReportingScheduler::new(&Technique::new(kind), 1000, 3).unwrap();
            let mut seen = vec![0u8; 1000];
            let mut rank = 0;
            let mut last: Vec<Option<ChunkTiming>> = vec![None; 3];
            while let Some(c) = core.serve(rank, last[rank].take()) {
                for i in c.start..c.start + c.size {
                    seen[i as usize] += 1;
                }
                last[rank] = Some(ChunkTiming {
                    iterates: c.size,
                    work_s: c.size as f64 * 1e-6,
                    elapsed_s: c.size as f64 * 1e-6,
                });
                rank = (rank + 1) % 3;
            }
            for (r, t) in last.iter().enumerate() {
                if let Some(t) = t {
                    core.record(r, *t);
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "{kind:?}");
            let rep = core.report("x", Instant::now());
            // Every chunk's timing arrived: each has its times, its length its work time.
            assert_eq!(rep.chunk_times.len(), rep.chunk_map.len());
            for (c, t) in rep.chunk_map.iter().zip(&rep.chunk_times) {
                let [start, end] = t.expect("every chunk's timing arrived");
                assert!(start <= end, "{kind:?}");
                assert!((end - start - c[1] as f64 * 1e-6).abs() < 1e-9 || start == 0.0);
            }
            assert_eq!(rep.ranks.iter().map(|r| r.iterates).sum::<u64>(), 1000);
            assert_eq!(
                rep.chunk_map.iter().map(|c| c[1]).sum::<u64>(),
                1000,
                "{kind:?}"
            );
            assert_eq!(rep.chunks, rep.chunk_map.len() as u64);
            assert_eq!(core.remaining(), 0);
        }
    }

    #[test]
    fn the_chunk_map_is_capped_and_the_rest_counted() {
        let mut core = ReportingScheduler::new(&"ss".parse().unwrap(), 10, 2).unwrap();
        core.chunk_map_max = 4;
        let mut rank = 0;
        while core.serve(rank, None).is_some() {
            rank = 1 - rank;
        }
        let rep = core.report("capped", Instant::now());
        assert_eq!(rep.chunk_map.len(), 4);
        assert_eq!(rep.chunk_times.len(), 4);
        assert_eq!(rep.chunk_map_dropped, 6);
        assert_eq!(rep.chunks, 10);
    }
}
