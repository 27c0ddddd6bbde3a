//! A program's own panic hook (installed after `dls::init()`, replacing dls's) no longer turns a
//! panic on one rank into a hang of the others (issue 17 case 7).

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

fn check(mode: &str, expect: &str) {
    for np in [2, 4] {
        let job = mpi_common::mpirun(np, &[], "mpi_user_hook", &[mode], Duration::from_secs(30));
        assert!(!job.success, "{mode} P={np}: exited 0\n{}", job.stderr);
        assert!(job.stderr.contains("user hook: "), "{}", job.stderr);
        let line = job
            .stderr
            .lines()
            .find(|l| l.starts_with("dls: rank 1 panicked"))
            .unwrap_or_else(|| panic!("{mode} P={np}: rank 1 not named\n{}", job.stderr));
        assert!(
            line.contains(expect),
            "{mode} P={np}: `{line}` lacks `{expect}`"
        );
        assert!(
            job.elapsed < Duration::from_secs(5),
            "{mode} P={np}: {:?}",
            job.elapsed
        );
        eprintln!("{mode} P={np}: `{line}` after {:.2?}", job.elapsed);
    }
}

#[test]
fn a_panic_in_an_iterate_with_the_programs_own_hook_ends_the_job() {
    check("iterate", "of loop `hooked`");
}

#[test]
fn a_panic_in_main_with_the_programs_own_hook_ends_the_job() {
    check("main", "its message is above");
}
