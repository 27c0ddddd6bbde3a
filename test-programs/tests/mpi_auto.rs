//! `schedule = "auto"` on 4 ranks, the last one ten times slower: run 1 measures (FAC2),
//! run 2 takes the simulator's choice, and every rank runs and reports the same technique in
//! every run (rank 0 chooses from its chunk map, the others take its choice). Through the
//! closure form (a reduction: the sum is the serial one on every rank), the explicit API, and
//! `DLS_SCHEDULE=auto` over a program's `gss`.

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

/// Per run (1..=4): the (phase, chose) every rank printed; asserts they agree across ranks.
fn runs(stdout: &str, np: usize) -> Vec<(String, String)> {
    let mut seen: Vec<Vec<(String, String, u64)>> = vec![Vec::new(); 4];
    for line in stdout.lines().filter(|l| l.starts_with("auto: rank ")) {
        let w: Vec<&str> = line.split_whitespace().collect();
        let run: usize = w[4].parse().unwrap();
        seen[run - 1].push((w[6].to_string(), w[8].to_string(), w[10].parse().unwrap()));
    }
    seen.iter()
        .enumerate()
        .map(|(i, ranks)| {
            assert_eq!(ranks.len(), np, "run {}: {stdout}", i + 1);
            assert!(
                ranks
                    .iter()
                    .all(|r| (&r.0, &r.1) == (&ranks[0].0, &ranks[0].1)),
                "run {}: the ranks disagree: {ranks:?}",
                i + 1
            );
            (ranks[0].0.clone(), ranks[0].1.clone())
        })
        .collect()
}

fn check(job: &mpi_common::Job, reduction: bool) {
    assert!(job.success, "{}\n{}", job.stdout, job.stderr);
    let r = runs(&job.stdout, 4);
    // FAC2 with chunks of at most ceil(400 / 32) = 13 iterates measures.
    assert_eq!(
        r[0],
        ("measure".to_string(), "fac2,max=13".to_string()),
        "{}",
        job.stdout
    );
    assert_eq!(r[1].0, "chosen", "{}", job.stdout);
    assert_eq!(r[2], ("kept".to_string(), r[1].1.clone()), "{}", job.stdout);
    if reduction {
        for line in job.stdout.lines().filter(|l| l.starts_with("auto: ")) {
            assert!(line.contains(" sum 79800 "), "{line}");
        }
    }
}

#[test]
fn every_rank_runs_the_same_choice() {
    let job = mpi_common::mpirun(4, &[], "mpi_auto", &[], Duration::from_secs(120));
    check(&job, true);
    // Rank 3 is ten times slower: the simulator predicts FAC2 (whose first chunk on rank 3
    // takes 10 × N/8 iterate times) well behind a technique that adapts, so the choice is not
    // FAC2. (Three times slower was not always told from the noise: CI, on 2 loaded cores,
    // once measured a workload on which FAC2 was within the margin of the best; here, with both
    // cores busy with other work, 2 of 15 jobs chose FAC2 at three times and 0 of 25 at ten.)
    let r = runs(&job.stdout, 4);
    assert_ne!(r[1].1, "fac2", "{}", job.stdout);
}

#[test]
fn the_explicit_api_and_dls_schedule_take_auto() {
    let job = mpi_common::mpirun(4, &[], "mpi_auto", &["explicit"], Duration::from_secs(120));
    check(&job, false);
    let job = mpi_common::mpirun_env(
        4,
        &[],
        &[("DLS_SCHEDULE", "auto")],
        "mpi_auto",
        &["env"],
        Duration::from_secs(120),
    );
    check(&job, true);
}
