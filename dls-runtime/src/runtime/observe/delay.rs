//! Synthetic delays (`DLS_DELAY`): the perturbations of the scalability test of Lyon & Kacker
//! (1994). A delay makes one region of the program slower without changing what it computes;
//! comparing run times with and without it, at two worker counts, tells whether that region's
//! cost shrinks as workers are added (`dls scaltest`, `crate::scaltest`).
//!
//! `DLS_DELAY` is a comma-separated list of `<region>:<duration>[:spin|sleep]`:
//!
//! | region | where the delay is spent | how often |
//! |--------|--------------------------|-----------|
//! | `body` | in the worker, before each iterate of a loop (counted in the chunk's work time) | once per iterate |
//! | `chunk` | where the scheduler computes a chunk (threads: under the scheduler's lock; MPI: rank 0's service thread), so requests queue behind it | once per chunk handed out |
//! | `merge` | in each combine of two partial results (reductions, gathers, two-level loops; not the empty results of a loop without one) | once per merge |
//! | `gather` | where a `gather(...)` log is written into its vector, on every process | once per element written |
//! | any other name | on entry to [`region`]`(name, ...)`, the code a program marks, e.g. the serial code between two loops | once per entry |
//!
//! `spin` (the default) busy-waits on a monotonic clock: it models extra computation and keeps a
//! core busy. `sleep` blocks the thread: it models waiting, and lets more workers than cores
//! overlap their delays (so that, on a machine with 2 cores, 2 against 4 workers still differ).
//!
//! The variable is read once per process, on first use (the runtime's settings also check it,
//! so that [`init`](crate::init) refuses a bad value). With `DLS_DELAY` unset, each hook is one
//! load of an initialised `OnceLock` and a predictable branch: the body hook is tested once per
//! chunk, not per iterate.
//!
//! ```
//! use dls_runtime::runtime::delay::{Delay, DelayKind, Delays};
//! let d = Delays::parse("body:20us,setup:5ms:sleep").unwrap();
//! assert_eq!(d.body, Some(Delay { seconds: 20e-6, kind: DelayKind::Spin }));
//! assert_eq!(d.region("setup").unwrap().kind, DelayKind::Sleep);
//! assert!(d.chunk.is_none());
//! ```

use crate::runtime::annotate::sync::AtomicBool;
use crate::runtime::annotate::sync::Mutex;
use crate::runtime::annotate::sync::OnceLock;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use crate::runtime::error::DlsError;

/// The regions the runtime itself delays; every other name in `DLS_DELAY` is a [`region`].
///
/// ```
/// assert!(dls_runtime::runtime::delay::BUILT_IN_REGIONS.contains(&"body"));
/// ```
pub const BUILT_IN_REGIONS: [&str; 4] = ["body", "chunk", "merge", "gather"];

/// How a delay is spent.
///
/// ```
/// use dls_runtime::runtime::delay::DelayKind;
/// assert_eq!(DelayKind::default(), DelayKind::Spin);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum DelayKind {
    /// Busy-wait on a monotonic clock (extra computation; keeps the core busy).
    #[default]
    Spin,
    /// Block the thread (waiting; leaves the core to others).
    Sleep,
}

impl DelayKind {
    /// The word `DLS_DELAY` uses for this kind.
    ///
    /// ```
    /// use dls_runtime::runtime::delay::DelayKind;
    /// assert_eq!(DelayKind::Sleep.name(), "sleep");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            DelayKind::Spin => "spin",
            DelayKind::Sleep => "sleep",
        }
    }
}

/// One synthetic delay: how long and how it is spent.
///
/// ```
/// use dls_runtime::runtime::delay::{Delay, DelayKind};
/// let d = Delay { seconds: 1e-3, kind: DelayKind::Sleep };
/// let t = std::time::Instant::now();
/// d.wait(2);
/// assert!(t.elapsed().as_secs_f64() >= 2e-3);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Delay {
    /// Seconds per occurrence (> 0).
    pub seconds: f64,
    /// Spin or sleep.
    pub kind: DelayKind,
}

