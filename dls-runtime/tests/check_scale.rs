//! Issue 30: fault checks at scale on threads. With 16 and 64 workers, one worker whose values
//! are shifted is found and named by the default test (each worker against the others), and with
//! `DLS_CHECK=repair` its iterates run again on the others and the result equals the clean one.

use dls_runtime::runtime::checked::{Check, CheckMode};
use dls_runtime::runtime::inject::current_worker;
use dls_runtime::runtime::options::LoopOptions;
use dls_runtime::runtime::settings::Settings;
use dls_runtime::Runtime;

/// Integer-valued iterates (so that every order of summing is exact), each worker's 100 of them
/// a random sample (the check's permutation); the last worker's values shifted by 40 (about 9
/// standard errors of its mean: the values have sd ~4.3 over 100 values).
fn run(workers: usize, mode: CheckMode) -> (f64, dls_runtime::report::CheckReport) {
    run_with(workers, workers - 1, mode, 0.01)
}

/// [`run`] with worker `faulty` shifted, at level `alpha`.
fn run_with(
    workers: usize,
    faulty: usize,
    mode: CheckMode,
    alpha: f64,
) -> (f64, dls_runtime::report::CheckReport) {
    let settings = Settings {
        check: Some(mode),
        ..Settings::default()
    };
    let rt = Runtime::threads(workers, settings)
        .unwrap()
        .with_statistics(true);
    let n = 100 * workers as u64;
    let options = LoopOptions::new("scale", "static".parse().unwrap()).check(Check {
        alpha,
        ..Check::default()
    });
    let (sum, stats) = rt
        .run(
            &options,
            0..n,
            || 0.0,
            |i, s: &mut f64| {
                // Every worker takes its one chunk before any could take a second: a chunk
                // lasts 100 ms, far longer than waking 64 threads on 2 loaded cores (with 50 µs
                // iterates, a 5 ms chunk, the calling thread and three others sometimes found
                // every chunk taken on an idle 2-core VM, and the test failed).
                std::thread::sleep(std::time::Duration::from_millis(1));
                let mut y = ((i * 7919) % 15) as f64;
                if current_worker() == Some(faulty) {
                    y += 40.0;
                }
                *s += y;
                y
            },
            |a, b| a + b,
        )
        .unwrap();
    (sum, stats.report.check.expect("a check report"))
}

#[test]
fn a_shifted_worker_among_16_and_64_is_named_and_repaired() {
    for workers in [16, 64] {
        let n = 100 * workers as u64;
        let clean: f64 = (0..n).map(|i| ((i * 7919) % 15) as f64).sum();
        let (found, report) = run(workers, CheckMode::Warn);
        assert_eq!(report.rule, "one-against-rest");
        // Every worker held values (one chunk each), so the test ran.
        assert!(report.worker_values.iter().all(|&v| v > 0), "{report:?}");
        assert!(report.rejected, "P = {workers}: {report:?}");
        assert_eq!(report.suspect, Some(workers - 1), "P = {workers}");
        assert!(found > clean, "the shifted values count without repair");
        let (repaired, report) = run(workers, CheckMode::Repair);
        assert!(report.repaired, "P = {workers}: {report:?}");
        assert_eq!(
            repaired, clean,
            "P = {workers}: the repaired result is the clean one"
        );
    }
}

/// The repair when the suspect is worker 0, the thread that starts the loop: it takes no chunk
/// of the rerun, which the pool's other threads do all of (they are not left out of a loop whose
/// worker 0 returns at once). At alpha = 1e-6: the shift (p ~ 1e-246) is found, and the check
/// after the repair, which sees each worker's values of fixed index ranges (not a random
/// sample: at 0.01 it rejected 4 runs in 60 whoever took the chunks), does not.
#[test]
fn a_shifted_worker_0_is_repaired_by_the_others() {
    let workers = 4;
    let n = 100 * workers as u64;
    let clean: f64 = (0..n).map(|i| ((i * 7919) % 15) as f64).sum();
    for _ in 0..20 {
        let (repaired, report) = run_with(workers, 0, CheckMode::Repair, 1e-6);
        assert_eq!(report.suspect, Some(0), "{report:?}");
        assert!(report.repaired, "{report:?}");
        assert_eq!(repaired, clean, "the repaired result is the clean one");
    }
}

/// Values of any finite magnitude are tested (not "not finite", not left untested): a checked
/// loop of values near 1e300 and near 1e-300 finds and names a shifted worker as it does at 1.
#[test]
fn values_near_1e300_and_1e_minus_300_are_tested() {
    for scale in [1e300, 1e-300, 1.0] {
        let rt = Runtime::threads(4, Settings::default())
            .unwrap()
            .with_statistics(true);
        let options = LoopOptions::new("magnitude", "static".parse().unwrap())
            .reexecute(false)
            .check(Check::default());
        let (_, stats) = rt
            .run(
                &options,
                0..400u64,
                || 0.0,
                |i, s: &mut f64| {
                    std::thread::sleep(std::time::Duration::from_micros(50));
                    let mut y = ((i * 7919) % 15) as f64 + 1.0;
                    if current_worker() == Some(3) {
                        y += 40.0;
                    }
                    let y = y * scale;
                    *s += y;
                    y
                },
                |a, b| a + b,
            )
            .unwrap();
        let c = stats.report.check.expect("a check report");
        assert_eq!(c.outcome, "tested", "{scale}: {c:?}");
        assert!(c.rejected, "{scale}: {c:?}");
        assert_eq!(c.suspect, Some(3), "{scale}: {c:?}");
    }
}
