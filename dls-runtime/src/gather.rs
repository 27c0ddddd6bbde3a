//! Gathering outputs written at the loop index: what `gather(out)` of `#[par_doall]` means, usable
//! from the explicit API too.
//!
//! Inside the loop body, `out` is shadowed by a [`GatherSlot`]: reads see the vector as it was
//! before the loop, and every write `out[k] = v` (or `out[k] += v`, `out[k][j] = v`, …) is recorded
//! as the pair `(k, new value of out[k])` in the worker's [`GatherBuf`]. The buffers of all workers
//! (threads or MPI ranks) are concatenated, every rank receives the whole log, and
//! [`GatherBuf::scatter_into`] writes it into the real vector. Afterwards every rank holds exactly
//! what the serial loop would have produced.
//!
//! That holds when, as in any parallel loop, no element is written by two iterates and no iterate
//! reads (by indexing) an element another iterate writes. Both are checked (issue 17 cases 1
//! and 2): within one iterate, reads see that iterate's own writes and repeated writes to an
//! element are one write; across iterates, [`GatherBuf::scatter_into`] refuses a log in which an
//! element is written by two iterates, or read by one and written by another, with a
//! [`GatherConflict`] naming the element, and writes nothing. (Reads through the slice itself,
//! `out.iter()` or `&out[..]`, see the vector as it was before the loop and are not checked.)
//!
//! ```
//! use dls_runtime::gather::{GatherBuf, GatherSlot};
//! let mut out = vec![0_u32; 4];
//! let mut left = GatherBuf::new();
//! let mut right = GatherBuf::new();
//! for i in 0..2 {
//!     GatherSlot::new(&out, &mut left)[i] = 10 * i as u32;
//! }
//! for i in 2..4 {
//!     GatherSlot::new(&out, &mut right)[i] += 10 * i as u32;
//! }
//! GatherBuf::merge(left, right).scatter_into(&mut out).unwrap();
//! assert_eq!(out, [0, 10, 20, 30]);
//! ```

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::{Deref, Index, IndexMut};

use serde::{Deserialize, Serialize};

use crate::collection::Indexable;

mod blocks;
pub use blocks::{with_row, BlockAccess, BlockPlace, BlockRest, BlockRow, BlockSet, Blocks, Rows};

/// A contiguous collection that `gather(...)` can write into: `Vec<T>`, arrays, slices, boxed
/// slices, and mutable references to any of them. The read side is [`Indexable`], the trait of
/// the collections a loop can iterate over, so each type states its elements once.
///
/// ```
/// use dls_runtime::collection::Indexable;
/// use dls_runtime::gather::GatherTarget;
/// let mut a = [1, 2, 3];
/// a.elements_mut()[0] = 9;
/// assert_eq!(a.as_elements(), &[9, 2, 3]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`gather({Self})` needs a Vec, an array or a slice",
    label = "not a Vec, array or slice",
    note = "with dls's feature `ndarray`, an owned ndarray array (`Array1`, `Array2`, `ArrayD`, …) too; for an ndarray view, gather into an owned copy: `let mut a = view.as_standard_layout().into_owned();`"
)]
pub trait GatherTarget: Indexable {
    /// Whether the target is an ndarray array (indexed `a[[i, j]]`): the message of a loop
    /// whose writes were logged then names the ndarray form that writes in place.
    ///
    /// ```
    /// use dls_runtime::gather::GatherTarget;
    /// assert!(!<Vec<f64> as GatherTarget>::IS_ND_ARRAY);
    /// assert!(!<&mut [u8] as GatherTarget>::IS_ND_ARRAY);
    /// ```
    const IS_ND_ARRAY: bool = false;

    /// The elements, writable.
    fn elements_mut(&mut self) -> &mut [Self::Item];
}

impl<T> GatherTarget for Vec<T> {
    fn elements_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T> GatherTarget for [T] {
    fn elements_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T, const N: usize> GatherTarget for [T; N] {
    fn elements_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T> GatherTarget for Box<[T]> {
    fn elements_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<C: GatherTarget + ?Sized> GatherTarget for &mut C {
    const IS_ND_ARRAY: bool = C::IS_ND_ARRAY;

    fn elements_mut(&mut self) -> &mut [C::Item] {
        (**self).elements_mut()
    }
}

/// One worker's log of writes, as runs of consecutive elements: `(first element, values)`. A
/// loop that writes `out[i]` in iterate `i` leaves one run per chunk, so the log takes about the
/// size of the elements written, whatever the index type (issue 17 case 14). Sent between ranks,
/// so it is serialisable when `T` is.
///
/// ```
/// let mut b = dls_runtime::gather::GatherBuf::new();
/// dls_runtime::gather::GatherSlot::new(&[0_i8; 3], &mut b)[2] = 5;
/// assert_eq!(b.len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GatherBuf<T> {
    /// `(first element, values)`: each iterate's writes, one value per element it wrote (its last
    /// value); a run may hold the writes of several iterates.
    runs: Vec<(u64, Vec<T>)>,
    /// Elements an iterate read by indexing without having written them itself (empty in the
    /// usual loop, which reads only what it writes).
    #[serde(default)]
    reads: Vec<u64>,
    /// Ranges written in place by an MPI rank, which the other ranks receive from it after the
    /// loop instead of values in this log: `(rank, first element, element count)` (see
    /// [`Place::exchanged`]; empty on threads and wherever the loop logs).
    #[serde(default)]
    placed: Vec<(u32, u64, u64)>,
}

impl<T> Default for GatherBuf<T> {
    fn default() -> Self {
        GatherBuf::new()
    }
}

/// Why a gather log cannot be written into its vector: the loop's result would depend on the
/// order of its iterates, so it may differ from the serial loop's.
///
/// ```
/// use dls_runtime::gather::{GatherBuf, GatherConflict, GatherSlot};
/// let mut forces = vec![0.0_f64; 3];
/// let mut log = GatherBuf::new();
/// for i in 0..2 {
///     // Newton's third law: iterate i also changes element 2.
///     let mut f = GatherSlot::new(&forces, &mut log);
///     f[i] += 1.0;
///     f[2] -= 1.0;
/// }
/// assert_eq!(log.scatter_into(&mut forces), Err(GatherConflict::WrittenTwice { element: 2 }));
/// assert_eq!(forces, [0.0; 3], "nothing is written");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum GatherConflict {
    /// Two iterates wrote the element.
    WrittenTwice {
        /// The element's index.
        element: u64,
    },
    /// An iterate read the element (by indexing) and another iterate wrote it.
    ReadAndWritten {
        /// The element's index.
        element: u64,
    },
}

impl GatherConflict {
    /// The explanation for a gathered variable named `var`, with the clause to use instead.
    ///
    /// ```
    /// use dls_runtime::gather::GatherConflict;
    /// let why = GatherConflict::WrittenTwice { element: 4 }.explain("forces");
    /// assert!(why.contains("reduce(+: forces)"));
    /// ```
    pub fn explain(&self, var: &str) -> String {
        match *self {
            GatherConflict::WrittenTwice { element } => format!(
                "element {element} of `{var}` is written by two iterates: gather({var}) takes one \
                 write per element (in the serial loop the later write wins; in parallel either \
                 could). If iterates add into shared elements (`{var}[j] -= f`), sum them with \
                 reduce(+: {var}) instead"
            ),
            GatherConflict::ReadAndWritten { element } => format!(
                "element {element} of `{var}` is read by one iterate and written by another: \
                 inside the loop a gathered vector reads as it was before the loop, so the \
                 result could differ from the serial loop's. Compute the value in the iterate \
                 that writes it, or split the loop in two"
            ),
        }
    }
}

impl std::fmt::Display for GatherConflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.explain("the gathered vector"))
    }
}