impl Delay {
    /// Spends `times` occurrences of the delay, in one wait (see [`Delay`]).
    pub fn wait(&self, times: u64) {
        if times == 0 {
            return;
        }
        let total = Duration::from_secs_f64(self.seconds * times as f64);
        match self.kind {
            DelayKind::Sleep => std::thread::sleep(total),
            DelayKind::Spin => {
                let end = Instant::now() + total;
                while Instant::now() < end {
                    std::hint::spin_loop();
                }
            }
        }
    }
}

/// The delays of `DLS_DELAY`, one optional delay per region.
///
/// ```
/// use dls_runtime::runtime::delay::Delays;
/// assert!(Delays::parse("").unwrap().is_empty());
/// let e = Delays::parse("body=2ms").unwrap_err().to_string();
/// assert!(e.starts_with("DLS_DELAY=`body=2ms`") && e.contains("chunk, merge, gather"), "{e}");
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Delays {
    /// Before each iterate.
    pub body: Option<Delay>,
    /// Per chunk handed out, where the scheduler computes it.
    pub chunk: Option<Delay>,
    /// Per combine of two partial results.
    pub merge: Option<Delay>,
    /// Per element a gather writes.
    pub gather: Option<Delay>,
    /// Regions a program marks with [`region`], by name.
    pub regions: Vec<(String, Delay)>,
}

impl Delays {
    /// Parses a `DLS_DELAY` value: comma-separated `<region>:<duration>[:spin|sleep]`, a
    /// duration such as `20us`, `1.5ms` or `0.002` (seconds). An empty value means no delay.
    ///
    /// ```
    /// use dls_runtime::runtime::delay::Delays;
    /// let d = Delays::parse("merge:1ms, between:50ms:sleep").unwrap();
    /// assert_eq!(d.merge.unwrap().seconds, 1e-3);
    /// assert_eq!(d.region("between").unwrap().seconds, 0.05);
    /// assert!(Delays::parse("body:0s").unwrap_err().to_string().contains("> 0"));
    /// assert!(Delays::parse("body:1us,,chunk:1us").unwrap_err().to_string().contains("empty"));
    /// ```
    pub fn parse(value: &str) -> Result<Delays, DlsError> {
        let bad = |why: String| DlsError::Setting {
            name: "DLS_DELAY",
            value: value.to_string(),
            message: format!(
                "{why}; expected a comma-separated list of <region>:<duration>[:spin|sleep], \
                 the region one of body, chunk, merge, gather or the name of a dls::region \
                 (letters, digits, _ and -), the duration > 0 such as 20us, 1.5ms or 0.002 \
                 (seconds), e.g. body:20us,between:5ms:sleep"
            ),
        };
        let mut delays = Delays::default();
        let mut seen: Vec<String> = Vec::new();
        if value.trim().is_empty() {
            return Ok(delays);
        }
        for item in value.split(',').map(str::trim) {
            if item.is_empty() {
                // `body:1us,,chunk:1us`: a lost item, most likely (issue 43).
                return Err(bad(
                    "an item is empty (two commas in a row, or a comma at either end)".into(),
                ));
            }
            let mut parts = item.split(':').map(str::trim);
            let region = parts.next().unwrap_or_default();
            let (Some(duration), kind) = (parts.next(), parts.next()) else {
                return Err(bad(format!("`{item}` has no `:<duration>`")));
            };
            if parts.next().is_some() {
                return Err(bad(format!("`{item}` has more than three parts")));
            }
            if region.is_empty()
                || !region
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Err(bad(format!("`{region}` is not a region name")));
            }
            if seen.iter().any(|r| r == region) {
                return Err(bad(format!("region `{region}` is given twice")));
            }
            seen.push(region.to_string());
            let seconds = dls_technique::parse_duration(duration)
                .filter(|s| s.is_finite() && *s > 0.0 && *s <= 3600.0)
                .ok_or_else(|| {
                    bad(format!(
                        "`{duration}` is not a duration > 0 and at most 1 hour"
                    ))
                })?;
            let kind = match kind.map(str::to_ascii_lowercase).as_deref() {
                None | Some("spin") => DelayKind::Spin,
                Some("sleep") => DelayKind::Sleep,
                Some(other) => return Err(bad(format!("`{other}` is not spin or sleep"))),
            };
            let delay = Some(Delay { seconds, kind });
            match region {
                "body" => delays.body = delay,
                "chunk" => delays.chunk = delay,
                "merge" => delays.merge = delay,
                "gather" => delays.gather = delay,
                _ => delays
                    .regions
                    .push((region.to_string(), Delay { seconds, kind })),
            }
        }
        Ok(delays)
    }

    /// True when no region is delayed.
    ///
    /// ```
    /// assert!(dls_runtime::runtime::delay::Delays::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        *self == Delays::default()
    }

    /// The delay of the program region `name` (not a built-in one), if any.
    ///
    /// ```
    /// use dls_runtime::runtime::delay::Delays;
    /// assert!(Delays::parse("setup:1ms").unwrap().region("setup").is_some());
    /// assert!(Delays::parse("setup:1ms").unwrap().region("other").is_none());
    /// ```
    pub fn region(&self, name: &str) -> Option<Delay> {
        self.regions
            .iter()
            .find(|(r, _)| r == name)
            .map(|(_, d)| *d)
    }
}

