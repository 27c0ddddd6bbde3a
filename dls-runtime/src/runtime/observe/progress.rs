//! Progress of long loops (`DLS_PROGRESS`): iterates done, rate and ETA of the running loop,
//! shown by the scheduler's process (rank 0 on MPI; the process itself on threads).
//!
//! **What is counted.** The iterates of *finished* chunks, as the scheduler records them
//! (`ReportingScheduler::record` in `runtime/sched/reporting.rs` adds
//! each finished chunk's size to an atomic counter). A chunk is known to be finished when its
//! worker asks for the next one (the request carries its timing), so the count lags by at most
//! the chunks in flight, one per worker; it reaches the loop's size when the loop ends. No work is
//! done per iterate: one relaxed atomic add per chunk, on the scheduler, under the lock it holds
//! anyway.
//!
//! **Who prints.** Only loops over all workers started by the runtime (`start_loop`, `doall`,
//! ...), on the process that schedules them: one background thread per process (`dls-progress`,
//! started by the first loop that shows progress) wakes every [`BAR_TICK`] (bar) or period
//! (lines) of each loop it shows, reads the counter and draws. A loop adds itself to the thread's
//! list at its start and takes itself out when it finishes (drawing its last line), so a loop
//! starts no thread and makes no system call for its progress (issue 28). Loops nested in an iterate, loops on a sub-communicator (`start_loop_on`, inner
//! loops of a group) and the outer loop of a two-level loop show no progress.
//!
//! **Modes** ([`ProgressMode`], `DLS_PROGRESS`):
//!
//! | value | stderr is a terminal | stderr is not a terminal (mpirun, Slurm, a pipe) |
//! |-------|----------------------|--------------------------------------------------|
//! | `auto` (default) | a bar (the `indicatif` crate), drawn from [`BAR_DELAY`] on, cleared at the end | a line every [`AUTO_LINE_PERIOD`] (5 s) from the first period on, so a loop shorter than 5 s prints nothing |
//! | `bar` | a bar from the start | nothing (`indicatif` hides itself when stderr is not a terminal) |
//! | `lines` | a line every [`LINES_PERIOD`] (1 s) for any loop | the same |
//! | `off` | nothing | nothing |
//!
//! After at least one line, a last line at 100% gives the loop's time. A line reads:
//!
//! ```text
//! dls: loop `name`: 45% (4500/10000 iterates), 1.2e4 it/s, ETA 0.5 s
//! ```

use crate::runtime::annotate::sync::AtomicU64;
use crate::runtime::annotate::sync::OnceLock;
use crate::runtime::annotate::sync::{Condvar, Mutex};
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crate::runtime::error::DlsError;
use crate::runtime::sync::lock;

/// How the progress of long loops is shown (`DLS_PROGRESS`); see the [module docs](self).
///
/// ```
/// use dls_runtime::runtime::progress::ProgressMode;
/// assert_eq!(ProgressMode::parse(" Lines ").unwrap(), ProgressMode::Lines);
/// assert_eq!(ProgressMode::parse("").unwrap(), ProgressMode::Auto);
/// let e = ProgressMode::parse("yes").unwrap_err().to_string();
/// assert!(e.starts_with("DLS_PROGRESS=`yes`") && e.contains("auto, bar, lines or off"), "{e}");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum ProgressMode {
    /// A bar when stderr is a terminal, else lines for loops longer than [`AUTO_LINE_PERIOD`].
    #[default]
    Auto,
    /// A bar (nothing when stderr is not a terminal).
    Bar,
    /// A line every [`LINES_PERIOD`], for any loop.
    Lines,
    /// Nothing.
    Off,
}

impl ProgressMode {
    /// Parses a `DLS_PROGRESS` value (any case; empty means `auto`); the error names the
    /// variable and the allowed values.
    pub fn parse(value: &str) -> Result<Self, DlsError> {
        Ok(match value.trim().to_ascii_lowercase().as_str() {
            "" | "auto" => ProgressMode::Auto,
            "bar" => ProgressMode::Bar,
            "lines" => ProgressMode::Lines,
            "off" | "0" => ProgressMode::Off,
            _ => {
                return Err(DlsError::Setting {
                    name: "DLS_PROGRESS",
                    value: value.to_string(),
                    message: "expected auto, bar, lines or off (how the progress of long loops \
                              is shown on rank 0)"
                        .into(),
                });
            }
        })
    }
}

