//! An iteration space with holes: the iterates a restarted loop still has to execute, once the
//! ranges its checkpoints hold are taken out (`runtime/checkpoint.rs`).
//!
//! The technique schedules the `m` iterates left as if they were a loop `0..m` (its chunk sizes
//! follow its formula over what is left); [`Holes::pieces`] maps a chunk of that compressed space
//! back onto the loop's iterates, as one piece per run of live iterates it covers.

use crate::Chunk;

/// The live segments of `0..n` around sorted, disjoint holes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Holes {
    /// `(compressed start, real start, length)` of every live segment, in order.
    live: Vec<(u64, u64, u64)>,
}

impl Holes {
    /// The live part of `0..n` without `holes` (sorted, disjoint `[start, end)` ranges within
    /// `0..n`).
    pub(crate) fn new(n: u64, holes: &[[u64; 2]]) -> Holes {
        let mut live = Vec::new();
        let (mut at, mut compressed) = (0u64, 0u64);
        for &[s, e] in holes {
            if s > at {
                live.push((compressed, at, s - at));
                compressed += s - at;
            }
            at = at.max(e);
        }
        if n > at {
            live.push((compressed, at, n - at));
        }
        Holes { live }
    }

    /// Iterates left (the compressed space's length).
    pub(crate) fn len(&self) -> u64 {
        self.live.last().map_or(0, |&(c, _, l)| c + l)
    }

    /// The loop's iterates covered by compressed chunk `c`, one piece per live segment it meets.
    pub(crate) fn pieces(&self, c: Chunk) -> Vec<Chunk> {
        let end = c.start + c.size;
        let first = self.live.partition_point(|&(cs, _, l)| cs + l <= c.start);
        let mut out = Vec::new();
        for &(cs, rs, l) in &self.live[first..] {
            if cs >= end {
                break;
            }
            let lo = c.start.max(cs);
            let hi = end.min(cs + l);
            out.push(Chunk {
                start: rs + (lo - cs),
                size: hi - lo,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(start: u64, size: u64) -> Chunk {
        Chunk { start, size }
    }

    #[test]
    fn chunks_of_the_compressed_space_map_onto_the_live_iterates() {
        // 0..20 without [3, 5) and [10, 15): live 0..3, 5..10, 15..20.
        let h = Holes::new(20, &[[3, 5], [10, 15]]);
        assert_eq!(h.len(), 13);
        assert_eq!(h.pieces(c(0, 2)), vec![c(0, 2)]);
        assert_eq!(h.pieces(c(2, 3)), vec![c(2, 1), c(5, 2)]);
        assert_eq!(h.pieces(c(0, 13)), vec![c(0, 3), c(5, 5), c(15, 5)]);
        assert_eq!(h.pieces(c(12, 1)), vec![c(19, 1)]);
        assert_eq!(Holes::new(10, &[[0, 10]]).len(), 0);
        assert_eq!(Holes::new(10, &[]).pieces(c(4, 3)), vec![c(4, 3)]);
    }

    /// Property: the pieces of consecutive compressed chunks cover exactly the live iterates.
    #[test]
    fn every_live_iterate_once() {
        let mut seed = 12345u64;
        let mut rand = move |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for _ in 0..200 {
            let n = 1 + rand(200);
            let mut holes = Vec::new();
            let mut at = 0;
            while at < n {
                let s = at + rand(10);
                let e = (s + 1 + rand(10)).min(n);
                if s >= n {
                    break;
                }
                holes.push([s, e]);
                at = e + 1;
            }
            let h = Holes::new(n, &holes);
            let mut seen = vec![0u8; n as usize];
            let mut start = 0;
            while start < h.len() {
                let size = (1 + rand(7)).min(h.len() - start);
                for p in h.pieces(c(start, size)) {
                    for i in p.start..p.start + p.size {
                        seen[i as usize] += 1;
                    }
                }
                start += size;
            }
            for (i, &s) in seen.iter().enumerate() {
                let hole = holes.iter().any(|&[a, b]| (a..b).contains(&(i as u64)));
                assert_eq!(s, u8::from(!hole), "n={n} holes={holes:?} i={i}");
            }
        }
    }
}
