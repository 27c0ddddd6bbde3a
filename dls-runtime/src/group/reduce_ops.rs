//! The reduction forms of two-level loops with an operator of [`crate::reduce`]
//! (`reduce(+: x)`, `reduce(max: x)`, `reduce(path::to::merge: x)` of `#[par_doall]`), at both
//! levels.

use super::groups::{BodyResult, Groups};
use super::inner::InnerLoops;
use crate::reduce::Operator;
use crate::runtime::{DlsError, LoopRange, LoopStats, Wire};
use crate::Technique;

impl InnerLoops<'_> {
    /// An inner loop with a reduction (`reduce(op: x)`): every rank of the group gets
    /// `identity ⊕ (all partial results)`.
    ///
    /// ```
    /// use dls_runtime::reduce::Max;
    /// let mut inner = dls_runtime::group::InnerLoops::solo();
    /// let m: f64 = inner.doall_reduce(0..4u8, &"gss".parse().unwrap(), &Max, |i, acc: &mut f64| {
    ///     *acc = acc.max(f64::from(i) * 0.5)
    /// }).unwrap();
    /// assert_eq!(m, 1.5);
    /// ```
    pub fn doall_reduce<R, T, O, B>(
        &mut self,
        range: R,
        technique: &Technique,
        op: &O,
        body: B,
    ) -> Result<T, DlsError>
    where
        R: LoopRange,
        T: Wire,
        O: Operator<T>,
        B: FnMut(R::Index, &mut T),
    {
        self.fold(
            range,
            technique,
            || op.identity(),
            |a, b| op.combine(a, b),
            body,
        )
    }
}

impl Groups<'_> {
    /// A two-level loop with a reduction over the outer iterates (`reduce(op: x)` on the outer
    /// loop): every rank gets `identity ⊕ (all partial results)`. Named after the caller's source
    /// location.
    ///
    /// ```
    /// use dls_runtime::group::GroupSpec;
    /// use dls_runtime::reduce::Sum;
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let rt = dls_runtime::init()?;
    /// let mut groups = rt.group_setup(GroupSpec::new(2, 4))?;
    /// let fac2 = "fac2".parse()?;
    /// // Σ_j Σ_{i < j} i, with the inner sum shared by the ranks of a group.
    /// let (total, _) = groups.doall_2d_reduce(0..20u64, "af".parse()?, &Sum, |j, inner, acc: &mut u64| {
    ///     let part_a = j;                                                     // part A
    ///     *acc += inner.doall_reduce(0..part_a, &fac2, &Sum, |i, s: &mut u64| *s += i)?;
    ///     Ok(())                                                              // part B
    /// })?;
    /// assert_eq!(total, (0..20u64).map(|j| j * j.saturating_sub(1) / 2).sum::<u64>());
    /// # Ok(()) }
    /// ```
    #[track_caller]
    pub fn doall_2d_reduce<R, T, O, B>(
        &mut self,
        range: R,
        technique: Technique,
        op: &O,
        body: B,
    ) -> Result<(T, LoopStats), DlsError>
    where
        R: LoopRange,
        T: Send + Wire,
        O: Operator<T>,
        B: Fn(R::Index, &mut InnerLoops<'_>, &mut T) -> BodyResult + Sync,
    {
        let name = std::panic::Location::caller().to_string();
        self.fold_2d(
            &name,
            range,
            technique,
            || op.identity(),
            body,
            |a, b| op.combine(a, b),
        )
    }
}