impl std::error::Error for GatherConflict {}

impl<T> GatherBuf<T> {
    /// An empty log (the identity of [`GatherBuf::merge`]).
    ///
    /// ```
    /// assert!(dls_runtime::gather::GatherBuf::<f64>::new().is_empty());
    /// ```
    pub fn new() -> Self {
        GatherBuf {
            runs: Vec::new(),
            reads: Vec::new(),
            placed: Vec::new(),
        }
    }

    /// Number of values in the log (elements that an MPI rank wrote in place are not counted:
    /// see [`Place::exchanged`]).
    ///
    /// ```
    /// assert_eq!(dls_runtime::gather::GatherBuf::<u8>::new().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.runs.iter().map(|(_, values)| values.len()).sum()
    }

    /// True when nothing was written: no value logged, no range written in place by a rank.
    ///
    /// ```
    /// assert!(dls_runtime::gather::GatherBuf::<u8>::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty() && self.placed.is_empty()
    }

    /// Both logs in one (moves the runs of the shorter list after the longer's; values are not
    /// copied).
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, GatherSlot};
    /// let (mut a, mut b) = (GatherBuf::new(), GatherBuf::new());
    /// GatherSlot::new(&[0; 2], &mut a)[0] = 1;
    /// GatherSlot::new(&[0; 2], &mut b)[1] = 2;
    /// assert_eq!(GatherBuf::merge(a, b).len(), 2);
    /// ```
    pub fn merge(mut a: Self, mut b: Self) -> Self {
        if a.runs.len() < b.runs.len() {
            std::mem::swap(&mut a, &mut b);
        }
        a.runs.append(&mut b.runs);
        a.reads.append(&mut b.reads);
        a.placed.append(&mut b.placed);
        a
    }

    /// Records that MPI rank `rank` wrote the `count` elements from `first` in place, for the
    /// exchange after the loop ([`Place::exchanged`]): appended to the last range recorded where
    /// it continues it (a chunk's iterates, or rows, make one range).
    pub(crate) fn record_placed(&mut self, rank: u32, first: u64, count: u64) {
        match self.placed.last_mut() {
            Some((r, f, c)) if *r == rank && *f + *c == first => *c += count,
            _ => self.placed.push((rank, first, count)),
        }
    }

    /// Writes every recorded value into `target` at its index, after checking that no element
    /// was written by two iterates or read by one and written by another ([`GatherConflict`]:
    /// then nothing is written). Indices were bounds-checked against a vector of the same length
    /// when recorded; an index beyond `target` (only possible if the target was resized
    /// meanwhile) is skipped. Ranges an MPI rank wrote in place ([`Place::exchanged`]) take part
    /// in the check but are not written here: they are in the vector of the rank that wrote
    /// them, and the runtime sends them to the others (`__private::scatter_exchanged`).
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, GatherSlot};
    /// let mut out = [0_u8; 3];
    /// let mut b = GatherBuf::new();
    /// GatherSlot::new(&out, &mut b)[1] = 7;
    /// b.scatter_into(&mut out).unwrap();
    /// assert_eq!(out, [0, 7, 0]);
    /// ```
    pub fn scatter_into<G: GatherTarget<Item = T> + ?Sized>(
        self,
        target: &mut G,
    ) -> Result<(), GatherConflict> {
        self.scatter_values(target.elements_mut()).map(drop)
    }

    /// [`GatherBuf::scatter_into`] of the logged values into `elements`: returns the ranges
    /// written in place by MPI ranks, sorted by rank and first element, for the exchange.
    pub(crate) fn scatter_values(
        self,
        elements: &mut [T],
    ) -> Result<Vec<(u32, u64, u64)>, GatherConflict> {
        if self.runs.is_empty() && self.reads.is_empty() && self.placed.is_empty() {
            // Nothing logged (a loop that wrote in place on threads, see `Place`).
            return Ok(Vec::new());
        }
        let len = elements.len();
        // Each run holds distinct consecutive elements, one value per element (GatherSlot,
        // GatherAccess), and each range written in place distinct elements too, so an element
        // is written by two iterates exactly where two spans overlap: the spans sorted by their
        // first element, each must end before the next begins. Then a read conflicts where it
        // falls in a span. (Elements past the vector's end are not checked: they are not
        // written.)
        let mut spans: Vec<(u64, u64)> = self
            .runs
            .iter()
            .filter(|(_, values)| !values.is_empty())
            .map(|(first, values)| (*first, first.saturating_add(values.len() as u64)))
            .chain(
                self.placed
                    .iter()
                    .filter(|&&(_, _, count)| count > 0)
                    .map(|&(_, first, count)| (first, first.saturating_add(count))),
            )
            .filter(|&(first, _)| first < len as u64)
            .collect();
        spans.sort_unstable();
        let mut end = 0u64;
        for (i, &(first, stop)) in spans.iter().enumerate() {
            if i > 0 && first < end {
                return Err(GatherConflict::WrittenTwice { element: first });
            }
            end = end.max(stop.min(len as u64));
        }
        for &index in &self.reads {
            let at = spans.partition_point(|&(first, _)| first <= index);
            if at > 0 && index < spans[at - 1].1 && index < len as u64 {
                return Err(GatherConflict::ReadAndWritten { element: index });
            }
        }
        drop(spans);
        let slot_of = |index: u64| usize::try_from(index).ok().filter(|&k| k < len);
        // The `gather` delay of DLS_DELAY, once per element written (see `runtime::delay`).
        if let Some(d) = crate::runtime::observe::delay::gather() {
            d.wait(self.len() as u64);
        }
        // Run by run, so that each run's memory is freed as soon as it is written.
        for (first, values) in self.runs {
            let Some(k) = slot_of(first) else { continue };
            let fits = values.len().min(len - k);
            for (slot, value) in elements[k..k + fits].iter_mut().zip(values) {
                *slot = value;
            }
        }
        // Every rank sorts the same ranges alike: the exchange's sends and receives match.
        let mut placed: Vec<(u32, u64, u64)> = self
            .placed
            .into_iter()
            .filter_map(|(rank, first, count)| {
                let k = slot_of(first)?;
                Some((rank, first, count.min((len - k) as u64)))
            })
            .filter(|&(_, _, count)| count > 0)
            .collect();
        placed.sort_unstable();
        Ok(placed)
    }
}

