//! static-steal: static blocks, then idle ranks steal from the others' remaining blocks (the
//! LLVM OpenMP runtime's `static_steal`, part of LB4OMP's portfolio; Korndörfer, Eleliemy,
//! Mohammed, Ciorba & Banicescu, IEEE TPDS 33(4), 2022).
//!
//! The loop is cut into pieces of `piece` iterates (LB4OMP's chunk parameter; the loop's last
//! piece may be shorter), `ntc = ceil(N/piece)` pieces. LB4OMP's default piece is 1 iterate,
//! which in dls costs a request to the scheduler per iterate (SS's cost: 0.54–0.56 of the ideal
//! on a Mandelbrot image one pixel per iterate under `mpirun -np 2`, where a pixel costs about
//! one round trip); dls's default is `ceil(N/(250P))` iterates, raised to `min` and lowered to
//! `max`: 250 pieces per rank, so the last piece a rank runs is at most 0.4% of its share when
//! iterates cost the same, and a request costs little next to a piece. `piece=1` gives LB4OMP's
//! pieces. Simulated (`dls compare`, 1 / (makespan / lower bound)) with pieces of 1 → the
//! default: Mandelbrot per pixel (`file:` profile, `--overhead 500ns --latency 600ns`) P = 2
//! 0.64 → 0.995, P = 4 0.51 → 0.988; a triangular loop of 25,000 iterates, P = 2: 0.92 → 0.997;
//! exp 1 ms iterates, N = 20,000, P = 8 (`--overhead 20us --latency 5us`), one rank 3× slower
//! 0.973 → 0.995, one rank 3× slower from 1.25 s 0.972 → 0.991. Rank i owns the block of
//! pieces `[i·⌊ntc/P⌋ + min(i, e), …)` of `⌊ntc/P⌋` pieces, one more for the first
//! `e = ntc mod P` ranks, and takes one piece per request from the front of its own block. A
//! rank whose block is empty steals: in dls the scheduler hands it the **second half** of the
//! largest remaining block of another rank (the victim keeps the first, larger half), which
//! becomes the thief's own block, and the thief takes that block's first piece. With fewer
//! pieces than ranks (or one rank) there are no blocks and every request takes the next piece
//! in order, as LLVM falls back to dynamic scheduling there.
//!
//! **What differs from LB4OMP's stealing.** In the OpenMP runtime a thread keeps its own
//! `(next, end)` pair and the others steal from it with a compare-and-swap (or a per-thread
//! lock), without a central scheduler. The thief scans the others round robin, starting at its
//! last victim, skips a victim with fewer than two pieces left, and takes a quarter of the
//! victim's remaining pieces (one piece when two or three are left) from the end. dls's
//! scheduler is central (rank 0, or the threads' shared source), so it emulates the steal
//! there: it sees every block and takes the second half of the largest, which is what the issue
//! asked for and spreads the rest faster than a quarter. It also lets a thief take a victim's
//! last piece, because dls's scheduler answers "no chunk" only when all iterates are out.
//! The chunk sizes are those of LB4OMP (one piece per request); what stealing changes is
//! *which* iterates a rank runs: its own contiguous block first (locality), and, in the
//! simulator, the cost of exactly those iterates when cost depends on the index.
//!
//! Chunks are therefore not handed out in index order; they still cover [0, N) exactly once.
//!
//! Test vector (N = 10, P = 2, `min=2`), hand-derived in `technique_vectors.rs`: 5 pieces,
//! blocks {0, 1, 2} = [0, 6) for rank 0 and {3, 4} = [6, 10) for rank 1. Rank 1 asking alone:
//! [6, 8), [8, 10), then it steals ⌊3/2⌋ = 1 piece of rank 0's three, [4, 6), then one of the
//! two left, [2, 4), then the last, [0, 2).

use crate::chunk::Chunk;
use crate::entry::{Entry, LoopPlan, Rule};
use crate::spec::params::{ParamSpec, ValueKind};
use crate::state::LoopState;

/// The blocks of one loop, in pieces: rank i's block is `[front, end)`.
#[derive(Debug, Clone)]
struct Blocks {
    n: u64,
    piece: u64,
    blocks: Vec<(u64, u64)>,
}

impl Blocks {
    /// The iterates of piece `k`.
    fn piece(&self, k: u64) -> Chunk {
        let start = k * self.piece;
        Chunk {
            start,
            size: self.piece.min(self.n - start),
        }
    }
}

