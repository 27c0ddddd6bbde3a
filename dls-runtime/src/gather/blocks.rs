//! Gathered vectors whose iterates each own a block of contiguous elements: row `i` of a grid
//! `W` wide kept in one flat vector (`v[i*W + j]`, `j` in `0..W`), what `gather(v: rows(W))`
//! of `#[par_doall]` means. Each iterate writes its own block in place (as the serial loop does)
//! where the loop runs each iterate once on this process's threads; any other write is logged
//! and checked as a [`GatherSlot`]'s is.
//!
//! Which elements an iterate owns is a [`Blocks`] value: [`Rows`] here; a two-dimensional
//! array's rows (issue 45) are another. A [`BlockPlace`] is the vector during the loop, made from
//! a [`Place`] (whose in-place form is `unsafe` to make), the blocks and the loop's iterates; a
//! [`BlockAccess`] is one iterate's view of it:
//!
//! - an element of its own block: in place (one comparison, then the element), or logged where
//!   the place logs (checkpoints, re-execution of a body that reads the vector, MPI for a body
//!   that reads it or elements that are not plain) or where the run is a copy of another
//!   worker's iterates (re-execution on a process of several worker threads);
//! - an element of no iterate's block (a grid's boundary rows, outside the loop's range): read as
//!   it was before the loop, written to the log and scattered after the loop, with the checks of
//!   [`GatherBuf::scatter_into`] (two iterates writing it, or one reading what another writes);
//! - an element of another iterate's block: refused with a panic naming both iterates (that
//!   iterate may be writing it in place at the same moment), on every backend alike.
//!
//! Under MPI, a body that only assigns to plain elements writes its own block in place on each
//! rank too, where the place is [`Place::exchanged`]: each access that writes in place records
//! its whole block (within the vector) as written by its rank, and after the loop the ranks send
//! each other those blocks' bytes (`__private::scatter_exchanged`). The whole block travels,
//! since the row's writes (through a `&mut [T]`, [`BlockAccess::split`]) are not seen one by
//! one: an element of an iterate's row that the iterate left alone takes the value it had on
//! the rank that ran the iterate, which is every rank's own where the ranks hold the same vector
//! before the loop.
//!
//! ```
//! use dls_runtime::gather::{BlockAccess, BlockPlace, GatherBuf, Place, Rows};
//! let w = 3;
//! let mut grid = vec![0_u32; 4 * w];
//! let mut log = GatherBuf::new();
//! {
//!     // SAFETY: iterate i's access is made once, on this thread, and reaches row i (and
//!     // row 0, which no iterate of 1..3 owns, through the log).
//!     let place = unsafe { Place::new(&mut grid, true) };
//!     let rows = BlockPlace::new(place, Rows::new(w), 1..3, "grid");
//!     for i in 1..3 {
//!         let mut g = BlockAccess::new(&rows, &mut log, i, false);
//!         for j in 0..w {
//!             g[i * w + j] = (10 * i + j) as u32; // in place
//!         }
//!         g.set(i, 7); // row 0: logged
//!     }
//! }
//! assert_eq!(log.len(), 2, "the writes of row 0");
//! log.scatter_into(&mut grid).unwrap();
//! assert_eq!(grid, [0, 7, 7, 10, 11, 12, 20, 21, 22, 0, 0, 0]);
//! ```

use std::ops::{Index, IndexMut, Range};

use super::{out_of_bounds, GatherBuf, GatherSlot, Place};

/// Which contiguous elements of a gathered vector each iterate of a loop owns.
///
/// # Safety
///
/// An implementation promises, for every value: the blocks of two distinct iterates are
/// disjoint, and `owner(k)` is the iterate whose block holds element `k` where some block holds
/// it. In-place writes ([`BlockAccess`]) rely on it: two iterates on two threads write their own
/// blocks at the same time.
///
/// ```
/// use dls_runtime::gather::{Blocks, Rows};
/// let rows = Rows::new(4);
/// assert_eq!(rows.block(2), 8..12);
/// assert_eq!(rows.owner(9), Some(2));
/// ```
pub unsafe trait Blocks: Copy + Send + Sync {
    /// The elements iterate `iterate` owns.
    fn block(&self, iterate: usize) -> Range<usize>;
    /// The iterate whose block holds `element`, if any iterate's does.
    fn owner(&self, element: usize) -> Option<usize>;
}