/// A log whose elements are plain ([`crate::plain::Pod`]), serialised as its runs of bytes:
/// `(runs, reads, placed)`, each run `(first element, element count, bytes)`. What
/// [`crate::partials::Plain`] sends instead of the log's own serialisation, element by element.
pub(crate) struct PlainLog<'a, T>(pub(crate) &'a GatherBuf<T>);

impl<T: crate::plain::Pod> Serialize for PlainLog<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeSeq, SerializeTuple};
        struct Runs<'a, T>(&'a [(u64, Vec<T>)]);
        struct Run<'a, T>(u64, &'a [T]);
        impl<T: crate::plain::Pod> Serialize for Run<'_, T> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut t = serializer.serialize_tuple(3)?;
                t.serialize_element(&self.0)?;
                t.serialize_element(&(self.1.len() as u64))?;
                t.serialize_element(&Bytes(crate::plain::as_bytes(self.1)))?;
                t.end()
            }
        }
        impl<T: crate::plain::Pod> Serialize for Runs<'_, T> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
                for (first, values) in self.0 {
                    seq.serialize_element(&Run(*first, values))?;
                }
                seq.end()
            }
        }
        let mut t = serializer.serialize_tuple(3)?;
        t.serialize_element(&Runs(&self.0.runs))?;
        t.serialize_element(&self.0.reads)?;
        t.serialize_element(&self.0.placed)?;
        t.end()
    }
}

/// A byte slice that serialises as bytes (one length and the bytes: one copy), not as a sequence
/// of numbers.
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

/// Reads a log written by [`PlainLog`].
pub(crate) struct PlainLogSeed<T>(pub(crate) std::marker::PhantomData<fn() -> T>);

impl<'de, T: crate::plain::Pod> serde::de::DeserializeSeed<'de> for PlainLogSeed<T> {
    type Value = GatherBuf<T>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<GatherBuf<T>, D::Error> {
        use serde::de::{Error, SeqAccess, Visitor};
        struct Run<T>(u64, Vec<T>);
        impl<'de, T: crate::plain::Pod> Deserialize<'de> for Run<T> {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V<T>(std::marker::PhantomData<fn() -> T>);
                impl<'de, T: crate::plain::Pod> Visitor<'de> for V<T> {
                    type Value = Run<T>;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("a run of plain gathered values")
                    }
                    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Run<T>, A::Error> {
                        let missing = || A::Error::custom("a gathered run ends early");
                        let first: u64 = seq.next_element()?.ok_or_else(missing)?;
                        let len: u64 = seq.next_element()?.ok_or_else(missing)?;
                        let values = seq
                            .next_element_seed(Values::<T>(len, std::marker::PhantomData))?
                            .ok_or_else(missing)?;
                        Ok(Run(first, values))
                    }
                }
                d.deserialize_tuple(3, V(std::marker::PhantomData))
            }
        }
        /// `len` plain values from their bytes.
        struct Values<T>(u64, std::marker::PhantomData<fn() -> T>);
        impl<'de, T: crate::plain::Pod> serde::de::DeserializeSeed<'de> for Values<T> {
            type Value = Vec<T>;
            fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Vec<T>, D::Error> {
                d.deserialize_bytes(self)
            }
        }
        impl<'de, T: crate::plain::Pod> Visitor<'de> for Values<T> {
            type Value = Vec<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "the bytes of {} plain values", self.0)
            }
            fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<T>, E> {
                usize::try_from(self.0)
                    .ok()
                    .and_then(|len| crate::plain::from_bytes(bytes, len))
                    .ok_or_else(|| E::custom("a gathered run's bytes do not match its length"))
            }
        }
        struct Log<T>(std::marker::PhantomData<fn() -> T>);
        impl<'de, T: crate::plain::Pod> Visitor<'de> for Log<T> {
            type Value = GatherBuf<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a gather log of plain values")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<GatherBuf<T>, A::Error> {
                let missing = || A::Error::custom("a gather log ends early");
                let runs: Vec<Run<T>> = seq.next_element()?.ok_or_else(missing)?;
                let reads: Vec<u64> = seq.next_element()?.ok_or_else(missing)?;
                let placed: Vec<(u32, u64, u64)> = seq.next_element()?.ok_or_else(missing)?;
                Ok(GatherBuf {
                    runs: runs.into_iter().map(|Run(f, v)| (f, v)).collect(),
                    reads,
                    placed,
                })
            }
        }
        d.deserialize_tuple(3, Log(std::marker::PhantomData))
    }
}

/// What the name of a gathered vector means inside the loop body, for one iterate: indexing reads
/// this iterate's own write to the element, or else the vector as it was before the loop (and
/// notes the read); indexing for writing records the write in the worker's [`GatherBuf`], one
/// entry per element however often the iterate writes it. Derefs to the original slice for
/// `len()`, `iter()`, ….
///
/// Make one slot per iterate (the macro does): the slot's writes are that iterate's.
///
/// ```
/// use dls_runtime::gather::{GatherBuf, GatherSlot};
/// let rows = vec![vec![0_u8; 2]; 3];
/// let mut buf = GatherBuf::new();
/// let mut out = GatherSlot::new(&rows, &mut buf);
/// out[1][0] = 4;
/// out[1][1] = 5;
/// assert_eq!(out[1], [4, 5]);
/// assert_eq!(out.len(), 3);
/// ```
pub struct GatherSlot<'a, T> {
    original: &'a [T],
    buf: &'a mut GatherBuf<T>,
    /// This iterate's writes: the runs from `first_run` on, the first of them from value
    /// `first_value` on (an iterate may extend the run of the iterate before it).
    first_run: usize,
    first_value: usize,
    /// Element → (run, value), once this iterate's writes span more than [`SCAN`] runs.
    positions: Option<HashMap<u64, (usize, usize)>>,
    /// Elements read without a write of this iterate before the read.
    reads: RefCell<Vec<u64>>,
}

/// Up to this many runs of one iterate's writes, finding an element's write is a scan.
const SCAN: usize = 16;

impl<T> std::fmt::Debug for GatherSlot<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatherSlot")
            .field("len", &self.original.len())
            .finish_non_exhaustive()
    }
}

