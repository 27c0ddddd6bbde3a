//! Values that travel between ranks: reduction results over MPI.
//!
//! A [`Wire`] value is serialised with `postcard` (a compact binary serde format: exact for
//! floats, NaN and infinities included), so any `serde` type can be a reduction value.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::runtime::error::DlsError;

/// A value that can be sent between MPI ranks: anything `Serialize + DeserializeOwned`
/// (blanket implementation).
///
/// ```
/// fn needs_wire<T: dls_runtime::Wire>() {}
/// needs_wire::<(f64, Vec<u32>)>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot travel between workers: it needs serde's `Serialize` and `Deserialize`",
    label = "the partial results of this variable are sent between threads and MPI ranks",
    note = "derive both for a type of your own: #[derive(serde::Serialize, serde::Deserialize)] (through dls: #[derive(dls::serde::Serialize, dls::serde::Deserialize)] with #[serde(crate = \"dls::serde\")]); an array of more than 32 elements (`[T; 64]`) is not serialisable by serde: use a Vec<T>, which reduce and gather combine element by element"
)]
pub trait Wire: Serialize + DeserializeOwned {}

impl<T: Serialize + DeserializeOwned> Wire for T {}

/// Serialises `value`. The buffer starts with room for as many bytes as this thread's last
/// value took: the value of a loop in a time loop takes as many as the last one did, and
/// growing a buffer of megabytes by doubling copies it again at every step (room that a
/// smaller value leaves unused is never touched, so it costs no memory).
pub(crate) fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, DlsError> {
    thread_local! {
        static LAST: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }
    let room = LAST.with(|l| l.get());
    let bytes = postcard::to_extend(value, Vec::with_capacity(room))
        .map_err(|e| DlsError::Wire(format!("cannot serialise: {e}")))?;
    LAST.with(|l| l.set(bytes.len()));
    Ok(bytes)
}

/// Deserialises a value written by [`encode`].
pub(crate) fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, DlsError> {
    postcard::from_bytes(bytes).map_err(|e| DlsError::Wire(format!("cannot deserialise: {e}")))
}

/// Reads a value from `bytes` (written by [`encode`]) with `read`, which must take all of them.
pub(crate) fn read_with<T>(
    bytes: &[u8],
    read: impl FnOnce(&mut Reader<'_>) -> Result<T, postcard::Error>,
) -> Result<T, DlsError> {
    let fail = |e: postcard::Error| DlsError::Wire(format!("cannot deserialise: {e}"));
    let mut reader = postcard::Deserializer::from_bytes(bytes);
    let value = read(&mut reader).map_err(fail)?;
    match reader.finalize().map_err(fail)? {
        [] => Ok(value),
        rest => Err(DlsError::Wire(format!(
            "cannot deserialise: {} bytes left after the value",
            rest.len()
        ))),
    }
}

/// What [`read_with`] reads from.
pub(crate) type Reader<'de> = postcard::Deserializer<'de, postcard::de_flavors::Slice<'de>>;

/// How another process's value reaches a process's own (`Folder::fold_read`): merged into `acc`
/// as its bytes (a `T` written by [`encode`]) are read, `theirs ⊕ acc` when the bool is true, else
/// `acc ⊕ theirs`.
pub(crate) type ReadInto<'a, T> = &'a (dyn Fn(T, &[u8], bool) -> Result<T, DlsError> + Sync);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_exactly() {
        let v = (
            f64::NAN,
            -0.0f64,
            f64::INFINITY,
            vec![1u64, u64::MAX],
            "x".to_string(),
        );
        let back: (f64, f64, f64, Vec<u64>, String) = decode(&encode(&v).unwrap()).unwrap();
        assert!(back.0.is_nan());
        assert_eq!(back.1.to_bits(), (-0.0f64).to_bits());
        assert_eq!((back.2, back.3, back.4), (v.2, v.3, v.4));
        assert!(decode::<u64>(&[]).is_err());
    }
}