/// `rows(W)`: iterate `i` owns row `i` of a grid `W` wide, elements `i*W .. (i+1)*W`.
///
/// ```
/// use dls_runtime::gather::{Blocks, Rows};
/// assert_eq!(Rows::new(1024).block(1), 1024..2048);
/// assert_eq!(Rows::new(0).owner(5), None, "rows of width 0 own nothing");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rows {
    width: usize,
}

impl Rows {
    /// Rows `width` elements wide.
    ///
    /// ```
    /// assert_eq!(dls_runtime::gather::Rows::new(8).width(), 8);
    /// ```
    pub fn new(width: usize) -> Rows {
        Rows { width }
    }

    /// The width of a row.
    ///
    /// ```
    /// assert_eq!(dls_runtime::gather::Rows::new(3).width(), 3);
    /// ```
    pub fn width(&self) -> usize {
        self.width
    }
}

// SAFETY: `i*W .. (i+1)*W` of distinct `i` are disjoint (an overflowing block is empty), and
// `k / W` is the row holding `k`.
unsafe impl Blocks for Rows {
    #[inline]
    fn block(&self, iterate: usize) -> Range<usize> {
        match (
            iterate.checked_mul(self.width),
            (iterate + 1).checked_mul(self.width),
        ) {
            (Some(lo), Some(hi)) => lo..hi,
            _ => 0..0,
        }
    }

    #[inline]
    fn owner(&self, element: usize) -> Option<usize> {
        element.checked_div(self.width)
    }
}

/// A gathered vector during a loop whose iterates own [`Blocks`] of it: the vector's [`Place`],
/// the blocks, the loop's iterates (as numbers from 0: the loop's indices) and the vector's name
/// for messages.
///
/// ```
/// use dls_runtime::gather::{BlockPlace, Place, Rows};
/// let mut v = vec![0.0_f64; 6];
/// let rows = BlockPlace::new(Place::logged(&mut v), Rows::new(2), 0..3, "v");
/// assert!(!rows.in_place());
/// ```
pub struct BlockPlace<'a, T, B> {
    place: Place<'a, T>,
    blocks: B,
    iterates: Range<usize>,
    var: &'a str,
}

impl<T, B: std::fmt::Debug> std::fmt::Debug for BlockPlace<'_, T, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockPlace")
            .field("place", &self.place)
            .field("blocks", &self.blocks)
            .field("iterates", &self.iterates)
            .finish_non_exhaustive()
    }
}

impl<'a, T, B: Blocks> BlockPlace<'a, T, B> {
    /// The vector of `place`, whose iterates `iterates` own `blocks`; `var` names it in messages.
    /// Where `place` writes in place, [`Place::new`]'s contract covers the [`BlockAccess`]es
    /// made from this value: the one of iterate `i` reaches the elements of block `i` (unless it
    /// is a copy) and the elements outside every block of `iterates` that it reads.
    ///
    /// ```
    /// use dls_runtime::gather::{BlockPlace, Place, Rows};
    /// let mut v = [0_u8; 4];
    /// let rows = BlockPlace::new(Place::logged(&mut v), Rows::new(2), 0..2, "v");
    /// assert_eq!(rows.iterates(), 0..2);
    /// ```
    pub fn new(place: Place<'a, T>, blocks: B, iterates: Range<usize>, var: &'a str) -> Self {
        BlockPlace {
            place,
            blocks,
            iterates,
            var,
        }
    }

    /// Whether the iterates write their blocks in place.
    ///
    /// ```
    /// use dls_runtime::gather::{BlockPlace, Place, Rows};
    /// let mut v = [0_u8; 2];
    /// assert!(!BlockPlace::new(Place::logged(&mut v), Rows::new(1), 0..2, "v").in_place());
    /// ```
    pub fn in_place(&self) -> bool {
        self.place.in_place
    }

    /// The loop's iterates.
    ///
    /// ```
    /// use dls_runtime::gather::{BlockPlace, Place, Rows};
    /// let mut v = [0_u8; 2];
    /// assert_eq!(BlockPlace::new(Place::logged(&mut v), Rows::new(1), 1..2, "v").iterates(), 1..2);
    /// ```
    pub fn iterates(&self) -> Range<usize> {
        self.iterates.clone()
    }
}