impl<'a, T> GatherSlot<'a, T> {
    /// A slot over `original` logging into `buf`.
    ///
    /// ```
    /// let mut buf = dls_runtime::gather::GatherBuf::new();
    /// let s = dls_runtime::gather::GatherSlot::new(&[1, 2, 3], &mut buf);
    /// assert_eq!(s[2], 3);
    /// ```
    pub fn new(original: &'a [T], buf: &'a mut GatherBuf<T>) -> Self {
        let (first_run, first_value) = match buf.runs.len() {
            0 => (0, 0),
            n => (n - 1, buf.runs[n - 1].1.len()),
        };
        GatherSlot {
            original,
            buf,
            first_run,
            first_value,
            positions: None,
            reads: RefCell::new(Vec::new()),
        }
    }

    /// This iterate's part of run `r`: the values from this offset on.
    fn own_from(&self, r: usize) -> usize {
        if r == self.first_run {
            self.first_value
        } else {
            0
        }
    }

    /// Where this iterate's write of `element` is in the log (run, value), if it wrote it.
    fn position(&self, element: u64) -> Option<(usize, usize)> {
        if let Some(map) = &self.positions {
            return map.get(&element).copied();
        }
        let runs = self.buf.runs.get(self.first_run..)?;
        runs.iter()
            .enumerate()
            .rev()
            .find_map(|(q, (first, values))| {
                let r = self.first_run + q;
                let k = usize::try_from(element.checked_sub(*first)?).ok()?;
                (k >= self.own_from(r) && k < values.len()).then_some((r, k))
            })
    }

    /// Every write of this iterate by element, once its writes span more than [`SCAN`] runs.
    fn index_positions(&mut self) {
        let mut map = HashMap::new();
        for r in self.first_run..self.buf.runs.len() {
            let (first, values) = &self.buf.runs[r];
            for k in self.own_from(r)..values.len() {
                map.insert(first + k as u64, (r, k));
            }
        }
        self.positions = Some(map);
    }
}

/// A gathered vector during a loop, for the iterates' writes: in place, or into each worker's
/// log ([`GatherBuf`]). The macro makes one per `gather(out)` whose body uses `out` only at the
/// loop's own index (`out[i]`, see `dls-macros/src/in_place.rs`), and asks the runtime whether
/// the loop runs each iterate exactly once on this process's threads (threads backend, without
/// re-execution, checkpoints or a check: `__private::Loop::writes_in_place`). Then the iterates
/// write their elements where they are, as the serial loop does, and nothing is logged or
/// scattered: distinct iterates touch distinct elements. Otherwise the writes are logged as
/// with [`GatherSlot`]. A vector the body only assigns to (`out[i] = …`) is written in place
/// under re-execution too (`__private::Loop::writes_assigned_in_place`): by each iterate's
/// first execution, while a copy logs ([`GatherWriter`]).
///
/// Writing in place is `unsafe` to ask for ([`Place::new`]): a `Place` is shared by the
/// workers, and only its maker can promise that no two of them reach the same element. The
/// logged form ([`Place::logged`]) is safe.
///
/// ```
/// use dls_runtime::gather::{GatherAccess, GatherBuf, Place};
/// let mut out = vec![0_u32; 4];
/// // SAFETY: element `i` is reached only through the access of iterate `i`, made once, on this
/// // thread.
/// let place = unsafe { Place::new(&mut out, true) };
/// let mut log = GatherBuf::new();
/// for i in 0..4 {
///     GatherAccess::new(&place, &mut log)[i] = 10 * i as u32;
/// }
/// assert!(log.is_empty());
/// assert_eq!(out, [0, 10, 20, 30]);
/// ```
pub struct Place<'a, T> {
    ptr: *mut T,
    len: usize,
    in_place: bool,
    /// The MPI rank whose writers record the ranges they write in place, for the exchange after
    /// the loop ([`Place::exchanged`]).
    owner: Option<u32>,
    _target: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: logged (the only form safe code can make, `Place::logged`), the elements are only read
// through a `Place`, which needs `T: Sync`. In place, `Place::new`'s caller promised that no two
// accessors made from the place reach the same element unless one's uses all happen before the
// other's (`# Safety` there), so sharing the place gives no two threads one element at once; the
// values written on other threads, and the old values they drop there, need `T: Send`.
unsafe impl<T: Send + Sync> Sync for Place<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Send for Place<'_, T> {}

impl<T> std::fmt::Debug for Place<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Place")
            .field("len", &self.len)
            .field("in_place", &self.in_place)
            .field("owner", &self.owner)
            .finish()
    }
}

impl<'a, T> Place<'a, T> {
    /// The vector `target`, logged: the iterates' accesses ([`GatherAccess`],
    /// [`GatherWriter`]) read it as it was before the loop and log their writes into each
    /// worker's [`GatherBuf`], scattered after the loop. Safe: nothing writes the vector while
    /// the place lives.
    ///
    /// ```
    /// let mut v = vec![1, 2];
    /// assert!(!dls_runtime::gather::Place::logged(&mut v).in_place());
    /// ```
    pub fn logged(target: &'a mut [T]) -> Self {
        Place {
            len: target.len(),
            ptr: target.as_mut_ptr(),
            in_place: false,
            owner: None,
            _target: std::marker::PhantomData,
        }
    }

