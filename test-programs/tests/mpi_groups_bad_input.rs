//! Bad input to a two-level loop gives a clear error on every rank and a non-zero exit, never a
//! hang: min > max, min < 1, a rack map that does not parse, too few ranks. A panic in an inner
//! iterate ends the whole job, naming the rank, the iterate and the outer iterate.
#![cfg(feature = "mpi")]

mod mpi_groups_support;

use std::time::Duration;

use mpi_groups_support::mpirun;

fn fails_with(p: usize, racks: Option<&str>, args: &[&str], says: &str) {
    let run = mpirun(p, racks, args, Duration::from_secs(60));
    assert_ne!(run.code, Some(0), "{args:?} should fail:\n{}", run.stdout);
    assert!(
        run.stderr.contains(says),
        "{args:?}: stderr lacks `{says}`:\n{}",
        run.stderr
    );
}

#[test]
fn min_above_max() {
    fails_with(
        4,
        None,
        &["--min", "3", "--max", "2"],
        "group=`min=3,max=2`: min (3) is above max (2) (allowed: 1 <= min <= max)",
    );
}

#[test]
fn min_below_one() {
    fails_with(
        4,
        None,
        &["--min", "0", "--max", "2"],
        "min (0) must be at least 1",
    );
}

#[test]
fn rack_map_that_does_not_parse() {
    fails_with(
        4,
        Some("rack1:node[1-"),
        &[],
        "DLS_RACKS=`rack1:node[1-`: entry `rack1:node[1-`: host pattern `node[1-`: `[` without a closing `]`",
    );
    fails_with(4, Some("ranks:0-1"), &[], "lacks `=rack`");
    // Issue 27: a device as the rack map file is refused, not read until memory runs out.
    fails_with(4, Some("/dev/zero"), &[], "not a regular file");
    // Issue 27: a rank map naming ranks the job does not have (written for another size).
    fails_with(
        4,
        Some("ranks:0-2=a,3-7=b"),
        &[],
        "DLS_RACKS names rank 7 (in `3-7=b`), but this job has 4 ranks, 0 to 3",
    );
    fails_with(
        4,
        Some("/no/such/rack/file"),
        &[],
        "cannot read rack map file",
    );
}

#[test]
fn too_few_ranks() {
    fails_with(
        4,
        None,
        &["--min", "4", "--max", "4"],
        "min = 4 needs at least 5 ranks (a coordinator plus a group of 4), but 4 run",
    );
}

#[test]
fn panic_in_an_inner_iterate_ends_the_job() {
    let run = mpirun(
        5,
        Some("ranks:0-3=a,4=b"),
        &["--outer", "ss", "--inner", "ss", "--panic-at", "7"],
        Duration::from_secs(60),
    );
    assert_ne!(run.code, Some(0));
    assert!(
        run.stderr.contains("panicked in iterate 0 of loop")
            && run.stderr.contains("(inner loop of outer iterate 7)")
            && run.stderr.contains("planted panic at (j, i) = (7, 0)"),
        "{}",
        run.stderr
    );
}
