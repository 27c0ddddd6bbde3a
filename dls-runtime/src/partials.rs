//! How a `#[par_doall]` loop's partial results travel, named by the loop's clause variables.
//!
//! A loop's partial result is a tuple with one element per `reduce` or `gather` variable. The
//! generated code passes the loop functions of [`crate::__private`] a *witness*: a tuple of
//! markers ([`std::marker::PhantomData`]) of those elements' types, each written at its variable's
//! token. The loop functions require `W: Partials<T>` of the witness instead of `T: Wire` of the
//! tuple, so that an element type that cannot travel fails the [`Partials`] implementation's
//! bound on that element: the compiler then points at the marker of that variable (where the
//! clause check has already said what is missing) instead of at the loop as a whole.
//!
//! A marker also says how its element is read from another process's bytes ([`SlotKind`]): whole,
//! then merged ([`Whole`]), or, for a map that a built-in operator combines key by key, merged
//! into the process's own map entry by entry as it is read ([`Keyed`]), which spares building the
//! other process's map first.
//!
//! ```
//! use std::marker::PhantomData;
//! use dls_runtime::partials::{Coded, Partials, Whole};
//! fn travels<T, W: Partials<T>>(_witness: W, value: T) -> Coded<T, W> {
//!     Coded::new(value)
//! }
//! let w = (PhantomData::<fn(Whole) -> u64>, PhantomData::<fn(Whole) -> String>);
//! let coded = travels(w, (3, "x".into()));
//! assert_eq!(coded.into_inner(), (3, "x".to_string()));
//! ```

use std::collections::hash_map::RandomState;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::gather::{GatherBuf, PlainLog, PlainLogSeed};
use crate::reduce::{BuiltIn, Reducible};
use crate::Wire;

/// A witness that the tuple `T` of a loop's partial results travels between workers: implemented
/// for the tuples of markers `(PhantomData<fn(K) -> A>, …)` whose types `A, …` are each [`Wire`]
/// and `Send`, with `T = (A, …)` (none to sixteen elements, as serde's tuples). `K` is the
/// element's [`SlotKind`]: [`Whole`], or [`Keyed`] for a map that a built-in operator combines key
/// by key.
///
/// ```
/// use std::marker::PhantomData;
/// use dls_runtime::partials::Whole;
/// fn travels<T, W: dls_runtime::partials::Partials<T>>(_w: W) {}
/// travels::<(f64,), _>((PhantomData::<fn(Whole) -> f64>,));
/// ```
pub trait Partials<T> {
    /// Serialises `value` as the tuple does.
    fn serialize_partials<S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error>;
    /// Deserialises a value written by [`Partials::serialize_partials`].
    fn deserialize_partials<'de, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error>;
    /// Reads another worker's partial results (written by [`Partials::serialize_partials`]),
    /// merging the elements of kind [`Keyed`] straight into `acc`'s, and returns the rest: the
    /// other elements as read, an empty map in a merged element's place. The loop's merge of
    /// `acc` and the rest (`rest ⊕ acc` when `theirs_first`, else `acc ⊕ rest`) then gives what
    /// decoding the value and merging it would: a map element is combined with the identity,
    /// which leaves it as it is.
    fn read_into<'de, D: Deserializer<'de>>(
        acc: &mut T,
        deserializer: D,
        theirs_first: bool,
    ) -> Result<T, D::Error>;
    /// Whether an element merges as it is read ([`Keyed`]): without one, reading into is decoding
    /// and merging, and the loop does that.
    const MERGES_AS_READ: bool;
    /// Whether a process's workers may merge these partial results as key shards
    /// (`shard_coded`): at least one element is a [`Keyed`] map, and every such map splits
    /// by key hash.
    const SHARDS: bool;
    /// One worker's elements split into shards: for each element, its pieces.
    type Pieces: Send;
    /// One shard of every element.
    type Shard: Send;
    /// Takes the [`Keyed`] maps' entries out of `value` (leaving them empty), split into
    /// `shards` pieces by key hash.
    fn split(value: &mut T, shards: usize, hasher: &RandomState) -> Self::Pieces;
    /// Takes shard `s` of every element out of `pieces`.
    fn take_shard(pieces: &mut Self::Pieces, s: usize) -> Self::Shard;
    /// The shards of one index from every worker, in worker order, merged element by element.
    fn merge_shard(shards: Vec<Self::Shard>) -> Self::Shard;
    /// Puts every shard, merged, into `value`'s emptied maps.
    fn assemble(value: &mut T, merged: Vec<Self::Shard>);
    /// The writes of gathered vectors that `value` holds in logs ([`SlotKind::logged`] of each
    /// element; 0 where it has none): what the loop report's `logged_writes` counts.
    ///
    /// ```
    /// use std::marker::PhantomData;
    /// use dls_runtime::gather::{GatherBuf, GatherSlot};
    /// use dls_runtime::partials::{Partials, Plain, Whole};
    /// let mut log = GatherBuf::new();
    /// GatherSlot::new(&[0.0_f64; 4], &mut log)[2] = 1.0;
    /// type W = (PhantomData<fn(Whole) -> u64>, PhantomData<fn(Plain) -> GatherBuf<f64>>);
    /// assert_eq!(<W as Partials<_>>::logged_writes(&(7, log)), 1);
    /// ```
    fn logged_writes(_value: &T) -> u64 {
        0
    }
}

/// The marker of one element `A` of a loop's partial results, read as the slot kind `K` says
/// (see [`Partials`]).
///
/// ```
/// use dls_runtime::partials::{Marker, Whole};
/// let _m: Marker<u8> = std::marker::PhantomData::<fn(Whole) -> u8>;
/// ```
pub type Marker<A, K = Whole> = PhantomData<fn(K) -> A>;