    /// The vector `target`, written in place when `in_place` (see [`Place`] for when that is
    /// right), else logged as by [`Place::logged`]. The code `#[par_doall(gather(out))]`
    /// generates calls this, in an `unsafe` block of its own, with `in_place` true only where the
    /// body uses `out` at the loop's index alone and the loop runs each iterate once
    /// (`__private::Loop::writes_in_place`, `__private::Loop::writes_assigned_in_place`).
    ///
    /// # Safety
    ///
    /// With `in_place` false there is no condition. With `in_place` true, the caller promises,
    /// for as long as the place lives:
    ///
    /// - The *accessors* made from the place are the [`GatherAccess`]es
    ///   ([`GatherAccess::new`]) and the [`GatherWriter`]s that write in place
    ///   ([`GatherWriter::of_run`] with `copy` false). Each element of `target` is reached
    ///   (read through `Index`, written through `IndexMut` or [`GatherWriter::set`]) through at
    ///   most one accessor, or, where several reach it, every use of one happens before every
    ///   use of the next: on one thread, the one is dropped before the next is made; on two,
    ///   they are also synchronised (a join, a lock, a release and acquire) between the two.
    /// - Accessors used on several threads at once reach disjoint elements.
    ///
    /// The place is `Sync` and `Send` and the accessors turn a shared `&Place` into `&mut T`
    /// through a raw pointer, so anything else (two threads writing one element, an access
    /// reading an element while another access of the same thread holds it as `&mut`) is a
    /// data race or an aliased `&mut`: undefined behaviour. The macro keeps the promise because
    /// the body reaches `out` only at the loop's index, each iterate has an accessor of its own
    /// (or its run's writer), and the loop runs each iterate once, on one thread; copies of
    /// iterates under re-execution log instead (`copy`).
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, GatherWriter, Place};
    /// let mut v = vec![0_u64; 4];
    /// let (low, high) = (GatherBuf::new(), GatherBuf::new());
    /// {
    ///     // SAFETY: one writer per thread, each writing elements the other never reaches.
    ///     let place = unsafe { Place::new(&mut v, true) };
    ///     std::thread::scope(|s| {
    ///         for (half, mut log) in [(0..2, low), (2..4, high)] {
    ///             let place = &place;
    ///             s.spawn(move || {
    ///                 let mut writer = GatherWriter::of_run(place, &mut log, false);
    ///                 for i in half {
    ///                     writer.set(i, 10 * i as u64);
    ///                 }
    ///             });
    ///         }
    ///     });
    /// }
    /// assert_eq!(v, [0, 10, 20, 30]);
    /// ```
    pub unsafe fn new(target: &'a mut [T], in_place: bool) -> Self {
        Place {
            len: target.len(),
            ptr: target.as_mut_ptr(),
            in_place,
            owner: None,
            _target: std::marker::PhantomData,
        }
    }

    /// The place as written in place by the MPI rank `rank` of a loop over every rank, where
    /// `rank` is `Some`: its [`GatherWriter`]s that write in place record the ranges of
    /// elements they write, into the worker's log, so that after the loop every other rank
    /// receives those elements' bytes straight into its vector (`__private::scatter_exchanged`:
    /// no value is copied into the log). The block accesses of a [`BlockPlace`] made from it
    /// record their whole block where they write it in place ([`BlockAccess::new`]). The macro
    /// asks for it for plain elements ([`crate::plain::Pod`]) that the body only assigns to at
    /// the loop's index, in the iterate's row (`gather(v: rows(w))`) or in an ndarray array's
    /// row, under MPI (`__private::Loop::exchanges_assigned_in_place`). `None` leaves the place
    /// as it is.
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, GatherWriter, Place};
    /// let mut out = vec![0_u32; 4];
    /// let mut log = GatherBuf::new();
    /// {
    ///     // SAFETY: each element is reached by the one writer below.
    ///     let place = unsafe { Place::new(&mut out, true) }.exchanged(Some(0));
    ///     let mut writer = GatherWriter::of_run(&place, &mut log, false);
    ///     writer.set(1, 10);
    ///     writer.set(2, 20);
    /// }
    /// // Written in place, and the range 1..3 recorded for the other ranks: no value logged.
    /// assert_eq!((out[1], out[2], log.len(), log.is_empty()), (10, 20, 0, false));
    /// ```
    pub fn exchanged(self, rank: Option<u32>) -> Self {
        Place {
            owner: rank,
            ..self
        }
    }

    /// Whether the iterates write in place.
    ///
    /// ```
    /// let mut v = vec![1, 2];
    /// // SAFETY: nothing reaches the vector through the place.
    /// let place = unsafe { dls_runtime::gather::Place::new(&mut v, true) };
    /// assert!(place.in_place());
    /// ```
    pub fn in_place(&self) -> bool {
        self.in_place
    }

    /// The vector as it was before the loop (for a logged loop's reads).
    fn view(&self) -> &[T] {
        // SAFETY: called only on a logged place (`in_place` false), which hands out no accessor
        // that writes the vector, and borrows the vector mutably for its life: nothing writes it.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// What the name of a gathered vector means inside the loop body for one iterate, where the macro
/// made a [`Place`] for it: its element at the loop's index, in place, or a [`GatherSlot`] that
/// logs the writes.
///
/// ```
/// use dls_runtime::gather::{GatherAccess, GatherBuf, Place};
/// let mut out = vec![0_u8; 3];
/// let mut log = GatherBuf::new();
/// {
///     let place = Place::logged(&mut out);
///     GatherAccess::new(&place, &mut log)[1] = 7;
/// }
/// assert_eq!(log.len(), 1);
/// log.scatter_into(&mut out).unwrap();
/// assert_eq!(out, [0, 7, 0]);
/// ```
///
/// Its state is private: an access that writes in place holds a raw pointer into the vector,
/// which only [`GatherAccess::new`] may set (from a [`Place`] made under [`Place::new`]'s
/// contract).
pub struct GatherAccess<'a, T>(Access<'a, T>);

/// The two kinds of [`GatherAccess`].
enum Access<'a, T> {
    /// Writes go to the vector itself.
    InPlace {
        /// The vector's first element.
        ptr: *mut T,
        /// Its length.
        len: usize,
        /// The borrow of the [`Place`].
        place: std::marker::PhantomData<&'a Place<'a, T>>,
    },
    /// Writes go to the worker's log. The macro made a [`Place`] only for a vector the body
    /// uses as `out[i]` alone (the loop's index), so an iterate touches one element, its own,
    /// which no other iterate reads or writes: its write is appended to the log's last run (a
    /// chunk's iterates extend one run) without [`GatherSlot`]'s look-up of the iterate's
    /// earlier writes or its record of reads, and a read before the write sees the vector as it
    /// was before the loop.
    Logged {
        /// The vector as it was before the loop.
        original: &'a [T],
        /// The worker's log.
        buf: &'a mut GatherBuf<T>,
        /// This iterate's element once written: `(index, run, position in the run)`.
        own: Option<(usize, usize, usize)>,
    },
}

impl<T> std::fmt::Debug for GatherAccess<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Access::InPlace { len, .. } => f.debug_struct("InPlace").field("len", len).finish(),
            Access::Logged { original, .. } => f
                .debug_struct("Logged")
                .field("len", &original.len())
                .finish_non_exhaustive(),
        }
    }
}

impl<'a, T> GatherAccess<'a, T> {
    /// One iterate's access to `place`, logging into `log` unless the loop writes in place.
    ///
    /// ```
    /// use dls_runtime::gather::{GatherAccess, GatherBuf, Place};
    /// let mut v = vec![5_i32];
    /// // SAFETY: element 0 is reached through this one access alone.
    /// let place = unsafe { Place::new(&mut v, true) };
    /// let mut log = GatherBuf::new();
    /// assert_eq!(GatherAccess::new(&place, &mut log)[0], 5);
    /// ```
    #[inline]
    pub fn new(place: &'a Place<'_, T>, log: &'a mut GatherBuf<T>) -> Self {
        GatherAccess(if place.in_place {
            Access::InPlace {
                ptr: place.ptr,
                len: place.len,
                place: std::marker::PhantomData,
            }
        } else {
            Access::Logged {
                original: place.view(),
                buf: log,
                own: None,
            }
        })
    }
}

