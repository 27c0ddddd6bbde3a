//! Errors of simulator settings.

crate::technique::message_error! {
    /// An invalid simulator setting. The message names the setting and the allowed values.
    ///
    /// ```
    /// let e = dls_model::sim::SimError::new("--p: must be at least 1");
    /// assert!(e.to_string().starts_with("--p"));
    /// assert_eq!(dls_model::sim::SimError::new("bad").to_string(), "bad");
    /// ```
    pub struct SimError;
}

impl From<crate::TechniqueError> for SimError {
    fn from(e: crate::TechniqueError) -> Self {
        SimError::new(e.to_string())
    }
}