/// How one element `A` of a loop's partial results is read from another worker's bytes (see
/// [`Partials::read_into`]): [`Whole`] reads the element; [`Keyed`] merges a map into the
/// worker's own key by key.
///
/// ```
/// use dls_runtime::partials::{SlotKind, Whole};
/// fn kind<A, K: SlotKind<A>>() {}
/// kind::<u8, Whole>();
/// ```
pub trait SlotKind<A> {
    /// Reads the next element of `seq` (a partial-results tuple), merging it into `acc` where the
    /// kind can: returns what the loop's merge should still combine with `acc` (the element
    /// read, or the identity).
    fn read<'de, S: SeqAccess<'de>>(
        acc: &mut A,
        seq: &mut S,
        theirs_first: bool,
    ) -> Result<A, S::Error>
    where
        A: Wire;
    /// Reads the next element of `seq` (a partial-results tuple) as a value of its own.
    fn decode<'de, S: SeqAccess<'de>>(seq: &mut S) -> Result<A, S::Error>
    where
        A: Wire;
    /// Writes the element as the next of `tuple` (a partial-results tuple): as `A` serialises
    /// itself, unless the kind travels otherwise ([`Plain`]).
    fn serialize<S: SerializeTuple>(value: &A, tuple: &mut S) -> Result<(), S::Error>
    where
        A: Wire,
    {
        tuple.serialize_element(value)
    }
    /// Whether this kind merges its element as it is read.
    const MERGES_AS_READ: bool;
    /// Whether a loop may merge this element as key shards ([`Partials::SHARDS`]): true where
    /// the element takes no part ([`Whole`]) or splits by key hash (a `HashMap`).
    const SPLITS: bool;
    /// One shard of the element: its entries whose keys hash to the shard.
    type Piece: Send + Default;
    /// Takes the element's entries out of `value` (leaving the identity), split into `shards`
    /// pieces by key hash; nothing for a [`Whole`] element.
    fn split(value: &mut A, shards: usize, hasher: &RandomState) -> Vec<Self::Piece>;
    /// The pieces of one shard, from every worker in worker order, merged into one.
    fn merge_pieces(pieces: Vec<Self::Piece>) -> Self::Piece;
    /// Puts every shard's merged piece into `value` (whose entries [`SlotKind::split`] took).
    fn assemble(value: &mut A, merged: Vec<Self::Piece>);
    /// The writes that `value` holds in a gather log: its length for the kinds of gathered
    /// vectors' logs ([`Plain`], [`Log`]), 0 for any other element.
    fn logged(_value: &A) -> u64 {
        0
    }
}

/// The error of a tuple of partial results that ends early.
fn missing<E: de::Error>() -> E {
    E::custom("a partial result is missing an element")
}

/// The slot kind of an element that is read whole, then merged by the loop's merge.
///
/// ```
/// let _marker: std::marker::PhantomData<fn(dls_runtime::partials::Whole) -> u8> =
///     std::marker::PhantomData;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Whole;

// Without a bound of its own: an element that cannot travel is reported once, by [`Partials`].
impl<A> SlotKind<A> for Whole {
    const MERGES_AS_READ: bool = false;
    const SPLITS: bool = true;
    type Piece = ();
    fn split(_value: &mut A, _shards: usize, _hasher: &RandomState) -> Vec<()> {
        Vec::new()
    }
    fn merge_pieces(_pieces: Vec<()>) {}
    fn assemble(_value: &mut A, _merged: Vec<()>) {}
    fn read<'de, S: SeqAccess<'de>>(
        _acc: &mut A,
        seq: &mut S,
        _theirs_first: bool,
    ) -> Result<A, S::Error>
    where
        A: Wire,
    {
        seq.next_element()?.ok_or_else(missing)
    }
    fn decode<'de, S: SeqAccess<'de>>(seq: &mut S) -> Result<A, S::Error>
    where
        A: Wire,
    {
        seq.next_element()?.ok_or_else(missing)
    }
}

/// The slot kind of a gathered vector's log whose elements are not plain (or whose vector's
/// iterates own blocks, `gather(v: rows(W))`): read whole and merged, as [`Whole`]'s, and
/// counted in the loop report's `logged_writes` ([`SlotKind::logged`]).
///
/// ```
/// use std::marker::PhantomData;
/// use dls_runtime::gather::GatherBuf;
/// use dls_runtime::partials::Log;
/// let _marker: PhantomData<fn(Log) -> GatherBuf<String>> = PhantomData;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Log;

impl<T> SlotKind<GatherBuf<T>> for Log {
    const MERGES_AS_READ: bool = false;
    const SPLITS: bool = true;
    type Piece = ();
    fn split(_value: &mut GatherBuf<T>, _shards: usize, _hasher: &RandomState) -> Vec<()> {
        Vec::new()
    }
    fn merge_pieces(_pieces: Vec<()>) {}
    fn assemble(_value: &mut GatherBuf<T>, _merged: Vec<()>) {}
    fn read<'de, S: SeqAccess<'de>>(
        acc: &mut GatherBuf<T>,
        seq: &mut S,
        theirs_first: bool,
    ) -> Result<GatherBuf<T>, S::Error>
    where
        GatherBuf<T>: Wire,
    {
        <Whole as SlotKind<GatherBuf<T>>>::read(acc, seq, theirs_first)
    }
    fn decode<'de, S: SeqAccess<'de>>(seq: &mut S) -> Result<GatherBuf<T>, S::Error>
    where
        GatherBuf<T>: Wire,
    {
        <Whole as SlotKind<GatherBuf<T>>>::decode(seq)
    }
    fn logged(value: &GatherBuf<T>) -> u64 {
        value.len() as u64
    }
}

/// The slot kind of a gathered vector's log whose elements are plain
/// ([`Pod`](crate::plain::Pod): numbers, arrays and `#[repr(C)]` structs of them): its runs travel
/// as their bytes, one copy each way, instead of one serialised number at a time. The generated
/// code picks it for `gather(v)` when `v`'s elements are plain
/// ([`crate::__private::GatherOfPlain`]); the log is then read whole and merged, as [`Whole`]'s.
///
/// ```
/// use std::marker::PhantomData;
/// use dls_runtime::gather::GatherBuf;
/// use dls_runtime::partials::Plain;
/// let _marker: PhantomData<fn(Plain) -> GatherBuf<f64>> = PhantomData;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Plain;

