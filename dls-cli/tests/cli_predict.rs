//! `dls predict`: the run-time model of Kuntraruk, Pottenger & Ross (2005) on the command line,
//! its worked examples, its errors and its reading of `DLS_REPORT` files.

use std::path::PathBuf;
use std::process::{Command, Output};

fn dls(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dls"))
        .args(args)
        .output()
        .expect("run dls")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(args: &[&str]) -> String {
    let o = dls(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

fn fails(args: &[&str]) -> String {
    let o = dls(args);
    assert!(!o.status.success(), "{args:?} succeeded: {}", stdout(&o));
    assert!(stdout(&o).is_empty(), "{args:?}: {}", stdout(&o));
    let e = stderr(&o);
    assert!(!e.contains("panicked"), "{args:?}: {e}");
    e
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(args)).expect("JSON")
}

fn close(v: &serde_json::Value, want: f64, tol: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() <= tol)
}

const EQ13: [&str; 11] = [
    "predict",
    "--n",
    "512",
    "--p",
    "8",
    "--t-comp",
    "1.39",
    "--message-bytes",
    "8e6",
    "--capacity",
    "1.28e9",
];

#[test]
fn paper_eq13_shows_every_convention_beside_the_printed_value() {
    let s = ok(&["predict", "--paper", "eq13"]);
    for figure in [
        "176.53",
        "209.0633",
        "207.6923",
        "208.03",
        "214.0079",
        "0.2582007",
        "0.2473196",
        "32.76",
    ] {
        assert!(s.contains(figure), "missing {figure}:\n{s}");
    }
    let verdict = s
        .lines()
        .find(|l| l.contains("reproduced by"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        verdict.contains("binary units + rounding hop-2dp ")
            && !verdict.contains("binary units + rounding hop-2dp-trunc")
            && verdict.contains("decimal units + rounding hop-2dp-trunc"),
        "{verdict}"
    );
    // Exactly two rows reproduce the paper.
    assert_eq!(s.lines().filter(|l| l.ends_with(" yes")).count(), 2, "{s}");

    let v = json(&["predict", "--paper", "eq13", "--json"]);
    assert!(close(&v["paper_total"], 208.03, 1e-12));
    let rows = v["rows"].as_array().unwrap();
    let exact = rows
        .iter()
        .find(|r| r["units"] == "binary" && r["rounding"] == "none" && r["drain"] == false)
        .unwrap();
    assert!(close(&exact["total"], 207.6923, 5e-5), "{exact}");
    assert_eq!(v["reproduced_by"].as_array().unwrap().len(), 2);
}

#[test]
fn paper_eq12_is_reproduced_by_no_convention() {
    let s = ok(&["predict", "--paper", "eq12"]);
    for figure in ["9.45", "9.4779", "9.4759", "10.0797", "0.000449495", "9.61"] {
        assert!(s.contains(figure), "missing {figure}:\n{s}");
    }
    assert!(s.contains("no convention reproduces"), "{s}");
    assert!(!s.lines().any(|l| l.ends_with(" yes")), "{s}");
}

#[test]
fn flags_give_every_intermediate_value_and_the_conventions() {
    let s = ok(&EQ13);
    for figure in [
        "steps = ceil((N/G - P) / (P/2)) = 126",
        "0.2877698",
        "0.5755396",
        "0.07020202",
        "0.1177966",
        "T_Comm = sum of D_used = 0.2582007 s",
        "176.53 s",
        "32.53328 s",
        "T_Total = 209.0633 s",
        "units decimal",
        "rounding none",
        "drain off",
        "leaf1",
        "spine",
        "leaf2",
        "not from the paper",
    ] {
        assert!(s.contains(figure), "missing {figure}:\n{s}");
    }

    // Prefixes read in binary units; the paper's 208.03 with rounded hop delays.
    let mut args = EQ13.to_vec();
    args[8] = "8M";
    args[10] = "1.28G";
    let binary = [&args[..], &["--units", "binary"]].concat();
    assert!(ok(&binary).contains("T_Total = 207.6923 s"));
    let rounded = [&binary[..], &["--rounding", "hop-2dp"]].concat();
    let s = ok(&rounded);
    assert!(
        s.contains("T_Total = 208.03 s") && s.contains("31.5 s"),
        "{s}"
    );
    assert!(s.contains("rounding hop-2dp"), "{s}");
    let drained = [&EQ13[..], &["--drain"]].concat();
    let s = ok(&drained);
    assert!(
        s.contains("T_Total = 214.0079 s") && s.contains("drain on"),
        "{s}"
    );
}

#[test]
fn json_exposes_the_prediction() {
    let mut args = EQ13.to_vec();
    args.extend(["--groups", "2", "--t-merge", "0.5", "--drain", "--json"]);
    let v = json(&args);
    let p = &v["prediction"];
    assert_eq!(p["n_per_group"], 256);
    assert_eq!(p["steps"], 62);
    assert_eq!(p["levels"], 65);
    assert_eq!(p["hops"][1]["name"], "spine");
    assert!(close(&p["hops"][1]["utilisation"], 0.575540, 1e-6));
    assert!(close(&p["t_comm"], 0.2582007, 1e-7));
    assert!(close(&p["compute_term"], 63.0 * 1.39, 1e-9));
    assert!(close(&p["drain_term"], 1.5 + 3.0 * 0.2582007, 1e-6));
    let total = 63.0 * 1.39 + 62.0 * 0.2582007 + 1.5 + 3.0 * 0.2582007;
    assert!(close(&p["total"], total, 1e-5), "{p}");
    assert_eq!(v["units"], "decimal");
    assert_eq!(v["own_estimates"]["ranks"], 16);
}

#[test]
fn a_saturated_hop_is_an_error_naming_it() {
    let mut args = EQ13.to_vec();
    args[8] = "20e6";
    let e = fails(&args);
    assert!(e.contains("spine") && e.contains("1.4388"), "{e}");
    assert!(!e.contains("leaf1"), "{e}");
}

#[test]
fn bad_flags_name_the_flag_and_the_allowed_values() {
    let with = |extra: &[&'static str]| [&EQ13[..], extra].concat();
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (with(&["--units", "metric"]), "--units", "decimal or binary"),
        (
            with(&["--rounding", "2dp"]),
            "--rounding",
            "none, hop-2dp or hop-2dp-trunc",
        ),
        (with(&["--fan-ins", "8,x,8"]), "--fan-ins", "8,16,8"),
        (with(&["--groups", "0"]), "--groups", "1.."),
        (with(&["--groups", "600"]), "--groups", "from 1 to N"),
        (with(&["--t-merge", "x"]), "--t-merge", ">= 0"),
        (
            vec!["predict", "--paper", "eq14"],
            "--paper",
            "eq12 or eq13",
        ),
        (
            vec!["predict", "--paper", "eq13", "--units", "binary"],
            "--paper",
            "cannot be used with",
        ),
        (vec!["predict", "--n", "512"], "--p", "--paper eq12|eq13"),
    ];
    for (args, flag, allowed) in cases {
        let e = fails(&args);
        assert!(e.contains(flag) && e.contains(allowed), "{args:?}: {e}");
    }
    let mut args = EQ13.to_vec();
    args[8] = "8MB";
    let e = fails(&args);
    assert!(
        e.contains("--message-bytes") && e.contains("k, M, G or T"),
        "{e}"
    );
    args[8] = "8e6";
    args[6] = "0";
    let e = fails(&args);
    assert!(e.contains("--t-comp") && e.contains("> 0"), "{e}");
    args[6] = "1.39";
    args[4] = "6";
    let e = fails(&args);
    assert!(
        e.contains("P = 6") && e.contains("largest power of two") && e.contains("P = 4"),
        "{e}"
    );
}

/// A JSON Lines report as the runtime writes it, with and without the `reduction` object.
fn write_report(test: &str) -> PathBuf {
    let mut sort = dls::LoopReport {
        name: "sort".into(),
        technique: "fac2".into(),
        n: 512_000,
        p: 8,
        parallel_time_s: 181.0,
        sequential_cost_s: 512.0 * 1.39,
        efficiency: 0.49,
        chunks: 512,
        ..Default::default()
    };
    sort.ranks = vec![dls::RankReport {
        rank: 0,
        iterates: 64_000,
        work_time_s: 88.96,
        chunks: 64,
        idle_time_s: 0.0,
        ..Default::default()
    }];
    let mut with_reduction = sort.clone();
    with_reduction.reduction = Some(dls::report::ReductionReport {
        strategy: "pipeline".into(),
        merge_time_s: 0.5,
        value_bytes: 8_000_000,
        merges: 511,
        ..Default::default()
    });
    let plain = dls::LoopReport {
        name: "sum".into(),
        technique: "gss".into(),
        n: 1000,
        p: 4,
        parallel_time_s: 0.3,
        sequential_cost_s: 1.0,
        chunks: 20,
        ..Default::default()
    };
    let text = format!(
        "{}\n\n{}\n",
        serde_json::to_string(&with_reduction).unwrap(),
        serde_json::to_string(&plain).unwrap()
    );
    let path = std::env::temp_dir().join(format!(
        "dls-cli-predict-{}-{test}.jsonl",
        std::process::id()
    ));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn from_report_takes_n_p_t_comp_merge_time_and_bytes_from_the_report() {
    let path = write_report("reads");
    let file = path.to_str().unwrap();
    let v = json(&[
        "predict",
        "--from-report",
        file,
        "--loop",
        "sort",
        "--capacity",
        "1.28G",
        "--drain",
        "--json",
    ]);
    let e = &v.as_array().expect("one entry per loop")[0];
    assert_eq!(e["loop"], "sort");
    assert_eq!(e["inputs"]["n"], 512);
    assert_eq!(e["inputs"]["p"], 8);
    assert!(close(&e["inputs"]["t_comp"], 1.39, 1e-12));
    assert!(close(&e["inputs"]["t_merge"], 0.5, 1e-12));
    assert!(close(&e["inputs"]["message_bytes"], 8e6, 1e-6));
    assert_eq!(e["measured"]["strategy"], "pipeline");
    assert!(close(&e["measured"]["parallel_time_s"], 181.0, 1e-12));
    let total = 209.0633 + 1.5 + 3.0 * 0.2582007;
    assert!(close(&e["prediction"]["total"], total, 1e-4), "{e}");

    let s = ok(&[
        "predict",
        "--from-report",
        file,
        "--loop",
        "sort",
        "--capacity",
        "1.28G",
    ]);
    for want in [
        "loop `sort`",
        "T_Total = 209.0633 s",
        "the report's chunks",
        "sequential_cost_s / chunks",
        "reduction.merge_time_s",
        "reduction.value_bytes",
        "measured parallel time (the report) = 181 s, reduction strategy pipeline",
    ] {
        assert!(s.contains(want), "missing {want}:\n{s}");
    }

    // The loop without a reduction object: L must come from a flag, T_Merge falls back.
    let e = fails(&[
        "predict",
        "--from-report",
        file,
        "--loop",
        "sum",
        "--capacity",
        "1G",
    ]);
    assert!(
        e.contains("reduction.value_bytes") && e.contains("--message-bytes"),
        "{e}"
    );
    assert!(e.contains("--t-merge"), "{e}");
    let s = ok(&[
        "predict",
        "--from-report",
        file,
        "--loop",
        "sum",
        "--capacity",
        "1G",
        "--message-bytes",
        "8",
    ]);
    assert!(s.contains("T_Comp = 0.05 s"), "{s}");
    assert!(s.contains("no reduction.merge_time_s"), "{s}");
    assert!(s.contains("N = 20 tasks"), "{s}");

    // Without --loop every loop is predicted; flags override the report.
    let v = json(&[
        "predict",
        "--from-report",
        file,
        "--capacity",
        "1G",
        "--message-bytes",
        "8",
        "--p",
        "2",
        "--json",
    ]);
    let all = v.as_array().unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0]["inputs"]["p"], 2);
    assert!(close(&all[0]["inputs"]["message_bytes"], 8.0, 0.0));
    std::fs::remove_file(&path).ok();
}

#[test]
fn from_report_errors_name_what_is_missing() {
    let path = write_report("errors");
    let file = path.to_str().unwrap();
    let e = fails(&["predict", "--from-report", file, "--loop", "sort"]);
    assert!(e.contains("--capacity"), "{e}");
    let e = fails(&[
        "predict",
        "--from-report",
        file,
        "--loop",
        "nope",
        "--capacity",
        "1G",
    ]);
    assert!(
        e.contains("--loop") && e.contains("`sort`") && e.contains("`sum`"),
        "{e}"
    );
    let e = fails(&["predict", "--loop", "sort"]);
    assert!(e.contains("--from-report"), "{e}");
    let bad = path.with_extension("bad.jsonl");
    // A report, then a line that is none: the error names its line.
    let x = dls::LoopReport {
        name: "x".into(),
        p: 1,
        ..Default::default()
    };
    std::fs::write(
        &bad,
        format!("{}\nnot json\n", serde_json::to_string(&x).unwrap()),
    )
    .unwrap();
    let e = fails(&[
        "predict",
        "--from-report",
        bad.to_str().unwrap(),
        "--capacity",
        "1G",
    ]);
    assert!(e.contains("line 2"), "{e}");
    let e = fails(&[
        "predict",
        "--from-report",
        "/nonexistent/run.jsonl",
        "--capacity",
        "1G",
    ]);
    assert!(e.contains("cannot read"), "{e}");
    std::fs::remove_file(&path).ok();
    std::fs::remove_file(&bad).ok();
}

/// The output the book chapter shows is what the tool prints.
#[test]
fn the_book_shows_the_current_output() {
    let book = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../book/src/big_results.md"),
    )
    .unwrap();
    for command in [
        "dls predict --n 512 --p 8 --t-comp 1.39 --message-bytes 8M --capacity 1.28G",
        "dls predict --paper eq13",
    ] {
        let start = book
            .find(&format!("$ {command}\n"))
            .unwrap_or_else(|| panic!("the book shows no `{command}`"))
            + command.len()
            + 3;
        let shown = &book[start..start + book[start..].find("```").unwrap()];
        let args: Vec<&str> = command.split(' ').skip(1).collect();
        assert_eq!(shown, ok(&args), "book/src/big_results.md, `{command}`");
    }
}

/// Issue 27: nonsense numbers in a report (a negative cost, p = 0) are refused naming the field.
#[test]
fn a_report_with_nonsense_numbers_is_refused() {
    for (field, bad) in [
        (
            "sequential_cost_s",
            dls::LoopReport {
                name: "s".into(),
                p: 4,
                chunks: 10,
                sequential_cost_s: -1.0,
                ..Default::default()
            },
        ),
        (
            "`p` is 0",
            dls::LoopReport {
                name: "s".into(),
                p: 0,
                chunks: 10,
                sequential_cost_s: 1.0,
                ..Default::default()
            },
        ),
    ] {
        let path =
            std::env::temp_dir().join(format!("dls-cli-predict-{}-bad.jsonl", std::process::id()));
        std::fs::write(&path, serde_json::to_string(&bad).unwrap() + "\n").unwrap();
        let e = fails(&[
            "predict",
            "--from-report",
            path.to_str().unwrap(),
            "--capacity",
            "1e9",
        ]);
        assert!(e.contains(field), "{field}: {e}");
    }
}