/// How a [`BlockAccess`] reaches its own block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Own {
    /// In place.
    InPlace,
    /// Logged; the vector as it was before the loop is read where the iterate has not written.
    Logged,
    /// Logged by a copy of the iterate (re-execution) while the first execution may be writing
    /// the block in place: the copy never reads the block ([`BlockAccess::set`] alone).
    Copy,
}

/// One iterate's view of a [`BlockPlace`] (what the vector's name means in the body of a loop
/// with `gather(v: rows(W))`): its own block in place where the place writes in place and the
/// run is no copy, else logged; elements of no iterate's block logged (and read as before the
/// loop); elements of another iterate's block refused. See the module `gather::blocks`
/// (`dls-runtime/src/gather/blocks.rs`).
///
/// ```
/// use dls_runtime::gather::{BlockAccess, BlockPlace, GatherBuf, Place, Rows};
/// let mut v = vec![1_i64; 4];
/// let mut log = GatherBuf::new();
/// {
///     let rows = BlockPlace::new(Place::logged(&mut v), Rows::new(2), 0..2, "v");
///     let mut a = BlockAccess::new(&rows, &mut log, 1, false);
///     a[2] += 5; // logged: the place logs
///     assert_eq!(a[2], 6);
///     let stolen = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| a[0]));
///     assert!(stolen.is_err(), "row 0 is iterate 0's");
/// }
/// log.scatter_into(&mut v).unwrap();
/// assert_eq!(v, [1, 1, 6, 1]);
/// ```
pub struct BlockAccess<'a, T, B> {
    /// The vector's first element.
    ptr: *mut T,
    /// This iterate's first element, and how many from it are written in place: the block's
    /// length (within the vector) where the access writes in place, else 0. Hot: one
    /// comparison, as a slice's bounds check.
    lo: usize,
    fast: usize,
    /// Everything else, for the accesses that are not in place (kept apart so that the hot
    /// fields stay in registers).
    rest: Rest<'a, T, B>,
}

/// The fields of a [`BlockAccess`] that accesses not in place need.
struct Rest<'a, T, B> {
    /// The vector's first element and its length.
    ptr: *mut T,
    len: usize,
    /// This iterate's block, and the iterate.
    own: Range<usize>,
    iterate: usize,
    mode: Own,
    place: &'a BlockPlace<'a, T, B>,
    /// The iterate's logged writes and reads (its `original` is the vector before the loop
    /// where the place logs, else empty and unused).
    slot: GatherSlot<'a, T>,
}

impl<T, B> std::fmt::Debug for BlockAccess<'_, T, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockAccess")
            .field("iterate", &self.rest.iterate)
            .field("own", &self.rest.own)
            .field("mode", &self.rest.mode)
            .finish_non_exhaustive()
    }
}

impl<'a, T, B: Blocks> BlockAccess<'a, T, B> {
    /// Iterate `iterate`'s access to `place`, logging into `log`; `copy`: the run is a copy of
    /// iterates another worker may be running (re-execution), which logs its block's writes
    /// and must not read its block ([`BlockAccess::set`] only). An access that writes its block
    /// in place on a place [`Place::exchanged`] by an MPI rank records the block into `log` as
    /// written by that rank, for the exchange after the loop.
    ///
    /// ```
    /// use dls_runtime::gather::{BlockAccess, BlockPlace, GatherBuf, Place, Rows};
    /// let mut v = vec![0_u8; 6];
    /// let mut log = GatherBuf::new();
    /// {
    ///     // SAFETY: the accesses of iterates 1 and 2 are made one after the other, on this
    ///     // thread, each reaching its own row.
    ///     let place = unsafe { Place::new(&mut v, true) }.exchanged(Some(1));
    ///     let rows = BlockPlace::new(place, Rows::new(2), 1..3, "v");
    ///     for i in 1..3 {
    ///         BlockAccess::new(&rows, &mut log, i, false).set(2 * i, 7);
    ///     }
    /// }
    /// // Written in place, rows 1 and 2 (elements 2..6) recorded for the other ranks.
    /// assert_eq!((v[2], v[4], log.len(), log.is_empty()), (7, 7, 0, false));
    /// ```
    ///
    /// ```
    /// use dls_runtime::gather::{BlockAccess, BlockPlace, GatherBuf, Place, Rows};
    /// let mut v = vec![0_u8; 4];
    /// let mut log = GatherBuf::new();
    /// let rows = BlockPlace::new(Place::logged(&mut v), Rows::new(2), 0..2, "v");
    /// BlockAccess::new(&rows, &mut log, 0, true).set(1, 3);
    /// assert_eq!(log.len(), 1);
    /// ```
    #[inline]
    pub fn new(
        place: &'a BlockPlace<'a, T, B>,
        log: &'a mut GatherBuf<T>,
        iterate: usize,
        copy: bool,
    ) -> Self {
        let p = &place.place;
        let (mode, original): (Own, &'a [T]) = if !p.in_place {
            (Own::Logged, p.view())
        } else if copy {
            (Own::Copy, &[])
        } else {
            (Own::InPlace, &[])
        };
        let own = place.blocks.block(iterate);
        let fast = if mode == Own::InPlace {
            own.end.min(p.len).saturating_sub(own.start)
        } else {
            0
        };
        if let (Some(rank), true) = (p.owner, fast > 0) {
            // Under MPI the block travels whole to the other ranks after the loop
            // (`Place::exchanged`): the row slice's writes are not seen one by one.
            log.record_placed(rank, own.start as u64, fast as u64);
        }
        BlockAccess {
            ptr: p.ptr,
            lo: own.start,
            fast,
            rest: Rest {
                ptr: p.ptr,
                len: p.len,
                own,
                iterate,
                mode,
                place,
                slot: GatherSlot::new(original, log),
            },
        }
    }

