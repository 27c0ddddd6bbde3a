#!/usr/bin/env bash
# The whole test suite: installs OpenMPI and libclang if missing, then runs every test,
# threads and MPI (multi-rank tests spawn mpirun on built binaries).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cargo fmt --all -- --check || { echo "run: cargo fmt --all"; exit 1; }
cargo test --workspace --all-features
