//! Two-level loops under mpirun: every (j, i) pair runs exactly once, for P in {3, 4, 5, 8} with
//! racks simulated by a rank map, for every pair (outer × inner) of STATIC, SS, GSS, FAC2 and AF
//! (one mpirun run per P); reductions and gathers at both levels equal the serial results
//! (checked inside `src/bin/two_level_check.rs`); 1 and 2 ranks fall back to one-level loops with
//! a one-line warning; the nested `#[par_doall]` form (the user example `examples/two_level_macro.rs`) gives the
//! serial result.
#![cfg(feature = "mpi")]

mod mpi_groups_support;

use std::time::Duration;

use mpi_groups_support::{mpirun, mpirun_program, mpirun_with};

const ALL: &str = "static;ss;gss;fac2;af";

fn check_all_pairs(p: usize, racks: &str, min: &str, max: &str, layout: &str) {
    let run = mpirun(
        p,
        Some(racks),
        &[
            "--min", min, "--max", max, "--outer", ALL, "--inner", ALL, "--m", "24",
        ],
        Duration::from_secs(120),
    );
    run.assert_ok(&format!("P = {p}"));
    assert!(
        run.stdout.contains(&format!("layout: {layout}\n")),
        "P = {p}: {}",
        run.stdout
    );
    let ok = run.stdout.lines().filter(|l| l.starts_with("ok ")).count();
    assert_eq!(ok, 25, "P = {p}: {}", run.stdout);
    assert!(!run.stdout.contains("FAIL"), "{}", run.stdout);
}

#[test]
fn p3_two_racks_of_one() {
    check_all_pairs(
        3,
        "ranks:0-1=a,2=b",
        "1",
        "2",
        "coordinator 0; groups {1}@a {2}@b",
    );
}

#[test]
fn p4_one_rack_split_by_max() {
    check_all_pairs(
        4,
        "ranks:0-3=a",
        "1",
        "2",
        "coordinator 0; groups {1,2}@a {3}@a",
    );
}

#[test]
fn p5_groups_123_and_4() {
    check_all_pairs(
        5,
        "ranks:0-3=a,4=b",
        "1",
        "3",
        "coordinator 0; groups {1,2,3}@a {4}@b",
    );
}

#[test]
fn p8_racks_split_and_kept_together() {
    check_all_pairs(
        8,
        "ranks:0-3=a,4-7=b",
        "2",
        "3",
        "coordinator 0; groups {1,2,3}@a {4,5}@b {6,7}@b",
    );
}

#[test]
fn p5_racks_merged_to_reach_min() {
    let run = mpirun(
        5,
        Some("ranks:0-1=a,2=b,3=c,4=d"),
        &[
            "--min", "2", "--max", "2", "--outer", "af", "--inner", "fac2",
        ],
        Duration::from_secs(60),
    );
    run.assert_ok("merged racks");
    assert!(
        run.stdout
            .contains("layout: coordinator 0; groups {1,2}@a+b {3,4}@c+d\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn one_and_two_ranks_run_one_level_with_one_warning() {
    for p in [1, 2] {
        let run = mpirun(
            p,
            None,
            &["--outer", "gss;af", "--inner", "ss;fac2"],
            Duration::from_secs(60),
        );
        run.assert_ok(&format!("P = {p}"));
        assert!(run.stdout.contains("layout: one-level"), "{}", run.stdout);
        assert_eq!(
            run.stdout.lines().filter(|l| l.starts_with("ok ")).count(),
            4
        );
        let warnings: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.contains("runs as a one-level loop"))
            .collect();
        assert_eq!(warnings.len(), 1, "P = {p}: {}", run.stderr);
    }
}

#[test]
fn nested_par_doall_macro_loop_equals_serial() {
    for (p, racks) in [(5, Some("ranks:0-3=a,4=b")), (4, None), (2, None)] {
        let run = mpirun_program("two_level_macro", p, racks, &[], Duration::from_secs(60));
        run.assert_ok(&format!("two_level_macro on {p} ranks"));
        assert!(
            run.stdout.contains("equal to the serial loops"),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn rank_that_fits_no_group_stays_idle() {
    let run = mpirun(
        6,
        Some("ranks:0-5=a"),
        &[
            "--min", "2", "--max", "2", "--outer", "af;ss", "--inner", "fac2",
        ],
        Duration::from_secs(60),
    );
    run.assert_ok("idle rank");
    assert!(
        run.stdout
            .contains("layout: coordinator 0; groups {1,2}@a {3,4}@a; idle 5\n"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stdout.lines().filter(|l| l.starts_with("ok ")).count(),
        2
    );
}

#[test]
fn json_report_holds_the_groups() {
    let path = std::env::temp_dir().join(format!("dls_groups_report_{}.json", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let report = path.to_str().expect("utf-8 temp path");
    let run = mpirun_with(
        "two_level_check",
        5,
        &[("DLS_RACKS", "ranks:0-3=a,4=b"), ("DLS_REPORT", report)],
        &["--outer", "af", "--inner", "fac2", "--m", "30"],
        Duration::from_secs(60),
    );
    run.assert_ok("DLS_REPORT");
    let text = std::fs::read_to_string(&path).expect("report file");
    let _ = std::fs::remove_file(&path);
    let loops: Vec<dls::LoopReport> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON loop report per line"))
        .collect();
    // two_level_check runs two two-level loops per technique pair.
    assert_eq!(loops.len(), 2, "{text}");
    for r in &loops {
        assert_eq!(r.coordinator, Some(0));
        assert_eq!(r.n, 30);
        assert_eq!(r.p, 5);
        let ranks: Vec<Vec<usize>> = r.groups.iter().map(|g| g.ranks.clone()).collect();
        assert_eq!(ranks, [vec![1, 2, 3], vec![4]]);
        assert_eq!(r.groups[0].racks, ["a"]);
        assert_eq!(r.groups.iter().map(|g| g.outer_iterates).sum::<u64>(), 30);
        assert_eq!(r.chunk_map.iter().map(|c| c[1]).sum::<u64>(), 30);
        assert!(r.chunk_map.iter().all(|c| c[2] == 1 || c[2] == 4));
        let cost: f64 = r.groups.iter().map(|g| g.cost_s()).sum();
        assert!((r.sequential_cost_s - cost).abs() < 1e-12);
        let eff = cost / (5.0 * r.parallel_time_s);
        assert!((r.efficiency - eff).abs() < 1e-12);
        assert!(text.contains("\"groups\""));
    }
}

#[test]
fn host_pattern_map_from_a_file() {
    // Every rank of this machine matches `*`: one rack, split by max = 2.
    let path = std::env::temp_dir().join(format!("dls_racks_{}.txt", std::process::id()));
    std::fs::write(
        &path,
        "# racks of this machine\nrackA: nosuchhost[1-4], *\n",
    )
    .expect("write");
    let file = path.to_str().expect("utf-8 temp path");
    let run = mpirun(
        5,
        Some(file),
        &[
            "--min", "1", "--max", "2", "--outer", "gss", "--inner", "ss",
        ],
        Duration::from_secs(60),
    );
    let _ = std::fs::remove_file(&path);
    run.assert_ok("host map from a file");
    assert!(
        run.stdout
            .contains("layout: coordinator 0; groups {1,2}@rackA {3,4}@rackA\n"),
        "{}",
        run.stdout
    );
}