/// How often the bar is redrawn.
pub const BAR_TICK: Duration = Duration::from_millis(250);
/// In `auto` mode on a terminal, the bar appears only once the loop has run this long.
pub const BAR_DELAY: Duration = Duration::from_secs(1);
/// The period of lines with `DLS_PROGRESS=lines`.
pub const LINES_PERIOD: Duration = Duration::from_secs(1);
/// The period of lines in `auto` mode when stderr is not a terminal (the first line comes after
/// one period, so shorter loops print nothing).
pub const AUTO_LINE_PERIOD: Duration = Duration::from_secs(5);

/// A rate in iterates per second, with two significant digits: `850 it/s`, `1.2e4 it/s`.
///
/// ```
/// use dls_runtime::runtime::progress::format_rate;
/// assert_eq!(format_rate(12_345.0), "1.2e4 it/s");
/// assert_eq!(format_rate(850.0), "850 it/s");
/// assert_eq!(format_rate(0.5), "0.5 it/s");
/// ```
pub fn format_rate(per_s: f64) -> String {
    if !per_s.is_finite() || per_s <= 0.0 {
        "0 it/s".into()
    } else if per_s >= 1000.0 {
        format!("{per_s:.1e} it/s")
    } else if per_s >= 10.0 {
        format!("{per_s:.0} it/s")
    } else {
        format!("{per_s:.1} it/s")
    }
}

/// A duration for an ETA: `0.5 s`, `42 s`, `3 min 20 s`, `2 h 05 min`.
///
/// ```
/// use dls_runtime::runtime::progress::format_duration;
/// assert_eq!(format_duration(0.46), "0.5 s");
/// assert_eq!(format_duration(42.2), "42 s");
/// assert_eq!(format_duration(200.0), "3 min 20 s");
/// assert_eq!(format_duration(7500.0), "2 h 05 min");
/// ```
pub fn format_duration(s: f64) -> String {
    if s < 10.0 {
        format!("{s:.1} s")
    } else if s < 60.0 {
        format!("{s:.0} s")
    } else if s < 3600.0 {
        let s = s.round() as u64;
        format!("{} min {} s", s / 60, s % 60)
    } else {
        let m = (s / 60.0).round() as u64;
        format!("{} h {:02} min", m / 60, m % 60)
    }
}

/// The percentage of `done` out of `n`, rounded down (so 100% only when all are done).
///
/// ```
/// use dls_runtime::runtime::progress::percent;
/// assert_eq!(percent(4500, 10_000), 45);
/// assert_eq!(percent(9999, 10_000), 99);
/// assert_eq!(percent(0, 0), 100);
/// ```
pub fn percent(done: u64, n: u64) -> u64 {
    if n == 0 {
        100
    } else {
        (u128::from(done.min(n)) * 100 / u128::from(n)) as u64
    }
}

/// One progress line of loop `name`: `done` of `n` iterates after `elapsed_s` seconds; the rate
/// is the mean since the start, the ETA the remaining iterates at that rate (unknown before the
/// first finished chunk).
///
/// ```
/// use dls_runtime::runtime::progress::format_line;
/// assert_eq!(
///     format_line("name", 4500, 10_000, 0.375),
///     "dls: loop `name`: 45% (4500/10000 iterates), 1.2e4 it/s, ETA 0.5 s"
/// );
/// assert!(format_line("x", 0, 10, 1.0).ends_with("ETA ?"));
/// ```
pub fn format_line(name: &str, done: u64, n: u64, elapsed_s: f64) -> String {
    let rate = if elapsed_s > 0.0 {
        done as f64 / elapsed_s
    } else {
        0.0
    };
    let mut line = format!(
        "dls: loop `{name}`: {}% ({done}/{n} iterates), {}",
        percent(done, n),
        format_rate(rate)
    );
    if done >= n {
        let _ = write!(line, ", done in {}", format_duration(elapsed_s));
    } else if rate > 0.0 {
        let _ = write!(line, ", ETA {}", format_duration((n - done) as f64 / rate));
    } else {
        line.push_str(", ETA ?");
    }
    line
}

