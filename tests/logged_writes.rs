//! The loop report counts the writes of gathered vectors that went through the log (issue 42):
//! `logged_writes` in the JSON report (`DLS_REPORT=file.jsonl`), a line of the summary. A row
//! written in place under `gather(v: rows(w))` counts none; a write outside every iterate's row,
//! and every write of `gather(v)` away from the loop's index, counts one.

/// A sweep of rows 1..n-1 in place; iterate 1 also writes row 0, no iterate's: one logged write.
#[dls::parallel]
fn rows(n: usize, w: usize) -> Vec<f64> {
    let mut v = vec![0.0_f64; n * w];
    #[par_doall(schedule = "fac2", name = "rows", gather(v: rows(w)))]
    for i in 1..n - 1 {
        for j in 0..w {
            v[i * w + j] = (i * w + j) as f64;
        }
        if i == 1 {
            v[0] = 1.0;
        }
    }
    v
}

/// Every iterate writes the element after its own: `n` logged writes.
#[dls::parallel]
fn shifted(n: usize) -> Vec<u64> {
    let mut v = vec![0_u64; n + 1];
    #[par_doall(schedule = "fac2", name = "shifted", gather(v))]
    for i in 0..n {
        v[i + 1] = i as u64;
    }
    v
}

#[test]
fn the_report_counts_the_logged_writes() {
    // The only test of this binary: the runtime reads DLS_REPORT once per process.
    let file = std::env::temp_dir().join(format!("dls-logged-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&file);
    // SAFETY: this binary's only test, before its runtime starts: the harness's other
    // thread only waits, and std's own reads take its environment lock.
    unsafe {
        std::env::set_var("DLS_REPORT", &file);
        std::env::remove_var("DLS_CHECKPOINT");
    }
    let (n, w) = (40, 9);
    let v = rows(n, w);
    assert_eq!(v[0], 1.0);
    assert_eq!(v[w + 3], (w + 3) as f64);
    assert_eq!(shifted(100)[100], 99);
    let text = std::fs::read_to_string(&file).unwrap();
    let _ = std::fs::remove_file(&file);
    let reports: Vec<dls::LoopReport> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let logged = |name: &str| {
        reports
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no report of {name}: {text}"))
            .logged_writes
    };
    if std::env::var_os("DLS_REEXECUTE").is_none() {
        // Rows in place: only row 0's element went through the log.
        assert_eq!(logged("rows"), 1, "{text}");
    }
    assert_eq!(logged("shifted"), 100, "{text}");
    let summary =
        dls::runtime::stats::summary(reports.iter().find(|r| r.name == "shifted").unwrap());
    assert!(summary.contains("gather: 100 writes logged"), "{summary}");
}
