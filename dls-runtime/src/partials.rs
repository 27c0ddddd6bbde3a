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
//! ```
//! use std::marker::PhantomData;
//! use dls_runtime::partials::{Coded, Partials};
//! fn travels<T, W: Partials<T>>(_witness: W, value: T) -> Coded<T, W> {
//!     Coded::new(value)
//! }
//! let coded = travels((PhantomData::<fn() -> u64>, PhantomData::<fn() -> String>), (3, "x".into()));
//! assert_eq!(coded.into_inner(), (3, "x".to_string()));
//! ```

use std::fmt;
use std::marker::PhantomData;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Wire;

/// A witness that the tuple `T` of a loop's partial results travels between workers: implemented
/// for the tuples of markers `(PhantomData<fn() -> A>, …)` whose types `A, …` are each [`Wire`]
/// and `Send`, with `T = (A, …)` (none to sixteen elements, as serde's tuples).
///
/// ```
/// use std::marker::PhantomData;
/// fn travels<T, W: dls_runtime::partials::Partials<T>>(_w: W) {}
/// travels::<(f64,), _>((PhantomData::<fn() -> f64>,));
/// ```
pub trait Partials<T> {
    /// Serialises `value` as the tuple does.
    fn serialize_partials<S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error>;
    /// Deserialises a value written by [`Partials::serialize_partials`].
    fn deserialize_partials<'de, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error>;
}

macro_rules! partials {
    ($($a:ident),+) => {
        impl<$($a: Wire + Send),+> Partials<($($a,)+)> for ($(PhantomData<fn() -> $a>,)+) {
            fn serialize_partials<Ser: Serializer>(
                value: &($($a,)+),
                serializer: Ser,
            ) -> Result<Ser::Ok, Ser::Error> {
                value.serialize(serializer)
            }
            fn deserialize_partials<'de, De: Deserializer<'de>>(
                deserializer: De,
            ) -> Result<($($a,)+), De::Error> {
                <($($a,)+)>::deserialize(deserializer)
            }
        }
    };
}

/// A loop without `reduce` or `gather` clauses: no partial results.
impl Partials<()> for () {
    fn serialize_partials<Ser: Serializer>(
        value: &(),
        serializer: Ser,
    ) -> Result<Ser::Ok, Ser::Error> {
        value.serialize(serializer)
    }
    fn deserialize_partials<'de, De: Deserializer<'de>>(deserializer: De) -> Result<(), De::Error> {
        <()>::deserialize(deserializer)
    }
}

partials!(A);
partials!(A, B);
partials!(A, B, C);
partials!(A, B, C, D);
partials!(A, B, C, D, E);
partials!(A, B, C, D, E, F);
partials!(A, B, C, D, E, F, G);
partials!(A, B, C, D, E, F, G, H);
partials!(A, B, C, D, E, F, G, H, I);
partials!(A, B, C, D, E, F, G, H, I, J);
partials!(A, B, C, D, E, F, G, H, I, J, K);
partials!(A, B, C, D, E, F, G, H, I, J, K, L);
partials!(A, B, C, D, E, F, G, H, I, J, K, L, M);
partials!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
partials!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);
partials!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P);

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

#[cfg(test)]
mod tests {
    use super::*;

    /// A coded tuple travels as the tuple itself does (same bytes), so ranks agree on it.
    #[test]
    fn coded_partials_travel_as_the_tuple() {
        type W = (PhantomData<fn() -> f64>, PhantomData<fn() -> Vec<u32>>);
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
}
