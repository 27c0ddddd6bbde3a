//! Starting a loop: where its workers are ([`Placement`]), whether it is too small to share
//! (`alone.rs`), `auto`'s choice, the backend's start (the agreement of the ranks) and the
//! loop's handle with how it ends (a report, or quietly).

use super::alone;
use super::plan::{LoopConfig, Placement};
use crate::runtime::error::DlsError;
use crate::runtime::loops::handle::{Ending, History, Loop, UntypedLoop};
use crate::runtime::loops::panic_ctx;
use crate::runtime::loops::range::LoopRange;
use crate::runtime::loops::source::{ChunkSource, SharedSource};
use crate::runtime::observe::stats::ReportMode;
use crate::runtime::Runtime;
use crate::Technique;

impl Runtime {
    /// Starts the loop `config` describes over `range` on every worker (or, nested in an
    /// iterate, on the calling thread alone). `described` says what kind of loop it is and what
    /// the program chose for it (both checked across MPI ranks at the start).
    pub(crate) fn make_loop<R: LoopRange>(
        &self,
        config: &LoopConfig,
        name: &str,
        range: R,
        technique: Technique,
        described: Described<impl Fn() -> String, impl Fn() -> Vec<(String, String)>>,
        flags: StartFlags,
    ) -> Result<(Loop<R::Index>, Placement), DlsError> {
        let Described { kind, options } = described;
        let StartFlags { tolerant, sizing } = flags;
        let (first, n) = range.first_and_len()?;
        let technique = self.effective_technique(technique);
        if panic_ctx::in_iterate() || self.shared.platform.busy() {
            // Nested inside an iterate, or started by a thread spawned inside one while the
            // workers run a loop: this thread alone, no report.
            let source = Box::new(SharedSource::new(&technique, n, 1, None)?);
            let lp = self
                .untyped(
                    name,
                    technique,
                    n,
                    source,
                    Reporting::new(config, ReportMode::Off, false),
                )
                .nested_in(panic_ctx::save());
            return Ok((Loop::new(first, lp), Placement::Nested));
        }
        self.shared.platform.may_start_here()?;
        // A loop too small to share runs on this thread alone (`alone.rs`): a scheduler of one
        // worker handing out the whole loop as one chunk (on one thread every technique runs
        // the iterates in index order), the rest as for every loop.
        let sized = sizing && self.sizes_loops(&technique, config);
        if sized && alone::runs_alone(name, n) {
            let whole = Technique::new(crate::technique::Kind::Static);
            let source = Box::new(SharedSource::new(&whole, n, 1, None)?);
            let mut lp = self
                .untyped(
                    name,
                    technique,
                    n,
                    source,
                    Reporting::new(config, self.shared.settings.report.clone(), false),
                )
                .over_all_workers();
            lp.sized = true;
            lp.alone = true;
            if let Some(claims) = lp.source().claims() {
                claims.untimed();
            }
            return Ok((Loop::new(first, lp), Placement::AllWorkers));
        }
        let p = self.workers();
        let first_text = || {
            if n == 0 {
                "(none: empty)".into()
            } else {
                first.to_string()
            }
        };
        let at = crate::runtime::backend::platform::LoopStart {
            name,
            n,
            first: &first_text,
            kind: &kind,
            options: &options,
            tolerant,
        };
        let (technique, auto) = if technique.kind.entry().selects {
            let (t, a) = self.resolve_auto(&at, p, &technique);
            (t, Some(a))
        } else {
            (technique, None)
        };
        let weights = self.awf_weights_for(name, &technique, p);
        let source = self.shared.platform.start(&at, &technique, weights)?;
        let lp = self
            .untyped(
                name,
                technique,
                n,
                source,
                Reporting::new(config, self.shared.settings.report.clone(), auto.is_some()),
            )
            .over_all_workers()
            .with_progress(self.shared.settings.progress);
        let mut lp = lp;
        lp.sized = sized;
        // A loop whose report nobody reads (a `#[par_doall]` loop without `DLS_REPORT`, its
        // statistics dropped) and that `auto` does not measure lists no chunk map and times no
        // chunk: its workers' claims write no map entry and seldom read the clock.
        if auto.is_none() && !lp.reads_cpu_clock() {
            if let Some(claims) = lp.source().claims() {
                claims.untimed();
            }
        }
        if let Some(a) = auto {
            lp.note_auto(a);
        }
        Ok((Loop::new(first, lp), Placement::AllWorkers))
    }