/// The delays in force in this process: `DLS_DELAY`, read once, on first use.
///
/// A bad value panics with the setting's error; [`init`](crate::init) refuses it earlier, so a
/// program that starts its runtime first gets the error from there.
///
/// ```
/// // Without DLS_DELAY in the environment, nothing is delayed.
/// if std::env::var_os("DLS_DELAY").is_none() {
///     assert!(dls_runtime::runtime::delay::active().is_empty());
/// }
/// ```
pub fn active() -> &'static Delays {
    static ACTIVE: OnceLock<Delays> = OnceLock::new();
    ACTIVE.get_or_init(|| {
        let value = std::env::var("DLS_DELAY").unwrap_or_default();
        Delays::parse(&value).unwrap_or_else(|e| panic!("{e}"))
    })
}

/// Whether `DLS_DELAY` is set, even empty (read once, at the latest when the runtime starts).
pub(crate) fn variable_set() -> bool {
    static SET: OnceLock<bool> = OnceLock::new();
    *SET.get_or_init(|| std::env::var_os("DLS_DELAY").is_some())
}

/// Reads `DLS_DELAY` now, at the runtime's start ([`active`] and [`variable_set`]), so that a
/// change after it has no effect (settings are read once: issue 43 R4-3).
pub(crate) fn read_at_start() {
    active();
    variable_set();
}

/// Runs `f`, the code of the program region `name`, after that region's delay when `DLS_DELAY`
/// gives it one (Lyon & Kacker's synthetic perturbation of a code region). Use it to mark code
/// that a scalability test should probe, such as the serial work between two parallel loops;
/// without a delay for `name` it only runs `f`.
///
/// ```
/// let total = dls_runtime::region("setup", || (1..=4).sum::<u32>());
/// assert_eq!(total, 10);
/// ```
#[inline]
pub fn region<R>(name: &str, f: impl FnOnce() -> R) -> R {
    let delays = active();
    if !delays.is_empty() {
        entered(name);
        if let Some(d) = delays.region(name) {
            d.wait(1);
        }
    }
    f()
}

/// What a run with `DLS_DELAY` did: the regions whose delays were spent, and the names of the
/// `dls::region`s it entered. Kept only while `DLS_DELAY` is set (each hook marks its region
/// when it has a delay; nothing is recorded otherwise).
struct Applied {
    /// body, chunk, merge, gather: whether the delay was spent at least once.
    built_in: [AtomicBool; 4],
    /// The names of the `dls::region`s entered, in order of first entry.
    entered: Mutex<Vec<String>>,
}

