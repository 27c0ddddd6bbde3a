//! The workers of one process merge their partial results as a binary tree, in parallel, as they
//! end: a worker that ends merges its value with its neighbour's subtree if that one has already
//! arrived and goes on up, else leaves its value for the neighbour to merge when it ends. Nobody
//! waits. At `P` workers the last one to end does at most `⌈lg P⌉` merges, where the fold after
//! the loop did `P − 1` one after another (a 225,000-key map takes 30–40 ms a merge).
//!
//! The tree keeps the workers' order: a node covers the consecutive workers
//! `j·2^k .. (j+1)·2^k` and merges its left child's value before its right child's, and what no
//! worker carried to the root (a worker that took no part: it ended before entering the loop, or
//! failed) is folded after the loop in worker order ([`WorkerTree::rest`]), so an associative
//! merge gives the total that the fold in worker order gives.

use crate::runtime::annotate::sync::AtomicU64;
use crate::runtime::annotate::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::runtime::sync::lock;

/// A node of the tree above the workers: the value of whichever of its two children arrived
/// first, with that child's index on its level.
type Waiting<T> = Mutex<Option<(usize, T)>>;

/// The merges of one loop's workers on one process (see the module's documentation).
pub(crate) struct WorkerTree<T> {
    /// `waiting[k][j]`: node `j` of level `k + 1`, holding the value of whichever of its two
    /// children (nodes `2j` and `2j + 1` of level `k`) arrived first, with that child's index.
    waiting: Vec<Vec<Waiting<T>>>,
    /// The value of the whole tree, once one worker carried it up.
    root: Mutex<Option<T>>,
    /// Nodes on each level: `counts[0]` is the number of workers.
    counts: Vec<usize>,
    merges: AtomicU64,
    merge_ns: AtomicU64,
}

impl<T> WorkerTree<T> {
    /// The tree of `workers` workers; none below 3 (two workers' values take one merge either
    /// way, after the loop as before).
    pub(crate) fn new(workers: usize) -> Option<WorkerTree<T>> {
        if workers < 3 {
            return None;
        }
        let mut counts = vec![workers];
        while let Some(&n) = counts.last().filter(|&&n| n > 1) {
            counts.push(n.div_ceil(2));
        }
        let waiting = counts[1..]
            .iter()
            .map(|&n| (0..n).map(|_| Mutex::new(None)).collect())
            .collect();
        Some(WorkerTree {
            waiting,
            root: Mutex::new(None),
            counts,
            merges: AtomicU64::new(0),
            merge_ns: AtomicU64::new(0),
        })
    }

    /// Worker `worker` ended with `value`: merges it up the tree while the neighbouring
    /// subtrees have arrived (`combine(left, right)`), and leaves it at the first node whose
    /// other child has not. A panic of `combine` loses the two values it took (the loop fails).
    pub(crate) fn arrive(&self, worker: usize, value: T, combine: &dyn Fn(T, T) -> T) {
        let (mut j, mut value) = (worker, value);
        for k in 0..self.counts.len() - 1 {
            if j ^ 1 >= self.counts[k] {
                // The last node of an odd level has no neighbour: it goes up as it is.
                j /= 2;
                continue;
            }
            let mut node = lock(&self.waiting[k][j / 2]);
            let Some((other, theirs)) = node.take() else {
                *node = Some((j, value));
                return;
            };
            drop(node);
            let (left, right) = if other < j {
                (theirs, value)
            } else {
                (value, theirs)
            };
            let started = Instant::now();
            value = combine(left, right);
            self.merge_ns
                .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
            self.merges.fetch_add(1, Ordering::Relaxed);
            j /= 2;
        }
        *lock(&self.root) = Some(value);
    }

    /// What the workers did not merge into one value, in worker order: the root's value alone
    /// when every worker arrived.
    pub(crate) fn rest(self) -> Vec<T> {
        let mut left: Vec<(usize, T)> = Vec::new();
        if let Some(v) = self.root.into_inner().unwrap_or_else(|e| e.into_inner()) {
            left.push((0, v));
        }
        for (k, level) in self.waiting.into_iter().enumerate() {
            for node in level {
                if let Some((j, v)) = node.into_inner().unwrap_or_else(|e| e.into_inner()) {
                    // Node `j` of level `k` covers the workers from `j·2^k`.
                    left.push((j << k, v));
                }
            }
        }
        left.sort_by_key(|&(first, _)| first);
        left.into_iter().map(|(_, v)| v).collect()
    }

    /// The merges the workers did, and their total time in seconds.
    pub(crate) fn merged(&self) -> (u64, f64) {
        (
            self.merges.load(Ordering::Relaxed),
            self.merge_ns.load(Ordering::Relaxed) as f64 * 1e-9,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A merge that shows its order: the concatenation of the workers' names.
    fn cat(a: String, b: String) -> String {
        a + &b
    }

    #[test]
    fn two_workers_need_no_tree() {
        assert!(WorkerTree::<String>::new(2).is_none());
        assert!(WorkerTree::<String>::new(3).is_some());
    }

    /// Every arrival order of every worker count up to 7, and every subset of workers taking
    /// part: the values left, folded in order, are the workers' values in worker order; with
    /// everyone, one value is left and `P - 1` merges were done.
    #[test]
    fn any_arrival_order_keeps_the_workers_order() {
        for p in 3..=7_usize {
            let names: Vec<String> = (0..p).map(|w| char::from(b'a' + w as u8).into()).collect();
            for subset in 1..(1_u32 << p) {
                let taking: Vec<usize> = (0..p).filter(|w| subset >> w & 1 == 1).collect();
                let want: String = taking.iter().map(|&w| names[w].clone()).collect();
                // A few arrival orders: forwards, backwards, and interleaved.
                let mut orders = vec![taking.clone(), taking.iter().rev().copied().collect()];
                let (even, odd): (Vec<usize>, Vec<usize>) =
                    taking.iter().partition(|&&w| w % 2 == 0);
                orders.push(odd.into_iter().chain(even).collect());
                for order in orders {
                    let tree = WorkerTree::new(p).unwrap();
                    for &w in &order {
                        tree.arrive(w, names[w].clone(), &cat);
                    }
                    let (merges, _) = tree.merged();
                    let rest = tree.rest();
                    let got: String = rest.iter().cloned().collect();
                    assert_eq!(got, want, "p {p}, arrivals {order:?}");
                    if taking.len() == p {
                        assert_eq!((rest.len(), merges), (1, p as u64 - 1), "p {p} {order:?}");
                    }
                }
            }
        }
    }

    /// Workers on threads: the total is the serial fold, and no merge waits for another.
    #[test]
    fn threads_merge_to_the_ordered_total() {
        for p in [3_usize, 4, 5, 8, 13] {
            let tree = WorkerTree::new(p).unwrap();
            std::thread::scope(|s| {
                for w in 0..p {
                    let tree = &tree;
                    s.spawn(move || {
                        tree.arrive(w, vec![w], &|mut a: Vec<usize>, b| {
                            a.extend(b);
                            a
                        })
                    });
                }
            });
            assert_eq!(tree.rest(), [(0..p).collect::<Vec<_>>()]);
        }
    }
}
