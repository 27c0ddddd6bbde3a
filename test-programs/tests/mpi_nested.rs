//! Loops started inside an iterate under MPI run serially on the calling rank and give the serial
//! result (issue 17 case 3): `#[dls::parallel]` helpers called from a `#[par_doall]` body, and an
//! explicit loop inside `doall_reduce`, at P = 1, 2, 3, 4.

#![cfg(feature = "mpi")]

mod mpi_common;

use std::time::Duration;

#[test]
fn loops_inside_an_iterate_give_the_serial_result() {
    for np in [1, 2, 3, 4] {
        let job = mpi_common::mpirun(np, &[], "mpi_nested", &[], Duration::from_secs(60));
        assert!(job.success, "P={np}\n{}", job.stderr);
        assert!(job.stdout.contains("nested: OK"), "P={np}: {}", job.stdout);
    }
}