/// What the name of a gathered vector means in a run of iterates
/// ([`Iterates`](crate::runtime::Iterates)) whose body only assigns to its elements at the
/// loop's index, `out[i] = …`: the macro rewrites each such assignment to
/// [`GatherWriter::set`]. The first execution of the iterates writes in place where the loop
/// allows it ([`Place`]); a copy of them (re-execution), or a loop that logs, logs the writes
/// without reading an element.
///
/// An assignment in place costs what `out[i] = v` costs on a `Vec`: one comparison with the
/// length and the store. A run that logs has a length of 0 to compare with, so the same
/// comparison sends each of its writes to the log.
///
/// ```
/// use dls_runtime::gather::{GatherBuf, GatherWriter, Place};
/// let mut out = vec![0_u32; 2];
/// let mut log = GatherBuf::new();
/// {
///     // SAFETY: element 0 is reached by the in-place writer alone (the copy logs).
///     let place = unsafe { Place::new(&mut out, true) };
///     GatherWriter::of_run(&place, &mut log, false).set(0, 7); // an original: in place
///     GatherWriter::of_run(&place, &mut log, true).set(1, 9); // a copy: logged
/// }
/// assert_eq!((out[0], out[1], log.len()), (7, 0, 1));
/// log.scatter_into(&mut out).unwrap();
/// assert_eq!(out, [7, 9]);
/// ```
pub struct GatherWriter<'a, T> {
    /// The vector's first element.
    ptr: *mut T,
    /// How many elements this run writes in place without recording them: the vector's
    /// length, or 0 where it logs or records ranges.
    in_place: usize,
    /// The vector's length.
    len: usize,
    /// The worker's log.
    log: &'a mut GatherBuf<T>,
    /// What a write at or past `in_place` does.
    mode: WriterMode,
    /// The borrow of the [`Place`].
    place: std::marker::PhantomData<&'a Place<'a, T>>,
}

/// What a [`GatherWriter`]'s write past its `in_place` bound does.
#[derive(Debug, Clone, Copy)]
enum WriterMode {
    /// Only an index past the end comes there: it panics.
    InPlace,
    /// The write is logged.
    Logs,
    /// The write is made in place and its element recorded for the exchange between MPI
    /// ranks ([`Place::exchanged`]): `first..end` is the range being written (empty at first).
    Records { rank: u32, first: usize, end: usize },
}

impl<T> std::fmt::Debug for GatherWriter<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatherWriter")
            .field("in_place", &self.in_place)
            .field("mode", &self.mode)
            .finish_non_exhaustive()
    }
}

impl<'a, T> GatherWriter<'a, T> {
    /// The writer of one run of iterates to `place`, logging into `log` where the loop does not
    /// write in place or where the run is a copy of another worker's iterates (`copy`:
    /// re-execution), since the first execution of the same iterates may be writing their
    /// elements at the same time. On a place [`Place::exchanged`] by an MPI rank, the writes in
    /// place record their ranges into `log`.
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, GatherWriter, Place};
    /// let mut out = vec![0_u8; 2];
    /// let mut log = GatherBuf::new();
    /// let place = Place::logged(&mut out);
    /// GatherWriter::of_run(&place, &mut log, false).set(1, 5); // the loop logs
    /// assert_eq!(log.len(), 1);
    /// ```
    #[inline]
    pub fn of_run(place: &'a Place<'_, T>, log: &'a mut GatherBuf<T>, copy: bool) -> Self {
        let mode = match (place.in_place && !copy, place.owner) {
            (false, _) => WriterMode::Logs,
            (true, None) => WriterMode::InPlace,
            (true, Some(rank)) => WriterMode::Records {
                rank,
                first: 0,
                end: 0,
            },
        };
        GatherWriter {
            ptr: place.ptr,
            in_place: if matches!(mode, WriterMode::InPlace) {
                place.len
            } else {
                0
            },
            len: place.len,
            log,
            mode,
            place: std::marker::PhantomData,
        }
    }

    /// `out[index] = value`: in place, the element is replaced; logged, the value is logged
    /// without reading the element, and an iterate's last write counts. An index past the end
    /// panics as a slice's does.
    ///
    /// ```
    /// use dls_runtime::gather::{GatherBuf, GatherWriter, Place};
    /// let mut out = vec![String::new(); 3];
    /// let mut log = GatherBuf::new();
    /// {
    ///     let place = Place::logged(&mut out);
    ///     let mut writer = GatherWriter::of_run(&place, &mut log, false);
    ///     writer.set(2, "a".to_string());
    ///     writer.set(2, "b".to_string()); // the iterate's last write counts
    /// }
    /// log.scatter_into(&mut out).unwrap();
    /// assert_eq!(out, ["", "", "b"]);
    /// ```
    #[inline]
    pub fn set(&mut self, index: usize, value: T) {
        if index < self.in_place {
            // SAFETY: in bounds (`in_place` is the length only where the place writes in place);
            // no other accessor of the place reaches this element while this writer does
            // (`Place::new`'s contract; copies log, see `of_run`).
            unsafe { *self.ptr.add(index) = value }
        } else {
            self.log_or_record(index, value)
        }
    }

    /// [`GatherWriter::set`] of a run that logs or records its ranges, or past the end of the
    /// vector.
    #[inline]
    fn log_or_record(&mut self, index: usize, value: T) {
        match &mut self.mode {
            WriterMode::Logs => log_write_out_of_line(self.len, self.log, index, value),
            WriterMode::InPlace => out_of_bounds(index, self.len),
            WriterMode::Records { first, end, .. } => {
                if index >= self.len {
                    out_of_bounds(index, self.len);
                }
                // SAFETY: in bounds (checked above); the place writes in place (`Records` only
                // then, see `of_run`), and as in `set` no other accessor reaches the element.
                unsafe { *self.ptr.add(index) = value }
                if index == *end {
                    *end += 1;
                } else if index < *first || index > *end {
                    self.new_range(index);
                }
            }
        }
    }

    /// Records the range written so far and starts one at `index`. Out of line: a run's
    /// iterates extend one range.
    #[cold]
    #[inline(never)]
    fn new_range(&mut self, index: usize) {
        self.record();
        if let WriterMode::Records { first, end, .. } = &mut self.mode {
            *first = index;
            *end = index + 1;
        }
    }

    /// Puts the range written in place since the last record into the log (appended to the
    /// log's last range where it continues it).
    fn record(&mut self) {
        let WriterMode::Records { rank, first, end } = &mut self.mode else {
            return;
        };
        if *end > *first {
            self.log
                .record_placed(*rank, *first as u64, (*end - *first) as u64);
        }
        *first = *end;
    }
}

impl<T> Drop for GatherWriter<'_, T> {
    /// The run ends: a writer that records its ranges puts the last one into the log.
    fn drop(&mut self) {
        self.record();
    }
}