impl<T: crate::plain::Pod> SlotKind<GatherBuf<T>> for Plain {
    const MERGES_AS_READ: bool = false;
    const SPLITS: bool = true;
    type Piece = ();
    fn logged(value: &GatherBuf<T>) -> u64 {
        value.len() as u64
    }
    fn split(_value: &mut GatherBuf<T>, _shards: usize, _hasher: &RandomState) -> Vec<()> {
        Vec::new()
    }
    fn merge_pieces(_pieces: Vec<()>) {}
    fn assemble(_value: &mut GatherBuf<T>, _merged: Vec<()>) {}
    fn read<'de, S: SeqAccess<'de>>(
        _acc: &mut GatherBuf<T>,
        seq: &mut S,
        _theirs_first: bool,
    ) -> Result<GatherBuf<T>, S::Error>
    where
        GatherBuf<T>: Wire,
    {
        Self::decode(seq)
    }
    fn decode<'de, S: SeqAccess<'de>>(seq: &mut S) -> Result<GatherBuf<T>, S::Error>
    where
        GatherBuf<T>: Wire,
    {
        seq.next_element_seed(PlainLogSeed(PhantomData))?
            .ok_or_else(missing)
    }
    fn serialize<S: SerializeTuple>(value: &GatherBuf<T>, tuple: &mut S) -> Result<(), S::Error>
    where
        GatherBuf<T>: Wire,
    {
        tuple.serialize_element(&PlainLog(value))
    }
}

/// The slot kind of a `HashMap` or `BTreeMap` that the built-in operator `O`
/// ([`Sum`](crate::reduce::Sum), …) combines key by key: another worker's map is merged into the
/// worker's own as it is read, entry by entry (a look-up, and an insert only for a key the map
/// lacks), instead of being built as a map of its own and then merged. Decoding a 150,000-key map
/// of strings costs about as much as the merge itself (`benches/src/bin/map_merge.rs`), so this
/// saves about half of a merge under MPI. The generated code picks it for the variable of
/// `reduce(+: counts)` when `counts` is such a map ([`crate::__private::slot_of`]).
///
/// ```
/// use std::collections::HashMap;
/// use std::marker::PhantomData;
/// use dls_runtime::partials::Keyed;
/// use dls_runtime::reduce::Sum;
/// let _marker: PhantomData<fn(Keyed<Sum>) -> HashMap<String, u64>> = PhantomData;
/// ```
pub struct Keyed<O>(PhantomData<fn() -> O>);

impl<O> fmt::Debug for Keyed<O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Keyed")
    }
}

/// A map that can take another's entries as they are read (see [`Keyed`]).
///
/// ```
/// use std::collections::BTreeMap;
/// use dls_runtime::partials::KeyedMap;
/// use dls_runtime::reduce::Sum;
/// let mut m = BTreeMap::from([("a".to_string(), 1_u32)]);
/// m.merge_entry(&Sum, "a".to_string(), 2, false);
/// m.merge_entry(&Sum, "b".to_string(), 5, false);
/// assert_eq!(m, BTreeMap::from([("a".to_string(), 3), ("b".to_string(), 5)]));
/// ```
pub trait KeyedMap<O: BuiltIn>:
    Reducible<O> + IntoIterator<Item = (Self::Key, Self::Value)>
{
    /// The keys.
    type Key;
    /// The values.
    type Value: Reducible<O>;
    /// The value held under `key`.
    fn held(&mut self, key: &Self::Key) -> Option<&mut Self::Value>;
    /// Adds `(key, theirs)`: inserted for a new key, else combined with the value held (`theirs ⊕
    /// held` when `theirs_first`, else `held ⊕ theirs`).
    fn merge_entry(&mut self, op: &O, key: Self::Key, theirs: Self::Value, theirs_first: bool) {
        match self.held(&key) {
            Some(held) => combine_into(op, held, theirs, theirs_first),
            None => self.insert_new(key, theirs),
        }
    }
    /// An empty map with room for `entries` entries without growing (a `BTreeMap` has no such
    /// room).
    fn with_room(entries: usize) -> Self;
    /// Adds an entry whose key the map lacks (a serialised map's keys are distinct, and so are a
    /// shard's).
    fn insert_new(&mut self, key: Self::Key, value: Self::Value);
    /// Whether the map's entries split into shards by key hash (a `HashMap`'s; a `BTreeMap`'s
    /// keys need not hash).
    const SPLITS: bool;
    /// The shard of `key` among `shards`.
    fn shard_of(key: &Self::Key, shards: usize, hasher: &RandomState) -> usize;
}

/// `held ⊕ theirs` (or `theirs ⊕ held`) into `held`.
fn combine_into<O: BuiltIn, V: Reducible<O>>(op: &O, held: &mut V, theirs: V, theirs_first: bool) {
    let mine = std::mem::replace(held, V::identity(op));
    *held = if theirs_first {
        V::combine(op, theirs, mine)
    } else {
        V::combine(op, mine, theirs)
    };
}

impl<O: BuiltIn, K: Eq + Hash, V: Reducible<O>, H: BuildHasher + Default> KeyedMap<O>
    for HashMap<K, V, H>
{
    type Key = K;
    type Value = V;
    fn with_room(entries: usize) -> Self {
        HashMap::with_capacity_and_hasher(entries, H::default())
    }
    fn insert_new(&mut self, key: K, value: V) {
        self.insert(key, value);
    }
    fn held(&mut self, key: &K) -> Option<&mut V> {
        self.get_mut(key)
    }
    const SPLITS: bool = true;
    fn shard_of(key: &K, shards: usize, hasher: &RandomState) -> usize {
        (hasher.hash_one(key) % shards as u64) as usize
    }
}

