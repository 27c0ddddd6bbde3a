//! Errors of technique parsing and validation.

use std::fmt;

/// An invalid technique specification or parameter. The message names the technique and the
/// parameter, and lists the allowed values.
///
/// ```
/// let e = "nope".parse::<dls_technique::Technique>().unwrap_err();
/// assert!(e.to_string().contains("gss"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TechniqueError {
    message: String,
}

impl TechniqueError {
    /// An error with the given message.
    ///
    /// ```
    /// let e = dls_technique::TechniqueError::new("bad");
    /// assert_eq!(e.to_string(), "bad");
    /// ```
    pub fn new(message: impl Into<String>) -> Self {
        TechniqueError {
            message: message.into(),
        }
    }
}

impl fmt::Display for TechniqueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TechniqueError {}
