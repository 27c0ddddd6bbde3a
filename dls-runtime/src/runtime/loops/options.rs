//! One value that describes how a loop runs, beyond its range and its closures: its name, its
//! technique, how its partial results travel, whether it may re-execute iterates, whether its
//! merge keeps the iterates' order, and whether it checks itself. Every loop kind takes one
//! ([`Runtime::run`](crate::Runtime::run), `Groups::run`, `InnerLoops::run`), and every feature a
//! loop does not ask for is absent from its path: a new feature is one field here plus its own
//! file below the engine.
//!
//! ```
//! use dls_runtime::runtime::options::LoopOptions;
//! let rt = dls_runtime::init().unwrap();
//! let options = LoopOptions::new("words", "ss".parse().unwrap()).ordered();
//! let (s, _) = rt.run(&options, 0..3u8, String::new,
//!     |i, s: &mut String| s.push_str(["a", "b", "c"][i as usize]), |a, b| a + &b).unwrap();
//! assert_eq!(s, "abc");
//! ```

use crate::fault_check::{CheckTest, Observation};
use crate::Technique;
use dls_technique::Strategy;

/// How one loop runs (see the [module documentation](self)). Built with [`LoopOptions::new`] and
/// one method per feature; the fields a loop leaves unset take the runtime's settings
/// (`DLS_REDUCTION`, `DLS_REEXECUTE`, `DLS_CHECK`, …), which also override what is set here.
///
/// ```
/// use dls_runtime::runtime::{checked::Check, options::LoopOptions};
/// use dls_runtime::Strategy;
/// let o = LoopOptions::new("fit", "gss".parse().unwrap())
///     .reduction(Strategy::Tree)
///     .reexecute(false)
///     .check(Check::default());
/// assert_eq!(o.name, "fit");
/// assert_eq!((o.reduction, o.reexecute, o.ordered), (Some(Strategy::Tree), Some(false), false));
/// assert!(o.check.is_some());
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct LoopOptions {
    /// The loop's name: in its report, its checkpoints and the history adaptive techniques keep.
    pub name: String,
    /// How its iterates are handed out (`DLS_SCHEDULE` overrides it).
    pub technique: Technique,
    /// How its partial results travel between processes (`DLS_REDUCTION` overrides it; unset:
    /// the runtime handle's, else [`Strategy::Auto`]).
    pub reduction: Option<Strategy>,
    /// Whether it re-executes the iterates of a late worker (`DLS_REEXECUTE` overrides it; unset:
    /// the runtime handle's, else on).
    pub reexecute: Option<bool>,
    /// Whether its merge may depend on order: the partial results are then combined in the
    /// iterates' order, as the serial loop combines them.
    pub ordered: bool,
    /// Whether it checks itself across its workers (Wegman's stochastic domain decomposition):
    /// the body then returns each iterate's value ([`IterateValue`]).
    pub check: Option<Check>,
    /// Whether the loop's caller reads its statistics: `Some(true)` ([`LoopOptions::statistics`]),
    /// `Some(false)` for `#[par_doall]` loops, which drop them, unset: the runtime handle's
    /// ([`Runtime::with_statistics`](crate::Runtime::with_statistics), else not). A loop whose
    /// statistics nobody reads builds none and reads no CPU clock unless a report is printed.
    statistics: Option<bool>,
}

impl LoopOptions {
    /// A loop named `name` scheduled by `technique`, with every feature at the runtime's setting.
    ///
    /// ```
    /// let o = dls_runtime::runtime::options::LoopOptions::new("rows", "fac2".parse().unwrap());
    /// assert!(!o.ordered && o.check.is_none() && o.reduction.is_none());
    /// ```
    pub fn new(name: impl Into<String>, technique: Technique) -> LoopOptions {
        LoopOptions {
            name: name.into(),
            technique,
            reduction: None,
            reexecute: None,
            ordered: false,
            check: None,
            statistics: None,
        }
    }

    /// The strategy its partial results travel by.
    ///
    /// ```
    /// use dls_runtime::{runtime::options::LoopOptions, Strategy};
    /// let o = LoopOptions::new("x", "ss".parse().unwrap()).reduction(Strategy::Master);
    /// assert_eq!(o.reduction, Some(Strategy::Master));
    /// ```
    pub fn reduction(mut self, strategy: Strategy) -> LoopOptions {
        self.reduction = Some(strategy);
        self
    }

    /// Whether it may re-execute iterates (`false` for a loop whose iterates have side effects
    /// that must happen once).
    ///
    /// ```
    /// let o = dls_runtime::runtime::options::LoopOptions::new("x", "ss".parse().unwrap())
    ///     .reexecute(false);
    /// assert_eq!(o.reexecute, Some(false));
    /// ```
    pub fn reexecute(mut self, on: bool) -> LoopOptions {
        self.reexecute = Some(on);
        self
    }