fn applied() -> &'static Applied {
    static APPLIED: OnceLock<Applied> = OnceLock::new();
    APPLIED.get_or_init(|| Applied {
        built_in: Default::default(),
        entered: Mutex::new(Vec::new()),
    })
}

/// Notes that the region `name` was entered (only with `DLS_DELAY` set).
fn entered(name: &str) {
    let mut e = applied().entered.lock().unwrap_or_else(|e| e.into_inner());
    if !e.iter().any(|r| r == name) {
        e.push(name.to_string());
    }
}

/// Notes that the built-in region `k` (its place in [`BUILT_IN_REGIONS`]) spent its delay.
#[inline]
fn spent(k: usize) {
    applied().built_in[k].store(true, Ordering::Relaxed);
}

/// At the end of a run with `DLS_DELAY`: an error naming each region whose delay was never spent
/// (a misspelled region, or a region the program does not have), with the regions it did enter;
/// `None` when every delay was spent or `DLS_DELAY` is unset. A delay that is never spent would
/// make a scalability test (`dls scaltest`) compare runs that differ in nothing and report a
/// verdict about a region it never perturbed.
///
/// ```
/// // Without DLS_DELAY there is nothing to check.
/// if std::env::var_os("DLS_DELAY").is_none() {
///     assert_eq!(dls_runtime::runtime::delay::never_spent(), None);
/// }
/// ```
pub fn never_spent() -> Option<String> {
    unspent_message(&spent_flags())
}

/// Whether each delay of `DLS_DELAY` was spent in this process: body, chunk, merge and gather
/// (`true` where no delay is given), then each named region in the order given. Empty without
/// `DLS_DELAY`. Under MPI the ranks' flags are or-ed before [`unspent_message`].
pub(crate) fn spent_flags() -> Vec<bool> {
    let delays = active();
    if delays.is_empty() {
        return Vec::new();
    }
    let a = applied();
    let entered = a.entered.lock().unwrap_or_else(|e| e.into_inner());
    let given = [delays.body, delays.chunk, delays.merge, delays.gather];
    given
        .iter()
        .enumerate()
        .map(|(k, d)| d.is_none() || a.built_in[k].load(Ordering::Relaxed))
        .chain(delays.regions.iter().map(|(r, _)| entered.contains(r)))
        .collect()
}

/// The error for the delays whose `flags` ([`spent_flags`]) are false, `None` if none is.
pub(crate) fn unspent_message(flags: &[bool]) -> Option<String> {
    let delays = active();
    if flags.iter().all(|f| *f) {
        return None;
    }
    let names: Vec<&str> = BUILT_IN_REGIONS
        .iter()
        .copied()
        .chain(delays.regions.iter().map(|(r, _)| r.as_str()))
        .collect();
    let missed: Vec<String> = names
        .iter()
        .zip(flags)
        .filter(|(_, f)| !**f)
        .map(|(n, _)| format!("`{n}`"))
        .collect();
    let a = applied();
    let entered = a.entered.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let given = [delays.body, delays.chunk, delays.merge, delays.gather];
    let delayed: Vec<String> = BUILT_IN_REGIONS
        .iter()
        .zip(given)
        .zip(flags)
        .filter(|((_, d), f)| d.is_some() && **f)
        .map(|((n, _), _)| n.to_string())
        .chain(entered.iter().map(|r| format!("{r} (dls::region)")))
        .collect();
    Some(format!(
        "DLS_DELAY names {} that this run never delayed (a region it never entered, or a \
         misspelled name), so that delay changed nothing and a scalability verdict would be \
         wrong; regions this run {}; built-in regions: {} (body needs a loop, merge a loop with \
         a result over several workers, gather a gather(...) clause)",
        missed.join(", "),
        if delayed.is_empty() {
            "delayed or entered: none".to_string()
        } else {
            format!("delayed or entered: {}", delayed.join(", "))
        },
        BUILT_IN_REGIONS.join(", ")
    ))
}

