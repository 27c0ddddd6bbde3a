//! `dls plot`: the charts it writes for a report file, and its errors.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dls::group::GroupReport;
use dls::{LoopReport, RankReport};

/// Fill of the work bars (and of the legend's "work" marker) in the SVG.
const WORK_FILL: &str = "fill=\"#1F77B4\"";
/// Fill of the CPU-time bars (and of the legend's "cpu time" marker) in the SVG.
const CPU_FILL: &str = "fill=\"#FF7F0E\"";

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

/// A fresh, empty directory for one test.
fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dls-plot-{}-{test}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn count(svg: &Path, what: &str) -> usize {
    fs::read_to_string(svg)
        .unwrap_or_else(|e| panic!("{}: {e}", svg.display()))
        .matches(what)
        .count()
}

/// A loop on 3 ranks with 7 chunks (GSS-like sizes) handed out to ranks 0, 1, 2 in turn.
fn one_level() -> LoopReport {
    let chunk_map = vec![
        [0, 34, 0],
        [34, 22, 1],
        [56, 15, 2],
        [71, 10, 0],
        [81, 7, 1],
        [88, 7, 2],
        [95, 5, 0],
    ];
    LoopReport {
        name: "src/main.rs:12:5".into(),
        technique: "gss".into(),
        n: 100,
        p: 3,
        parallel_time_s: 1.0,
        chunks: chunk_map.len() as u64,
        ranks: vec![
            RankReport {
                rank: 0,
                iterates: 49,
                work_time_s: 0.9,
                chunks: 3,
                idle_time_s: 0.1,
                cpu_time_s: 0.5,
            },
            RankReport {
                rank: 1,
                iterates: 29,
                work_time_s: 0.8,
                chunks: 2,
                idle_time_s: 0.2,
                cpu_time_s: 0.5,
            },
            RankReport {
                rank: 2,
                iterates: 22,
                work_time_s: 1.0,
                chunks: 2,
                idle_time_s: 0.0,
                cpu_time_s: 0.5,
            },
        ],
        chunk_map,
        // Ranks 0 and 1 are busy until the end (1 s), rank 2 until half of it.
        chunk_times: [
            [0.0, 0.5],
            [0.0, 0.6],
            [0.0, 0.3],
            [0.5, 0.8],
            [0.6, 1.0],
            [0.3, 0.5],
            [0.8, 1.0],
        ]
        .into_iter()
        .map(Some)
        .collect(),
        ..Default::default()
    }
}

/// The chunk rectangles of a timeline SVG, by row: (left, right) pixels of each rectangle, keyed
/// by the row's top. Chunks are the coloured rectangles taller than 20 pixels (the colour
/// scale's steps are a few pixels high; the background is white).
fn timeline_rows(svg: &Path) -> BTreeMap<i64, Vec<(f64, f64)>> {
    let text = fs::read_to_string(svg).unwrap_or_else(|e| panic!("{}: {e}", svg.display()));
    let attr = |el: &str, name: &str| -> String {
        let key = format!(" {name}=\"");
        let from = el.find(&key).unwrap_or_else(|| panic!("no {name} in {el}")) + key.len();
        el[from..].split('"').next().unwrap().to_string()
    };
    let mut rows: BTreeMap<i64, Vec<(f64, f64)>> = BTreeMap::new();
    for el in text.split("<rect").skip(1) {
        let el = el.split('>').next().unwrap();
        let num = |name| attr(el, name).parse::<f64>().unwrap();
        if attr(el, "fill") == "#FFFFFF" || num("height") <= 20.0 {
            continue;
        }
        let x = num("x");
        rows.entry(num("y") as i64)
            .or_default()
            .push((x, x + num("width")));
    }
    rows
}

