//! One reduction value: what a loop folds its iterates with. `identity` makes a worker's empty
//! value, `body` folds a run of iterates ([`Iterates`]) into it, and `combine` merges two
//! workers' values (associative, in any tree order). The engine passes this one value to its
//! drivers and finishes instead of three closures and their bounds, as HPX's reduction object
//! does.

/// A loop's reduction: identity, body over runs of iterates, and combine.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reduction<Id, B, C> {
    /// A worker's empty value.
    pub(crate) identity: Id,
    /// Folds a run of iterates into a worker's value.
    pub(crate) body: B,
    /// Merges two values.
    pub(crate) combine: C,
}
