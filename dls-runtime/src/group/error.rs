//! Errors of the two-level group setup (`DLS_GroupSetup` in Cariño & Banicescu (2007)).

use std::fmt;

/// Why a two-level group setup was refused. Every message names the setting at fault and the
/// allowed values.
///
/// ```
/// use dls_runtime::group::{GroupError, GroupSpec};
/// let e = GroupSpec::new(4, 2).validate().unwrap_err();
/// assert!(matches!(e, GroupError::Spec(_)));
/// assert!(e.to_string().contains("min (4) is above max (2)"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GroupError {
    /// `min`/`max`/`coordinator` out of their allowed ranges.
    Spec(String),
    /// The rack map (`DLS_RACKS` or its file) does not parse or cannot be read.
    RackMap(String),
    /// Fewer ranks than the requested grouping needs.
    TooFewRanks(String),
    /// The communicators could not be built (MPI backend).
    Setup(String),
}

impl fmt::Display for GroupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroupError::Spec(m) => write!(f, "group setup: {m}"),
            GroupError::RackMap(m) => write!(f, "DLS_RACKS: {m}"),
            GroupError::TooFewRanks(m) => write!(f, "group setup: {m}"),
            GroupError::Setup(m) => write!(f, "group setup: {m}"),
        }
    }
}

impl std::error::Error for GroupError {}