    /// `v[index] = value`, without reading the element: in place in the iterate's own block
    /// (where the access writes in place), else logged (an iterate's last write counts).
    ///
    /// ```
    /// use dls_runtime::gather::{BlockAccess, BlockPlace, GatherBuf, Place, Rows};
    /// let mut v = vec![0_u8; 4];
    /// let mut log = GatherBuf::new();
    /// {
    ///     // SAFETY: the one access of iterate 1 reaches row 1 alone.
    ///     let rows = BlockPlace::new(unsafe { Place::new(&mut v, true) }, Rows::new(2), 0..2, "v");
    ///     let mut a = BlockAccess::new(&rows, &mut log, 1, false);
    ///     a.set(3, 9);
    /// }
    /// assert_eq!((v[3], log.len()), (9, 0));
    /// ```
    #[inline]
    pub fn set(&mut self, index: usize, value: T) {
        if index.wrapping_sub(self.lo) < self.fast {
            // SAFETY: in bounds (`fast` ends within the vector); the element is in this
            // iterate's block, which no other accessor of the place reaches while this one
            // lives (`Place::new`'s contract, with `BlockPlace::new`'s reach of a block access).
            unsafe { *self.ptr.add(index) = value }
        } else {
            self.rest.log_set(index, value)
        }
    }
}

impl<T, B: Blocks> Rest<'_, T, B> {
    /// [`BlockAccess::set`] of a logged element.
    #[cold]
    #[inline(never)]
    fn log_set(&mut self, index: usize, value: T) {
        self.check(index, "writes");
        let element = index as u64;
        match self.slot.position(element) {
            Some((r, k)) => self.slot.buf.runs[r].1[k] = value,
            None => {
                self.slot.log_new(element, value);
            }
        }
    }

    /// Panics where `index` is past the vector or in another iterate's block.
    #[inline]
    fn check(&self, index: usize, what: &str) {
        if index >= self.len {
            out_of_bounds(index, self.len);
        }
        if self.own.contains(&index) {
            return;
        }
        if let Some(owner) = self.place.blocks.owner(index) {
            if self.place.iterates.contains(&owner) {
                another_iterates(self.place.var, self.iterate, what, index, owner);
            }
        }
    }
}

/// The panic of an access to another iterate's block.
#[cold]
#[inline(never)]
fn another_iterates(var: &str, iterate: usize, what: &str, index: usize, owner: usize) -> ! {
    panic!(
        "iterate {iterate} {what} element {index} of `{var}`, which is in the block of iterate \
         {owner} (gather({var}: rows(..)): each iterate owns its block, and iterate {owner} may \
         be writing it in place at this moment); write only the own block, `{var}[i * W + j]`, \
         or read a copy of `{var}` made before the loop"
    )
}

