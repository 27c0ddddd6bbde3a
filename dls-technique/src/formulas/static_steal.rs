//! static-steal: static blocks, then idle ranks steal from the others' remaining blocks (the
//! LLVM OpenMP runtime's `static_steal`, part of LB4OMP's portfolio; Korndörfer, Eleliemy,
//! Mohammed, Ciorba & Banicescu, IEEE TPDS 33(4), 2022).
//!
//! The loop is cut into pieces of `min` iterates (LB4OMP's chunk parameter, default 1; the
//! loop's last piece may be shorter), `ntc = ceil(N/min)` pieces. Rank i owns the block of
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
    fn chunk(&self, s: &LoopState) -> u64 {
        // Only without blocks (fewer pieces than ranks): the next piece in order.
        s.params.min_chunk.max(1)
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

/// The blocks: `ntc = ceil(N/min)` pieces, `⌊ntc/P⌋` per rank and one more for the first
/// `ntc mod P`; none with fewer pieces than ranks or one rank.
fn start(params: &crate::Params, n: u64, p: usize) -> Box<dyn LoopPlan> {
    let piece = params.min_chunk.max(1);
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
    example: "static-steal,min=4",
    ..Entry::new(
        "static-steal",
        "static blocks taken a piece (min iterates) at a time; an idle rank steals the second \
         half of the largest remaining block (LLVM/LB4OMP static_steal, Korndörfer et al., \
         IEEE TPDS 33(4), 2022)",
        &[],
        Rule::PerLoop(start),
    )
};