    /// A loop of this runtime over `source`, reporting to `mode`; a loop over more than one
    /// worker (or process) is one more time step of its name's history. `auto`: the technique
    /// is `auto`'s choice, whose run `auto` measures.
    pub(crate) fn untyped(
        &self,
        name: &str,
        technique: Technique,
        n: u64,
        source: Box<dyn ChunkSource>,
        reporting: Reporting,
    ) -> UntypedLoop {
        let Reporting {
            mode,
            auto,
            statistics,
        } = reporting;
        let history = if source.workers() > 1 || source.exchange().is_some() {
            History::Record
        } else {
            History::Skip
        };
        let cpu = statistics || mode != ReportMode::Off;
        // Nobody reads the report of a loop in this process whose statistics its caller drops
        // (a `#[par_doall]` loop without `DLS_REPORT`), whose technique learns nothing across
        // loops (AWF's history) and that `auto` does not measure: it ends without one.
        let read = cpu
            || auto
            || source.exchange().is_some()
            || technique.kind.entry().learns_across_loops;
        let ending = if read {
            Ending::Report {
                memory: Box::new(self.clone()),
                mode,
                history,
            }
        } else {
            Ending::Quiet
        };
        UntypedLoop::new(name.into(), technique, n, source, ending).with_cpu_clock(cpu)
    }

    /// Whether this runtime's loops of `technique` learn whether they are too small to share
    /// (`alone.rs`): on the threads backend of more than one worker, for loops whose report nobody
    /// reads (no `DLS_REPORT`, statistics dropped: `#[par_doall]`), not chosen by `auto` nor of a
    /// technique that learns across loops, without checkpoints, fault injection or `DLS_DELAY`
    /// (set at all: a scalability test's runs without a delay must share loops as its delayed
    /// runs do).
    fn sizes_loops(&self, technique: &Technique, config: &LoopConfig) -> bool {
        let s = &self.shared.settings;
        matches!(self.backend(), crate::runtime::Backend::Threads { threads } if threads > 1)
            && !config.cpu_clock
            && !technique.kind.entry().selects
            && !technique.kind.entry().learns_across_loops
            && s.checkpoint.is_none()
            && s.inject.is_none()
            && !alone::delay_set()
    }
}

/// What a loop is, in words, for the ranks' agreement at its start: its kind (with its result
/// type) and its options as `(what, value)` pairs (`LoopConfig::agreed`); made only where a
/// backend needs them (MPI).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Described<K, O> {
    pub(crate) kind: K,
    pub(crate) options: O,
}

/// What a loop's start needs to know of it beyond its range and kind.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StartFlags {
    /// The loop may re-execute chunks or write checkpoints (the ranks agree on it at the start).
    pub(crate) tolerant: bool,
    /// The loop may run alone when it is small (`alone.rs`).
    pub(crate) sizing: bool,
}

/// How a loop reports: the report's mode, whether `auto` measures it, and whether its caller
/// reads its statistics.
#[derive(Debug, Clone)]
pub(crate) struct Reporting {
    mode: ReportMode,
    auto: bool,
    statistics: bool,
}

impl Reporting {
    /// A loop of `config` reporting to `mode`; `auto`: the technique is `auto`'s choice.
    pub(crate) fn new(config: &LoopConfig, mode: ReportMode, auto: bool) -> Reporting {
        Reporting {
            mode,
            auto,
            statistics: config.statistics,
        }
    }
}
