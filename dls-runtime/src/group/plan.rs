//! The decision between a two-level loop and the one-level fallback for 1 or 2 ranks.

use super::error::GroupError;
use super::layout::GroupLayout;
use super::spec::GroupSpec;

/// How a two-level loop will run.
///
/// ```
/// use dls_runtime::group::{plan, GroupSpec, Plan};
/// let two = plan(&vec!["n".to_string(); 4], &GroupSpec::new(1, 2)).unwrap();
/// assert!(matches!(two, Plan::TwoLevel(_)));
/// let one = plan(&vec!["n".to_string(); 2], &GroupSpec::new(1, 2)).unwrap();
/// assert!(matches!(one, Plan::OneLevel { .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Coordinator plus groups.
    TwoLevel(GroupLayout),
    /// Too few ranks for a coordinator and a group: the outer loop is scheduled over all ranks,
    /// each rank runs its inner loops alone. `warning` is the one line printed (by rank 0).
    OneLevel {
        /// The one-line warning.
        warning: String,
    },
}

/// Validates `spec` and plans the groups for `racks.len()` ranks; on 1 or 2 ranks the loop runs
/// as a one-level loop (documented behaviour, with a one-line warning). Errors: invalid
/// `min`/`max`/coordinator, or fewer than `min + 1` ranks on 3 or more ranks.
///
/// ```
/// use dls_runtime::group::{plan, GroupSpec, Plan};
/// match plan(&vec!["n".to_string(); 1], &GroupSpec::new(2, 4)).unwrap() {
///     Plan::OneLevel { warning } => assert!(warning.contains("one-level")),
///     Plan::TwoLevel(_) => unreachable!(),
/// }
/// assert!(plan(&vec!["n".to_string(); 2], &GroupSpec::new(3, 2)).is_err());
/// ```
pub fn plan(racks: &[String], spec: &GroupSpec) -> Result<Plan, GroupError> {
    spec.validate()?;
    let p = racks.len();
    if p <= 2 {
        return Ok(Plan::OneLevel {
            warning: format!(
                "dls warning: two-level loop on {p} rank(s) runs as a one-level loop (it needs a coordinator plus a group: 3 or more ranks)"
            ),
        });
    }
    GroupLayout::plan(racks, spec).map(Plan::TwoLevel)
}
