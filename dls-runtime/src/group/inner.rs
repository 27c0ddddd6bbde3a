//! [`Inner`]: the inner loops of one outer iterate of a two-level loop (the `I-LOOP`s of seed
//! 004 fig. 3.4, run with `iInfo` on the group's `iComm`).

use std::time::Instant;

use crate::runtime::{DlsError, LoopIndex, LoopRange, Wire};
use crate::Technique;

#[cfg(feature = "mpi")]
use super::shared_loop::{combine_all, run_shared};
#[cfg(feature = "mpi")]
use crate::runtime::mpi_backend::LoopComm;
#[cfg(feature = "mpi")]
use crate::runtime::panic_ctx::{self, ChunkCtx};
#[cfg(feature = "mpi")]
use std::sync::Arc;

/// Formats index `first + offset` of a loop whose first index has bits `first_bits` (for panic
/// messages).
#[cfg(feature = "mpi")]
pub(crate) fn format_index<I: LoopIndex>(first_bits: u128, offset: u64) -> String {
    I::offset_from(I::from_bits(first_bits), offset).to_string()
}

/// What one rank did in the inner loops of a two-level loop.
#[derive(Debug, Clone, Default)]
pub(crate) struct InnerTally {
    pub iterates: u64,
    pub chunks: u64,
    pub work_s: f64,
    /// Inner techniques in the order first used.
    pub techniques: Vec<String>,
}

impl InnerTally {
    fn note(&mut self, technique: &Technique, iterates: u64, chunks: u64, work_s: f64) {
        self.iterates += iterates;
        self.chunks += chunks;
        self.work_s += work_s;
        let t = technique.to_string();
        if !self.techniques.contains(&t) {
            self.techniques.push(t);
        }
    }
}

