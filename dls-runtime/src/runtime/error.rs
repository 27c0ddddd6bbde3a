//! Errors of the runtime: bad settings, bad loops, MPI set-up failures.

use std::fmt;

use crate::TechniqueError;

/// Why the runtime refused to start or to run a loop. Every message names the setting at fault
/// and the allowed values.
///
/// ```
/// let e = dls_runtime::DlsError::Setting {
///     name: "DLS_THREADS",
///     value: "many".into(),
///     message: "expected a whole number of threads >= 1".into(),
/// };
/// assert_eq!(e.to_string(), "DLS_THREADS=`many`: expected a whole number of threads >= 1");
/// ```
#[derive(Clone, PartialEq)]
#[non_exhaustive]
pub enum DlsError {
    /// An environment setting (`DLS_SCHEDULE`, `DLS_THREADS`, `DLS_REPORT`) has a bad value.
    Setting {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What is wrong and which values are allowed.
        message: String,
    },
    /// The technique given in the program is invalid (unknown parameter, bad value, ...).
    Technique(TechniqueError),
    /// The loop has more iterates than fit in a `u64` (`None`: more than fit in a `u128`).
    RangeTooLong {
        /// The number of iterates, when it fits in a `u128`.
        len: Option<u128>,
    },
    /// The program was launched by `mpirun`, `mpiexec` or `srun` with several processes but
    /// built without the `mpi` feature: it refuses to run N independent copies.
    MpiNotBuilt {
        /// The launch, as the launcher's variables describe it.
        launch: crate::runtime::launch::Launch,
    },
    /// MPI could not be set up, or the runtime is used in a way MPI does not allow.
    Mpi(String),
    /// A reduction value could not be sent between ranks.
    Wire(String),
    /// Thread pool creation failed.
    Threads(String),
    /// An unknown reduction strategy was named (see [`Strategy`](dls_technique::Strategy)).
    UnknownStrategy(String),
    /// A checked loop's workers disagree and re-executing the suspect's iterates did not clear
    /// the check: the result may be wrong, so none is returned.
    FaultCheck(String),
    /// A checkpoint (`DLS_CHECKPOINT`) that cannot be written, or one of another run.
    Checkpoint(String),
}

impl fmt::Display for DlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DlsError::Setting {
                name,
                value,
                message,
            } => write!(f, "{name}=`{value}`: {message}"),
            DlsError::Technique(e) => write!(f, "technique: {e}"),
            DlsError::RangeTooLong { len: Some(l) } => write!(
                f,
                "loop range has {l} iterates; at most {} (u64::MAX) are supported",
                u64::MAX
            ),
            DlsError::RangeTooLong { len: None } => write!(
                f,
                "loop range has more than u128::MAX iterates; at most {} (u64::MAX) are supported",
                u64::MAX
            ),
            DlsError::MpiNotBuilt { launch } => {
                let (size, copies) = match launch.size {
                    Some(n) => (format!("{n} processes"), format!("{n} independent copies")),
                    None => (
                        "an unknown number of processes".to_string(),
                        "independent copies".to_string(),
                    ),
                };
                let value = match (launch.variable, launch.size, launch.rank) {
                    (v, Some(n), _) if v.ends_with("SIZE") => format!("{v}={n}"),
                    (v, _, Some(r)) => format!("{v}={r}"),
                    (v, _, _) => v.to_string(),
                };
                write!(
                    f,
                    "launched by {} with {size} ({value}), but this program was built without \
                     the `mpi` feature of dls. Refusing to run {copies}. Give your program an \
                     `mpi` feature that turns on dls's, in its Cargo.toml:\n\n    [features]\n    \
                     mpi = [\"dls/mpi\"]\n\nthen rebuild with `cargo build --release --features \
                     mpi` (or run the program without a launcher to use threads)",
                    launch.launcher
                )
            }
            DlsError::Mpi(m) => write!(f, "MPI: {m}"),
            DlsError::Wire(m) => write!(f, "reduction value: {m}"),
            DlsError::Threads(m) => write!(f, "threads: {m}"),
            DlsError::FaultCheck(m) => write!(f, "fault check: {m}"),
            DlsError::Checkpoint(m) => write!(f, "checkpoint: {m}"),
            DlsError::UnknownStrategy(s) => write!(
                f,
                "unknown reduction strategy `{s}`; valid strategies: {}",
                dls_technique::Strategy::NAMES.join(", ")
            ),
        }
    }
}

/// The same text as `Display`, so that `fn main() -> Result<(), Box<dyn Error>>` prints the
/// message (naming the setting and the allowed values) rather than the enum's structure.
impl fmt::Debug for DlsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for DlsError {}

impl From<TechniqueError> for DlsError {
    fn from(e: TechniqueError) -> Self {
        DlsError::Technique(e)
    }
}

impl From<crate::technique::UnknownStrategy> for DlsError {
    fn from(e: crate::technique::UnknownStrategy) -> Self {
        DlsError::UnknownStrategy(e.0)
    }
}
