//! One reduction value: what a loop folds its iterates with. `identity` makes a worker's empty
//! value, `body` folds iterates into it (one iterate, or a run of them:
//! [`Iterates`](crate::runtime::Iterates)), and `combine` merges two workers' values
//! (associative, in any tree order). The engine, its drivers and finishes, and the checked
//! adaptor pass this one value instead of three closures, as HPX's reduction object does.

/// A loop's reduction: identity, body, and combine.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reduction<Id, B, C> {
    /// A worker's empty value.
    pub(crate) identity: Id,
    /// Folds iterates into a worker's value.
    pub(crate) body: B,
    /// Merges two values.
    pub(crate) combine: C,
}