/// A progress line while the loop runs: [`format_line`], except once every iterate is done but
/// the loop has not ended (its results being combined, or a worker finishing a copy): then it
/// says so instead of "done".
///
/// ```
/// use dls_runtime::runtime::progress::format_waiting;
/// assert!(format_waiting("a", 10, 10, 2.0).ends_with("waiting for the loop's end"));
/// // Copies of re-executed chunks never show more than n (was "100% (2500/2000 iterates)").
/// assert!(format_waiting("a", 2500, 2000, 2.0).contains("100% (2000/2000 iterates)"));
/// assert!(format_waiting("a", 5, 10, 2.0).ends_with("ETA 2.0 s"));
/// ```
pub fn format_waiting(name: &str, done: u64, n: u64, elapsed_s: f64) -> String {
    if done >= n && n > 0 {
        // Its results being combined, or a worker finishing a copy of a chunk.
        format!(
            "dls: loop `{name}`: 100% ({n}/{n} iterates) after {}, waiting for the loop's end",
            format_duration(elapsed_s)
        )
    } else {
        format_line(name, done, n, elapsed_s)
    }
}

/// What the background thread draws, resolved from the mode and whether stderr is a terminal.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Display {
    Bar { delay: Duration },
    Lines { period: Duration },
}

impl Display {
    fn resolve(mode: ProgressMode, terminal: bool) -> Option<Display> {
        match mode {
            ProgressMode::Off => None,
            ProgressMode::Lines => Some(Display::Lines {
                period: LINES_PERIOD,
            }),
            ProgressMode::Bar => terminal.then_some(Display::Bar {
                delay: Duration::ZERO,
            }),
            ProgressMode::Auto if terminal => Some(Display::Bar { delay: BAR_DELAY }),
            ProgressMode::Auto => Some(Display::Lines {
                period: AUTO_LINE_PERIOD,
            }),
        }
    }
}

/// The process's progress thread and the loops it shows (`watches`). The thread is started by
/// the first loop that shows progress and then lives as long as the process: a loop only adds
/// its [`Watch`] here at its start and takes it out at its end (no thread, no system call per
/// loop; issue 28: a thread per loop made a 10-iterate loop cost 100-190 µs instead of 20).
static MONITOR: Monitor = Monitor {
    state: Mutex::new(State {
        watches: Vec::new(),
        next_id: 0,
        started: false,
        sleeping_until: None,
    }),
    wake: Condvar::new(),
};

/// Whether stderr is a terminal, asked once per process.
fn stderr_is_terminal() -> bool {
    static TERMINAL: OnceLock<bool> = OnceLock::new();
    *TERMINAL.get_or_init(|| std::io::stderr().is_terminal())
}

struct Monitor {
    state: Mutex<State>,
    /// Wakes the thread when a loop's first line or bar is due before the thread's next wake.
    wake: Condvar,
}

struct State {
    /// The loops shown now.
    watches: Vec<Watch>,
    next_id: u64,
    /// The thread has been started.
    started: bool,
    /// When the thread wakes by itself next; `None` while it waits for a loop (or is not
    /// started). A loop whose first draw is due earlier wakes it.
    sleeping_until: Option<Instant>,
}

/// The progress of one running loop, as the thread draws it.
struct Watch {
    id: u64,
    name: Arc<str>,
    n: u64,
    done: Arc<AtomicU64>,
    started: Instant,
    display: Display,
    /// When the thread next draws this loop.
    next: Instant,
    /// Lines: the loop ends with its last line (at least one line printed, or `lines` mode).
    printed: bool,
    /// Bar: drawn once the loop has run its delay.
    bar: Option<indicatif::ProgressBar>,
}

