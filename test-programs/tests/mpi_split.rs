//! Splitting a long chunk in progress for idle ranks under mpirun (`runtime/tolerance/split.rs`): STATIC
//! hands the dear second half of the loop to the last rank; the others, idle, take parts of it
//! (rank 0's compute thread and the other ranks ask it by message). Every iterate counts once,
//! the chunk map stays a partition, and with `off` nothing is split.

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

fn field<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix("split: "))
        .and_then(|l| l.split(' ').find_map(|f| f.strip_prefix(key)))
        .unwrap_or_default()
}

fn run(p: usize, split: &str) -> String {
    let job = mpi_common::mpirun(
        p,
        &[],
        "mpi_split",
        &["600", split],
        Duration::from_secs(60),
    );
    assert!(job.success, "P={p}: {}\n{}", job.stdout, job.stderr);
    eprintln!("P={p} {split}: {}", job.stdout.trim());
    job.stdout
}

#[test]
fn idle_ranks_split_the_last_ranks_chunk() {
    for p in [2, 3] {
        let out = run(p, "on");
        assert_eq!(field(&out, "sum="), field(&out, "serial="), "{out}");
        assert_eq!(field(&out, "iterates="), "600", "{out}");
        mpi_common::assert_partition(&out, 600);
        let splits: u64 = field(&out, "splits=").parse().unwrap();
        assert!(splits >= 1, "P={p}: no split: {out}");
    }
}

#[test]
fn split_off_leaves_every_chunk_whole() {
    let out = run(2, "off");
    assert_eq!(field(&out, "sum="), field(&out, "serial="), "{out}");
    assert_eq!(field(&out, "splits="), "0", "{out}");
    mpi_common::assert_partition(&out, 600);
}
