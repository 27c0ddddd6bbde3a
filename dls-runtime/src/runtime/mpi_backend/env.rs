//! MPI initialisation and finalisation (`DLS_Setup` on MPI).

use mpi::environment::{Threading, Universe};
use mpi::topology::{Communicator, SimpleCommunicator};

use super::super::error::DlsError;
use super::super::panic_ctx;

/// The initialised MPI library. Finalises MPI when dropped.
pub(crate) struct MpiEnv {
    universe: Option<Universe>,
    rank: usize,
    size: usize,
}

fn abort_world(code: i32) {
    SimpleCommunicator::world().abort(code)
}

impl MpiEnv {
    /// Initialises MPI with `MPI_THREAD_MULTIPLE`.
    pub(crate) fn init() -> Result<MpiEnv, DlsError> {
        if mpi::environment::is_finalized() {
            return Err(DlsError::Mpi(
                "MPI was already finalised in this process (the runtime was dropped); MPI \
                 cannot be initialised twice: keep the runtime from dls::init() alive"
                    .into(),
            ));
        }
        let (universe, provided) =
            mpi::initialize_with_threading(Threading::Multiple).ok_or_else(|| {
                DlsError::Mpi(
                    "MPI was already initialised by someone else in this process; let \
                     dls::init() initialise it"
                        .into(),
                )
            })?;
        if provided != Threading::Multiple {
            drop(universe);
            return Err(DlsError::Mpi(format!(
                "the MPI library provides thread support {provided:?}, but dls needs \
                 MPI_THREAD_MULTIPLE (the scheduler answers requests on a service thread); use \
                 an MPI build with thread multiple support (Open MPI >= 3 has it)"
            )));
        }
        let world = universe.world();
        let rank = world.rank() as usize;
        let size = world.size() as usize;
        panic_ctx::set_mpi(rank, abort_world);
        Ok(MpiEnv {
            universe: Some(universe),
            rank,
            size,
        })
    }

    pub(crate) fn rank(&self) -> usize {
        self.rank
    }

    pub(crate) fn size(&self) -> usize {
        self.size
    }

    /// `MPI_COMM_WORLD`.
    pub(crate) fn world(&self) -> SimpleCommunicator {
        SimpleCommunicator::world()
    }
}

impl Drop for MpiEnv {
    fn drop(&mut self) {
        panic_ctx::clear_mpi();
        // Dropping the universe calls MPI_Finalize.
        self.universe.take();
    }
}
