//! 50 repeated runs of the 5-rank two-level loop finish without a hang, each under a timeout (a
//! known peer tool completes only 2 of 5 such runs, because its two levels share tags).
#![cfg(feature = "mpi")]

mod mpi_groups_support;

use std::time::Duration;

use mpi_groups_support::mpirun;

#[test]
fn fifty_runs_of_five_ranks_never_hang() {
    let mut times = Vec::new();
    for k in 0..50 {
        let run = mpirun(
            5,
            Some("ranks:0-3=a,4=b"),
            &[
                "--min", "1", "--max", "3", "--outer", "af", "--inner", "fac2;ss", "--m", "16",
            ],
            Duration::from_secs(30),
        );
        run.assert_ok(&format!("run {k} of 50"));
        assert_eq!(
            run.stdout.lines().filter(|l| l.starts_with("ok ")).count(),
            2,
            "run {k}: {}",
            run.stdout
        );
        times.push(run.seconds);
    }
    times.sort_by(f64::total_cmp);
    eprintln!(
        "50 runs: median {:.2} s, max {:.2} s",
        times[25],
        times[times.len() - 1]
    );
}
