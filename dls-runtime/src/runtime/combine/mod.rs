//! Combining partial results: the one place where the workers' values of a loop become one.
//!
//! Every reduction and gather goes through [`combine_partials`]: one-level loops (`doall_reduce`,
//! the `reduce`/`gather` clauses), the inner loops of a group and the outer level of a two-level
//! loop. First a process folds its own workers' values, in worker order (from 3 workers on, the
//! workers merge most of them themselves as they end, as a tree: `workers.rs`); then the processes'
//! values travel by the loop's [`Strategy`] (see `strategy.rs` for the table): every strategy is
//! written here once, over the [`Exchange`] primitives, so that the MPI communicator and the
//! in-process exchange of the unit tests run the same code.
//!
//! Values travel serialised ([`Wire`]) as length-delimited point-to-point messages or broadcasts,
//! never through an MPI user operation (whose buffers must have the same length on every rank).

pub(crate) mod pipeline;
pub(crate) mod strategy;
pub(crate) mod wire;
pub(crate) mod workers;
use std::time::Instant;

use crate::report::ReductionReport;
use crate::runtime::error::DlsError;
use strategy::{Strategy, AUTO_ALLGATHER_BYTES, AUTO_MERGE_SAVING_S};
use wire::{ReadInto, Wire};

pub(crate) use crate::runtime::loops::exchange::Exchange;

/// Folds partial results with the loop's operator, counting and timing the merges.
pub(crate) struct Folder<'a, T> {
    pub(crate) combine: &'a dyn Fn(T, T) -> T,
    /// Merges another process's value into one's own as its bytes are read (see
    /// [`Folder::fold_read`]).
    pub(crate) read_into: Option<ReadInto<'a, T>>,
    pub(crate) merges: u64,
    pub(crate) merge_s: f64,
    /// Values received from other processes, and their bytes.
    pub(crate) received: u64,
    pub(crate) received_bytes: u64,
}

impl<T: Wire> Folder<'_, T> {
    /// Decodes a value another process sent.
    pub(crate) fn read(&mut self, bytes: &[u8]) -> Result<Option<T>, DlsError> {
        self.received += 1;
        self.received_bytes += bytes.len() as u64;
        wire::decode(bytes)
    }

    /// `acc ⊕ theirs`, or `theirs ⊕ acc` when `theirs_first`, where `theirs` is the value
    /// another process sent (an `Option<T>`, in `bytes`); a missing value is the identity. With
    /// [`Folder::read_into`] and a value of one's own, their bytes are merged into it as they are
    /// read (a map's entries go straight into one's own map), else they are decoded and then
    /// merged: the same total either way, operand for operand.
    pub(crate) fn fold_read(
        &mut self,
        acc: Option<T>,
        bytes: &[u8],
        theirs_first: bool,
    ) -> Result<Option<T>, DlsError> {
        match (acc, self.read_into) {
            (Some(mine), Some(read_into)) => {
                self.received += 1;
                self.received_bytes += bytes.len() as u64;
                // An `Option<T>` in postcard: 0 for `None`, 1 and the value for `Some`.
                match bytes.split_first() {
                    Some((0, [])) => Ok(Some(mine)),
                    Some((1, value)) => {
                        let t = Instant::now();
                        if std::mem::size_of::<T>() != 0 {
                            crate::runtime::observe::delay::merged();
                        }
                        let v = read_into(mine, value, theirs_first)?;
                        self.merge_s += t.elapsed().as_secs_f64();
                        self.merges += 1;
                        Ok(Some(v))
                    }
                    _ => Err(DlsError::Wire(
                        "cannot deserialise: not an optional value".to_string(),
                    )),
                }
            }
            (acc, _) => {
                let theirs = self.read(bytes)?;
                Ok(if theirs_first {
                    self.fold(theirs, acc)
                } else {
                    self.fold(acc, theirs)
                })
            }
        }
    }
}

