//! `dls markov`: the wavefront chain of Casanova, Thomason & Dongarra (1999) on the command line,
//! beside its Monte Carlo simulation; distributions from flags or from a `DLS_REPORT` file.

use std::path::PathBuf;
use std::process::{Command, Output};

use dls::{LoopReport, RankReport};
use dls_model::markov::{solve_chain, ChainLimit, Discrete, MarkovInputs};

fn dls(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dls"))
        .args(args)
        .output()
        .expect("run dls")
}

fn ok(args: &[&str]) -> String {
    let o = dls(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn fails(args: &[&str]) -> String {
    let o = dls(args);
    assert!(!o.status.success(), "{args:?} succeeded");
    assert!(o.stdout.is_empty(), "{args:?} printed to stdout");
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!e.contains("panicked"), "{args:?}: {e}");
    e
}

fn json(args: &[&str]) -> serde_json::Value {
    let mut all = args.to_vec();
    all.push("--json");
    serde_json::from_str(&ok(&all)).expect("JSON")
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

const EXAMPLE1: [&str; 7] = [
    "markov",
    "--update-time",
    "1:1/2,3:1/2",
    "--update-time",
    "1:1/4,2:3/4",
    "--network",
    "1",
];

#[test]
fn worked_example_prints_pi_moments_and_both_levels_beside_the_simulation() {
    let mut args = EXAMPLE1.to_vec();
    args.extend(["--omega", "6", "--rate", "0.05"]);
    let s = ok(&args);
    for figure in [
        "p = 2 processors",
        "3 states",
        "(0, 0) 0.3",
        "(0, -1) 0.3083333",
        "(0, 1) 0.3916667",
        "3.063542",  // E[Phi] = 2941/960
        "0.7726604", // sd[Phi] = sqrt(550199/921600)
        "367.625",   // Theta1
        "8.464071",  // sigma
        "simulation: 200000 phases",
    ] {
        assert!(s.contains(figure), "missing {figure}:\n{s}");
    }
}

#[test]
fn json_has_the_exact_chain_and_a_simulation_within_one_percent() {
    let v = json(&EXAMPLE1);
    let sync = &v["variants"][0];
    assert_eq!(sync["name"], "synchronous");
    let chain = &sync["chain"]["moments"];
    assert!((f(&chain["mean_phi"]) - 2941.0 / 960.0).abs() < 1e-12);
    assert!((f(&chain["var_phi"]) - 550199.0 / 921600.0).abs() < 1e-12);
    let sim = &sync["simulation"]["moments"];
    for key in ["mean_phi", "var_phi"] {
        let rel = (f(&sim[key]) / f(&chain[key]) - 1.0).abs();
        assert!(rel < 0.01, "{key}: {rel}");
    }
    assert_eq!(v["tick_s"], 1.0);
}

#[test]
fn asynchronous_variants_follow_the_stated_convention() {
    let mut args = EXAMPLE1.to_vec();
    args.extend(["--async", "1:1", "--async", "1,1:2,2"]);
    let v = json(&args);
    let variants = v["variants"].as_array().unwrap();
    assert_eq!(variants.len(), 3);
    assert_eq!(variants[1]["name"], "asynchronous A = 1, B = 1");
    let n1 = f(&variants[1]["chain"]["moments"]["mean_n"]);
    let n2 = f(&variants[2]["chain"]["moments"]["mean_n"]);
    assert!((n1 - 3469.0 / 1920.0).abs() < 1e-12, "{n1}");
    assert!((n2 - 30749.0 / 15360.0).abs() < 1e-12, "{n2}");
    for w in variants {
        let phi = f(&w["chain"]["moments"]["mean_phi"]);
        assert!((phi - 2941.0 / 960.0).abs() < 1e-12);
    }
}

#[test]
fn per_link_message_times_give_the_eight_state_chain() {
    let v = json(&[
        "markov",
        "--update-time",
        "2:0.5,4:0.5",
        "--update-time",
        "3",
        "--update-time",
        "1:1/3,5:2/3",
        "--network",
        "1",
        "--link",
        "2-0=1:0.5,2:0.5",
        "--link",
        "0-2=1:0.5,2:0.5",
    ]);
    let chain = &v["variants"][0]["chain"];
    assert_eq!(chain["states"].as_array().unwrap().len(), 8);
    assert_eq!(chain["m"], 2);
    assert!((f(&chain["moments"]["mean_phi"]) - 1130167.0 / 208418.0).abs() < 1e-12);
}

#[test]
fn times_with_units_share_one_tick() {
    let v = json(&[
        "markov",
        "--p",
        "3",
        "--update-time",
        "2ms:0.5,5ms:0.5",
        "--network",
        "500us",
    ]);
    assert!((f(&v["tick_s"]) - 5e-4).abs() < 1e-15);
    assert_eq!(v["update_time"][2][1][0].as_f64(), Some(0.005));
    // The same chain through the library, in ticks of 0.5 ms.
    let u = Discrete::new(vec![(4, 0.5), (10, 0.5)]).unwrap();
    let inputs = MarkovInputs::new(vec![u; 3], Discrete::constant(1), 5e-4);
    let want = solve_chain(&inputs, &ChainLimit::default())
        .unwrap()
        .moments;
    let chain = &v["variants"][0]["chain"]["moments"];
    assert!((f(&chain["mean_phi"]) - want.mean_phi).abs() < 1e-15);
    // Without messages every phase lasts max_j alpha_j.
    let v = json(&["markov", "--p", "3", "--update-time", "2ms:0.5,5ms:0.5"]);
    let chain = &v["variants"][0]["chain"]["moments"];
    assert!((f(&chain["mean_phi"]) - (0.125 * 2e-3 + 0.875 * 5e-3)).abs() < 1e-15);
}

#[test]
fn a_chain_beyond_the_limit_is_an_error_that_points_to_the_simulation() {
    let big = [
        "markov",
        "--p",
        "8",
        "--update-time",
        "2ms:0.5,5ms:0.5",
        "--network",
        "1ms:0.5,3ms:0.5",
    ];
    let e = fails(&big);
    assert!(
        e.contains("too large") && e.contains("--simulate-only"),
        "{e}"
    );
    let mut args = big.to_vec();
    args.extend(["--simulate-only", "--samples", "20000"]);
    let v = json(&args);
    assert!(v["variants"][0]["chain"].is_null());
    assert!(f(&v["variants"][0]["simulation"]["moments"]["mean_phi"]) > 5e-3);
    // A small --max-states stops a chain that would otherwise be built.
    let mut small = EXAMPLE1.to_vec();
    small.extend(["--max-states", "2"]);
    assert!(fails(&small).contains("limit of 2 states"));
}

#[test]
fn bad_inputs_name_their_flag() {
    let e = fails(&["markov", "--update-time", "1ms"]);
    assert!(e.contains("--p"), "{e}");
    let e = fails(&["markov"]);
    assert!(e.contains("--update-time"), "{e}");
    let e = fails(&["markov", "--p", "2", "--update-time", "1ms:0.3,2ms:0.3"]);
    assert!(e.contains("--update-time") && e.contains("sum to"), "{e}");
    let e = fails(&["markov", "--p", "2", "--update-time", "0"]);
    assert!(e.contains("--update-time") && e.contains("> 0"), "{e}");
    let e = fails(&[
        "markov",
        "--p",
        "2",
        "--update-time",
        "1ms",
        "--link",
        "0-5=1ms",
    ]);
    assert!(e.contains("--link"), "{e}");
    let e = fails(&[
        "markov",
        "--p",
        "2",
        "--update-time",
        "1ms",
        "--async",
        "0:1",
    ]);
    assert!(e.contains("--async"), "{e}");
    let e = fails(&["markov", "--p", "2", "--update-time", "1ms", "--omega", "6"]);
    assert!(e.contains("--rate"), "{e}");
}

fn report(name: &str, times: &[f64]) -> String {
    let r = LoopReport {
        name: name.into(),
        technique: "static".into(),
        n: 100,
        p: times.len(),
        ranks: times
            .iter()
            .enumerate()
            .map(|(rank, &t)| RankReport {
                rank,
                iterates: if t > 0.0 { 50 } else { 0 },
                work_time_s: t,
                chunks: 1,
                idle_time_s: 0.0,
                ..RankReport::default()
            })
            .collect(),
        ..LoopReport::default()
    };
    serde_json::to_string(&r).unwrap()
}

fn write(name: &str, lines: &[String]) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "dls-cli-markov-{}-{name}.jsonl",
        std::process::id()
    ));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn from_report_discretises_each_ranks_work_times() {
    // 40 instances of `sweep`: rank 0 alternates 1.0 / 1.2 ms, rank 1 takes 1.4 ms one time in
    // four, else 1.0 ms; one other loop in between.
    let mut lines: Vec<String> = (0..40)
        .map(|k| {
            let t0 = if k % 2 == 0 { 1.0e-3 } else { 1.2e-3 };
            let t1 = if k % 4 == 0 { 1.4e-3 } else { 1.0e-3 };
            report("sweep", &[t0, t1])
        })
        .collect();
    lines.push(report("setup", &[5e-3, 5e-3]));
    let path = write("sweep", &lines);
    let file = path.to_str().unwrap();
    let e = fails(&["markov", "--from-report", file]);
    assert!(
        e.contains("--loop") && e.contains("`sweep` (40 instances)"),
        "{e}"
    );
    let e = fails(&["markov", "--from-report", file, "--loop", "setup"]);
    assert!(e.contains("1 instance(s)") && e.contains("repeated"), "{e}");
    let v = json(&["markov", "--from-report", file, "--loop", "sweep"]);
    // Four quantile groups per rank; the tick is 1/100 of the smallest value, 1 ms.
    assert!((f(&v["tick_s"]) - 1e-5).abs() < 1e-15);
    let u0: Vec<(f64, f64)> = serde_json::from_value(v["update_time"][0].clone()).unwrap();
    assert_eq!(u0.len(), 2);
    assert!((u0[0].0 - 1.0e-3).abs() < 1e-12 && (u0[0].1 - 0.5).abs() < 1e-12);
    // No message time given: E[Phi] = E[max(alpha_0, alpha_1)] = 1.175 ms.
    let m = &v["variants"][0]["chain"]["moments"];
    assert!((f(&m["mean_phi"]) - 1.175e-3).abs() < 1e-12, "{m}");
    let s = ok(&[
        "markov",
        "--from-report",
        file,
        "--loop",
        "sweep",
        "--network",
        "100us",
    ]);
    assert!(
        s.contains("40 instances") && s.contains("tick: 10us"),
        "{s}"
    );
    assert!(s.contains("message time, every link: 100us"), "{s}");
    // A coarser tick; instances where a rank executed nothing are left out and counted.
    lines.push(report("sweep", &[1e-3, 0.0]));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let v = json(&[
        "markov",
        "--from-report",
        file,
        "--loop",
        "sweep",
        "--tick",
        "0.2ms",
    ]);
    assert!((f(&v["tick_s"]) - 2e-4).abs() < 1e-15);
    assert!(
        v["source"].as_str().unwrap().contains("1 of 41 left out"),
        "{v}"
    );
    let _ = std::fs::remove_file(path);
}