    /// The loop's caller reads its statistics: the loop builds its report (chunk map, chunk
    /// times, CPU clocks, the report's figures) and returns it in [`LoopStats::report`]. Without
    /// it the loop takes its runtime handle's choice
    /// ([`Runtime::with_statistics`](crate::Runtime::with_statistics)), by default none: the
    /// returned [`LoopStats`] then hold the calling process's counters only (`iterates`,
    /// `work_time_s`, `chunks`) and an empty report. `DLS_REPORT` prints reports either way.
    ///
    /// ```
    /// use dls_runtime::runtime::options::LoopOptions;
    /// let rt = dls_runtime::init().unwrap();
    /// let add = |a: u64, b: u64| a + b;
    /// let quiet = LoopOptions::new("sum", "ss".parse().unwrap());
    /// let (_, stats) = rt.run(&quiet, 0..10u64, || 0, |i, s: &mut u64| *s += i, add).unwrap();
    /// assert_eq!((stats.iterates, stats.report.n), (10, 0));
    /// let read = quiet.clone().statistics();
    /// let (_, stats) = rt.run(&read, 0..10u64, || 0, |i, s: &mut u64| *s += i, add).unwrap();
    /// assert_eq!((stats.iterates, stats.report.n, stats.report.chunk_map.len()), (10, 10, 10));
    /// ```
    ///
    /// [`LoopStats`]: crate::LoopStats
    /// [`LoopStats::report`]: crate::LoopStats::report
    pub fn statistics(mut self) -> LoopOptions {
        self.statistics = Some(true);
        self
    }

    /// The loop's statistics are not read by its caller: none are built (`#[par_doall]`), even
    /// on a handle that asks for them.
    pub(crate) fn statistics_unread(mut self) -> LoopOptions {
        self.statistics = Some(false);
        self
    }

    /// Whether the loop's caller reads its statistics: `None` leaves it to the runtime handle.
    pub(crate) fn statistics_read(&self) -> Option<bool> {
        self.statistics
    }

    /// Its merge depends on order: combine in the iterates' order. Each worker then keeps one
    /// partial result per run of consecutive iterates it ran (per iterate in a checked loop,
    /// whose iterates run in a random order), so memory grows with the number of runs.
    ///
    /// ```
    /// let o = dls_runtime::runtime::options::LoopOptions::new("x", "ss".parse().unwrap()).ordered();
    /// assert!(o.ordered);
    /// ```
    pub fn ordered(mut self) -> LoopOptions {
        self.ordered = true;
        self
    }

    /// It checks itself as `check` says (the body returns each iterate's value).
    ///
    /// ```
    /// use dls_runtime::runtime::{checked::Check, options::LoopOptions};
    /// let o = LoopOptions::new("x", "ss".parse().unwrap()).check(Check::default());
    /// assert_eq!(o.check.unwrap().alpha, 1e-4);
    /// ```
    pub fn check(mut self, check: Check) -> LoopOptions {
        self.check = Some(check);
        self
    }
}

/// What one iterate's body returns: nothing (`()`), or, in a checked loop, the iterate's value
/// (`f64`), a regression row (`([f64; N], f64)`) or an observation that may be absent (an
/// iterate that ended early).
///
/// ```
/// use dls_runtime::runtime::options::IterateValue;
/// assert!(().observation().is_none());
/// assert_eq!(2.0.observation().unwrap().predictors(), 0);
/// assert_eq!(([1.0, 2.0], 3.0).observation().unwrap().predictors(), 2);
/// ```
pub trait IterateValue {
    /// Whether the body yields values a check can test.
    const OBSERVES: bool;
    /// The value a check tests, if any.
    fn observation(self) -> Option<Observation>;
}

impl IterateValue for () {
    const OBSERVES: bool = false;
    fn observation(self) -> Option<Observation> {
        None
    }
}

impl IterateValue for f64 {
    const OBSERVES: bool = true;
    fn observation(self) -> Option<Observation> {
        Some(Observation::value(self))
    }
}

impl<const N: usize> IterateValue for ([f64; N], f64) {
    const OBSERVES: bool = true;
    fn observation(self) -> Option<Observation> {
        Some(Observation::from(self))
    }
}

impl IterateValue for Option<Observation> {
    const OBSERVES: bool = true;
    fn observation(self) -> Option<Observation> {
        self
    }
}

/// The default significance level of a fault check: 1e-4, so that a run that checks a thousand
/// loops expects 0.1 false alarms, while a faulty worker whose values are off by a few standard
/// deviations of a mean is still found (the paper asks for a very small level, so that only
/// egregious deviations are flagged).
pub const DEFAULT_ALPHA: f64 = 1e-4;

/// What a checked loop does (`DLS_CHECK`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CheckMode {
    /// No check: the loop runs as an unchecked one, in its own order.
    Off,
    /// Test, and report a rejection (the loop report's `check`, and a line on stderr).
    #[default]
    Warn,
    /// Test; on a rejection that names a suspect worker, run the suspect's iterates again on
    /// the other workers, test again, and return the corrected result, or an error when the
    /// check still fails (never a result that failed its test).
    Repair,
}

/// How a loop is checked.
///
/// ```
/// let c = dls_runtime::runtime::checked::Check::default();
/// assert_eq!(c.alpha, 1e-4);
/// assert!(!c.exchangeable);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Check {
    /// Significance level of the test across workers.
    pub alpha: f64,
    /// The iteration space is exchangeable (the values do not depend on the index): run the
    /// iterates in their own order, without the permutation.
    pub exchangeable: bool,
    /// Seed of the permutation (recorded in the report).
    pub seed: u64,
    /// Which test decides ([`CheckTest::OneAgainstRest`] by default: each worker against the
    /// others at `alpha / workers`, which keeps its power as workers are added).
    pub test: CheckTest,
}

impl Default for Check {
    fn default() -> Self {
        Check {
            alpha: DEFAULT_ALPHA,
            exchangeable: false,
            seed: 0x5eed_d15c_0ffe_e000,
            test: CheckTest::default(),
        }
    }
}