impl<T> Folder<'_, T> {
    /// `a ⊕ b`; a missing value is the identity.
    pub(crate) fn fold(&mut self, a: Option<T>, b: Option<T>) -> Option<T> {
        match (a, b) {
            (Some(a), Some(b)) => {
                let t = Instant::now();
                // The `merge` delay of DLS_DELAY; a loop without a result (`doall`'s `()`)
                // merges nothing.
                if std::mem::size_of::<T>() != 0 {
                    crate::runtime::observe::delay::merged();
                }
                let v = (self.combine)(a, b);
                self.merge_s += t.elapsed().as_secs_f64();
                self.merges += 1;
                Some(v)
            }
            (a, b) => a.or(b),
        }
    }
}

/// How a loop's values combine: the identity (the total when no worker has a value), the merge,
/// and, where the loop has one, how another process's value is merged into this one's as its
/// bytes are read ([`Folder::fold_read`]).
pub(crate) struct Merging<'a, T> {
    identity: &'a dyn Fn() -> T,
    combine: &'a dyn Fn(T, T) -> T,
    read_into: Option<ReadInto<'a, T>>,
}

impl<'a, T> Merging<'a, T> {
    /// `identity` and `combine`; another process's value is decoded, then merged.
    pub(crate) fn new(identity: &'a dyn Fn() -> T, combine: &'a dyn Fn(T, T) -> T) -> Self {
        Merging {
            identity,
            combine,
            read_into: None,
        }
    }

    /// With `read_into` (none: decoded, then merged).
    pub(crate) fn reading(self, read_into: Option<ReadInto<'a, T>>) -> Self {
        Merging { read_into, ..self }
    }
}

/// Combines the partial results of a loop: first this process's (`partials`, in worker order;
/// `None` for a worker without a value), then, with `across`, the processes' by `strategy`.
/// Every process gets the total (`identity()` when no worker has a value) and a report of what
/// ran. Collective over `across`. `merging` says how values combine ([`Merging`]). A job of one
/// process combines as without `across`: there is nobody to exchange with, and choosing a
/// strategy would encode the whole value only to learn its size (a gathered vector of 200,000
/// elements at every loop of a time loop under `mpirun -n 1`).
pub(crate) fn combine_partials<T: Wire>(
    loop_name: &str,
    strategy: Strategy,
    prior_merge_s: Option<f64>,
    across: Option<&dyn Exchange>,
    partials: impl IntoIterator<Item = Option<T>>,
    merging: Merging<'_, T>,
) -> Result<(T, ReductionReport), DlsError> {
    let Merging {
        identity,
        combine,
        read_into,
    } = merging;
    // A merge function that panics is reported as such, naming the loop.
    let _combining = crate::runtime::loops::panic_ctx::combining(loop_name);
    let started = Instant::now();
    let mut folder = Folder {
        combine,
        read_into,
        merges: 0,
        merge_s: 0.0,
        received: 0,
        received_bytes: 0,
    };
    let local = partials
        .into_iter()
        .fold(None, |acc, v| folder.fold(acc, v));
    let mut report = ReductionReport {
        requested: strategy.to_string(),
        ..ReductionReport::default()
    };
    let total = match across.filter(|x| x.size() > 1) {
        None => {
            report.strategy = "local".to_string();
            report.why = "one process: its workers' values are combined in memory, in worker \
                          order"
                .to_string();
            local
        }
        Some(x) => across_processes(x, strategy, prior_merge_s, local, &mut folder, &mut report)?,
    };
    report.merges = folder.merges;
    report.merge_time_s = if folder.merges > 0 {
        folder.merge_s / folder.merges as f64
    } else {
        0.0
    };
    if let Some(mean) = folder.received_bytes.checked_div(folder.received) {
        report.value_bytes = mean;
    }
    report.time_s = started.elapsed().as_secs_f64();
    Ok((total.unwrap_or_else(identity), report))
}