/// [`log_write`] out of line, for [`GatherWriter::set`]: inlined, the log's growth (a call)
/// came between the loop's value and its use, and the compiler then kept the value on the stack
/// across the whole iterate, also where it writes in place (the sum `s` of a CSR SpMV row,
/// `y[i] = s`, was loaded and stored at every nonzero: issue 42). Out of line, the value is only
/// an argument of the call.
#[inline(never)]
fn log_write_out_of_line<T>(len: usize, buf: &mut GatherBuf<T>, index: usize, value: T) {
    log_write(len, buf, index, value)
}

/// Logs `value` as the write of element `index` of a vector of `len`. Each iterate writes only
/// its own element (the macro calls [`GatherWriter::set`] only then), so a write of the element
/// the log ended with is the same iterate's again: it replaces that value (the iterate's last
/// write counts). No state per iterate: one access serves a whole run.
#[inline]
fn log_write<T>(len: usize, buf: &mut GatherBuf<T>, index: usize, value: T) {
    if index >= len {
        out_of_bounds(index, len);
    }
    let element = index as u64;
    let runs = &mut buf.runs;
    match runs.last_mut() {
        Some((first, values)) if *first + values.len() as u64 == element => values.push(value),
        Some((first, values)) if *first + values.len() as u64 == element + 1 => {
            if let Some(last) = values.last_mut() {
                *last = value;
            }
        }
        _ => new_run(runs, element, value),
    }
}

/// Starts a run of logged writes at `element` (the last run is complete: what its growth
/// reserved is given back). Out of line: the common write extends the last run.
#[cold]
#[inline(never)]
fn new_run<T>(runs: &mut Vec<(u64, Vec<T>)>, element: u64, value: T) {
    if let Some((_, values)) = runs.last_mut() {
        values.shrink_to_fit();
    }
    runs.push((element, vec![value]));
}

/// The panic of an index past the end, as a slice's.
#[cold]
#[inline(never)]
fn out_of_bounds(index: usize, len: usize) -> ! {
    panic!("index out of bounds: the len is {len} but the index is {index}")
}

impl<T> Index<usize> for GatherAccess<'_, T> {
    type Output = T;
    #[inline]
    fn index(&self, index: usize) -> &T {
        match &self.0 {
            Access::InPlace { ptr, len, .. } => {
                if index >= *len {
                    out_of_bounds(index, *len);
                }
                // SAFETY: in bounds; no other accessor of the place reaches this element while
                // this one does (`Place::new`'s contract, under which an in-place access is made).
                unsafe { &*ptr.add(index) }
            }
            Access::Logged {
                original, buf, own, ..
            } => match *own {
                Some((e, r, k)) if e == index => &buf.runs[r].1[k],
                _ => &original[index],
            },
        }
    }
}

impl<T: Clone> IndexMut<usize> for GatherAccess<'_, T> {
    #[inline]
    fn index_mut(&mut self, index: usize) -> &mut T {
        match &mut self.0 {
            Access::InPlace { ptr, len, .. } => {
                if index >= *len {
                    out_of_bounds(index, *len);
                }
                // SAFETY: as in `index`.
                unsafe { &mut *ptr.add(index) }
            }
            Access::Logged {
                original, buf, own, ..
            } => {
                if let Some((e, r, k)) = *own {
                    if e == index {
                        return &mut buf.runs[r].1[k];
                    }
                }
                let value = original[index].clone();
                let element = index as u64;
                let runs = &mut buf.runs;
                match runs.last_mut() {
                    Some((first, values)) if *first + values.len() as u64 == element => {
                        values.push(value)
                    }
                    last => {
                        // The run before is complete: give back what its growth reserved.
                        if let Some((_, values)) = last {
                            values.shrink_to_fit();
                        }
                        runs.push((element, vec![value]));
                    }
                }
                let r = runs.len() - 1;
                let k = runs[r].1.len() - 1;
                *own = Some((index, r, k));
                &mut runs[r].1[k]
            }
        }
    }
}

impl<T> Drop for GatherSlot<'_, T> {
    /// The iterate ends: its reads of elements it never wrote go to the log (for the check in
    /// [`GatherBuf::scatter_into`]).
    fn drop(&mut self) {
        let mut reads = std::mem::take(self.reads.get_mut());
        if reads.is_empty() {
            return;
        }
        reads.sort_unstable();
        reads.dedup();
        reads.retain(|&k| self.position(k).is_none());
        self.buf.reads.extend(reads);
    }
}

impl<T> Deref for GatherSlot<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.original
    }
}

impl<T> Index<usize> for GatherSlot<'_, T> {
    type Output = T;
    fn index(&self, index: usize) -> &T {
        match self.position(index as u64) {
            Some((r, k)) => &self.buf.runs[r].1[k],
            None => {
                let value = &self.original[index];
                let mut reads = self.reads.borrow_mut();
                if reads.last() != Some(&(index as u64)) {
                    reads.push(index as u64);
                }
                value
            }
        }
    }
}

impl<T> GatherSlot<'_, T> {
    /// Logs `value` as this iterate's first write of `element` (which it has not written yet):
    /// where it is in the log, (run, value).
    fn log_new(&mut self, element: u64, value: T) -> (usize, usize) {
        let runs = &mut self.buf.runs;
        let extends = matches!(runs.last(),
                    Some((first, values)) if first + values.len() as u64 == element);
        if extends {
            let last = runs.len() - 1;
            runs[last].1.push(value);
        } else {
            // The run before is complete: give back what its growth reserved.
            if let Some((_, values)) = runs.last_mut() {
                values.shrink_to_fit();
            }
            runs.push((element, vec![value]));
        }
        let at = (runs.len() - 1, runs[runs.len() - 1].1.len() - 1);
        match &mut self.positions {
            Some(map) => {
                map.insert(element, at);
            }
            None if runs.len() - self.first_run > SCAN => self.index_positions(),
            None => {}
        }
        at
    }

    /// This iterate's write of `element` in the log, logging `make()` first if it has none.
    fn entry(&mut self, element: u64, make: impl FnOnce() -> T) -> &mut T {
        let (r, k) = match self.position(element) {
            Some(at) => at,
            None => {
                let value = make();
                self.log_new(element, value)
            }
        };
        &mut self.buf.runs[r].1[k]
    }

    /// Notes a read of `element` by indexing (for the check of [`GatherBuf::scatter_into`]).
    fn note_read(&self, element: u64) {
        let mut reads = self.reads.borrow_mut();
        if reads.last() != Some(&element) {
            reads.push(element);
        }
    }
}