enum Team<'a> {
    /// The whole inner loop runs on the calling rank or thread (one-level fallback).
    Solo,
    /// The group's ranks share the inner iterates (the group's communicator).
    #[cfg(feature = "mpi")]
    Group(&'a Arc<LoopComm>),
    #[cfg(not(feature = "mpi"))]
    #[allow(dead_code)]
    Never(std::marker::PhantomData<&'a ()>),
}

/// Runs the inner loops of one outer iterate. Every rank of the group calls the same inner loops
/// in the same order (part A and part B run redundantly, in lock step, on every rank of the
/// group); the group shares the iterates of each inner loop, and every rank of the group gets the
/// reduced or gathered result. One outer iterate may hold any number of inner loops.
///
/// In a one-level fallback (1 or 2 ranks, or the threads backend) each inner loop runs whole on
/// the rank or thread that runs the outer iterate.
///
/// ```
/// use dls_runtime::group::Inner;
/// let mut inner = Inner::solo();
/// let t = "fac2".parse().unwrap();
/// let s: u64 = inner.fold(0..10u64, &t, || 0, |a, b| a + b, |i, acc: &mut u64| *acc += i).unwrap();
/// assert_eq!(s, 45);
/// let squares: Vec<u32> = inner.gather(0..4u32, &t, |i| i * i).unwrap();
/// assert_eq!(squares, [0, 1, 4, 9]);
/// ```
pub struct Inner<'a> {
    team: Team<'a>,
    /// The outer loop's panic context and the current outer iterate (MPI two-level loops), so a
    /// panic names the inner loop's outer iterate.
    #[cfg(feature = "mpi")]
    outer: Option<(&'a ChunkCtx, u64)>,
    tally: Option<&'a mut InnerTally>,
    /// `DLS_SCHEDULE`, which overrides the inner techniques too.
    schedule: Option<&'a Technique>,
}

impl<'a> Inner<'a> {
    /// Inner loops that run whole on the calling thread (what the one-level fallback uses).
    pub fn solo() -> Inner<'static> {
        Inner {
            team: Team::Solo,
            #[cfg(feature = "mpi")]
            outer: None,
            tally: None,
            schedule: None,
        }
    }

    #[cfg(feature = "mpi")]
    pub(crate) fn group(
        comm: &'a Arc<LoopComm>,
        tally: &'a mut InnerTally,
        schedule: Option<&'a Technique>,
        outer: (&'a ChunkCtx, u64),
    ) -> Inner<'a> {
        Inner {
            team: Team::Group(comm),
            outer: Some(outer),
            tally: Some(tally),
            schedule,
        }
    }

    /// Rank of the caller in its group (0 = leader; 0 in a one-level fallback).
    ///
    /// ```
    /// assert_eq!(dls_runtime::group::Inner::solo().rank(), 0);
    /// ```
    pub fn rank(&self) -> usize {
        match &self.team {
            #[cfg(feature = "mpi")]
            Team::Group(c) => mpi::topology::Communicator::rank(&c.0) as usize,
            _ => 0,
        }
    }

    /// Number of ranks sharing the inner iterates (1 in a one-level fallback).
    ///
    /// ```
    /// assert_eq!(dls_runtime::group::Inner::solo().size(), 1);
    /// ```
    pub fn size(&self) -> usize {
        match &self.team {
            #[cfg(feature = "mpi")]
            Team::Group(c) => mpi::topology::Communicator::size(&c.0) as usize,
            _ => 1,
        }
    }

    /// The core of every inner loop: each rank folds its iterates into a private accumulator
    /// started at `identity()` with `body(i, &mut acc)`; the partial results are combined with
    /// `combine` and every rank of the group gets the total. In a two-level loop on MPI,
    /// `DLS_SCHEDULE` overrides `technique` as it does for every loop.
    pub fn fold<R, T, B>(
        &mut self,
        range: R,
        technique: &Technique,
        identity: impl Fn() -> T,
        combine: impl Fn(T, T) -> T,
        mut body: B,
    ) -> Result<T, DlsError>
    where
        R: LoopRange,
        T: Wire,
        B: FnMut(R::Index, &mut T),
    {
        let (first, n) = range.first_and_len()?;
        let technique = self.schedule.unwrap_or(technique);
        let mut acc = identity();
        match &mut self.team {
            #[cfg(feature = "mpi")]
            Team::Group(comm) => {
                if let Some((ctx, j)) = self.outer {
                    panic_ctx::enter_chunk(ChunkCtx {
                        loop_name: format!(
                            "{} (inner loop of outer iterate {})",
                            ctx.loop_name,
                            (ctx.format)(ctx.first_bits, j)
                        )
                        .into(),
                        first_bits: first.to_bits(),
                        format: format_index::<R::Index>,
                        worker: ctx.worker,
                        caught: false,
                    });
                }
                let ran = run_shared(comm, technique, n, &mut |k| {
                    panic_ctx::set_offset(k);
                    body(R::Index::offset_from(first, k), &mut acc)
                });
                if let Some((ctx, j)) = self.outer {
                    panic_ctx::enter_chunk(ctx.clone());
                    panic_ctx::set_offset(j);
                }
                let tally = ran?;
                if let Some(t) = self.tally.as_deref_mut() {
                    t.note(technique, tally.iterates, tally.chunks, tally.work_s);
                }
                let mine = (tally.iterates > 0).then_some(acc);
                combine_all(comm, mine, &identity, &combine)
            }
            _ => {
                crate::ChunkScheduler::new(technique, n, 1)?;
                let t0 = Instant::now();
                for k in 0..n {
                    body(R::Index::offset_from(first, k), &mut acc);
                }
                if let Some(t) = self.tally.as_deref_mut() {
                    t.note(technique, n, u64::from(n > 0), t0.elapsed().as_secs_f64());
                }
                Ok(combine(identity(), acc))
            }
        }
    }

    /// An inner loop without a result.
    ///
    /// ```
    /// let mut inner = dls_runtime::group::Inner::solo();
    /// let mut seen = 0;
    /// inner.doall(0..5i32, &"ss".parse().unwrap(), |_| seen += 1).unwrap();
    /// assert_eq!(seen, 5);
    /// ```
    pub fn doall<R, B>(
        &mut self,
        range: R,
        technique: &Technique,
        mut body: B,
    ) -> Result<(), DlsError>
    where
        R: LoopRange,
        B: FnMut(R::Index),
    {
        self.fold(range, technique, || (), |_, _| (), |i, _| body(i))
    }

    /// An inner loop whose iterate `i` produces the `i`-th element of a vector (`gather`):
    /// every rank of the group gets the whole vector, in index order.
    ///
    /// ```
    /// let mut inner = dls_runtime::group::Inner::solo();
    /// let v = inner.gather(3..6u16, &"static".parse().unwrap(), |i| i * 2).unwrap();
    /// assert_eq!(v, [6, 8, 10]);
    /// ```
    pub fn gather<R, V, B>(
        &mut self,
        range: R,
        technique: &Technique,
        mut body: B,
    ) -> Result<Vec<V>, DlsError>
    where
        R: LoopRange,
        V: Wire,
        B: FnMut(R::Index) -> V,
    {
        let (first, _) = range.first_and_len()?;
        let mut pairs: Vec<(u128, V)> = self.fold(
            range,
            technique,
            Vec::new,
            |mut a, mut b| {
                a.append(&mut b);
                a
            },
            |i, acc: &mut Vec<(u128, V)>| acc.push((R::Index::span(first, i), body(i))),
        )?;
        pairs.sort_by_key(|p| p.0);
        Ok(pairs.into_iter().map(|p| p.1).collect())
    }
}