/// The per-iterate delay of loop bodies (read once per chunk by the worker loop).
#[inline]
pub(crate) fn body() -> Option<Delay> {
    let d = active().body;
    if d.is_some() {
        spent(0);
    }
    d
}

/// Whether a chunk delay is set: it models the scheduler's time per chunk, spent one chunk at a
/// time, so such a loop's chunks are handed out by the scheduler, never claimed by the workers
/// (`runtime/sched/claim.rs`), which would spend them side by side.
pub(crate) fn chunk_delayed() -> bool {
    active().chunk.is_some()
}

/// Spends the chunk delay, if any (where the scheduler hands out a chunk).
#[inline]
pub(crate) fn chunk_served() {
    if let Some(d) = active().chunk {
        spent(1);
        d.wait(1);
    }
}

/// Spends the merge delay, if any (one combine of two partial results).
#[inline]
pub(crate) fn merged() {
    if let Some(d) = active().merge {
        spent(2);
        d.wait(1);
    }
}

/// The per-element delay of gathers (spent where a gather log is written into its vector).
#[inline]
pub(crate) fn gather() -> Option<Delay> {
    let d = active().gather;
    if d.is_some() {
        spent(3);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 43: an empty item of `DLS_DELAY` is refused, naming the setting and the fault; an
    /// empty value is no delay.
    #[test]
    fn an_empty_item_is_refused() {
        for v in [
            "body:1us,,chunk:1us",
            "body:1us,",
            ",body:1us",
            "body:1us, ,chunk:1us",
        ] {
            let e = Delays::parse(v).unwrap_err().to_string();
            assert!(e.starts_with(&format!("DLS_DELAY=`{v}`")), "{e}");
            assert!(e.contains("an item is empty"), "{e}");
        }
        assert!(Delays::parse("").unwrap().is_empty());
        assert!(Delays::parse("  ").unwrap().is_empty());
    }

    #[test]
    fn every_region_and_kind_parses() {
        let d =
            Delays::parse("body:1us,chunk:2us:sleep,merge:3ms,gather:4ns,user_1:1s:SPIN").unwrap();
        assert_eq!(d.body.unwrap().seconds, 1e-6);
        assert_eq!(d.chunk.unwrap().kind, DelayKind::Sleep);
        assert_eq!(d.merge.unwrap().seconds, 3e-3);
        assert_eq!(d.gather.unwrap().seconds, 4e-9);
        assert_eq!(d.region("user_1").unwrap().seconds, 1.0);
        assert_eq!(d.regions.len(), 1);
    }

    #[test]
    fn bad_values_name_the_setting_and_the_allowed_values() {
        for bad in [
            "body",
            "body:",
            "body:fast",
            "body:-1ms",
            "body:0",
            "body:2h",
            "body:1ms:nap",
            "body:1ms:spin:x",
            ":1ms",
            "a b:1ms",
            "body:1ms,body:2ms",
        ] {
            let e = Delays::parse(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("DLS_DELAY=`{bad}`")), "{e}");
            assert!(
                e.contains("body, chunk, merge, gather") && e.contains("spin|sleep"),
                "{e}"
            );
        }
    }

    #[test]
    fn a_delay_waits_at_least_its_time() {
        for kind in [DelayKind::Spin, DelayKind::Sleep] {
            let t = Instant::now();
            Delay {
                seconds: 2e-3,
                kind,
            }
            .wait(3);
            assert!(t.elapsed() >= Duration::from_millis(6), "{kind:?}");
        }
        let t = Instant::now();
        Delay {
            seconds: 10.0,
            kind: DelayKind::Sleep,
        }
        .wait(0);
        assert!(t.elapsed() < Duration::from_secs(1));
    }
}