impl<O: BuiltIn, K: Ord, V: Reducible<O>> KeyedMap<O> for BTreeMap<K, V> {
    type Key = K;
    type Value = V;
    fn with_room(_entries: usize) -> Self {
        BTreeMap::new()
    }
    fn insert_new(&mut self, key: K, value: V) {
        self.insert(key, value);
    }
    fn held(&mut self, key: &K) -> Option<&mut V> {
        self.get_mut(key)
    }
    const SPLITS: bool = false;
    fn shard_of(_key: &K, _shards: usize, _hasher: &RandomState) -> usize {
        0
    }
}

impl<O, M> SlotKind<M> for Keyed<O>
where
    O: BuiltIn + Default,
    M: KeyedMap<O>,
    M::Key: Wire + Send,
    M::Value: Wire + Send,
{
    const MERGES_AS_READ: bool = true;
    const SPLITS: bool = M::SPLITS;
    type Piece = Vec<(M::Key, M::Value)>;
    fn split(value: &mut M, shards: usize, hasher: &RandomState) -> Vec<Self::Piece> {
        let map = std::mem::replace(value, M::identity(&O::default()));
        let mut pieces: Vec<Self::Piece> = (0..shards).map(|_| Vec::new()).collect();
        for (key, v) in map {
            pieces[M::shard_of(&key, shards, hasher)].push((key, v));
        }
        pieces
    }
    fn merge_pieces(pieces: Vec<Self::Piece>) -> Self::Piece {
        // Worker by worker: a key's values are combined in worker order (`held ⊕ theirs`).
        let op = O::default();
        let mut pieces = pieces.into_iter();
        let mut shard = M::with_room(0);
        if let Some(first) = pieces.next() {
            shard = M::with_room(first.len());
            for (key, v) in first {
                shard.insert_new(key, v);
            }
        }
        for piece in pieces {
            for (key, v) in piece {
                shard.merge_entry(&op, key, v, false);
            }
        }
        shard.into_iter().collect()
    }
    fn assemble(value: &mut M, merged: Vec<Self::Piece>) {
        let mut total = M::with_room(merged.iter().map(Vec::len).sum());
        for piece in merged {
            for (key, v) in piece {
                total.insert_new(key, v);
            }
        }
        *value = total;
    }
    fn read<'de, S: SeqAccess<'de>>(
        acc: &mut M,
        seq: &mut S,
        theirs_first: bool,
    ) -> Result<M, S::Error>
    where
        M: Wire,
    {
        let into = MapEntries::<O, M> {
            acc,
            theirs_first,
            fresh: false,
            op: PhantomData,
        };
        seq.next_element_seed(into)?.ok_or_else(missing)?;
        Ok(M::identity(&O::default()))
    }
    fn decode<'de, S: SeqAccess<'de>>(seq: &mut S) -> Result<M, S::Error>
    where
        M: Wire,
    {
        let mut whole = M::identity(&O::default());
        let into = MapEntries::<O, M> {
            acc: &mut whole,
            theirs_first: false,
            fresh: true,
            op: PhantomData,
        };
        seq.next_element_seed(into)?.ok_or_else(missing)?;
        Ok(whole)
    }
}

/// The most entries a decoded map is made with room for before its entries are read.
const ROOM_AT_MOST: usize = 1 << 24;

/// Reads a serialised map's entries into `acc`: merged into it as they are read
/// ([`SlotKind::read`]), or, with `fresh`, into a map made first with room for all of them
/// ([`SlotKind::decode`]). serde's own `HashMap` reads start from at most 1 MiB of entries (a guard
/// against lengths that lie) and grow, moving every entry at each doubling (a 225,000-key
/// `HashMap<String, u64>`: 24–27 ms against 18 ms). The lengths here come from dls's own
/// messages; a length beyond [`ROOM_AT_MOST`] still starts at that and grows.
struct MapEntries<'a, O, M> {
    acc: &'a mut M,
    theirs_first: bool,
    fresh: bool,
    op: PhantomData<fn() -> O>,
}

impl<'de, O, M> DeserializeSeed<'de> for MapEntries<'_, O, M>
where
    O: BuiltIn + Default,
    M: KeyedMap<O>,
    M::Key: Wire,
    M::Value: Wire,
{
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de, O, M> Visitor<'de> for MapEntries<'_, O, M>
where
    O: BuiltIn + Default,
    M: KeyedMap<O>,
    M::Key: Wire,
    M::Value: Wire,
{
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of partial results")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if self.fresh {
            *self.acc = M::with_room(map.size_hint().unwrap_or(0).min(ROOM_AT_MOST));
            while let Some((key, value)) = map.next_entry::<M::Key, M::Value>()? {
                self.acc.insert_new(key, value);
            }
        } else {
            let op = O::default();
            while let Some((key, value)) = map.next_entry::<M::Key, M::Value>()? {
                self.acc.merge_entry(&op, key, value, self.theirs_first);
            }
        }
        Ok(())
    }
}

/// Decodes a partial-results tuple element by element through the slot kinds `K`.
struct DecodeTuple<T, K>(PhantomData<fn() -> (T, K)>);

/// Reads a partial-results tuple element by element through the slot kinds `K` (see
/// [`Partials::read_into`]).
struct ReadTuple<'a, T, K> {
    acc: &'a mut T,
    theirs_first: bool,
    kinds: PhantomData<fn() -> K>,
}

