//! What a nested `#[par_doall]` loop expands to: the outer loop is one call of [`run_loop_2d`],
//! each inner loop one call of [`InnerLoops::run_loop`]. Ordinary functions, usable without the macro.
//!
//! ```
//! use dls_runtime::group::{run_loop_2d, InnerLoops};
//! // #[par_doall(schedule = "af", group(min = 2, max = 4), reduce(+: total))]
//! // for j in 0..10u64 { let n = j; #[par_doall(schedule = "fac2", reduce(+: s))] for i in 0..n { s += i; } total += s; }
//! let (total,) = run_loop_2d("2d", "af", 2, 4, 0..10u64, || (0u64,), |j, inner, acc| {
//!     let n = j;
//!     let (s,) = InnerLoops::run_loop(inner, "inner", "fac2", 0..n, || (0u64,), |i, a| a.0 += i,
//!                                |a, b| (a.0 + b.0,));
//!     acc.0 += s;
//! }, |a, b| (a.0 + b.0,));
//! assert_eq!(total, (0..10u64).map(|j| j * j.saturating_sub(1) / 2).sum::<u64>());
//! ```

use super::groups::Groups;
use super::inner::InnerLoops;
use super::spec::GroupSpec;
use crate::macro_support::technique;
use crate::runtime::{DlsError, LoopRange, Wire};

/// Prints `error: loop <name>: <reason>` and exits with status 1 (as one-level macro loops do).
fn fail(name: &str, e: &DlsError) -> ! {
    eprintln!("error: loop {name}: {e}");
    std::process::exit(1)
}

/// A two-level loop on the current runtime: groups of `min..=max` ranks (`DLS_RACKS`), the
/// outer iterates of `range` scheduled with `schedule` among the groups, `body(j, inner, acc)`
/// run in lock step by the ranks of a group. Returns the combined accumulator on every rank. An
/// error (bad group sizes, rack map, technique, range) ends the program with status 1 and a
/// message naming the loop.
#[allow(clippy::too_many_arguments)]
pub fn run_loop_2d<R, T, Id, B, C>(
    name: &str,
    schedule: &str,
    min: usize,
    max: usize,
    range: R,
    identity: Id,
    body: B,
    combine: C,
) -> T
where
    R: LoopRange,
    T: Send + Wire,
    Id: Fn() -> T + Sync,
    B: Fn(R::Index, &mut InnerLoops<'_>, &mut T) + Sync,
    C: Fn(T, T) -> T + Sync,
{
    let run = || {
        let technique = technique(schedule)?;
        let rt = crate::current()?;
        let mut groups: Groups<'_> = rt.group_setup(GroupSpec::new(min, max))?;
        groups.fold_2d(
            name,
            range,
            technique,
            identity,
            |j, inner, acc| {
                body(j, inner, acc);
                Ok(())
            },
            combine,
        )
    };
    match run() {
        Ok((value, _stats)) => value,
        Err(e) => fail(name, &e),
    }
}

impl InnerLoops<'_> {
    /// An inner loop of a two-level macro loop: [`InnerLoops::fold`] with the schedule given as text;
    /// an error ends the program with status 1 and a message naming the loop.
    ///
    /// ```
    /// let mut inner = dls_runtime::group::InnerLoops::solo();
    /// let n: u32 = inner.run_loop("count", "gss", 0..7u8, || 0, |_, n| *n += 1, |a, b| a + b);
    /// assert_eq!(n, 7);
    /// ```
    pub fn run_loop<R, T, Id, B, C>(
        &mut self,
        name: &str,
        schedule: &str,
        range: R,
        identity: Id,
        body: B,
        combine: C,
    ) -> T
    where
        R: LoopRange,
        T: Wire,
        Id: Fn() -> T,
        B: FnMut(R::Index, &mut T),
        C: Fn(T, T) -> T,
    {
        let run = || -> Result<T, DlsError> {
            let technique = technique(schedule)?;
            self.fold(range, &technique, identity, combine, body)
        };
        match run() {
            Ok(v) => v,
            Err(e) => fail(name, &e),
        }
    }
}
