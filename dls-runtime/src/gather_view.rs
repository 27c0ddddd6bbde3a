//! How a `gather(v)` loop's body sees `v`, chosen by the target's type: a `Vec`, an array or a
//! slice is seen through a [`GatherSlot`] over its elements; a target with a shape of its own (an
//! ndarray array, with dls's feature `ndarray`) through a slot that takes that shape's indices
//! (`a[[i, j]]`) and writes the same log of elements ([`crate::nd::slot`]).
//!
//! The macro calls `(&&ViewOf(&v)).__dls_view()` with [`ViewOfShaped`] and [`ViewOfFlat`] in
//! scope (autoref picks the shaped view where the type has one), once before the loop, and
//! [`gather_slot`] with that view once per iterate.
//!
//! ```
//! use dls_runtime::gather::GatherBuf;
//! use dls_runtime::gather_view::{gather_slot, ViewOf, ViewOfFlat, ViewOfShaped};
//! let out = vec![0_u8; 3];
//! let view = (&&ViewOf(&out)).__dls_view();
//! let mut log = GatherBuf::new();
//! gather_slot(&view, &mut log)[2] = 7;
//! assert_eq!(log.len(), 1);
//! ```

use crate::gather::{GatherBuf, GatherSlot, GatherTarget};

/// A gather target on its way to its view; see the module.
#[derive(Debug)]
pub struct ViewOf<'a, G: ?Sized>(pub &'a G);

/// First choice: the view of a target with a shape of its own (implemented in
/// [`crate::nd::slot`] for ndarray's owned arrays).
pub trait ViewOfShaped {
    /// The view, shared by the iterates.
    type View;
    /// The view.
    fn __dls_view(&self) -> Self::View;
}

/// Last choice: the elements of any [`GatherTarget`], as a slice. Implemented for every type,
/// with the bound on the method, so that a target that is none is reported once, by
/// [`GatherTarget`]'s message, as the macro's check of the variable reports it.
pub trait ViewOfFlat<'a, G: ?Sized + 'a> {
    /// The elements as they were before the loop.
    fn __dls_view(&self) -> &'a [<G as crate::collection::Indexable>::Item]
    where
        G: GatherTarget;
}

impl<'a, G: ?Sized + 'a> ViewOfFlat<'a, G> for ViewOf<'a, G> {
    fn __dls_view(&self) -> &'a [<G as crate::collection::Indexable>::Item]
    where
        G: GatherTarget,
    {
        self.0.as_elements()
    }
}

/// A view that makes one iterate's slot over a worker's log.
///
/// ```
/// use dls_runtime::gather::GatherBuf;
/// use dls_runtime::gather_view::GatherView;
/// let elements: &[i32] = &[1, 2];
/// let mut log = GatherBuf::new();
/// assert_eq!((&elements).slot(&mut log)[1], 2);
/// ```
pub trait GatherView<'b> {
    /// The elements' type.
    type Item: 'b;
    /// What the variable's name means in the iterate.
    type Slot;
    /// The iterate's slot, logging into `log`.
    fn slot(self, log: &'b mut GatherBuf<Self::Item>) -> Self::Slot;
}

impl<'b, 'a: 'b, T> GatherView<'b> for &'b &'a [T] {
    type Item = T;
    type Slot = GatherSlot<'b, T>;
    fn slot(self, log: &'b mut GatherBuf<T>) -> GatherSlot<'b, T> {
        GatherSlot::new(self, log)
    }
}

/// The slot of one iterate over `view`, logging into `log` (see [`GatherView`]).
///
/// ```
/// use dls_runtime::gather::GatherBuf;
/// let v: &[f64] = &[0.5];
/// let mut log = GatherBuf::new();
/// assert_eq!(dls_runtime::gather_view::gather_slot(&v, &mut log)[0], 0.5);
/// ```
pub fn gather_slot<'b, V: GatherView<'b>>(view: V, log: &'b mut GatherBuf<V::Item>) -> V::Slot {
    view.slot(log)
}
