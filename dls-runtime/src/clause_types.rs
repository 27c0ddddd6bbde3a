//! What the types of a `#[par_doall]` loop's clause variables need, as traits whose compile
//! errors speak the user's words. The macro calls the checks of [`crate::__private`] with each
//! variable, at the variable's token, before the loop: a type that lacks what its clause needs is
//! reported there, with the clause and the fix, instead of at the attribute through the runtime's
//! generic bounds.
//!
//! Each trait has one blanket implementation over the bound it stands for, so it holds exactly
//! when that bound does; only its error message differs (`#[diagnostic::on_unimplemented]`).
//!
//! ```
//! use dls_runtime::clause_types::{CheckedValue, GatherItem, StartValue};
//! fn start<T: StartValue>() {}
//! fn item<T: GatherItem>() {}
//! fn value<T: CheckedValue>() {}
//! start::<Vec<u8>>();
//! item::<(f64, String)>();
//! value::<u32>();
//! ```

use crate::Wire;

/// The type of a `reduce(f, identity = …: x)` variable: every worker starts from its own copy of
/// the identity value, so the type is `Clone` (and `Sync`, since the workers read the one value),
/// and the workers' results travel between them ([`Wire`]).
///
/// ```compile_fail
/// #[derive(serde::Serialize, serde::Deserialize)]
/// struct Once;
/// fn start<T: dls_runtime::clause_types::StartValue>() {}
/// start::<Once>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`reduce(…, identity = …: x)` gives every worker a copy of the start value and sends the copies between workers, so `{Self}` must be `Clone`, `Sync` and serde's `Serialize` and `Deserialize`",
    label = "the variable of a `reduce(…, identity = …: x)` clause, of type `{Self}`",
    note = "derive what is missing (#[derive(Clone, dls::Serialize, dls::Deserialize)] with #[serde(crate = \"dls::serde\")]); a type that is not Clone can drop `identity = …` and start every worker from `{Self}::default()`"
)]
pub trait StartValue: Clone + Sync + Wire {}
impl<T: Clone + Sync + Wire> StartValue for T {}

/// The element type of a `gather(v)` vector: each worker writes its elements into a copy of the
/// vector's shape, and the written elements travel between ranks, so it is `Clone`, `Send` and
/// serialisable with serde ([`Wire`]).
///
/// ```compile_fail
/// #[derive(Clone)]
/// struct NoSerde;
/// fn item<T: dls_runtime::clause_types::GatherItem>() {}
/// item::<NoSerde>();
/// ```
#[diagnostic::on_unimplemented(
    message = "the elements of `gather(…)` must be `Clone`, `Send` and serde's `Serialize` and `Deserialize`, and `{Self}` is not all of these",
    label = "gathered elements of type `{Self}` are written by the workers and sent between threads and MPI ranks",
    note = "for a type of your own: #[derive(Clone, dls::Serialize, dls::Deserialize)] with #[serde(crate = \"dls::serde\")] (or serde's own derives when serde is your dependency)"
)]
pub trait GatherItem: Clone + Send + Wire {}
impl<T: Clone + Send + Wire> GatherItem for T {}

/// The type of the `y` of `check(anova: y)` or `check(regression(x1, …): y)` and of the `x`s:
/// the checks test numbers, so the value is one that converts into `f64` exactly (the integers
/// up to 32 bits, `f32`, `f64`, `bool`).
///
/// ```
/// use dls_runtime::clause_types::CheckedValue;
/// assert_eq!(7_u32.to_f64(), 7.0);
/// ```
///
/// ```compile_fail
/// fn value<T: dls_runtime::clause_types::CheckedValue>() {}
/// value::<String>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`check(…)` tests numbers, and `{Self}` is not a number it can test exactly",
    label = "a value of type `{Self}`",
    note = "check a number computed from the iterate: f64, f32, bool and the integers up to 32 bits convert exactly; for a u64, i64 or usize write `let y = v as f64;`"
)]
pub trait CheckedValue {
    /// The value as `f64`.
    fn to_f64(self) -> f64;
}

macro_rules! checked_values {
    ($($t:ty),*) => {$(
        impl CheckedValue for $t {
            fn to_f64(self) -> f64 {
                f64::from(self)
            }
        }
    )*};
}
checked_values!(f64, f32, i8, i16, i32, u8, u16, u32, bool);
