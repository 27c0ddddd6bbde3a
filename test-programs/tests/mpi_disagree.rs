//! Ranks at different collective steps end the job within seconds, rank 0 naming each rank's step
//! (issue 17 case 6). Each of these hung until killed before the loop-start check.

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

fn disagree(np: usize, mode: &str, rank1_did: &str) {
    let job = mpi_common::mpirun(np, &[], "mpi_disagree", &[mode], Duration::from_secs(30));
    assert!(!job.success, "{mode}: the job exited 0\n{}", job.stderr);
    assert!(
        job.stderr
            .contains("dls: the ranks are at different collective steps"),
        "{mode}: no disagreement message\n{}",
        job.stderr
    );
    let line = job
        .stderr
        .lines()
        .find(|l| l.starts_with("dls:   rank 1: "))
        .unwrap_or_else(|| panic!("{mode}: rank 1 not named\n{}", job.stderr));
    assert!(
        line.contains(rank1_did),
        "{mode}: `{line}` lacks `{rank1_did}`"
    );
    assert!(
        job.elapsed < Duration::from_secs(10),
        "{mode}: took {:?}",
        job.elapsed
    );
    eprintln!("{mode} P={np}: `{line}` after {:.2?}", job.elapsed);
}

#[test]
fn ranks_that_agree_run_normally() {
    for np in [1, 2, 3] {
        let job = mpi_common::mpirun(np, &[], "mpi_disagree", &["agree"], Duration::from_secs(30));
        assert!(job.success, "P={np}\n{}", job.stderr);
        assert!(job.stdout.contains("disagree agree: OK"), "{}", job.stdout);
    }
}

#[test]
fn a_rank_that_returns_from_main_early_is_named() {
    disagree(2, "early-return", "ends: its dls runtime was dropped");
    disagree(3, "early-return", "ends: its dls runtime was dropped");
}

#[test]
fn a_rank_that_skips_a_loop_is_named() {
    disagree(2, "skip", "starts loop `b`");
}

#[test]
fn loops_in_another_order_are_named() {
    disagree(2, "order", "starts loop `b`");
}

#[test]
fn another_range_is_named() {
    disagree(2, "range", "over 101 iterates");
}

#[test]
fn another_technique_is_named() {
    disagree(2, "technique", "technique `gss`");
}

/// Issue 27 case 5: a rank asked for `10..110` where the others run `0..100` (the same N).
#[test]
fn another_first_index_is_named() {
    disagree(2, "first", "from index 10");
}

/// Issue 27 case 5: a checked loop on one rank and an unchecked one on another.
#[test]
fn a_checked_loop_against_an_unchecked_one_is_named() {
    disagree(2, "checked", "a checked loop with a result");
}

/// A loop with a result on one rank, the same loop without one on another.
#[test]
fn another_kind_of_loop_is_named() {
    disagree(2, "kind", "a loop with a result of type `u64`");
}

/// Issue 27: two OS threads of each rank starting top-level loops at once hung in 2 of 3 runs.
/// The loop of the thread that did not call `dls::init` is refused (or, when it comes while the
/// other loop runs, runs on its own thread alone, as a loop started inside an iterate does):
/// never a hang, and an error names the one-thread rule.
#[test]
fn two_threads_starting_loops_at_once_never_hang() {
    for _ in 0..3 {
        let job = mpi_common::mpirun(
            2,
            &[],
            "mpi_disagree",
            &["threads"],
            Duration::from_secs(30),
        );
        assert!(
            job.success || job.stderr.contains("the one-thread rule"),
            "{}",
            job.stderr
        );
        eprintln!(
            "two threads: exit {:?} after {:.2?}{}",
            job.code,
            job.elapsed,
            if job.success { "" } else { " (refused)" }
        );
    }
}

/// A loop started from a thread other than the one that called `dls::init` is refused.
#[test]
fn a_loop_from_another_thread_is_refused_naming_the_rule() {
    let job = mpi_common::mpirun(
        2,
        &[],
        "mpi_disagree",
        &["other-thread"],
        Duration::from_secs(30),
    );
    assert!(!job.success, "exited 0: {}", job.stdout);
    assert!(job.stderr.contains("the one-thread rule"), "{}", job.stderr);
}