impl LoopPlan for Blocks {
    fn chunk(&self, _s: &LoopState) -> u64 {
        // Only without blocks (fewer pieces than ranks): the next piece in order.
        self.piece
    }

    fn place(&mut self, s: &LoopState) -> Option<Chunk> {
        if self.blocks.is_empty() {
            return None;
        }
        let rank = s.rank.min(self.blocks.len() - 1);
        let (front, end) = self.blocks[rank];
        if front >= end {
            // Steal the second half of the largest remaining block (its one piece if only one
            // is left). The blocks hold exactly the pieces not yet handed out, so while R > 0
            // one of them is not empty.
            let (victim, &(v_front, v_end)) = self
                .blocks
                .iter()
                .enumerate()
                .max_by_key(|(i, (f, e))| (e.saturating_sub(*f), std::cmp::Reverse(*i)))
                .expect("static-steal: blocks exist");
            let left = v_end.saturating_sub(v_front);
            assert!(left > 0, "static-steal: R > 0 but every block is empty");
            let take = if left == 1 { 1 } else { left / 2 };
            self.blocks[victim].1 = v_end - take;
            self.blocks[rank] = (v_end - take, v_end);
        }
        let (front, end) = self.blocks[rank];
        debug_assert!(front < end);
        self.blocks[rank].0 = front + 1;
        Some(self.piece(front))
    }

    fn clone_box(&self) -> Box<dyn LoopPlan> {
        Box::new(self.clone())
    }
}

/// The iterates of a piece: `piece=`, else `ceil(N/(250P))`; raised to `min`, lowered to `max`.
///
/// ```
/// let piece = |spec: &str, n, p| {
///     let t: dls_technique::Technique = spec.parse().unwrap();
///     let mut s = dls_technique::ChunkScheduler::new(&t, n, p).unwrap();
///     s.next_chunk(0).unwrap().size
/// };
/// assert_eq!(piece("static-steal", 250_000, 2), 500); // ceil(250000 / 500)
/// assert_eq!(piece("static-steal,piece=1", 250_000, 2), 1); // LB4OMP's default
/// assert_eq!(piece("static-steal,min=25", 1000, 4), 25);
/// assert_eq!(piece("static-steal,max=100", 250_000, 2), 100);
/// ```
pub(crate) fn piece_size(params: &crate::Params, n: u64, p: usize) -> u64 {
    let given = params.number(PIECE.name).map(|v| v as u64);
    let piece = given
        .unwrap_or_else(|| n.div_ceil(250u64.saturating_mul(p.max(1) as u64)))
        .max(params.min_chunk)
        .max(1);
    params.max_chunk.map_or(piece, |m| piece.min(m.max(1)))
}

/// `piece`: the iterates of a piece.
pub(crate) const PIECE: ParamSpec = ParamSpec {
    name: "piece",
    value: "whole number >= 1",
    help: "iterates of a piece (default ceil(N/(250P)), at least min; 1 is LB4OMP's default)",
    kind: ValueKind::Count,
};

/// The blocks: `ntc = ceil(N/piece)` pieces, `⌊ntc/P⌋` per rank and one more for the first
/// `ntc mod P`; none with fewer pieces than ranks or one rank.
fn start(params: &crate::Params, n: u64, p: usize) -> Box<dyn LoopPlan> {
    let piece = piece_size(params, n, p);
    let pieces = n.div_ceil(piece);
    let p64 = p as u64;
    let blocks = if p > 1 && pieces >= p64 {
        let (small, extras) = (pieces / p64, pieces % p64);
        (0..p64)
            .map(|i| {
                let front = i * small + i.min(extras);
                (front, front + small + u64::from(i < extras))
            })
            .collect()
    } else {
        Vec::new()
    };
    Box::new(Blocks { n, piece, blocks })
}

/// The registry entry of `static-steal`.
pub(crate) const ENTRY: Entry = Entry {
    example: "static-steal,piece=4",
    ..Entry::new(
        "static-steal",
        "static blocks taken a piece (piece iterates) at a time; an idle rank steals the second \
         half of the largest remaining block (LLVM/LB4OMP static_steal, Korndörfer et al., \
         IEEE TPDS 33(4), 2022)",
        &[PIECE],
        Rule::PerLoop(start),
    )
};
