//! The simulator's event queue: a 4-ary min-heap of request arrivals.
//!
//! A 4-ary heap is half as deep as a binary heap and keeps a node's children in one cache line
//! (4 × 16 bytes), which matters when every iterate is a chunk (SS on 10^4 ranks: 10^7
//! replace-top operations). Equal times leave in order of their key (the sequence number of the
//! request), so the simulation is deterministic and first come, first served.

/// Bits of [`Arrival::key`] that hold the rank.
pub(crate) const RANK_BITS: u32 = 20;

/// A request arriving at the scheduler: 16 bytes.
///
/// Arrival times are never negative, so the bits of the `f64` compare like the times: the order
/// is a comparison of two `u64`, which compiles without branches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Arrival {
    /// Bits of the arrival time in seconds (a non-negative `f64`).
    time_bits: u64,
    /// Sequence number (order of sending) in the high bits, rank in the low [`RANK_BITS`].
    key: u64,
}

impl Arrival {
    /// The arrival of `rank`'s request number `seq` (counted over all ranks) at `time`.
    /// Times are sums of non-negative durations; `-0.0` is taken as `0.0` and NaN (only
    /// reachable from infinite iterate times) as infinity, so that the bit order holds.
    pub(crate) fn new(time: f64, seq: u64, rank: usize) -> Self {
        let time = if time.is_nan() {
            f64::INFINITY
        } else {
            time.max(0.0) + 0.0
        };
        Arrival {
            time_bits: time.to_bits(),
            key: (seq << RANK_BITS) | rank as u64,
        }
    }

    /// Arrival time, seconds.
    pub(crate) fn time(&self) -> f64 {
        f64::from_bits(self.time_bits)
    }

    /// The request's number `seq`.
    pub(crate) fn seq(&self) -> u64 {
        self.key >> RANK_BITS
    }

    /// The rank that sent the request.
    pub(crate) fn rank(&self) -> usize {
        (self.key & ((1 << RANK_BITS) - 1)) as usize
    }

    /// Earlier time first; equal times in order of sending.
    #[inline]
    fn before(&self, other: &Arrival) -> bool {
        (self.time_bits, self.key) < (other.time_bits, other.key)
    }
}

/// Min-heap of arrivals, 4 children per node.
#[derive(Debug, Default)]
pub(crate) struct EventQueue {
    heap: Vec<Arrival>,
}

impl EventQueue {
    /// An empty queue with room for `capacity` arrivals.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        EventQueue {
            heap: Vec::with_capacity(capacity),
        }
    }

    /// The earliest arrival.
    pub(crate) fn peek(&self) -> Option<Arrival> {
        self.heap.first().copied()
    }

    /// Adds an arrival.
    pub(crate) fn push(&mut self, a: Arrival) {
        self.heap.push(a);
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let parent = (i - 1) / 4;
            if !a.before(&self.heap[parent]) {
                break;
            }
            self.heap[i] = self.heap[parent];
            i = parent;
        }
        self.heap[i] = a;
    }

    /// Replaces the earliest arrival by `a` (cheaper than a pop and a push).
    pub(crate) fn replace_top(&mut self, a: Arrival) {
        if self.heap.is_empty() {
            self.heap.push(a);
        } else {
            self.sift_down(a);
        }
    }

    /// Removes the earliest arrival.
    pub(crate) fn pop(&mut self) -> Option<Arrival> {
        let last = self.heap.pop()?;
        if self.heap.is_empty() {
            return Some(last);
        }
        let top = self.heap[0];
        self.sift_down(last);
        Some(top)
    }

    /// Puts `a` at the root and moves it to its place, bottom-up (Floyd): the hole at the root
    /// goes down along the earliest children to a leaf, then `a` climbs from there. A new arrival
    /// is usually among the latest, so it climbs little and each level costs 3 comparisons
    /// instead of 4.
    fn sift_down(&mut self, a: Arrival) {
        let h = &mut self.heap;
        let n = h.len();
        let mut i = 0;
        loop {
            let first = 4 * i + 1;
            if first >= n {
                break;
            }
            let mut best = first;
            if first + 3 < n {
                // Full node: pick the earliest of 4 without data-dependent branches.
                let b01 = if h[first + 1].before(&h[first]) {
                    first + 1
                } else {
                    first
                };
                let b23 = if h[first + 3].before(&h[first + 2]) {
                    first + 3
                } else {
                    first + 2
                };
                best = if h[b23].before(&h[b01]) { b23 } else { b01 };
            } else {
                for c in first + 1..n {
                    if h[c].before(&h[best]) {
                        best = c;
                    }
                }
            }
            h[i] = h[best];
            i = best;
        }
        while i > 0 {
            let parent = (i - 1) / 4;
            if !a.before(&h[parent]) {
                break;
            }
            h[i] = h[parent];
            i = parent;
        }
        h[i] = a;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_sequence_order() {
        // Pseudo-random times with many ties; compare with a sort.
        let mut q = EventQueue::with_capacity(4);
        let mut all = Vec::new();
        let mut x = 12345u64;
        for seq in 0..2000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = Arrival::new((x >> 60) as f64, seq, (x >> 40) as usize % 1000);
            assert_eq!(a.time(), (x >> 60) as f64);
            all.push(a);
            q.push(a);
            if seq % 3 == 0 {
                // Exercise replace_top: the popped element comes back later in time.
                let top = q.peek().unwrap();
                let later = Arrival::new(top.time() + 7.0, seq + 10_000, top.rank());
                all.retain(|e| e != &top);
                all.push(later);
                q.replace_top(later);
            }
        }
        all.sort_by(|a, b| a.time().total_cmp(&b.time()).then(a.key.cmp(&b.key)));
        let mut out = Vec::new();
        while let Some(a) = q.pop() {
            out.push(a);
        }
        assert_eq!(out, all);
    }

    #[test]
    fn rank_round_trips() {
        let a = Arrival::new(1.0, 123_456_789, (1 << RANK_BITS) - 1);
        assert_eq!(a.rank(), (1 << RANK_BITS) - 1);
    }
}