impl Watch {
    fn new(display: Display, name: Arc<str>, n: u64, done: Arc<AtomicU64>, now: Instant) -> Watch {
        let (first, printed) = match display {
            // `lines` (a line every second for any loop) ends every loop with its line, also one
            // shorter than a period; `auto` only loops that printed one.
            Display::Lines { period } => (period, period <= LINES_PERIOD),
            // The bar is checked every tick and appears at the first tick after its delay.
            Display::Bar { delay } => (delay.max(BAR_TICK), false),
        };
        Watch {
            id: 0,
            name,
            n,
            done,
            started: now,
            display,
            next: now + first,
            printed,
            bar: None,
        }
    }

    /// The line due at `now`, if any, for the lines display (`None` for the bar); moves `next` to
    /// the next draw.
    fn line_due(&mut self, now: Instant) -> Option<String> {
        let Display::Lines { period } = self.display else {
            return None;
        };
        self.next = now + period;
        // Copies of re-executed chunks count once: never more than n.
        let d = self.done.load(Ordering::Relaxed).min(self.n);
        let t = now.saturating_duration_since(self.started).as_secs_f64();
        self.printed = true;
        Some(format_waiting(&self.name, d, self.n, t))
    }

    /// Draws the loop at `now` (it is due): a line, or the bar.
    fn draw(&mut self, now: Instant) {
        if let Some(line) = self.line_due(now) {
            eprintln!("{line}");
            return;
        }
        self.next = now + BAR_TICK;
        let (name, n) = (&self.name, self.n);
        let bar = self.bar.get_or_insert_with(|| new_bar(name, n));
        let d = self.done.load(Ordering::Relaxed).min(n);
        bar.set_position(d);
        bar.set_message(rate_and_eta(
            d,
            n,
            now.saturating_duration_since(self.started).as_secs_f64(),
        ));
    }

    /// Ends the display at the loop's end: its last line (100%, the loop's time), or the bar
    /// cleared.
    fn end(self) {
        if let Some(bar) = self.bar {
            bar.set_position(self.n);
            bar.finish_and_clear();
        } else if self.printed && matches!(self.display, Display::Lines { .. }) {
            let t = self.started.elapsed().as_secs_f64();
            eprintln!("{}", format_line(&self.name, self.n, self.n, t));
        }
    }
}