macro_rules! partials {
    ($n:literal; $($a:ident $k:ident $i:tt),+) => {
        impl<$($a: Wire + Send, $k: SlotKind<$a>),+> Partials<($($a,)+)>
            for ($(PhantomData<fn($k) -> $a>,)+)
        {
            const MERGES_AS_READ: bool = $(<$k as SlotKind<$a>>::MERGES_AS_READ)||+;
            const SHARDS: bool = ($(<$k as SlotKind<$a>>::MERGES_AS_READ)||+)
                && $(<$k as SlotKind<$a>>::SPLITS)&&+;
            type Pieces = ($(Vec<<$k as SlotKind<$a>>::Piece>,)+);
            type Shard = ($(<$k as SlotKind<$a>>::Piece,)+);
            fn split(value: &mut ($($a,)+), shards: usize, hasher: &RandomState) -> Self::Pieces {
                ($(<$k as SlotKind<$a>>::split(&mut value.$i, shards, hasher),)+)
            }
            fn take_shard(pieces: &mut Self::Pieces, s: usize) -> Self::Shard {
                ($(pieces.$i.get_mut(s).map(std::mem::take).unwrap_or_default(),)+)
            }
            fn merge_shard(shards: Vec<Self::Shard>) -> Self::Shard {
                let n = shards.len();
                let mut columns = ($(Vec::<<$k as SlotKind<$a>>::Piece>::with_capacity(n),)+);
                for shard in shards {
                    $(columns.$i.push(shard.$i);)+
                }
                ($(<$k as SlotKind<$a>>::merge_pieces(columns.$i),)+)
            }
            fn assemble(value: &mut ($($a,)+), merged: Vec<Self::Shard>) {
                let n = merged.len();
                let mut columns = ($(Vec::<<$k as SlotKind<$a>>::Piece>::with_capacity(n),)+);
                for shard in merged {
                    $(columns.$i.push(shard.$i);)+
                }
                $(<$k as SlotKind<$a>>::assemble(&mut value.$i, columns.$i);)+
            }
            fn logged_writes(value: &($($a,)+)) -> u64 {
                0 $(+ <$k as SlotKind<$a>>::logged(&value.$i))+
            }
            fn serialize_partials<Ser: Serializer>(
                value: &($($a,)+),
                serializer: Ser,
            ) -> Result<Ser::Ok, Ser::Error> {
                // As the tuple serialises itself, each element as its kind writes it.
                let mut tuple = serializer.serialize_tuple($n)?;
                $(<$k as SlotKind<$a>>::serialize(&value.$i, &mut tuple)?;)+
                tuple.end()
            }
            fn deserialize_partials<'de, De: Deserializer<'de>>(
                deserializer: De,
            ) -> Result<($($a,)+), De::Error> {
                let decode = DecodeTuple::<($($a,)+), ($($k,)+)>(PhantomData);
                deserializer.deserialize_tuple($n, decode)
            }
            fn read_into<'de, De: Deserializer<'de>>(
                acc: &mut ($($a,)+),
                deserializer: De,
                theirs_first: bool,
            ) -> Result<($($a,)+), De::Error> {
                let read = ReadTuple::<_, ($($k,)+)> { acc, theirs_first, kinds: PhantomData };
                deserializer.deserialize_tuple($n, read)
            }
        }

        impl<'de, $($a: Wire, $k: SlotKind<$a>),+> Visitor<'de>
            for DecodeTuple<($($a,)+), ($($k,)+)>
        {
            type Value = ($($a,)+);
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a tuple of {} partial results", $n)
            }
            fn visit_seq<Seq: SeqAccess<'de>>(self, mut seq: Seq) -> Result<Self::Value, Seq::Error> {
                Ok(($($k::decode(&mut seq)?,)+))
            }
        }

        impl<'de, $($a: Wire, $k: SlotKind<$a>),+> Visitor<'de>
            for ReadTuple<'_, ($($a,)+), ($($k,)+)>
        {
            type Value = ($($a,)+);
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a tuple of {} partial results", $n)
            }
            fn visit_seq<Seq: SeqAccess<'de>>(self, mut seq: Seq) -> Result<Self::Value, Seq::Error> {
                Ok(($($k::read(&mut self.acc.$i, &mut seq, self.theirs_first)?,)+))
            }
        }
    };
}

/// A loop without `reduce` or `gather` clauses: no partial results.
impl Partials<()> for () {
    const MERGES_AS_READ: bool = false;
    const SHARDS: bool = false;
    type Pieces = ();
    type Shard = ();
    fn split(_value: &mut (), _shards: usize, _hasher: &RandomState) {}
    fn take_shard(_pieces: &mut (), _s: usize) {}
    fn merge_shard(_shards: Vec<()>) {}
    fn assemble(_value: &mut (), _merged: Vec<()>) {}
    fn serialize_partials<Ser: Serializer>(
        value: &(),
        serializer: Ser,
    ) -> Result<Ser::Ok, Ser::Error> {
        value.serialize(serializer)
    }
    fn deserialize_partials<'de, De: Deserializer<'de>>(deserializer: De) -> Result<(), De::Error> {
        <()>::deserialize(deserializer)
    }
    fn read_into<'de, De: Deserializer<'de>>(
        _acc: &mut (),
        deserializer: De,
        _theirs_first: bool,
    ) -> Result<(), De::Error> {
        <()>::deserialize(deserializer)
    }
}

partials!(1; A KA 0);
partials!(2; A KA 0, B KB 1);
partials!(3; A KA 0, B KB 1, C KC 2);
partials!(4; A KA 0, B KB 1, C KC 2, D KD 3);
partials!(5; A KA 0, B KB 1, C KC 2, D KD 3, E KE 4);
partials!(6; A KA 0, B KB 1, C KC 2, D KD 3, E KE 4, F KF 5);
partials!(7; A KA 0, B KB 1, C KC 2, D KD 3, E KE 4, F KF 5, G KG 6);
partials!(8; A KA 0, B KB 1, C KC 2, D KD 3, E KE 4, F KF 5, G KG 6, H KH 7);
partials!(9; A KA 0, B KB 1, C KC 2, D KD 3, E KE 4, F KF 5, G KG 6, H KH 7, I KI 8);
partials!(10; A KA 0, B KB 1, C KC 2, D KD 3, E KE 4, F KF 5, G KG 6, H KH 7, I KI 8, J KJ 9);
partials!(11; A KA 0, B KB 1, C KC 2, D KD 3, E KE 4, F KF 5, G KG 6, H KH 7, I KI 8, J KJ 9,
    K KK 10);
