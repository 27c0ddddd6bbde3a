//! The delay hooks of `DLS_DELAY` (`dls::runtime::delay`): each region's delay makes the program
//! measurably slower where it should, and without `DLS_DELAY` nothing changes. `DLS_DELAY` is
//! read once per process, so each case runs in a child process (this test binary re-run with the
//! `child` test selected and the variables set).

use std::process::Command;
use std::time::Instant;

/// Runs case `case` in the child with `DLS_DELAY=delay` (unset for `None`); returns the seconds
/// the child measured, or panics with the child's output.
fn child_seconds(case: &str, delay: Option<&str>) -> f64 {
    let out = run_child(case, delay);
    let line = out
        .lines()
        .find_map(|l| l.split("SECONDS ").nth(1))
        .unwrap_or_else(|| panic!("case {case}, DLS_DELAY={delay:?}: {out}"));
    line.trim().parse().unwrap()
}

fn run_child(case: &str, delay: Option<&str>) -> String {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env("DLS_DELAY_TEST_CASE", case)
        .env("DLS_THREADS", "2")
        .env_remove("OMPI_COMM_WORLD_SIZE")
        .env_remove("PMI_SIZE")
        .env_remove("DLS_SCHEDULE")
        .env_remove("DLS_REPORT")
        .env_remove("DLS_DELAY");
    if let Some(d) = delay {
        cmd.env("DLS_DELAY", d);
    }
    let out = cmd.output().unwrap();
    format!(
        "{}{}EXIT {}\n",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        out.status.code().unwrap_or(-1)
    )
}

#[dls::parallel]
fn gathered(n: usize) -> Vec<usize> {
    let mut out = vec![0; n];
    #[par_doall(schedule = "fac2", gather(out))]
    for i in 0..n {
        out[i] = 3 * i;
    }
    out
}

/// The child: runs one case, checks its result and prints the seconds it took.
#[test]
fn child() {
    let Ok(case) = std::env::var("DLS_DELAY_TEST_CASE") else {
        return;
    };
    let rt = match dls::init() {
        Ok(rt) => rt.with_statistics(true),
        Err(e) => {
            println!("INIT ERR {e}");
            return;
        }
    };
    let t = Instant::now();
    match case.as_str() {
        "body" => {
            let (sum, stats) = rt
                .doall_reduce(
                    "sum",
                    0..40u64,
                    "fac2".parse().unwrap(),
                    || 0,
                    |i, s| *s += i,
                    |a, b| a + b,
                )
                .unwrap();
            assert_eq!(sum, 780);
            assert_eq!(stats.iterates, 40);
        }
        "explicit" => {
            let lp = rt.start_loop(0..40u64, "gss".parse().unwrap()).unwrap();
            let mut sum = 0;
            while let Some(c) = lp.next_chunk() {
                sum += c.sum::<u64>();
            }
            assert_eq!(lp.finish().iterates, 40);
            let _ = sum;
        }
        "chunk" => {
            let stats = rt.doall(0..20u32, "ss".parse().unwrap(), |_| {}).unwrap();
            assert_eq!(stats.report.chunks, 20);
        }
        "merge" => {
            let (v, _) = rt
                .doall_reduce(
                    "sum",
                    0..1000u64,
                    "static".parse().unwrap(),
                    || 0,
                    |i, s| *s += i,
                    |a, b| a + b,
                )
                .unwrap();
            assert_eq!(v, 499_500);
        }
        "gather" => {
            let out = gathered(50);
            assert_eq!(out, (0..50).map(|i| 3 * i).collect::<Vec<_>>());
        }
        "region" => {
            let v = dls::region("setup", || 6 * 7);
            assert_eq!(v, 42);
            assert_eq!(dls::region("other", || 1), 1);
        }
        other => panic!("unknown case {other}"),
    }
    println!("SECONDS {}", t.elapsed().as_secs_f64());
}

/// Each region's delay adds at least its time where it should (sleeping delays, so that the
/// bound holds on a loaded machine), and the same case without `DLS_DELAY` is faster.
#[test]
fn each_region_delay_slows_its_region() {
    // (case, DLS_DELAY, least added seconds)
    let cases = [
        // 40 iterates of 4 ms over 2 workers: at least 80 ms.
        ("body", "body:4ms:sleep", 0.080),
        // The explicit API spends a chunk's iterates' delays when the chunk is handed out.
        ("explicit", "body:4ms:sleep", 0.080),
        // 20 chunks of 5 ms, spent where the scheduler hands them out: one at a time, so the
        // two workers do not overlap them (at least 100 ms).
        ("chunk", "chunk:5ms:sleep", 0.100),
        // Two workers' partial results: one merge of 60 ms.
        ("merge", "merge:60ms:sleep", 0.060),
        // 50 gathered elements of 2 ms each.
        ("gather", "gather:2ms:sleep", 0.100),
        // One entry of the region `setup`; `other` has no delay.
        ("region", "setup:60ms:sleep", 0.060),
    ];
    for (case, delay, least) in cases {
        let on = child_seconds(case, Some(delay));
        let off = child_seconds(case, None);
        assert!(on >= least, "{case} with {delay}: {on} s < {least} s");
        assert!(
            off < on - least / 2.0,
            "{case}: off {off} s, with {delay} {on} s"
        );
    }
}

/// Delays for regions a case does not run change nothing measurable: the case finishes far
/// below the delays that were not spent.
#[test]
fn a_delay_elsewhere_costs_nothing() {
    let all_but_setup = "body:5s:sleep,chunk:5s:sleep,merge:5s:sleep,gather:5s:sleep,between:5s";
    let t = child_seconds("region", Some(all_but_setup));
    assert!(t < 1.0, "{t}");
    let t = child_seconds("chunk", Some("merge:5s:sleep,gather:5s:sleep,setup:5s"));
    assert!(t < 1.0, "{t}");
}

/// A bad value is refused when the runtime starts, naming the setting and its allowed values.
#[test]
fn a_bad_value_is_refused_by_init() {
    let out = run_child("body", Some("body:2ms:fast"));
    assert!(out.contains("INIT ERR DLS_DELAY=`body:2ms:fast`"), "{out}");
    assert!(out.contains("body, chunk, merge, gather"), "{out}");
    assert!(out.contains("spin|sleep"), "{out}");
}

/// Issue 27 case 6: a region that `DLS_DELAY` names and the run never delays (a misspelled name,
/// a region the program does not have, a built-in region it never reaches) ends the run with an
/// error naming it and the regions the run did enter; before, `betwen` (for `between`) or `bdy`
/// (for `body`) injected nothing and `dls scaltest` reversed its verdict.
#[test]
fn a_region_the_run_never_delays_is_an_error() {
    let ok = run_child("region", Some("setup:1ms"));
    assert!(ok.contains("EXIT 0"), "{ok}");
    for (delay, named) in [
        ("setup:1ms,betwen:1ms", "`betwen`"),
        ("bdy:1ms", "`bdy`"),
        ("merge:1ms", "`merge`"),
    ] {
        let out = run_child("region", Some(delay));
        assert!(out.contains("EXIT 2"), "DLS_DELAY={delay}: {out}");
        let line = out
            .lines()
            .find(|l| l.starts_with("dls: error: DLS_DELAY names"))
            .unwrap_or_else(|| panic!("DLS_DELAY={delay}: no error: {out}"));
        assert!(line.contains(named), "{line}");
        assert!(line.contains("setup (dls::region)"), "{line}");
    }
    // A loop's body region is delayed: no error.
    let out = run_child("body", Some("body:1us"));
    assert!(out.contains("EXIT 0"), "{out}");
}