impl<T, B: Blocks> Index<usize> for BlockAccess<'_, T, B> {
    type Output = T;
    #[inline]
    fn index(&self, index: usize) -> &T {
        if index.wrapping_sub(self.lo) < self.fast {
            // SAFETY: as in `set`; no `&mut` to the element is alive (`&self`).
            return unsafe { &*self.ptr.add(index) };
        }
        self.rest.read_logged(index)
    }
}

impl<T, B: Blocks> Rest<'_, T, B> {
    /// A read that is not in place: the iterate's own logged write, else the vector as it was
    /// before the loop (noted where it is outside the block, for the check after the loop).
    #[cold]
    #[inline(never)]
    fn read_logged(&self, index: usize) -> &T {
        self.check(index, "reads");
        let element = index as u64;
        if let Some((r, k)) = self.slot.position(element) {
            return &self.slot.buf.runs[r].1[k];
        }
        let own = self.own.contains(&index);
        if !own {
            self.slot.note_read(element);
        }
        match self.mode {
            Own::Logged => &self.slot.original[index],
            Own::Copy if own => copy_reads(self.place.var, self.iterate),
            Own::InPlace if own => not_the_row(self.place.var, self.iterate),
            // SAFETY: in bounds (`check`); outside every block of the loop's iterates (the own
            // block of an in-place access is refused just above: its elements are reached
            // through the access's fast path or its row slice alone), which no accessor writes
            // in place (writes there are logged), so nothing writes it while the place lives.
            _ => unsafe { &*self.ptr.add(index) },
        }
    }

    /// A write by indexing that is not in place: logged, from the iterate's own logged write or
    /// the element's value before the loop.
    #[cold]
    #[inline(never)]
    fn write_logged(&mut self, index: usize) -> &mut T
    where
        T: Clone,
    {
        self.check(index, "writes");
        let own = self.own.contains(&index);
        let before: &T = match self.mode {
            _ if self.slot.position(index as u64).is_some() => {
                return self.slot.entry(index as u64, || unreachable!());
            }
            Own::Logged => &self.slot.original[index],
            Own::Copy if own => copy_reads(self.place.var, self.iterate),
            Own::InPlace if own => not_the_row(self.place.var, self.iterate),
            // SAFETY: as in `read_logged`.
            _ => unsafe { &*self.ptr.add(index) },
        };
        let value = before.clone();
        self.slot.entry(index as u64, || value)
    }
}

impl<T: Clone, B: Blocks> IndexMut<usize> for BlockAccess<'_, T, B> {
    #[inline]
    fn index_mut(&mut self, index: usize) -> &mut T {
        if index.wrapping_sub(self.lo) < self.fast {
            // SAFETY: as in `set`; the `&mut` borrows the access mutably.
            return unsafe { &mut *self.ptr.add(index) };
        }
        self.rest.write_logged(index)
    }
}

/// `v[index] = value` without reading the element, on what the vector's name means in the body
/// of a loop with `gather(v: rows(W))`: a [`BlockAccess`], or a [`BlockRow`] where the iterate
/// writes its row in place. The macro rewrites a body's plain assignments to it.
///
/// ```
/// use dls_runtime::gather::{BlockAccess, BlockPlace, BlockSet, GatherBuf, Place, Rows};
/// let mut v = vec![0_u8; 4];
/// let mut log = GatherBuf::new();
/// let rows = BlockPlace::new(Place::logged(&mut v), Rows::new(2), 0..2, "v");
/// BlockSet::set(&mut BlockAccess::new(&rows, &mut log, 0, false), 1, 5);
/// assert_eq!(log.len(), 1);
/// ```
pub trait BlockSet<T> {
    /// Writes `value` at `index`.
    fn set(&mut self, index: usize, value: T);
}

impl<T, B: Blocks> BlockSet<T> for BlockAccess<'_, T, B> {
    #[inline]
    fn set(&mut self, index: usize, value: T) {
        BlockAccess::set(self, index, value)
    }
}

impl<'a, T, B: Blocks> BlockAccess<'a, T, B> {
    /// Whether this access writes its own block in place (the place writes in place and the run
    /// is no copy): then [`BlockAccess::split`] hands the block out as a slice.
    ///
    /// ```
    /// use dls_runtime::gather::{BlockAccess, BlockPlace, GatherBuf, Place, Rows};
    /// let mut v = vec![0_u8; 4];
    /// let mut log = GatherBuf::new();
    /// let rows = BlockPlace::new(Place::logged(&mut v), Rows::new(2), 0..2, "v");
    /// assert!(!BlockAccess::new(&rows, &mut log, 0, false).in_place());
    /// ```
    #[inline]
    pub fn in_place(&self) -> bool {
        self.rest.mode == Own::InPlace
    }