partials!(12; A KA 0, B KB 1, C KC 2, D KD 3, E KE 4, F KF 5, G KG 6, H KH 7, I KI 8, J KJ 9,
    K KK 10, L KL 11);
partials!(13; A KA 0, B KB 1, C KC 2, D KD 3, E KE 4, F KF 5, G KG 6, H KH 7, I KI 8, J KJ 9,
    K KK 10, L KL 11, M KM 12);
partials!(14; A KA 0, B KB 1, C KC 2, D KD 3, E KE 4, F KF 5, G KG 6, H KH 7, I KI 8, J KJ 9,
    K KK 10, L KL 11, M KM 12, N KN 13);
partials!(15; A KA 0, B KB 1, C KC 2, D KD 3, E KE 4, F KF 5, G KG 6, H KH 7, I KI 8, J KJ 9,
    K KK 10, L KL 11, M KM 12, N KN 13, O KO 14);
partials!(16; A KA 0, B KB 1, C KC 2, D KD 3, E KE 4, F KF 5, G KG 6, H KH 7, I KI 8, J KJ 9,
    K KK 10, L KL 11, M KM 12, N KN 13, O KO 14, P KP 15);

/// A loop's partial results `T` with the witness `W` that makes them travel: [`Wire`] whenever
/// `W: Partials<T>`, through `W`'s functions, so the runtime's loops take it as any other value.
///
/// ```
/// use std::marker::PhantomData;
/// use dls_runtime::partials::Coded;
/// let c: Coded<(u8,), (PhantomData<fn() -> u8>,)> = Coded::new((7,));
/// assert_eq!(c.into_inner(), (7,));
/// ```
pub struct Coded<T, W> {
    /// The partial results.
    pub value: T,
    witness: PhantomData<fn() -> W>,
}

impl<T, W> Coded<T, W> {
    /// Wraps `value`.
    pub fn new(value: T) -> Self {
        Coded {
            value,
            witness: PhantomData,
        }
    }

    /// The partial results.
    pub fn into_inner(self) -> T {
        self.value
    }
}

impl<T: fmt::Debug, W> fmt::Debug for Coded<T, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Coded").field(&self.value).finish()
    }
}

impl<T, W: Partials<T>> Serialize for Coded<T, W> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        W::serialize_partials(&self.value, serializer)
    }
}

impl<'de, T, W: Partials<T>> Deserialize<'de> for Coded<T, W> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        W::deserialize_partials(deserializer).map(Coded::new)
    }
}

/// How a loop with the witness `W` reads another process's partial results into its own
/// (`combine_partials`' `read_into`): the slots merge what they can as the bytes are read
/// ([`Partials::read_into`]), `combine` the rest, in the same order of operands as decoding the
/// value and combining it would.
#[allow(clippy::type_complexity)]
pub(crate) fn read_coded<T, W: Partials<T>>(
    combine: impl Fn(T, T) -> T + Sync,
) -> impl Fn(Coded<T, W>, &[u8], bool) -> Result<Coded<T, W>, crate::DlsError> + Sync {
    move |acc: Coded<T, W>, bytes: &[u8], theirs_first: bool| {
        let mut mine = acc.value;
        let rest = crate::runtime::combine::wire::read_with(bytes, |d| {
            W::read_into(&mut mine, d, theirs_first)
        })?;
        Ok(Coded::new(if theirs_first {
            combine(rest, mine)
        } else {
            combine(mine, rest)
        }))
    }
}

pub(crate) use crate::runtime::engine::plan::Jobs;

