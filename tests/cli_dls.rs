//! The `dls` command-line tool: output of `chunks`, `simulate`, `compare`, `hsf`, and its errors.

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

#[test]
fn chunks_gss_reference_vector() {
    let o = dls(&["chunks", "--technique", "gss", "--n", "1000", "--p", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "250 188 141 106 79 59 45 33 25 19 14 11 8 6 4 3 3 2 1 1 1 1\n"
    );
}

#[test]
fn chunks_static_and_ss_edge_cases() {
    let o = dls(&["chunks", "-t", "STATIC", "--n", "10", "--p", "4"]);
    assert_eq!(stdout(&o), "3 3 3 1\n");
    let o = dls(&["chunks", "-t", "ss", "--n", "10", "--p", "1"]);
    assert_eq!(stdout(&o), "1 1 1 1 1 1 1 1 1 1\n");
    let o = dls(&["chunks", "-t", "gss", "--n", "0", "--p", "4"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o), "\n");
}

#[test]
fn chunks_refuses_adaptive_techniques() {
    for t in ["af", "awf-b", "AWF-E"] {
        let o = dls(&["chunks", "--technique", t, "--n", "100", "--p", "4"]);
        assert!(!o.status.success(), "{t}");
        let e = stderr(&o);
        assert!(
            e.contains("adaptive") && e.contains("dls simulate"),
            "{t}: {e}"
        );
        assert!(stdout(&o).is_empty());
    }
}

#[test]
fn bad_values_name_the_option_and_the_allowed_values() {
    let cases: [(&[&str], &str, &str); 8] = [
        (
            &[
                "simulate",
                "-t",
                "gss",
                "--n",
                "10",
                "--p",
                "2",
                "--service",
                "fast",
            ],
            "--service",
            "serial, parallel",
        ),
        (
            &["chunks", "-t", "nope", "--n", "10", "--p", "2"],
            "--technique",
            "gss",
        ),
        (&["chunks", "-t", "gss", "--n", "-3", "--p", "2"], "--n", ""),
        (
            &["chunks", "-t", "gss", "--n", "10", "--p", "0"],
            "--p",
            "1..",
        ),
        (
            &[
                "simulate",
                "-t",
                "gss",
                "--n",
                "10",
                "--p",
                "2",
                "--iterate-time",
                "expo:1ms",
            ],
            "--iterate-time",
            "exp:MEAN",
        ),
        (
            &[
                "simulate",
                "-t",
                "gss",
                "--n",
                "10",
                "--p",
                "2",
                "--overhead",
                "5parsecs",
            ],
            "--overhead",
            "us",
        ),
        (
            &[
                "simulate", "-t", "gss", "--n", "10", "--p", "3", "--speeds", "1,2",
            ],
            "--speeds",
            "one time factor per rank",
        ),
        (
            &[
                "simulate",
                "-t",
                "gss",
                "--n",
                "10",
                "--p",
                "3",
                "--slowdown",
                "2@half",
            ],
            "--slowdown",
            "RANK@WHENxFACTOR",
        ),
    ];
    for (args, option, allowed) in cases {
        let o = dls(args);
        assert!(!o.status.success(), "{args:?}");
        let e = stderr(&o);
        assert!(e.contains(option) && e.contains(allowed), "{args:?}: {e}");
        assert!(!e.contains("panicked"), "{args:?}: {e}");
    }
}

#[test]
fn simulate_prints_a_readable_report() {
    let o = dls(&[
        "simulate",
        "-t",
        "fac2",
        "--n",
        "10000",
        "--p",
        "4",
        "--iterate-time",
        "exp:1ms",
        "--speeds",
        "1,1,1,3",
        "--overhead",
        "5us",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    for word in [
        "makespan",
        "lower bound",
        "efficiency",
        "chunks",
        "iterates",
        "idle_s",
    ] {
        assert!(s.contains(word), "missing {word}: {s}");
    }
}

#[test]
fn simulate_json_is_a_loop_report() {
    let o = dls(&[
        "simulate",
        "-t",
        "gss",
        "--n",
        "1000",
        "--p",
        "4",
        "--iterate-time",
        "uniform:1ms:3ms",
        "--overhead",
        "5us",
        "--latency",
        "1us",
        "--seed",
        "3",
        "--json",
        "--chunk-map",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let report: dls::LoopReport = serde_json::from_value(v.clone()).expect("a LoopReport");
    assert_eq!((report.n, report.p, report.chunks), (1000, 4, 22));
    assert_eq!(report.chunk_map.len(), 22);
    assert_eq!(report.ranks.iter().map(|r| r.iterates).sum::<u64>(), 1000);
    assert!(report.parallel_time_s >= report.lower_bound_s && report.lower_bound_s > 0.0);
    for key in [
        "parallel_time_s",
        "lower_bound_s",
        "efficiency",
        "ranks",
        "chunk_map",
    ] {
        assert!(v.get(key).is_some(), "{key}");
    }
    for key in ["iterates", "work_time_s", "idle_time_s", "chunks"] {
        assert!(v["ranks"][0].get(key).is_some(), "ranks[].{key}");
    }
    // Same seed, same output.
    let again = dls(&[
        "simulate",
        "-t",
        "gss",
        "--n",
        "1000",
        "--p",
        "4",
        "--iterate-time",
        "uniform:1ms:3ms",
        "--overhead",
        "5us",
        "--latency",
        "1us",
        "--seed",
        "3",
        "--json",
        "--chunk-map",
    ]);
    assert_eq!(o.stdout, again.stdout);
}

#[test]
fn compare_lists_each_technique() {
    let o = dls(&[
        "compare",
        "-t",
        "static",
        "ss",
        "fac2,min=4",
        "--n",
        "2000",
        "--p",
        "8",
        "--iterate-time",
        "exp:1ms",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    let rows: Vec<&str> = s.lines().skip(2).collect();
    assert_eq!(rows.len(), 3, "{s}");
    assert!(
        rows[0].starts_with("static") && rows[2].starts_with("fac2,min=4"),
        "{s}"
    );
}

#[test]
fn hsf_prints_the_grid() {
    let o = dls(&["hsf", "--n", "512", "--p", "4", "--replications", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    assert!(
        s.contains("makespan / lower bound") && s.contains("fac2"),
        "{s}"
    );
    // 2 tables x (title + header + 16 cells).
    assert!(
        s.lines()
            .filter(|l| l.trim_start().starts_with(char::is_numeric))
            .count()
            >= 32
    );
}

#[test]
fn hsf_compares_the_techniques_asked_for() {
    let o = dls(&[
        "hsf",
        "--n",
        "512",
        "--p",
        "4",
        "--replications",
        "1",
        "-t",
        "fac2",
        "fac2a",
        "faca",
        "af-a",
        "bold",
        "static-steal",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    let header = s.lines().find(|l| l.contains("h/mean")).unwrap_or_default();
    let names: Vec<&str> = header.split_whitespace().skip(2).collect();
    assert_eq!(
        names,
        ["fac2", "fac2a", "faca", "af-a", "bold", "static-steal"],
        "{s}"
    );
    // Every cell has a figure for each (bold with its cell's overhead as h, even h = 0).
    let row = s
        .lines()
        .find(|l| l.trim_start().starts_with("0 "))
        .unwrap_or_default();
    assert_eq!(row.split_whitespace().count(), 2 + 6, "{s}");
    let o = dls(&["hsf", "-t", "fastest"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("valid techniques: static, ss"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn compare_lists_every_technique_by_default() {
    let o = dls(&[
        "compare",
        "--n",
        "2000",
        "--p",
        "4",
        "--iterate-time",
        "exp:1ms",
        "--overhead",
        "10us",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = stdout(&o);
    for name in ["fac2a", "faca,", "af-a", "bold,", "static-steal"] {
        assert!(
            s.lines()
                .any(|l| l.starts_with(name) && !l.contains("error")),
            "{name}: {s}"
        );
    }
}

#[test]
fn help_documents_every_option_with_an_example() {
    for cmd in ["chunks", "simulate", "compare", "hsf"] {
        let o = dls(&[cmd, "--help"]);
        assert!(o.status.success());
        let s = stdout(&o);
        assert!(s.contains("Examples:"), "{cmd}");
        let options = s
            .split("Options:\n")
            .nth(1)
            .and_then(|rest| rest.split("\nExamples:").next())
            .expect("an Options section");
        // One entry per option: from its `--name` line to the next option line.
        let mut entries: Vec<String> = Vec::new();
        for line in options.lines() {
            let t = line.trim_start();
            if t.starts_with("--") || (t.starts_with('-') && t.contains(", --")) {
                entries.push(String::new());
            }
            if let Some(e) = entries.last_mut() {
                e.push_str(line);
                e.push('\n');
            }
        }
        assert!(entries.len() >= 3, "{cmd}: {options}");
        for e in entries {
            let name = e
                .split("--")
                .nth(1)
                .unwrap_or("")
                .split_whitespace()
                .next()
                .unwrap_or("");
            if ["help", "json", "chunk-map", "version"].contains(&name) {
                continue;
            }
            assert!(e.contains("Example"), "{cmd} --{name} has no example: {e}");
        }
    }
}

#[test]
fn speeds_and_slowdowns_change_the_work_split() {
    let json = |extra: &[&str]| -> dls::LoopReport {
        let mut args = vec![
            "simulate",
            "-t",
            "ss",
            "--n",
            "2000",
            "--p",
            "4",
            "--iterate-time",
            "const:1ms",
            "--json",
        ];
        args.extend_from_slice(extra);
        let o = dls(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_slice(&o.stdout).expect("JSON")
    };
    let even = json(&[]);
    assert!(even.ranks.iter().all(|r| r.iterates == 500));
    let slow = json(&["--speeds", "1,1,1,3"]);
    assert!(slow.ranks[3].iterates < 250, "{:?}", slow.ranks);
    let slowed = json(&["--slowdown", "2@0.5x4", "--slowdown", "1@100msx2"]);
    assert!(slowed.ranks[2].iterates < 450 && slowed.ranks[1].iterates < 500);
    assert_eq!(slowed.ranks.iter().map(|r| r.iterates).sum::<u64>(), 2000);
}