/// A two-level loop: a coordinator and 2 groups of 2 ranks.
fn two_level() -> LoopReport {
    LoopReport {
        name: "outer".into(),
        technique: "fac2".into(),
        n: 10,
        p: 4,
        parallel_time_s: 2.0,
        chunks: 2,
        ranks: (1..5)
            .map(|r| RankReport {
                rank: r,
                iterates: 5,
                work_time_s: 1.5,
                chunks: 1,
                idle_time_s: 0.5,
                ..Default::default()
            })
            .collect(),
        chunk_map: vec![[0, 5, 1], [5, 5, 3]],
        coordinator: Some(0),
        groups: vec![
            GroupReport {
                group: 0,
                ranks: vec![1, 2],
                outer_iterates: 5,
                outer_chunks: 1,
                work_time_s: 1.8,
                ..Default::default()
            },
            GroupReport {
                group: 1,
                ranks: vec![3, 4],
                outer_iterates: 5,
                outer_chunks: 1,
                work_time_s: 1.4,
                ..Default::default()
            },
        ],
        ..Default::default()
    }
}

/// Writes the reports as JSON Lines, as `DLS_REPORT` does.
fn write_jsonl(path: &Path, reports: &[LoopReport]) {
    let text: String = reports
        .iter()
        .map(|r| serde_json::to_string(r).unwrap() + "\n")
        .collect();
    fs::write(path, text).unwrap();
}