/// The processes' values combined by `strategy`, on every process.
fn across_processes<T: Wire>(
    x: &dyn Exchange,
    strategy: Strategy,
    prior_merge_s: Option<f64>,
    local: Option<T>,
    folder: &mut Folder<'_, T>,
    report: &mut ReductionReport,
) -> Result<Option<T>, DlsError> {
    let p = x.size();
    let chosen = match strategy {
        Strategy::Auto => {
            // One small collective tells every rank every size and every rank's merge time
            // measured in this loop's last run, so all choose alike.
            let mine = wire::encode(&local)?;
            let merge_ns = prior_merge_s.map_or(0, |s| (s * 1e9) as u64);
            let words = x.all_words([mine.len() as u64, merge_ns]);
            let lens: Vec<u64> = words.iter().map(|w| w[0]).collect();
            let total: u64 = lens.iter().sum();
            let merge_s = words.iter().map(|w| w[1]).max().unwrap_or(0) as f64 / 1e9;
            // What the tree saves over every rank merging all values: P − 1 − ⌈lg P⌉ merges.
            let saved_s = (p - 1).saturating_sub(ceil_lg(p) as usize) as f64 * merge_s;
            if p <= 2 || (total <= AUTO_ALLGATHER_BYTES && saved_s <= AUTO_MERGE_SAVING_S) {
                report.strategy = Strategy::AllGather.to_string();
                report.why = if p <= 2 {
                    format!("auto: {p} process(es): one exchange, each combines in rank order")
                } else {
                    format!(
                        "auto: all values take {total} B ≤ {AUTO_ALLGATHER_BYTES} B and a merge \
                         took {:.1} µs: one all-gather, every rank combines the {p} values in \
                         rank order",
                        merge_s * 1e6
                    )
                };
                return all_gather(x, mine, &lens, local, folder);
            }
            report.why = if total > AUTO_ALLGATHER_BYTES {
                format!(
                    "auto: all values take {total} B > {AUTO_ALLGATHER_BYTES} B: a binomial \
                     tree, {} merges on the critical path instead of {} on every rank",
                    ceil_lg(p),
                    p - 1
                )
            } else {
                format!(
                    "auto: a merge took {:.1} µs in this loop's last run: a binomial tree saves \
                     {:.1} µs of merges over every rank merging all {p} values",
                    merge_s * 1e6,
                    saved_s * 1e6
                )
            };
            Strategy::Tree
        }
        s => {
            report.why = format!("{s} requested");
            s
        }
    };
    report.strategy = chosen.to_string();
    match chosen {
        Strategy::AllGather => {
            let mine = wire::encode(&local)?;
            let lens = x.all_lengths(mine.len() as u64);
            all_gather(x, mine, &lens, local, folder)
        }
        Strategy::Master => master(x, local, folder),
        Strategy::Pipeline => pipeline_pairs(x, local, folder),
        _ => tree(x, local, folder),
    }
}

/// ⌈lg p⌉.
fn ceil_lg(p: usize) -> u32 {
    p.next_power_of_two().trailing_zeros()
}

/// Every process's value to every process, combined in rank order everywhere.
fn all_gather<T: Wire>(
    x: &dyn Exchange,
    mine: Vec<u8>,
    lens: &[u64],
    local: Option<T>,
    folder: &mut Folder<'_, T>,
) -> Result<Option<T>, DlsError> {
    // The others' values are read from their bytes one at a time, each folded as it arrives, so
    // that no process holds all P values at once. This process's own value is folded at its
    // place in rank order as it is, not read back from its bytes: decoding a value costs about
    // as much as building it (a 150,000-key map: 38 ms, against 3 ms to encode it;
    // `benches/src/bin/map_merge.rs`), and every value round-trips through [`Wire`] exactly.
    // The others' bytes are merged into the total as they are read where the loop can
    // (`Folder::fold_read`), so the total starts from this process's own value where that keeps
    // the rank order: on rank 0, and on the rank just after the last one before it with a value
    // (at P = 2: `v0 ⊕ v1` computed as `v1` with `v0` merged in first, operand for operand).
    let me = x.rank();
    let mut local = local;
    let mut from = 0;
    let mut total = None;
    x.each_process_of(mine, lens, &mut |bytes| {
        total = if from == me {
            folder.fold(total.take(), local.take())
        } else if total.is_none() && from + 1 == me && local.is_some() {
            folder.fold_read(local.take(), bytes, true)?
        } else {
            folder.fold_read(total.take(), bytes, false)?
        };
        from += 1;
        Ok(())
    })?;
    Ok(total)
}

