//! Encoding of the values that travel between the ranks of a two-level loop (reduction partials,
//! gathered vectors, per-rank statistics): `postcard`, as the one-level runtime does, so floats
//! (NaN and infinities included) travel exactly.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::runtime::DlsError;

/// Serialises `value`.
pub(crate) fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, DlsError> {
    postcard::to_allocvec(value).map_err(|e| DlsError::Wire(format!("cannot serialise: {e}")))
}

/// Deserialises a value written by [`encode`].
pub(crate) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, DlsError> {
    postcard::from_bytes(bytes).map_err(|e| DlsError::Wire(format!("cannot deserialise: {e}")))
}