    /// The iterate's own block (its elements within the vector) as a `&mut [T]`, with the
    /// access for every other element, a [`BlockRow`]. Where the access does not write in
    /// place the slice is empty and every element goes through the access (logged).
    ///
    /// The generated code hands the slice to the iterate's body as a closure's parameter, so
    /// that the compiler knows no other pointer reaches the row (a `&mut` parameter is
    /// `noalias`): it keeps the grid's other vectors in registers and vectorises the row's
    /// loop, as it does the serial loop's (issue 42, `benches/src/bin/jacobi_flat.rs`).
    ///
    /// ```
    /// use dls_runtime::gather::{BlockAccess, BlockPlace, GatherBuf, Place, Rows};
    /// let mut v = vec![0_u8; 6];
    /// let mut log = GatherBuf::new();
    /// {
    ///     // SAFETY: the one access of iterate 1 reaches row 1, and row 0 through the log.
    ///     let rows = BlockPlace::new(unsafe { Place::new(&mut v, true) }, Rows::new(2), 1..3, "v");
    ///     let mut a = BlockAccess::new(&rows, &mut log, 1, false);
    ///     let mut r = a.split();
    ///     r.row()[1] = 7; // element 3, in place
    ///     r[2] = 6; // element 2: the row, by the vector's index
    ///     r[0] = 1; // row 0, no iterate's: logged
    /// }
    /// assert_eq!((v[2], v[3], log.len()), (6, 7, 1));
    /// ```
    #[inline]
    pub fn split(&mut self) -> BlockRow<'_, 'a, T, B> {
        let row: &mut [T] = if self.fast > 0 {
            // SAFETY: `lo .. lo + fast` is within the vector and is this iterate's block, which
            // no other accessor of the place reaches while this access lives (`Place::new`'s
            // contract, with `BlockPlace::new`'s reach of a block access); the slice borrows
            // the access mutably, and the access's other paths (`Rest`) never reach its own
            // block where it writes in place, so nothing else reaches these elements while
            // the slice lives.
            unsafe { std::slice::from_raw_parts_mut(self.ptr.add(self.lo), self.fast) }
        } else {
            &mut []
        };
        BlockRow {
            row,
            lo: self.lo,
            rest: &mut self.rest,
        }
    }
}

/// An iterate's own row as a `&mut [T]` ([`BlockRow::row`]: column `j` of row `i` is
/// `row()[j]`), with its access to every other element of the vector ([`BlockAccess`]'s rules:
/// logged, or refused in another iterate's block). Indexing by the vector's index, `r[k]`,
/// reaches the row in place where `k` is in it. Made by [`BlockAccess::split`].
///
/// ```
/// use dls_runtime::gather::{BlockAccess, BlockPlace, BlockSet, GatherBuf, Place, Rows};
/// let mut v = vec![0_i32; 4];
/// let mut log = GatherBuf::new();
/// let rows = BlockPlace::new(Place::logged(&mut v), Rows::new(2), 0..2, "v");
/// let mut a = BlockAccess::new(&rows, &mut log, 1, false);
/// let mut r = a.split();
/// assert!(r.row().is_empty(), "a logged access hands out no row");
/// r.set(3, 4);
/// assert_eq!(r[3], 4);
/// ```
pub struct BlockRow<'r, 'a, T, B> {
    row: &'r mut [T],
    lo: usize,
    rest: &'r mut Rest<'a, T, B>,
}

impl<T, B> std::fmt::Debug for BlockRow<'_, '_, T, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockRow")
            .field("lo", &self.lo)
            .field("len", &self.row.len())
            .finish_non_exhaustive()
    }
}

impl<T, B: Blocks> BlockRow<'_, '_, T, B> {
    /// The iterate's own row, in place (empty where the access logs).
    ///
    /// ```
    /// use dls_runtime::gather::{BlockAccess, BlockPlace, GatherBuf, Place, Rows};
    /// let mut v = vec![0_u8; 4];
    /// let mut log = GatherBuf::new();
    /// let rows = BlockPlace::new(Place::logged(&mut v), Rows::new(2), 0..2, "v");
    /// assert_eq!(BlockAccess::new(&rows, &mut log, 0, false).split().row().len(), 0);
    /// ```
    #[inline(always)]
    pub fn row(&mut self) -> &mut [T] {
        self.row
    }
}