#[test]
fn draws_work_idle_bars_chunk_sizes_and_groups_per_loop() {
    let dir = temp_dir("all");
    let run = dir.join("run.jsonl");
    write_jsonl(&run, &[one_level(), two_level()]);
    let out = dir.join("charts");
    let o = dls(&[
        "plot",
        run.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));

    let names = [
        "src_main_rs_12_5_work_idle.svg",
        "src_main_rs_12_5_chunk_sizes.svg",
        "src_main_rs_12_5_timeline.svg",
        "outer_work_idle.svg",
        "outer_chunk_sizes.svg",
        "outer_groups.svg",
    ];
    let printed: Vec<String> = stdout(&o).lines().map(str::to_owned).collect();
    assert_eq!(printed.len(), names.len(), "{printed:?}");
    for name in names {
        let path = out.join(name);
        assert!(path.is_file(), "{} missing", path.display());
        assert!(printed.contains(&path.display().to_string()), "{printed:?}");
    }
    // The one-level loop has no group chart; the two-level loop (no chunk times) no timeline.
    assert!(!out.join("src_main_rs_12_5_groups.svg").exists());
    assert!(!out.join("outer_timeline.svg").exists());

    // One work bar per rank, plus the legend's marker; one CPU bar per rank where measured.
    assert_eq!(
        count(&out.join("src_main_rs_12_5_work_idle.svg"), WORK_FILL),
        3 + 1
    );
    assert_eq!(
        count(&out.join("src_main_rs_12_5_work_idle.svg"), CPU_FILL),
        3 + 1
    );
    assert_eq!(count(&out.join("outer_work_idle.svg"), CPU_FILL), 0);
    assert_eq!(count(&out.join("outer_work_idle.svg"), WORK_FILL), 4 + 1);
    // One point per chunk.
    assert_eq!(
        count(&out.join("src_main_rs_12_5_chunk_sizes.svg"), "<circle"),
        7
    );
    assert_eq!(count(&out.join("outer_chunk_sizes.svg"), "<circle"), 2);
    // One bar per group.
    assert_eq!(count(&out.join("outer_groups.svg"), WORK_FILL), 2 + 1);

    // Axes are labelled.
    let svg = fs::read_to_string(out.join("src_main_rs_12_5_work_idle.svg")).unwrap();
    for label in ["rank", "time (s)", "work", "idle", "src/main.rs:12:5"] {
        assert!(svg.contains(label), "no {label:?} in the work/idle chart");
    }
    let svg = fs::read_to_string(out.join("src_main_rs_12_5_chunk_sizes.svg")).unwrap();
    for label in ["chunk number", "chunk size", "rank 0", "rank 2"] {
        assert!(svg.contains(label), "no {label:?} in the chunk-size chart");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Threads inside ranks: workers are named `rank.thread` on the bars and the timeline's rows,
/// and the chunk-size chart has one colour (and legend entry) per rank, not per thread.
#[test]
fn threads_inside_ranks_are_drawn_as_rank_dot_thread_with_a_colour_per_rank() {
    let dir = temp_dir("hybrid");
    let run = dir.join("run.jsonl");
    // one_level's 3 workers as 1 rank... made 2 ranks x 2 threads: workers 0..4.
    let mut r = one_level();
    r.threads_per_rank = 2;
    r.p = 4;
    r.ranks.push(RankReport {
        rank: 3,
        ..r.ranks[2].clone()
    });
    r.chunk_map[6][2] = 3;
    write_jsonl(&run, &[r]);
    let o = dls(&[
        "plot",
        run.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let bars = fs::read_to_string(dir.join("src_main_rs_12_5_work_idle.svg")).unwrap();
    for name in ["0.0", "0.1", "1.0", "1.1", "rank.thread"] {
        assert!(
            bars.lines().any(|l| l.trim() == name),
            "no {name} on the bars"
        );
    }
    let timeline = fs::read_to_string(dir.join("src_main_rs_12_5_timeline.svg")).unwrap();
    assert!(
        timeline.lines().any(|l| l.trim() == "1.1"),
        "the timeline names worker 3 `1.1`"
    );
    let sizes = fs::read_to_string(dir.join("src_main_rs_12_5_chunk_sizes.svg")).unwrap();
    assert!(
        sizes.contains("rank 0") && sizes.contains("rank 1"),
        "legend per rank"
    );
    assert!(
        !sizes.contains("rank 2") && !sizes.contains("rank 3"),
        "not per thread"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn the_timeline_has_one_row_per_worker_spanning_the_parallel_time() {
    let dir = temp_dir("timeline");
    let run = dir.join("run.jsonl");
    write_jsonl(&run, &[one_level()]);
    let o = dls(&[
        "plot",
        run.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = dir.join("src_main_rs_12_5_timeline.svg");
    let rows = timeline_rows(&svg);
    // One row per rank, one rectangle per chunk.
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!(rows.values().map(Vec::len).sum::<usize>(), 7);
    // Rank 0 is the bottom row: 3 chunks; rank 2 the top row: 2 chunks.
    let tops: Vec<i64> = rows.keys().copied().collect();
    assert_eq!(rows[&tops[2]].len(), 3);
    assert_eq!(rows[&tops[0]].len(), 2);
    // Every row starts at time 0; ranks 0 and 1 end at the parallel time, rank 2 at half of it.
    let span = |row: &Vec<(f64, f64)>| {
        let left = row.iter().map(|r| r.0).fold(f64::MAX, f64::min);
        let right = row.iter().map(|r| r.1).fold(0.0, f64::max);
        (left, right)
    };
    let (l0, r0) = span(&rows[&tops[2]]);
    let (l1, r1) = span(&rows[&tops[1]]);
    let (l2, r2) = span(&rows[&tops[0]]);
    assert!((l0 - l1).abs() <= 1.0 && (l0 - l2).abs() <= 1.0, "{rows:?}");
    assert!((r0 - r1).abs() <= 1.0, "{rows:?}");
    assert!(((r2 - l2) - (r0 - l0) / 2.0).abs() <= 2.0, "{rows:?}");
    // The time axis ends at the parallel time: the longest rows reach the plot's right end,
    // which leaves room only for the colour scale (120 pixels) and the margin.
    assert!(r0 > 900.0 - 120.0 - 30.0 && r0 < 900.0 - 120.0, "{r0}");
    let text = fs::read_to_string(&svg).unwrap();
    for label in [
        "chunk timeline",
        "time since the loop",
        "chunk size",
        "rank",
    ] {
        assert!(text.contains(label), "no {label:?} in the timeline");
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn simulate_plot_draws_the_same_charts_for_a_simulated_loop() {
    let dir = temp_dir("simulate-plot");
    let o = dls(&[
        "simulate",
        "-t",
        "gss",
        "--n",
        "2000",
        "--p",
        "4",
        "--iterate-time",
        "exp:1ms",
        "--plot",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for chart in ["work_idle", "chunk_sizes", "timeline"] {
        let path = dir.join(format!("simulation_{chart}.svg"));
        assert!(path.is_file(), "{} missing", path.display());
        assert!(
            text.contains(&format!("chart: {}", path.display())),
            "{text}"
        );
    }
    // One work bar per rank (plus the legend's marker), one timeline row per rank.
    assert_eq!(
        count(&dir.join("simulation_work_idle.svg"), WORK_FILL),
        4 + 1
    );
    let rows = timeline_rows(&dir.join("simulation_timeline.svg"));
    assert_eq!(rows.len(), 4, "{rows:?}");
    // The same run as JSON: as many rectangles as chunks, and the simulated times span the
    // makespan.
    let o = dls(&[
        "simulate",
        "-t",
        "gss",
        "--n",
        "2000",
        "--p",
        "4",
        "--iterate-time",
        "exp:1ms",
        "--json",
        "--chunk-map",
    ]);
    let report: LoopReport = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        rows.values().map(Vec::len).sum::<usize>() as u64,
        report.chunks
    );
    let last = report
        .chunk_times
        .iter()
        .flatten()
        .map(|t| t[1])
        .fold(0.0, f64::max);
    assert_eq!(last, report.parallel_time_s);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn loop_selects_one_loop_and_repeated_names_get_numbers() {
    let dir = temp_dir("select");
    let run = dir.join("run.jsonl");
    write_jsonl(&run, &[one_level(), two_level(), two_level()]);
    let o = dls(&[
        "plot",
        run.to_str().unwrap(),
        "--loop",
        "outer",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(dir.join("outer_work_idle.svg").is_file());
    assert!(dir.join("outer-2_work_idle.svg").is_file());
    assert!(!dir.join("src_main_rs_12_5_work_idle.svg").exists());

    let o = dls(&[
        "plot",
        run.to_str().unwrap(),
        "--loop",
        "inner",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("run.jsonl") && e.contains("\"inner\"") && e.contains("outer"),
        "{e}"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn plots_the_json_of_dls_simulate() {
    let dir = temp_dir("simulate");
    let o = dls(&[
        "simulate",
        "-t",
        "fac2",
        "--n",
        "2000",
        "--p",
        "4",
        "--iterate-time",
        "exp:1ms",
        "--json",
        "--chunk-map",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: LoopReport = serde_json::from_slice(&o.stdout).unwrap();
    let sim = dir.join("sim.json");
    fs::write(&sim, &o.stdout).unwrap();
    let o = dls(&[
        "plot",
        sim.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stem = report.name.replace(
        |c: char| !c.is_ascii_alphanumeric() && c != '-' && c != '_',
        "_",
    );
    assert_eq!(
        count(&dir.join(format!("{stem}_work_idle.svg")), WORK_FILL),
        4 + 1
    );
    assert_eq!(
        count(&dir.join(format!("{stem}_chunk_sizes.svg")), "<circle"),
        report.chunk_map.len()
    );
    assert_eq!(report.chunk_map.len() as u64, report.chunks);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn a_missing_file_or_one_without_loops_is_an_error_naming_it() {
    let dir = temp_dir("errors");
    let missing = dir.join("missing.jsonl");
    let empty = dir.join("empty.jsonl");
    fs::write(&empty, "").unwrap();
    let other = dir.join("other.jsonl");
    fs::write(&other, "{\"speed\": 3}\n").unwrap();
    for (file, why) in [
        (&missing, "cannot read"),
        (&empty, "no loop reports"),
        (&other, "not a loop report"),
    ] {
        let o = dls(&[
            "plot",
            file.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ]);
        assert!(!o.status.success(), "{}", file.display());
        let e = stderr(&o);
        assert!(
            e.contains(&file.display().to_string()) && e.contains(why),
            "{e}"
        );
        assert!(stdout(&o).is_empty());
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn format_png_writes_png_files_with_the_bundled_font() {
    let dir = temp_dir("png");
    let run = dir.join("run.jsonl");
    write_jsonl(&run, &[two_level()]);
    let o = dls(&[
        "plot",
        run.to_str().unwrap(),
        "--format",
        "png",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    write_jsonl(&run, &[one_level()]);
    let o = dls(&[
        "plot",
        run.to_str().unwrap(),
        "--format",
        "png",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for chart in [
        "outer_work_idle",
        "outer_chunk_sizes",
        "outer_groups",
        "src_main_rs_12_5_timeline",
    ] {
        let path = dir.join(format!("{chart}.png"));
        let bytes = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{}", path.display());
        // IHDR: width and height, big-endian, at bytes 16..24.
        assert_eq!(
            &bytes[16..24],
            &[0, 0, 3, 132, 0, 0, 2, 28],
            "{}",
            path.display()
        );
    }
    assert!(!dir.join("outer_work_idle.svg").exists());
    let _ = fs::remove_dir_all(&dir);
}

/// Issue 27: hostile reports. A NUL in a loop name made an SVG that is not XML; 20,000 loop names
/// wrote 60,000 files; p = 0 or a negative time was drawn; /dev/zero was read until memory ran
/// out. Each is now refused naming what is wrong, or drawn as valid XML.
#[test]
fn hostile_reports_are_refused_or_drawn_safely() {
    let dir = temp_dir("hostile");
    // A NUL in the name: the SVG stays XML (no control character in it).
    let mut nul = one_level();
    nul.name = "a\u{0}b".into();
    let file = dir.join("nul.jsonl");
    write_jsonl(&file, &[nul]);
    let out = dir.join("nul");
    let o = dls(&[
        "plot",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in fs::read_dir(&out).unwrap().flatten() {
        let text = fs::read_to_string(f.path()).unwrap();
        assert!(!text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t' && c != '\r'));
    }
    // Too many loops at once: refused, naming --loop, before any file is written.
    let many: Vec<LoopReport> = (0..300)
        .map(|k| LoopReport {
            name: format!("loop{k}"),
            ..one_level()
        })
        .collect();
    let file = dir.join("many.jsonl");
    write_jsonl(&file, &many);
    let out = dir.join("many");
    let o = dls(&[
        "plot",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--loop NAME"), "{}", stderr(&o));
    assert!(!out.exists() || fs::read_dir(&out).unwrap().count() == 0);
    // Nonsense numbers: refused naming the field.
    for (what, bad) in [
        (
            "p",
            LoopReport {
                p: 0,
                ..one_level()
            },
        ),
        (
            "parallel_time_s",
            LoopReport {
                parallel_time_s: -1.0,
                ..one_level()
            },
        ),
    ] {
        let file = dir.join(format!("bad-{what}.jsonl"));
        write_jsonl(&file, &[bad]);
        let o = dls(&[
            "plot",
            file.to_str().unwrap(),
            "--out",
            dir.join("bad").to_str().unwrap(),
        ]);
        assert!(!o.status.success(), "{what}");
        assert!(stderr(&o).contains(what), "{what}: {}", stderr(&o));
    }
    // A device is not a report file.
    let o = dls(&["plot", "/dev/zero"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
    fs::remove_dir_all(&dir).unwrap();
}

/// Issue 27: the combining phase (after the last chunk) is drawn as its own segment, not idle.
#[test]
fn the_combining_phase_is_drawn_as_its_own_segment() {
    let dir = temp_dir("combine");
    let file = dir.join("run.jsonl");
    write_jsonl(
        &file,
        &[LoopReport {
            combine_time_s: 0.004,
            ..one_level()
        }],
    );
    let out = dir.join("plots");
    let o = dls(&[
        "plot",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = out.join("src_main_rs_12_5_work_idle.svg");
    assert!(
        count(&svg, "combine") >= 1,
        "no combine segment in the legend"
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// Issue 43 N22: implausible values in a report (p = 10^9 workers, a time of 10^12 s, an
/// negative efficiency) are refused, naming the file, the loop and the field, instead of drawn.
#[test]
fn implausible_report_values_are_refused() {
    let dir = temp_dir("implausible");
    let run = dir.join("run.jsonl");
    let cases: [(LoopReport, &str); 3] = [
        (
            LoopReport {
                p: 1_000_000_000,
                ..one_level()
            },
            "`p` is 1000000000: more workers than any machine runs",
        ),
        (
            LoopReport {
                parallel_time_s: 1e12,
                ..one_level()
            },
            "`parallel_time_s` is 1000000000000",
        ),
        (
            LoopReport {
                efficiency: -1.0,
                ..one_level()
            },
            "`efficiency`",
        ),
    ];
    for (report, why) in cases {
        write_jsonl(&run, &[report]);
        let o = dls(&[
            "plot",
            run.to_str().unwrap(),
            "--out",
            dir.to_str().unwrap(),
        ]);
        let e = stderr(&o);
        assert!(!o.status.success(), "{why}: plotted\n{e}");
        assert!(
            e.contains(&run.display().to_string()) && e.contains(why),
            "{e}"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}