/// Issue 27: a rank returning `Err` from `main` ended the job without its error text. Now the
/// ending rank leaves without waiting for the others, so `main`'s error is printed, and rank 0
/// names what each rank was doing.
#[test]
fn the_error_of_a_rank_that_returns_early_is_printed() {
    for np in [2, 3] {
        let job = mpi_common::mpirun(
            np,
            &[],
            "mpi_disagree",
            &["early-return"],
            Duration::from_secs(30),
        );
        assert!(!job.success);
        assert!(
            job.stderr.contains("rank 1 gives up before the loop"),
            "P={np}: the error of main is not printed\n{}",
            job.stderr
        );
    }
}

/// Issue 27: a panic caught by the program outside every loop aborted the MPI job (threads ran
/// it fine); only a panic that escapes ends the job now.
#[test]
fn a_panic_caught_outside_the_loops_does_not_end_the_job() {
    let job = mpi_common::mpirun(
        2,
        &[],
        "mpi_disagree",
        &["caught-panic"],
        Duration::from_secs(30),
    );
    assert!(job.success, "{}", job.stderr);
    assert!(
        job.stdout.contains("disagree caught-panic: OK"),
        "{}",
        job.stdout
    );
}

/// Issue 43 R4-4 and F13: what the program chooses per rank (threads through the API, a loop's
/// strategy, re-execution, order, check) ends the job within 30 s with a message naming what
/// differs and each rank's value, never `MPI_ERR_TRUNCATE` (rc 15) or a hang.
fn per_rank_choice(np: usize, mode: &str, names: &[&str]) {
    let job = mpi_common::mpirun(np, &[], "mpi_disagree", &[mode], Duration::from_secs(30));
    assert!(!job.success, "{mode}: the job exited 0\n{}", job.stderr);
    assert!(
        !job.stderr.contains("MPI_ERR_TRUNCATE"),
        "{mode}: an MPI error instead of a message\n{}",
        job.stderr
    );
    for name in names {
        assert!(
            job.stderr.contains(name),
            "{mode}: the message does not name `{name}`\n{}",
            job.stderr
        );
    }
    assert!(
        job.elapsed < Duration::from_secs(30),
        "{mode}: took {:?}",
        job.elapsed
    );
    eprintln!(
        "{mode} P={np}: exit {:?} after {:.2?}:\n{}",
        job.code,
        job.elapsed,
        job.stderr
            .lines()
            .filter(|l| l.starts_with("dls:"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn threads_through_the_api_per_rank_are_named() {
    per_rank_choice(
        2,
        "threads-api",
        &["dls::init_with_threads", "rank 0 `1`", "rank 1 `2`"],
    );
    per_rank_choice(
        3,
        "threads-api",
        &["dls::init_with_threads", "rank 0 `1`", "rank 2 `3`"],
    );
}

#[test]
fn a_strategy_on_one_rank_only_is_named() {
    per_rank_choice(
        2,
        "strategy",
        &["reduction", "rank 0 `auto`", "rank 1 `pipeline`"],
    );
    per_rank_choice(
        3,
        "strategy",
        &["reduction", "ranks 0, 2 `auto`", "rank 1 `pipeline`"],
    );
}

#[test]
fn other_loop_options_per_rank_are_named() {
    per_rank_choice(
        2,
        "reexecute",
        &["re-execution", "rank 0 `on`", "rank 1 `off`"],
    );
    per_rank_choice(
        2,
        "ordered",
        &["order-keeping merge", "rank 0 `no`", "rank 1 `yes`"],
    );
    per_rank_choice(2, "check-alpha", &["check", "alpha"]);
}

/// Issue 43 R4-3: `std::env::set_var("DLS_DELAY", …)` on one rank after `dls::init` hung the job
/// at its end. Settings are read once, at the start: the change has no effect, and the job ends
/// within 30 s naming the setting, the rank and both values.
#[test]
fn a_setting_changed_after_init_on_one_rank_is_named() {
    per_rank_choice(
        2,
        "set-delay",
        &[
            "dls reads its settings once, at dls::init",
            "rank 1: DLS_DELAY: unset at dls::init, `body:1us` now",
        ],
    );
}