/// The total, on every process, from `root`, which holds it (`total` elsewhere: `None`); the root
/// keeps its own value instead of reading back the bytes it broadcast.
fn from_root<T: Wire>(
    x: &dyn Exchange,
    root: usize,
    total: Option<T>,
) -> Result<Option<T>, DlsError> {
    if x.rank() == root {
        x.broadcast(root, Some(wire::encode(&total)?));
        Ok(total)
    } else {
        wire::decode(&x.broadcast(root, None))
    }
}

/// Rank 0 receives the others' values in rank order, combines them and broadcasts the total.
fn master<T: Wire>(
    x: &dyn Exchange,
    local: Option<T>,
    folder: &mut Folder<'_, T>,
) -> Result<Option<T>, DlsError> {
    let total = if x.rank() == 0 {
        let mut acc = local;
        for r in 1..x.size() {
            acc = folder.fold_read(acc, &x.receive(r), false)?;
        }
        acc
    } else {
        x.send(0, &wire::encode(&local)?);
        None
    };
    from_root(x, 0, total)
}

/// A binomial tree in rank order: at level k (1, 2, 4, …) rank r with r mod 2k = k sends its
/// value (covering ranks r..r+k) to r − k, which appends it to its own (covering r − k..r); rank
/// 0 ends with the total, in rank order, and broadcasts it.
fn tree<T: Wire>(
    x: &dyn Exchange,
    local: Option<T>,
    folder: &mut Folder<'_, T>,
) -> Result<Option<T>, DlsError> {
    let (r, p) = (x.rank(), x.size());
    let mut acc = local;
    let mut k = 1;
    while k < p {
        if r % (2 * k) == k {
            x.send(r - k, &wire::encode(&acc)?);
            acc = None;
            break;
        }
        if r + k < p {
            acc = folder.fold_read(acc, &x.receive(r + k), false)?;
        }
        k *= 2;
    }
    from_root(x, 0, acc)
}

/// The loop-end reduction of Kuntraruk, Pottenger & Ross's (2005) parallel pipeline, with one
/// value per process: the ranks from the largest power of two P' ≤ P on first fold into rank
/// r − P'; then, at level i, rank r sends to r + 2^(i−1) when r mod 2^i < 2^(i−1) (and leaves)
/// and receives from r − 2^(i−1) otherwise. Rank P' − 1 ends with the total and broadcasts it.
/// (With a single value per rank this is a binomial tree mirrored towards rank P' − 1; the
/// ranks' values are not combined in rank order.)
fn pipeline_pairs<T: Wire>(
    x: &dyn Exchange,
    local: Option<T>,
    folder: &mut Folder<'_, T>,
) -> Result<Option<T>, DlsError> {
    let (r, p) = (x.rank(), x.size());
    let p2 = if p.is_power_of_two() {
        p
    } else {
        p.next_power_of_two() / 2
    };
    let last = p2 - 1;
    let mut acc = local;
    let mut active = true;
    if r >= p2 {
        x.send(r - p2, &wire::encode(&acc)?);
        acc = None;
        active = false;
    } else if r + p2 < p {
        acc = folder.fold_read(acc, &x.receive(r + p2), false)?;
    }
    let mut half = 1;
    while active && half < p2 {
        if r % (2 * half) < half {
            x.send(r + half, &wire::encode(&acc)?);
            acc = None;
            active = false;
        } else {
            acc = folder.fold_read(acc, &x.receive(r - half), true)?;
        }
        half *= 2;
    }
    from_root(x, last, acc)
}