/// A [`BlockRow`] without its row ([`BlockRow::parts`]): the access to every other element.
pub struct BlockRest<'r, 'a, T, B> {
    lo: usize,
    rest: &'r mut Rest<'a, T, B>,
}

impl<T, B> std::fmt::Debug for BlockRest<'_, '_, T, B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockRest")
            .field("lo", &self.lo)
            .finish_non_exhaustive()
    }
}

impl<'r, 'a, T, B: Blocks> BlockRow<'r, 'a, T, B> {
    /// The row and the rest, apart: what [`with_row`] hands its body.
    ///
    /// ```
    /// use dls_runtime::gather::{BlockAccess, BlockPlace, BlockRow, GatherBuf, Place, Rows};
    /// let mut v = vec![0_u8; 4];
    /// let mut log = GatherBuf::new();
    /// let rows = BlockPlace::new(Place::logged(&mut v), Rows::new(2), 0..2, "v");
    /// let mut a = BlockAccess::new(&rows, &mut log, 0, false);
    /// let (row, rest) = a.split().parts();
    /// let r = BlockRow::new(row, rest);
    /// assert_eq!(r[1], 0);
    /// ```
    #[inline(always)]
    pub fn parts(self) -> (&'r mut [T], BlockRest<'r, 'a, T, B>) {
        (
            self.row,
            BlockRest {
                lo: self.lo,
                rest: self.rest,
            },
        )
    }

    /// The row and the rest together again ([`BlockRow::parts`]).
    ///
    /// ```
    /// use dls_runtime::gather::{BlockAccess, BlockPlace, BlockRow, GatherBuf, Place, Rows};
    /// let mut v = vec![0_u8; 4];
    /// let mut log = GatherBuf::new();
    /// let rows = BlockPlace::new(Place::logged(&mut v), Rows::new(2), 0..2, "v");
    /// let mut a = BlockAccess::new(&rows, &mut log, 1, false);
    /// let (row, rest) = a.split().parts();
    /// assert_eq!(BlockRow::new(row, rest)[2], 0);
    /// ```
    #[inline(always)]
    pub fn new(row: &'r mut [T], rest: BlockRest<'r, 'a, T, B>) -> Self {
        BlockRow {
            row,
            lo: rest.lo,
            rest: rest.rest,
        }
    }
}