impl<T: Clone> IndexMut<usize> for GatherSlot<'_, T> {
    fn index_mut(&mut self, index: usize) -> &mut T {
        let original = self.original;
        self.entry(index as u64, || original[index].clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_bounds_write_panics_like_the_vector() {
        let v = vec![0; 2];
        let mut b = GatherBuf::new();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            GatherSlot::new(&v, &mut b)[2] = 1;
        }));
        assert!(r.is_err());
        assert!(b.is_empty());
    }

    #[test]
    fn compound_assignment_starts_from_the_original() {
        let v = vec![5_i32; 3];
        let mut b = GatherBuf::new();
        {
            let mut s = GatherSlot::new(&v, &mut b);
            s[0] += 1;
            s[2] *= 2;
        }
        let mut out = v.clone();
        b.scatter_into(&mut out).unwrap();
        assert_eq!(out, [6, 5, 10]);
    }

    #[test]
    fn logs_round_trip_through_json() {
        let mut b = GatherBuf::new();
        GatherSlot::new(&[0.0_f64; 2], &mut b)[1] = 0.5;
        let text = serde_json::to_string(&b).unwrap();
        let back: GatherBuf<f64> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, b);
    }

    #[test]
    fn scatter_into_a_slice_reference() {
        let mut data = vec![0_u8; 3];
        let mut b = GatherBuf::new();
        GatherSlot::new(&data, &mut b)[0] = 1;
        let mut target: &mut [u8] = &mut data;
        b.scatter_into(&mut target).unwrap();
        assert_eq!(data, [1, 0, 0]);
    }

    proptest::proptest! {
        /// Any loop whose iterates write (and re-read, and update) only their own elements, in
        /// any order and spread over any number of runs, split among workers in any way: the
        /// merged logs give the serial result, and the log holds one value per element written.
        #[test]
        fn own_writes_in_any_pattern_give_the_serial_result(
            n in 1_usize..200,
            owners in proptest::collection::vec(0_usize..12, 200),
            cut in proptest::collection::vec(proptest::bool::ANY, 12),
            order in proptest::collection::vec(0_u64..1000, 200),
        ) {
            let original: Vec<u64> = (0..n as u64).collect();
            // Iterate `it` owns the elements e with owners[e] == it, written in `order`'s order.
            let mut serial = original.clone();
            let mut logs = vec![GatherBuf::new()];
            for (it, &cut_here) in cut.iter().enumerate() {
                if cut_here {
                    logs.push(GatherBuf::new());
                }
                let mut mine: Vec<usize> = (0..n).filter(|&e| owners[e] == it).collect();
                mine.sort_by_key(|&e| order[e]);
                let log = logs.last_mut().unwrap();
                let mut slot = GatherSlot::new(&original, log);
                for &e in &mine {
                    serial[e] = serial[e] * 3 + it as u64;
                    slot[e] = slot[e] * 3 + it as u64;
                }
                for &e in mine.iter().rev() {
                    serial[e] += serial[mine[0]];
                    let first = slot[mine[0]];
                    slot[e] += first;
                }
            }
            let merged = logs.into_iter().reduce(GatherBuf::merge).unwrap();
            let written = (0..n).filter(|&e| owners[e] < 12).count();
            proptest::prop_assert_eq!(merged.len(), written);
            let mut out = original.clone();
            merged.scatter_into(&mut out).unwrap();
            proptest::prop_assert_eq!(out, serial);
        }
    }

    /// A writer of a place exchanged by an MPI rank writes in place and records exactly the
    /// elements written, as ranges (holes left out, a re-write no new range, a run continuing
    /// the log's last range appended to it); a copy logs.
    #[test]
    fn exchanged_writers_record_the_ranges_they_write() {
        let mut out = vec![0_u32; 20];
        let mut log = GatherBuf::new();
        {
            // SAFETY: the writers below run one after the other, on this thread.
            let place = unsafe { Place::new(&mut out, true) }.exchanged(Some(3));
            let mut w = GatherWriter::of_run(&place, &mut log, false);
            for i in [2, 3, 3, 4, 7, 8] {
                w.set(i, i as u32);
            }
            drop(w);
            let mut w = GatherWriter::of_run(&place, &mut log, false);
            w.set(9, 9);
            drop(w);
            GatherWriter::of_run(&place, &mut log, true).set(12, 12);
        }
        assert_eq!(log.placed, [(3, 2, 3), (3, 7, 3)]);
        assert_eq!((log.len(), out[12]), (1, 0));
        assert_eq!(out[..10], [0, 0, 2, 3, 4, 0, 0, 7, 8, 9]);
        let placed = log.scatter_values(&mut out).unwrap();
        assert_eq!(placed, [(3, 2, 3), (3, 7, 3)]);
        assert_eq!(out[12], 12);
    }

    /// Ranges written in place on ranks take part in the conflict check, and come back sorted
    /// by rank and element (the order of the exchange's messages), cut at the vector's end.
    #[test]
    fn placed_ranges_are_checked_and_sorted() {
        let mut out = vec![0_u8; 10];
        let mut a = GatherBuf::new();
        a.placed.push((1, 6, 10));
        a.placed.push((0, 0, 3));
        let mut b = GatherBuf::new();
        GatherSlot::new(&out, &mut b)[4] = 1;
        let both = GatherBuf::merge(a.clone(), b);
        assert_eq!(
            both.clone().scatter_values(&mut out),
            Ok(vec![(0, 0, 3), (1, 6, 4)])
        );
        assert_eq!(out[4], 1);
        let mut c = GatherBuf::new();
        GatherSlot::new(&out, &mut c)[2] = 1;
        assert_eq!(
            GatherBuf::merge(a, c).scatter_values(&mut out),
            Err(GatherConflict::WrittenTwice { element: 2 })
        );
    }

    /// The log of plain elements travels with its ranges written in place.
    #[test]
    fn plain_logs_carry_their_ranges() {
        let mut b = GatherBuf::new();
        GatherSlot::new(&[0.0_f64; 4], &mut b)[1] = 0.5;
        b.placed.push((2, 3, 1));
        let bytes = postcard::to_allocvec(&PlainLog(&b)).unwrap();
        let mut de = postcard::Deserializer::from_bytes(&bytes);
        let back = serde::de::DeserializeSeed::deserialize(
            PlainLogSeed::<f64>(std::marker::PhantomData),
            &mut de,
        )
        .unwrap();
        assert_eq!(back, b);
    }

    /// An iterate writing a column (one element in each of many rows: a run per element) is
    /// found by element after the first SCAN runs, and its re-writes are one value each.
    #[test]
    fn many_runs_in_one_iterate() {
        let original = vec![0_u32; 1000];
        let mut b = GatherBuf::new();
        {
            let mut s = GatherSlot::new(&original, &mut b);
            for round in 0..3 {
                for row in 0..100 {
                    s[row * 10] += round + 1;
                }
            }
        }
        assert_eq!(b.len(), 100);
        let mut out = original.clone();
        b.scatter_into(&mut out).unwrap();
        assert!((0..1000).all(|e| out[e] == if e % 10 == 0 { 6 } else { 0 }));
    }
}