/// How a process's workers merge partial results whose [`Keyed`] maps split by key hash
/// ([`Partials::SHARDS`]) as key shards, where a tree of merges would grow with the workers (each
/// level merges maps nearly as large as the total: `benches/src/bin/merge_paths.rs`): with P
/// values, P jobs each split one value's maps into P shards by key hash, then P jobs each merge
/// one shard of every value, key by key in worker order, and the caller puts the shards into the
/// maps of the values' fold (the rest of each value: `combine`, in worker order, with its maps
/// emptied). Every key's values are combined as the fold in worker order combines them, so the
/// total equals `values.reduce(combine)`, bit for bit.
#[allow(clippy::type_complexity)]
pub(crate) fn shard_coded<T: Send, W: Partials<T>>(
    combine: impl Fn(T, T) -> T + Sync,
) -> impl Fn(Vec<Coded<T, W>>, Jobs<'_>) -> Option<Coded<T, W>> + Sync {
    use crate::runtime::annotate::sync::Mutex;
    fn take<X>(m: Mutex<X>) -> X {
        m.into_inner().unwrap_or_else(|e| e.into_inner())
    }
    move |values: Vec<Coded<T, W>>, jobs: Jobs<'_>| {
        let n = values.len();
        let hasher = RandomState::new();
        let values: Vec<Mutex<T>> = values.into_iter().map(|c| Mutex::new(c.value)).collect();
        let pieces: Vec<Mutex<Option<W::Pieces>>> = (0..n).map(|_| Mutex::new(None)).collect();
        jobs(n, &|w| {
            let mut value = values[w].lock().unwrap_or_else(|e| e.into_inner());
            let split = W::split(&mut value, n, &hasher);
            *pieces[w].lock().unwrap_or_else(|e| e.into_inner()) = Some(split);
        });
        let mut pieces: Vec<W::Pieces> = pieces.into_iter().filter_map(take).collect();
        let shards: Vec<Mutex<Vec<W::Shard>>> = (0..n)
            .map(|s| Mutex::new(pieces.iter_mut().map(|p| W::take_shard(p, s)).collect()))
            .collect();
        let merged: Vec<Mutex<Option<W::Shard>>> = (0..n).map(|_| Mutex::new(None)).collect();
        jobs(n, &|s| {
            let shard = std::mem::take(&mut *shards[s].lock().unwrap_or_else(|e| e.into_inner()));
            let one = W::merge_shard(shard);
            *merged[s].lock().unwrap_or_else(|e| e.into_inner()) = Some(one);
        });
        let mut total = values.into_iter().map(take).reduce(&combine)?;
        W::assemble(&mut total, merged.into_iter().filter_map(take).collect());
        Some(Coded::new(total))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A gathered log of plain elements travels as its bytes: the same log back, every bit of
    /// every value, in about 8 bytes per `f64` (serialised one by one, postcard writes the same
    /// count, but element by element).
    #[test]
    fn plain_gather_logs_travel_as_bytes() {
        use crate::gather::{GatherBuf, GatherSlot};
        type W = (
            PhantomData<fn(Plain) -> GatherBuf<f64>>,
            PhantomData<fn(Whole) -> u64>,
        );
        let original = vec![0.0_f64; 1000];
        let mut log = GatherBuf::new();
        for i in (10..500).chain(700..900) {
            GatherSlot::new(&original, &mut log)[i] = (i as f64).sqrt() - 3.0;
        }
        GatherSlot::new(&original, &mut log)[5] = f64::NAN;
        let coded: Coded<_, W> = Coded::new((log.clone(), 7_u64));
        let bytes = crate::runtime::combine::wire::encode(&Some(coded)).unwrap();
        assert!(bytes.len() < 691 * 8 + 40, "{}", bytes.len());
        let back: Option<Coded<(GatherBuf<f64>, u64), W>> =
            crate::runtime::combine::wire::decode(&bytes).unwrap();
        let (back, seven) = back.unwrap().into_inner();
        assert_eq!(seven, 7);
        let (mut a, mut b) = (original.clone(), original.clone());
        log.scatter_into(&mut a).unwrap();
        back.scatter_into(&mut b).unwrap();
        let bits = |v: &[f64]| -> Vec<u64> { v.iter().map(|x| x.to_bits()).collect() };
        assert_eq!(bits(&a), bits(&b));
    }

    /// A coded tuple travels as the tuple itself does (same bytes), so ranks agree on it.
    #[test]
    fn coded_partials_travel_as_the_tuple() {
        type W = (
            PhantomData<fn(Whole) -> f64>,
            PhantomData<fn(Whole) -> Vec<u32>>,
        );
        let value = (1.5_f64, vec![1_u32, 2, 3]);
        let coded: Coded<_, W> = Coded::new(value.clone());
        let bytes = crate::runtime::combine::wire::encode(&coded).unwrap();
        assert_eq!(
            bytes,
            crate::runtime::combine::wire::encode(&value).unwrap()
        );
        let back: Coded<(f64, Vec<u32>), W> =
            crate::runtime::combine::wire::decode(&bytes).unwrap();
        assert_eq!(back.into_inner(), value);
    }

    type Counts = HashMap<String, f64>;
    type Rows = BTreeMap<u32, Vec<f64>>;
    type Three = (Counts, Rows, f64);
    type MapsRead = (
        PhantomData<fn(Keyed<crate::reduce::Sum>) -> Counts>,
        PhantomData<fn(Keyed<crate::reduce::Sum>) -> Rows>,
        PhantomData<fn(Whole) -> f64>,
    );

    /// `theirs ⊕ mine` or `mine ⊕ theirs`, element by element, as the loop combines them.
    fn add(a: Three, b: Three) -> Three {
        use crate::reduce::{Operator, Sum};
        (Sum.combine(a.0, b.0), Sum.combine(a.1, b.1), a.2 + b.2)
    }

    /// Values whose sums depend on the order of the operands' association (1e16 + 1 − 1e16),
    /// with keys in both maps and keys in one only.
    fn three(r: u32) -> Three {
        let big = if r % 2 == 0 { 1e16 } else { -1e16 };
        let counts = (0..50 + r)
            .map(|k| (format!("k{}", (k * (r + 1)) % 70), big + f64::from(k)))
            .collect();
        let rows = (0..8 + r)
            .map(|k| (k % 11, vec![f64::from(k) + 0.1, big]))
            .collect();
        (counts, rows, big + 1.0)
    }

    type Bits = (Vec<(String, u64)>, Vec<(u32, Vec<u64>)>, u64);

    fn bits(v: &Three) -> Bits {
        let mut counts: Vec<_> = v.0.iter().map(|(k, x)| (k.clone(), x.to_bits())).collect();
        counts.sort();
        let rows =
            v.1.iter()
                .map(|(k, x)| (*k, x.iter().map(|y| y.to_bits()).collect()))
                .collect();
        (counts, rows, v.2.to_bits())
    }

    /// Reading another's partial results into one's own gives, bit for bit, what decoding them
    /// and combining does, with their value first or second: the maps merged as they are read,
    /// the plain element by the loop's merge.
    #[test]
    fn reading_into_equals_decoding_and_combining() {
        let read = read_coded::<Three, MapsRead>(add);
        for (a, b) in [(0, 1), (1, 2), (3, 0), (2, 2)] {
            let bytes = crate::runtime::combine::wire::encode(&three(b)).unwrap();
            for theirs_first in [false, true] {
                let got = read(Coded::new(three(a)), &bytes, theirs_first)
                    .unwrap()
                    .into_inner();
                let want = if theirs_first {
                    add(three(b), three(a))
                } else {
                    add(three(a), three(b))
                };
                assert_eq!(bits(&got), bits(&want), "{a} {b} {theirs_first}");
            }
        }
        // Max keeps its left operand between 0.0 and -0.0: the order of the operands is kept.
        type Signs = (HashMap<u8, f64>,);
        let max = |a: Signs, b: Signs| {
            (crate::reduce::Operator::combine(
                &crate::reduce::Max,
                a.0,
                b.0,
            ),)
        };
        let read_max = read_coded::<
            Signs,
            (PhantomData<fn(Keyed<crate::reduce::Max>) -> HashMap<u8, f64>>,),
        >(max);
        let theirs =
            crate::runtime::combine::wire::encode(&(HashMap::from([(1_u8, -0.0_f64)]),)).unwrap();
        for (theirs_first, sign) in [(false, 0.0_f64), (true, -0.0)] {
            let mine = Coded::new((HashMap::from([(1_u8, 0.0_f64)]),));
            let got = read_max(mine, &theirs, theirs_first).unwrap().into_inner();
            assert_eq!(got.0[&1].to_bits(), sign.to_bits(), "{theirs_first}");
        }
        // Decoded whole (its maps made with room for their entries: `MapEntries`), a value is the
        // one sent.
        for r in 0..4 {
            let bytes = crate::runtime::combine::wire::encode(&three(r)).unwrap();
            let back: Coded<Three, MapsRead> =
                crate::runtime::combine::wire::decode(&bytes).unwrap();
            assert_eq!(bits(&back.value), bits(&three(r)), "{r}");
        }
        // Only a tuple with a map merged as read is read into; the others are decoded.
        const { assert!(<MapsRead as Partials<Three>>::MERGES_AS_READ) };
        type Plain = (
            PhantomData<fn(Whole) -> f64>,
            PhantomData<fn(Whole) -> Counts>,
        );
        const { assert!(!<Plain as Partials<(f64, Counts)>>::MERGES_AS_READ) };
        // The bytes of a value of another shape are an error, not a value.
        let wrong = crate::runtime::combine::wire::encode(&(1_u8, 2_u8)).unwrap();
        assert!(read(Coded::new(three(0)), &wrong, false).is_err());
        let longer = [
            crate::runtime::combine::wire::encode(&three(1)).unwrap(),
            vec![0],
        ]
        .concat();
        assert!(read(Coded::new(three(0)), &longer, false).is_err());
    }

    /// Merged as key shards, on one thread or one thread per job, P = 1..=6 values (one of them
    /// empty), a total equals the fold in worker order bit for bit: float sums whose association
    /// matters, maps of vectors, and a plain element beside them.
    #[test]
    fn key_shards_give_the_fold_in_worker_order() {
        use crate::reduce::{Operator, Sum};
        type Sums = HashMap<String, f64>;
        type Vecs = HashMap<u16, Vec<f64>>;
        type V = (Sums, f64, Vecs);
        type W = (
            PhantomData<fn(Keyed<Sum>) -> Sums>,
            PhantomData<fn(Whole) -> f64>,
            PhantomData<fn(Keyed<Sum>) -> Vecs>,
        );
        const { assert!(<W as Partials<V>>::SHARDS) };
        const { assert!(!<MapsRead as Partials<Three>>::SHARDS) };
        let add = |a: V, b: V| (Sum.combine(a.0, b.0), a.1 + b.1, Sum.combine(a.2, b.2));
        let value = |w: u32| -> V {
            let big = if w % 2 == 0 { 1e16 } else { -1e16 };
            if w == 3 {
                return (HashMap::new(), big, HashMap::new());
            }
            let sums = (0..300 + w)
                .map(|k| (format!("k{}", (k * (w + 3)) % 400), big + f64::from(k)))
                .collect();
            let vecs = (0..50 + w as u16)
                .map(|k| (k % 37, vec![f64::from(k) + 0.5, big]))
                .collect();
            (sums, big + 1.0, vecs)
        };
        let bits = |v: &V| {
            let mut sums: Vec<(String, u64)> =
                v.0.iter().map(|(k, x)| (k.clone(), x.to_bits())).collect();
            sums.sort();
            let mut vecs: Vec<(u16, Vec<u64>)> =
                v.2.iter()
                    .map(|(k, x)| (*k, x.iter().map(|y| y.to_bits()).collect()))
                    .collect();
            vecs.sort();
            (sums, v.1.to_bits(), vecs)
        };
        let one_thread = |n: usize, job: &(dyn Fn(usize) + Sync)| (0..n).for_each(job);
        let threads = |n: usize, job: &(dyn Fn(usize) + Sync)| {
            std::thread::scope(|s| {
                for j in 0..n {
                    s.spawn(move || job(j));
                }
            })
        };
        let shard = shard_coded::<V, W>(add);
        for p in 1..=6 {
            let fold = (0..p).map(value).reduce(add).unwrap();
            for jobs in [&one_thread as Jobs<'_>, &threads] {
                let values = (0..p).map(|w| Coded::new(value(w))).collect();
                let total = shard(values, jobs).unwrap().into_inner();
                assert_eq!(bits(&total), bits(&fold), "P={p}");
            }
        }
        assert!(shard(Vec::new(), &one_thread).is_none());
    }

    /// The generated code's choice of slot: maps of the built-in operators get a `MapSlot`
    /// (`KeyedMap`), every other type the plain marker.
    #[test]
    // The borrows are the generated code's autoref choice.
    #[allow(clippy::needless_borrow)]
    fn maps_of_the_built_in_operators_are_read_into() {
        use crate::__private::{slot_of, type_of, Max, SlotOfAny, SlotOfMap, Sum};
        use std::any::type_name_of_val;
        let counts: Counts = HashMap::new();
        let slot = (&&slot_of(&Sum, type_of(&counts))).__dls_slot();
        assert!(type_name_of_val(&slot).contains("Keyed"));
        let nested: BTreeMap<u8, HashMap<u8, i32>> = BTreeMap::new();
        let slot = (&&slot_of(&Max, type_of(&nested))).__dls_slot();
        assert!(type_name_of_val(&slot).contains("Keyed"));
        let v = vec![1.0_f64];
        let slot = (&&slot_of(&Sum, type_of(&v))).__dls_slot();
        assert!(type_name_of_val(&slot).contains("Whole"));
        let add = crate::reduce::AddDefault;
        let slot = (&&slot_of(&add, type_of(&counts))).__dls_slot();
        assert!(type_name_of_val(&slot).contains("Whole"));
    }
}