/// Issue 27: `--samples` near u64::MAX overflowed and printed zeros and NaN with exit 0, and
/// `--tick 1e-300` panicked: both are refused naming the flag and its range.
#[test]
fn hostile_samples_and_tick_are_refused_naming_the_flag() {
    let e = fails(&[
        "markov",
        "--p",
        "3",
        "--update-time",
        "2ms:0.5,5ms:0.5",
        "--samples",
        "18446744073709551615",
    ]);
    assert!(e.contains("--samples"), "{e}");
    let e = fails(&[
        "markov",
        "--from-report",
        "/nonexistent.jsonl",
        "--tick",
        "1e-300",
    ]);
    assert!(e.contains("--tick") && e.contains("1ns"), "{e}");
}

/// Issue 27: nonsense numbers in a report (a negative time) are refused naming the field.
#[test]
fn a_report_with_a_negative_time_is_refused() {
    let lines: Vec<String> = (0..4).map(|_| report("sweep", &[1e-3, -1e-3])).collect();
    let path = write("negative", &lines);
    let e = fails(&["markov", "--from-report", path.to_str().unwrap()]);
    assert!(e.contains("work_time_s") && e.contains("-0.001"), "{e}");
}

/// Issue 43 N18: `--async 1000000:1000000` ran past 30 s with no bound. The work of building the
/// variant's distributions is bounded by --max-work before any is done: refused at once, naming
/// the variant, the estimate and what to change; a small variant still runs.
#[test]
fn a_huge_async_variant_is_refused_at_once() {
    let started = std::time::Instant::now();
    let e = fails(&[
        "markov",
        "--p",
        "2",
        "--update-time",
        "1:1/2,3:1/2",
        "--network",
        "1",
        "--async",
        "1000000:1000000",
        "--simulate-only",
    ]);
    assert!(
        e.contains("--async 1000000:1000000") && e.contains("over --max-work 100000000"),
        "{e}"
    );
    assert!(
        started.elapsed().as_secs_f64() < 10.0,
        "{:?}",
        started.elapsed()
    );
    ok(&[
        "markov",
        "--p",
        "2",
        "--update-time",
        "1:1/2,3:1/2",
        "--network",
        "1",
        "--async",
        "2:3",
        "--samples",
        "1000",
    ]);
}