/// Every process's `value`, in rank order, on every process (collective; values travel
/// serialised, [`Wire`]).
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn gather_values<T: Wire>(across: &dyn Exchange, value: &T) -> Result<Vec<T>, DlsError> {
    let mut all = Vec::new();
    across.each_process(wire::encode(value)?, &mut |bytes| {
        all.push(wire::decode(bytes)?);
        Ok(())
    })?;
    Ok(all)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::runtime::annotate::sync::Mutex;
    use std::collections::HashMap;
    use std::sync::mpsc::{channel, Receiver, Sender};
    use std::sync::{Arc, Barrier};

    /// `p` processes in one test, as threads joined by channels: rank r's mailbox from rank s is
    /// `boxes[r][s]`.
    pub(crate) struct InProcess {
        rank: usize,
        p: usize,
        to: Vec<Sender<Vec<u8>>>,
        from: Vec<Mutex<Receiver<Vec<u8>>>>,
        /// For the collectives: a board every rank writes its bytes on, and a barrier.
        board: Arc<Mutex<Vec<Vec<u8>>>>,
        barrier: Arc<Barrier>,
    }

    impl InProcess {
        /// One exchange per rank.
        pub(crate) fn world(p: usize) -> Vec<InProcess> {
            let mut senders: Vec<Vec<Option<Sender<Vec<u8>>>>> = vec![Vec::new(); p];
            let mut receivers: Vec<Vec<Mutex<Receiver<Vec<u8>>>>> =
                (0..p).map(|_| Vec::new()).collect();
            // A channel from every s to every r.
            for (r, row) in receivers.iter_mut().enumerate() {
                for from in senders.iter_mut() {
                    let (tx, rx) = channel();
                    row.push(Mutex::new(rx));
                    from.resize_with(p, || None);
                    from[r] = Some(tx);
                }
            }
            let board = Arc::new(Mutex::new(vec![Vec::new(); p]));
            let barrier = Arc::new(Barrier::new(p));
            senders
                .into_iter()
                .zip(receivers)
                .enumerate()
                .map(|(rank, (to, from))| InProcess {
                    rank,
                    p,
                    to: to.into_iter().map(Option::unwrap).collect(),
                    from,
                    board: board.clone(),
                    barrier: barrier.clone(),
                })
                .collect()
        }

        /// Every rank's bytes, after all wrote theirs.
        fn all(&self, mine: Vec<u8>) -> Vec<Vec<u8>> {
            self.board.lock().unwrap()[self.rank] = mine;
            self.barrier.wait();
            let all = self.board.lock().unwrap().clone();
            self.barrier.wait();
            all
        }
    }

    impl Exchange for InProcess {
        fn rank(&self) -> usize {
            self.rank
        }
        fn size(&self) -> usize {
            self.p
        }
        fn all_words(&self, mine: [u64; 2]) -> Vec<[u64; 2]> {
            let bytes = [mine[0].to_le_bytes(), mine[1].to_le_bytes()].concat();
            self.all(bytes)
                .iter()
                .map(|b| {
                    let word =
                        |k: usize| u64::from_le_bytes(b[8 * k..8 * k + 8].try_into().unwrap());
                    [word(0), word(1)]
                })
                .collect()
        }
        fn each_process_of(
            &self,
            mine: Vec<u8>,
            lens: &[u64],
            take: &mut dyn FnMut(&[u8]) -> Result<(), DlsError>,
        ) -> Result<(), DlsError> {
            let all = self.all(mine);
            assert!(all.iter().zip(lens).all(|(b, &l)| b.len() as u64 == l));
            all.iter().try_for_each(|b| take(b))
        }
        fn send(&self, to: usize, bytes: &[u8]) {
            self.to[to].send(bytes.to_vec()).unwrap();
        }
        fn receive(&self, from: usize) -> Vec<u8> {
            self.from[from].lock().unwrap().recv().unwrap()
        }
        fn broadcast(&self, root: usize, bytes: Option<Vec<u8>>) -> Vec<u8> {
            let all = self.all(bytes.unwrap_or_default());
            all[root].clone()
        }
    }

    /// Runs `f(exchange)` on `p` threads, one per rank, and returns the results in rank order.
    pub(crate) fn on_ranks<R: Send>(p: usize, f: impl Fn(&InProcess) -> R + Sync) -> Vec<R> {
        let world = InProcess::world(p);
        std::thread::scope(|s| {
            let handles: Vec<_> = world.iter().map(|x| s.spawn(|| f(x))).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    const ALL: [Strategy; 5] = [
        Strategy::Auto,
        Strategy::AllGather,
        Strategy::Master,
        Strategy::Tree,
        Strategy::Pipeline,
    ];

    #[test]
    fn one_process_combines_in_worker_order() {
        let cat = |a: String, b: String| a + &b;
        let local = [Some("a".to_string()), None, Some("b".to_string())];
        let (v, report) = combine_partials(
            "l",
            Strategy::Tree,
            None,
            None,
            local,
            Merging::new(&String::new, &cat),
        )
        .unwrap();
        assert_eq!(v, "ab");
        assert_eq!((report.strategy.as_str(), report.merges), ("local", 1));
        let none: [Option<String>; 2] = [None, None];
        let (v, _) = combine_partials(
            "l",
            Strategy::Auto,
            None,
            None,
            none,
            Merging::new(&|| "id".into(), &cat),
        )
        .unwrap();
        assert_eq!(v, "id");
    }

    /// A job of one process combines in memory whatever the strategy, as without an exchange:
    /// nothing is encoded (the report says `local`, the strategy of no exchange).
    #[test]
    fn a_job_of_one_process_exchanges_nothing() {
        let cat = |a: String, b: String| a + &b;
        for strategy in ALL {
            let got = on_ranks(1, |x| {
                combine_partials(
                    "l",
                    strategy,
                    None,
                    Some(x),
                    [Some("a".to_string()), Some("b".to_string())],
                    Merging::new(&String::new, &cat),
                )
                .unwrap()
            });
            let (v, report) = &got[0];
            assert_eq!(v, "ab", "{strategy}");
            assert_eq!(report.strategy, "local", "{strategy}");
        }
    }

    /// Every strategy at P = 1..=9 gives every rank the total; the order-keeping strategies give
    /// the rank-order concatenation, the pipeline a permutation of it; ranks without a value
    /// (None) are skipped.
    #[test]
    fn every_strategy_gives_every_rank_the_total() {
        let cat = |a: Vec<usize>, b: Vec<usize>| [a, b].concat();
        for p in 1..=9 {
            for s in ALL {
                let got = on_ranks(p, |x| {
                    // Rank 2 has no value; the others hold [r, r].
                    let mine = (x.rank() != 2).then(|| vec![x.rank(), x.rank()]);
                    combine_partials("l", s, None, Some(x), [mine], Merging::new(&Vec::new, &cat))
                        .unwrap()
                });
                let serial: Vec<usize> = (0..p).filter(|&r| r != 2).flat_map(|r| [r, r]).collect();
                for (r, (v, report)) in got.iter().enumerate() {
                    if s == Strategy::Pipeline {
                        let mut sorted = v.clone();
                        sorted.sort();
                        assert_eq!(sorted, serial, "{s} P={p} rank {r}");
                    } else {
                        assert_eq!(v, &serial, "{s} P={p} rank {r}");
                    }
                    assert_ne!(report.strategy, "auto", "{s}: auto resolves");
                }
            }
        }
    }

    /// Maps of counts, as `reduce(+)` combines them, equal the serial count on every rank under
    /// every strategy at P = 2, 3, 4: with an empty map on rank 1 and no value on rank 2 (a rank
    /// with no chunk), whether a rank's own value is folded as it is (allgather) or the root keeps
    /// the total it broadcasts (master, tree, pipeline).
    #[test]
    fn maps_equal_the_serial_count_on_every_rank() {
        let add = |a: HashMap<String, u64>, b: HashMap<String, u64>| {
            crate::reduce::Operator::combine(&crate::reduce::Sum, a, b)
        };
        let part = |r: usize| -> Option<HashMap<String, u64>> {
            match r {
                1 => Some(HashMap::new()),
                2 => None,
                _ => Some(
                    (0..300 + r as u64)
                        .map(|k| (format!("k{}", k * (r as u64 + 1) % 500), k))
                        .fold(HashMap::new(), |mut m, (key, n)| {
                            *m.entry(key).or_default() += n;
                            m
                        }),
                ),
            }
        };
        for p in 2..=4 {
            let serial = (0..p).filter_map(part).fold(HashMap::new(), add);
            for s in ALL {
                let got = on_ranks(p, |x| {
                    combine_partials(
                        "l",
                        s,
                        None,
                        Some(x),
                        [part(x.rank())],
                        Merging::new(&HashMap::new, &add),
                    )
                    .unwrap()
                    .0
                });
                for (r, v) in got.iter().enumerate() {
                    assert_eq!(v, &serial, "{s} P={p} rank {r}");
                }
            }
        }
    }

    /// With a map read into a process's own value as its bytes arrive (`read_into`), every
    /// strategy gives every rank, bit for bit, the total that decoding and combining gives, at
    /// P = 2..=5: sums of floats whose association matters (1e16 + k − 1e16), a rank with an
    /// empty map and a rank without a value; the merges are counted as before.
    #[test]
    fn reading_into_gives_the_total_of_decoding() {
        use crate::partials::{read_coded, Coded, Keyed, Whole};
        use crate::reduce::{Operator, Sum};
        use std::marker::PhantomData;
        type V = (HashMap<u32, f64>, f64);
        type W = (
            PhantomData<fn(Keyed<Sum>) -> HashMap<u32, f64>>,
            PhantomData<fn(Whole) -> f64>,
        );
        let add = |a: V, b: V| (Sum.combine(a.0, b.0), a.1 + b.1);
        let coded_add = |a: Coded<V, W>, b: Coded<V, W>| Coded::new(add(a.value, b.value));
        let read = read_coded::<V, W>(add);
        let part = |r: usize| -> Option<Coded<V, W>> {
            let big = [1e16, -1e16, 3.0, -2e16, 1e16][r];
            match r {
                2 => None,
                3 => Some(Coded::new((HashMap::new(), big))),
                _ => Some(Coded::new((
                    (0..40 + r as u32)
                        .map(|k| (k * (r as u32 + 2) % 60, big + f64::from(k)))
                        .collect(),
                    big + 1.0,
                ))),
            }
        };
        let bits = |v: &Coded<V, W>| {
            let mut m: Vec<(u32, u64)> = v.value.0.iter().map(|(k, x)| (*k, x.to_bits())).collect();
            m.sort();
            (m, v.value.1.to_bits())
        };
        for p in 2..=5 {
            for s in ALL {
                let run = |reading: bool| {
                    on_ranks(p, |x| {
                        let r = if reading {
                            Some(&read as ReadInto<'_, _>)
                        } else {
                            None
                        };
                        let (v, report) = combine_partials(
                            "l",
                            s,
                            None,
                            Some(x),
                            [part(x.rank())],
                            Merging::new(&|| Coded::new((HashMap::new(), 0.0)), &coded_add)
                                .reading(r),
                        )
                        .unwrap();
                        (bits(&v), report.merges)
                    })
                };
                let (decoded, read_in) = (run(false), run(true));
                assert_eq!(decoded, read_in, "{s} P={p}");
                if s != Strategy::Pipeline {
                    assert!(read_in.iter().all(|v| v.0 == read_in[0].0), "{s} P={p}");
                }
            }
        }
    }

    /// Merges counted where they happen: master puts P − 1 on rank 0; the tree ⌈lg P⌉ at most on
    /// any rank; allgather P − 1 on every rank.
    #[test]
    fn merges_happen_where_the_strategy_says() {
        let add = |a: u64, b: u64| a + b;
        for p in [2, 5, 8] {
            let merges = |s: Strategy| -> Vec<u64> {
                on_ranks(p, |x| {
                    let (v, report) = combine_partials(
                        "l",
                        s,
                        None,
                        Some(x),
                        [Some(1_u64)],
                        Merging::new(&|| 0, &add),
                    )
                    .unwrap();
                    assert_eq!(v, p as u64);
                    report.merges
                })
            };
            let m = merges(Strategy::Master);
            assert_eq!(m[0], p as u64 - 1);
            assert!(m[1..].iter().all(|&k| k == 0), "{m:?}");
            let t = merges(Strategy::Tree);
            assert_eq!(t.iter().sum::<u64>(), p as u64 - 1);
            assert!(t.iter().all(|&k| k <= u64::from(ceil_lg(p))), "{t:?}");
            let pp = merges(Strategy::Pipeline);
            assert_eq!(pp.iter().sum::<u64>(), p as u64 - 1);
            let a = merges(Strategy::AllGather);
            assert!(a.iter().all(|&k| k == p as u64 - 1), "{a:?}");
        }
    }

    /// `auto` takes the all-gather for small values and the tree above the threshold, says why,
    /// and every rank chooses alike.
    #[test]
    fn auto_chooses_by_size() {
        let merge = |mut a: HashMap<u64, u64>, b: HashMap<u64, u64>| {
            for (k, v) in b {
                *a.entry(k).or_default() += v;
            }
            a
        };
        for (keys, expect) in [(10_u64, "allgather"), (20_000, "tree")] {
            let got = on_ranks(4, |x| {
                let mine: HashMap<u64, u64> = (0..keys).map(|k| (k, x.rank() as u64)).collect();
                combine_partials(
                    "l",
                    Strategy::Auto,
                    None,
                    Some(x),
                    [Some(mine)],
                    Merging::new(&HashMap::new, &merge),
                )
                .unwrap()
            });
            for (v, report) in &got {
                assert_eq!(report.strategy, expect, "{}", report.why);
                assert!(report.why.starts_with("auto: "), "{}", report.why);
                assert_eq!(v.len() as u64, keys);
                assert!(v.values().all(|&s| s == 6));
            }
        }
    }

    /// `auto` takes the tree for small values too when the merges it saves took long in the
    /// loop's last run, judged by the slowest rank's measurement, so that every rank chooses
    /// alike even when only one rank measured anything.
    #[test]
    fn auto_chooses_by_measured_merge_time() {
        let add = |a: u64, b: u64| a + b;
        for (prior, expect) in [
            (None, "allgather"),
            (Some(1e-6), "allgather"),
            (Some(1e-3), "tree"),
        ] {
            let got = on_ranks(8, |x| {
                let mine = if x.rank() == 3 { prior } else { None };
                combine_partials(
                    "l",
                    Strategy::Auto,
                    mine,
                    Some(x),
                    [Some(1_u64)],
                    Merging::new(&|| 0, &add),
                )
                .unwrap()
            });
            for (v, report) in &got {
                assert_eq!(*v, 8);
                assert_eq!(report.strategy, expect, "{prior:?}: {}", report.why);
            }
            if expect == "tree" {
                assert!(
                    got[0].1.why.contains("a merge took 1000.0 µs"),
                    "{}",
                    got[0].1.why
                );
            }
        }
    }
}
