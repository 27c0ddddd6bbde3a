//! [`GroupSpec`]: the requested size range of the inner communicators (Cariño & Banicescu 2007 `minSize`,
//! `maxSize`, `coordinator` of `DLS_GroupSetup`).

use super::error::GroupError;

/// Requested grouping: every group (inner communicator, `iComm` in Cariño & Banicescu (2007)) gets between `min` and
/// `max` ranks; `coordinator` is the world rank that schedules the outer loop and executes no
/// iterates.
///
/// ```
/// use dls_runtime::group::GroupSpec;
/// let s = GroupSpec::new(2, 4);
/// assert_eq!((s.min, s.max, s.coordinator), (2, 4, 0));
/// assert!(s.validate().is_ok());
/// assert!(GroupSpec::new(0, 4).validate().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupSpec {
    /// Fewest ranks in a group (at least 1).
    pub min: usize,
    /// Most ranks in a group (at least `min`).
    pub max: usize,
    /// World rank of the coordinator (default 0).
    pub coordinator: usize,
}

impl GroupSpec {
    /// Groups of `min..=max` ranks, coordinator on rank 0.
    ///
    /// ```
    /// assert_eq!(dls_runtime::group::GroupSpec::new(1, 3).max, 3);
    /// ```
    pub fn new(min: usize, max: usize) -> Self {
        GroupSpec {
            min,
            max,
            coordinator: 0,
        }
    }

    /// The same spec with another coordinator rank.
    ///
    /// ```
    /// assert_eq!(dls_runtime::group::GroupSpec::new(1, 3).with_coordinator(2).coordinator, 2);
    /// ```
    pub fn with_coordinator(mut self, coordinator: usize) -> Self {
        self.coordinator = coordinator;
        self
    }

    /// Checks `1 <= min <= max`.
    ///
    /// ```
    /// use dls_runtime::group::GroupSpec;
    /// assert!(GroupSpec::new(3, 3).validate().is_ok());
    /// assert!(GroupSpec::new(3, 2).validate().unwrap_err().to_string().contains("min (3) is above max (2)"));
    /// ```
    pub fn validate(&self) -> Result<(), GroupError> {
        if self.min < 1 {
            return Err(GroupError::Spec(format!(
                "min ({}) must be at least 1 (allowed: 1 <= min <= max)",
                self.min
            )));
        }
        if self.min > self.max {
            return Err(GroupError::Spec(format!(
                "min ({}) is above max ({}) (allowed: 1 <= min <= max)",
                self.min, self.max
            )));
        }
        Ok(())
    }
}

impl Default for GroupSpec {
    /// `min = 1`, `max = usize::MAX`: one group per rack.
    fn default() -> Self {
        GroupSpec::new(1, usize::MAX)
    }
}