/// Runs `body` on `row`'s parts: the row as a `&mut [T]` parameter of the body (which the
/// compiler then knows no other pointer reaches, see [`BlockAccess::split`]) and the rest. What
/// the generated code of a loop with `gather(v: rows(W))` runs each iterate's body in, where the
/// iterate writes its row in place.
///
/// ```
/// use dls_runtime::gather::{with_row, BlockAccess, BlockPlace, BlockRow, GatherBuf, Place, Rows};
/// let mut v = vec![0_u8; 4];
/// let mut log = GatherBuf::new();
/// {
///     // SAFETY: the one access of iterate 1 reaches row 1 alone.
///     let rows = BlockPlace::new(unsafe { Place::new(&mut v, true) }, Rows::new(2), 0..2, "v");
///     let mut a = BlockAccess::new(&rows, &mut log, 1, false);
///     with_row(a.split(), |row, rest| {
///         let mut v = BlockRow::new(row, rest);
///         v.row()[0] = 5;
///     });
/// }
/// assert_eq!(v, [0, 0, 5, 0]);
/// ```
#[inline(always)]
pub fn with_row<'r, 'a, T, B, R, F>(row: BlockRow<'r, 'a, T, B>, body: F) -> R
where
    B: Blocks,
    F: FnOnce(&'r mut [T], BlockRest<'r, 'a, T, B>) -> R,
{
    let (row, rest) = row.parts();
    body(row, rest)
}

impl<T, B: Blocks> BlockSet<T> for BlockRow<'_, '_, T, B> {
    #[inline]
    fn set(&mut self, index: usize, value: T) {
        match self.row.get_mut(index.wrapping_sub(self.lo)) {
            Some(x) => *x = value,
            None => self.rest.log_set(index, value),
        }
    }
}

impl<T, B: Blocks> Index<usize> for BlockRow<'_, '_, T, B> {
    type Output = T;
    #[inline]
    fn index(&self, index: usize) -> &T {
        match self.row.get(index.wrapping_sub(self.lo)) {
            Some(x) => x,
            None => self.rest.read_logged(index),
        }
    }
}

impl<T: Clone, B: Blocks> IndexMut<usize> for BlockRow<'_, '_, T, B> {
    #[inline]
    fn index_mut(&mut self, index: usize) -> &mut T {
        match self.row.get_mut(index.wrapping_sub(self.lo)) {
            Some(x) => x,
            None => self.rest.write_logged(index),
        }
    }
}

/// The panic of an in-place access's own element reached through the rest of a [`BlockRow`]
/// made with a row slice that is not the access's own (its row is where the elements are: the
/// rest never reaches them while the row slice may live, so that no two paths alias).
#[cold]
#[inline(never)]
fn not_the_row(var: &str, iterate: usize) -> ! {
    panic!(
        "iterate {iterate} reached its own row of `{var}` through the rest of a row made \
         with another slice (BlockRow::new must be given the row of BlockRow::parts)"
    )
}

/// The panic of a copy of an iterate that reads its block (the macro gives a copy only bodies
/// that assign the vector's elements without reading them).
#[cold]
#[inline(never)]
fn copy_reads(var: &str, iterate: usize) -> ! {
    panic!(
        "a copy of iterate {iterate} (re-execution) reads its block of `{var}`, which the first \
         execution may be writing in place; such a body runs with DLS_REEXECUTE=off"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every way an iterate reaches the vector, in place and logged, gives the serial result.
    #[test]
    fn in_place_and_logged_give_the_same_grid() {
        let w = 4;
        let serial = {
            let mut v: Vec<u64> = (0..5 * w as u64).collect();
            for i in 1..4 {
                for j in 0..w {
                    v[i * w + j] = v[i * w + j] * 10 + i as u64;
                }
                v[j_of(i)] = 100 + i as u64;
            }
            v
        };
        for (in_place, copy) in [(true, false), (false, false), (false, true)] {
            let mut v: Vec<u64> = (0..5 * w as u64).collect();
            let before = v.clone();
            let mut log = GatherBuf::new();
            {
                // SAFETY: one access per iterate, on this thread, one after the other.
                let place = unsafe { Place::new(&mut v, in_place) };
                let rows = BlockPlace::new(place, Rows::new(w), 1..4, "v");
                for i in 1..4 {
                    let mut a = BlockAccess::new(&rows, &mut log, i, copy);
                    for j in 0..w {
                        if copy {
                            a.set(i * w + j, before[i * w + j] * 10 + i as u64);
                        } else {
                            a[i * w + j] = a[i * w + j] * 10 + i as u64;
                        }
                    }
                    a.set(j_of(i), 100 + i as u64);
                }
            }
            log.scatter_into(&mut v).unwrap();
            assert_eq!(v, serial, "in place {in_place}, copy {copy}");
        }
        fn j_of(i: usize) -> usize {
            i - 1
        }
    }

    #[test]
    fn a_boundary_element_read_by_one_and_written_by_another_is_refused() {
        let mut v = vec![0_u8; 6];
        let mut log = GatherBuf::new();
        {
            // SAFETY: one access per iterate, on this thread, one after the other.
            let place = unsafe { Place::new(&mut v, true) };
            let rows = BlockPlace::new(place, Rows::new(2), 1..3, "v");
            let a = BlockAccess::new(&rows, &mut log, 1, false);
            let _ = a[0];
            drop(a);
            BlockAccess::new(&rows, &mut log, 2, false).set(0, 1);
        }
        assert!(log.scatter_into(&mut v).is_err());
    }

    #[test]
    fn a_copy_that_reads_its_block_panics() {
        let mut v = vec![0_u8; 4];
        let mut log = GatherBuf::new();
        // SAFETY: one access, on this thread.
        let place = unsafe { Place::new(&mut v, true) };
        let rows = BlockPlace::new(place, Rows::new(2), 0..2, "v");
        let a = BlockAccess::new(&rows, &mut log, 1, true);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| a[2]));
        assert!(r.is_err());
    }
}