/// The progress thread: draws every loop when it is due, sleeps until the next one is, or until a
/// loop wakes it (none shown). It draws while it holds the lock, so that a loop that takes its
/// watch out gets no line after its last one.
fn run_monitor() {
    let mut state = lock(&MONITOR.state);
    loop {
        let now = Instant::now();
        for w in state.watches.iter_mut().filter(|w| w.next <= now) {
            w.draw(now);
        }
        let next = state.watches.iter().map(|w| w.next).min();
        state.sleeping_until = next;
        state = match next {
            None => MONITOR.wake.wait(state).unwrap_or_else(|e| e.into_inner()),
            Some(t) => {
                let wait = t.saturating_duration_since(Instant::now());
                MONITOR
                    .wake
                    .wait_timeout(state, wait)
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
        };
    }
}

/// The progress display of one running loop: its watch in the process's progress thread, taken
/// out (and its last line or bar drawn) by [`Progress::stop`] or on drop.
pub(crate) struct Progress {
    id: Option<u64>,
}

impl Progress {
    /// Starts showing the progress of loop `name` of `n` iterates, whose finished iterates
    /// `done` counts; `None` when `mode` shows nothing here (or the thread cannot start).
    pub(crate) fn start(
        mode: ProgressMode,
        name: Arc<str>,
        n: u64,
        done: Arc<AtomicU64>,
    ) -> Option<Progress> {
        let display = Display::resolve(mode, stderr_is_terminal())?;
        let mut watch = Watch::new(display, name, n, done, Instant::now());
        let due = watch.next;
        let mut state = lock(&MONITOR.state);
        let id = state.next_id;
        state.next_id += 1;
        watch.id = id;
        state.watches.push(watch);
        if !state.started {
            let spawned = thread::Builder::new()
                .name("dls-progress".into())
                .spawn(run_monitor);
            if spawned.is_err() {
                state.watches.retain(|w| w.id != id);
                return None;
            }
            state.started = true;
        } else if state.sleeping_until.is_none_or(|t| due < t) {
            // The thread waits for a loop, or wakes after this loop's first draw is due. (Loops
            // in a row of one mode are due later than the thread's wake: no system call.)
            MONITOR.wake.notify_one();
        }
        Some(Progress { id: Some(id) })
    }

    /// Stops the display: its watch is taken out, then its last line or bar is drawn.
    pub(crate) fn stop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        let watch = {
            let mut state = lock(&MONITOR.state);
            let at = state.watches.iter().position(|w| w.id == id);
            at.map(|i| state.watches.swap_remove(i))
        };
        if let Some(w) = watch {
            w.end();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The bar's rate and ETA, as in the lines (the mean rate since the start; `indicatif`'s own
/// `{per_sec}` and `{eta}` follow the last few updates, which jump when chunks finish in bursts).
fn rate_and_eta(done: u64, n: u64, elapsed_s: f64) -> String {
    let line = format_line("", done, n, elapsed_s);
    match line.split_once("iterates), ") {
        Some((_, tail)) => tail.to_string(),
        None => line,
    }
}

/// The bar of loop `name`: ``dls: loop `name` [=====>    ]  45% (4500/10000 it), 1.2e4 it/s, ETA
/// 0.5 s``.
fn new_bar(name: &str, n: u64) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(n),
        indicatif::ProgressDrawTarget::stderr_with_hz(4),
    );
    let style = indicatif::ProgressStyle::with_template(
        "dls: loop `{prefix}` [{bar:30}] {percent:>3}% ({pos}/{len} it), {msg}",
    )
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_prefix(name.to_string());
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_durations_and_percentages() {
        assert_eq!(format_rate(0.0), "0 it/s");
        assert_eq!(format_rate(f64::INFINITY), "0 it/s");
        assert_eq!(format_rate(1.0e6), "1.0e6 it/s");
        assert_eq!(format_rate(99.4), "99 it/s");
        assert_eq!(format_duration(0.0), "0.0 s");
        assert_eq!(format_duration(59.4), "59 s");
        assert_eq!(format_duration(61.0), "1 min 1 s");
        assert_eq!(format_duration(3600.0), "1 h 00 min");
        assert_eq!(percent(1, 3), 33);
        assert_eq!(percent(u64::MAX - 1, u64::MAX), 99);
        assert_eq!(percent(20, 10), 100);
    }

    #[test]
    fn lines_give_eta_then_the_loop_time() {
        assert_eq!(
            format_line("a", 250, 1000, 2.0),
            "dls: loop `a`: 25% (250/1000 iterates), 125 it/s, ETA 6.0 s"
        );
        assert_eq!(
            format_line("a", 1000, 1000, 8.0),
            "dls: loop `a`: 100% (1000/1000 iterates), 125 it/s, done in 8.0 s"
        );
        assert_eq!(
            format_line("a", 0, 1000, 0.0),
            "dls: loop `a`: 0% (0/1000 iterates), 0 it/s, ETA ?"
        );
    }

    #[test]
    fn the_bar_shows_the_lines_rate_and_eta() {
        assert_eq!(rate_and_eta(250, 1000, 2.0), "125 it/s, ETA 6.0 s");
    }

    #[test]
    fn the_setting_parses_and_names_itself() {
        for (v, m) in [
            ("auto", ProgressMode::Auto),
            ("BAR", ProgressMode::Bar),
            ("lines", ProgressMode::Lines),
            ("Off", ProgressMode::Off),
            (" ", ProgressMode::Auto),
        ] {
            assert_eq!(ProgressMode::parse(v).unwrap(), m, "{v}");
        }
        let e = ProgressMode::parse("line").unwrap_err().to_string();
        assert!(e.contains("DLS_PROGRESS") && e.contains("auto, bar, lines or off"));
    }

    #[test]
    fn the_display_follows_the_mode_and_the_terminal() {
        use ProgressMode::*;
        assert_eq!(Display::resolve(Off, true), None);
        assert_eq!(Display::resolve(Bar, false), None);
        assert_eq!(
            Display::resolve(Auto, false),
            Some(Display::Lines {
                period: AUTO_LINE_PERIOD
            })
        );
        assert_eq!(
            Display::resolve(Auto, true),
            Some(Display::Bar { delay: BAR_DELAY })
        );
        assert_eq!(
            Display::resolve(Lines, true),
            Some(Display::Lines {
                period: LINES_PERIOD
            })
        );
    }

    /// Whether the monitor shows the loop `id` now.
    fn watched(id: u64) -> bool {
        lock(&MONITOR.state).watches.iter().any(|w| w.id == id)
    }

    #[test]
    fn a_stopped_display_is_taken_out() {
        let done = Arc::new(AtomicU64::new(0));
        let mut p = Progress::start(ProgressMode::Lines, "t".into(), 10, done).unwrap();
        let id = p.id.unwrap();
        assert!(watched(id));
        p.stop();
        assert!(p.id.is_none() && !watched(id));
        let q = Progress::start(ProgressMode::Off, "t".into(), 10, Arc::default());
        assert!(q.is_none());
    }

    #[test]
    fn lines_come_once_per_period_from_the_first_period_on() {
        let t0 = Instant::now();
        let done = Arc::new(AtomicU64::new(0));
        let period = Duration::from_secs(5);
        let mut w = Watch::new(Display::Lines { period }, "a".into(), 100, done.clone(), t0);
        // `auto`: nothing before the first period, and no last line for a loop without a line.
        assert_eq!((w.next, w.printed), (t0 + period, false));
        done.store(25, Ordering::Relaxed);
        let line = w.line_due(t0 + period).unwrap();
        assert_eq!(
            line,
            "dls: loop `a`: 25% (25/100 iterates), 5.0 it/s, ETA 15 s"
        );
        assert_eq!((w.next, w.printed), (t0 + 2 * period, true));
        // `lines`: every loop ends with its line.
        let w = Watch::new(
            Display::Lines {
                period: LINES_PERIOD,
            },
            "b".into(),
            1,
            done,
            t0,
        );
        assert!(w.printed);
        // The bar: at the first tick after its delay; with no delay, at the first tick.
        let b = Watch::new(
            Display::Bar { delay: BAR_DELAY },
            "c".into(),
            1,
            Arc::default(),
            t0,
        );
        assert_eq!(b.next, t0 + BAR_DELAY);
        let b = Watch::new(
            Display::Bar {
                delay: Duration::ZERO,
            },
            "c".into(),
            1,
            Arc::default(),
            t0,
        );
        assert_eq!(b.next, t0 + BAR_TICK);
    }

    /// The threads of this process named `name` (Linux).
    #[cfg(target_os = "linux")]
    fn threads_named(name: &str) -> usize {
        std::fs::read_dir("/proc/self/task")
            .unwrap()
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
            .filter(|comm| comm.trim() == name)
            .count()
    }

    /// Issue 28: one progress thread for the process, whatever the loops shown at once or in a
    /// row (it was one thread per loop).
    #[cfg(target_os = "linux")]
    #[test]
    fn loops_share_one_thread() {
        let mut shown: Vec<Progress> = (0..4)
            .map(|i| {
                Progress::start(
                    ProgressMode::Lines,
                    format!("l{i}").into(),
                    10,
                    Arc::default(),
                )
            })
            .collect::<Option<_>>()
            .unwrap();
        assert_eq!(threads_named("dls-progress"), 1);
        for p in &mut shown {
            p.stop();
        }
        for _ in 0..100 {
            Progress::start(ProgressMode::Lines, "r".into(), 10, Arc::default()).unwrap();
        }
        assert_eq!(threads_named("dls-progress"), 1);
    }
}
