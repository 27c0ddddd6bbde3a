//! Errors of simulator settings.

use std::fmt;

/// An invalid simulator setting. The message names the setting and the allowed values.
///
/// ```
/// let e = dls_runtime::sim::SimError::new("--p: must be at least 1");
/// assert!(e.to_string().starts_with("--p"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimError {
    message: String,
}

impl SimError {
    /// An error with the given message.
    ///
    /// ```
    /// assert_eq!(dls_runtime::sim::SimError::new("bad").to_string(), "bad");
    /// ```
    pub fn new(message: impl Into<String>) -> Self {
        SimError {
            message: message.into(),
        }
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for SimError {}

impl From<crate::TechniqueError> for SimError {
    fn from(e: crate::TechniqueError) -> Self {
        SimError::new(e.to_string())
    }
}
