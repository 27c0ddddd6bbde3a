#!/usr/bin/env bash
# The whole test suite: installs OpenMPI and libclang if missing, then runs every test,
# threads and MPI (multi-rank tests spawn mpirun on built binaries).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
# The time each stage took, in the log (the suite must fit CI's budget: DEVELOPERS.md).
last=$SECONDS
took() { echo "== suite time: $1 took $((SECONDS - last)) s ($SECONDS s so far)"; last=$SECONDS; }
trap 'echo "== suite time: $SECONDS s in all (exit $?)"' EXIT
took "deps.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One build from scratch on CI: incremental state would only take disk (several GB here).
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
cargo fmt --all -- --check || { echo "run: cargo fmt --all"; exit 1; }
took "cargo fmt"
# Every lint of clippy's default set is an error, in every package, target and feature.
cargo clippy --workspace --all-targets --all-features -- -D warnings \
  || { echo "FAILED: cargo clippy (fix the lints above)"; exit 1; }
took "cargo clippy"
# The API documentation builds with no broken link (a public item's doc linking to a private one
# is a dead link on docs.rs): those two rustdoc lints are errors here.
RUSTDOCFLAGS="-D rustdoc::broken_intra_doc_links -D rustdoc::private_intra_doc_links" cargo doc --workspace --no-deps --all-features \
  || { echo "FAILED: cargo doc (fix the documentation's links above)"; exit 1; }
took "cargo doc"
# Every published package packages and builds from its .crate alone (versions on the path
# dependencies, metadata, no file outside the package): crates.io is the only network it needs.
# A target folder of its own each run: cargo unpacks the packaged crates into
# $CARGO_HOME/registry/src/<hash of the local registry's path>/ and keeps them, so a second run in
# the same checkout verified against the first run's sources (a field added since: E0609).
publish_dir="target/publish-$$"
cargo publish --workspace --dry-run --allow-dirty --target-dir "$publish_dir" \
  || { echo "FAILED: cargo publish --workspace --dry-run"; exit 1; }
rm -rf "$publish_dir"
took "cargo publish --dry-run"
# The multi-rank tests are in test-programs/ (their programs are that package's binaries, built
# by this command); each mpirun job runs under a timeout there (test-programs/tests/mpi_common).
cargo test --workspace --all-features
took "cargo test --workspace"

# ---- concurrency checks (issue 43) --------------------------------------------------------------
# The loom models of the pool, the slot lock, the claim counter and re-execution's hand-over
# (dls-runtime/src/runtime/backend/loom_models.rs, listed in backend/README.md), in a target folder
# of their own so that `--cfg loom` does not invalidate the main build. A debug build: building
# dls-runtime and its dependencies with `--cfg loom` took 6 to 14 minutes in release and under 4 in
# debug on the loaded 2-core VM (2 min CPU), and the 9 models run in 45 s in debug against 9 to
# 22 s in release. Each model fails if its synchronisation is weakened: with the slot lock's
# Acquire/Release made Relaxed, loom reports a race on the cell (slot lock, hand-over); without
# the fence in Pool::run, a lost wake-up (deadlock) in the pool's models.
RUSTFLAGS="--cfg loom" cargo test -p dls-runtime --lib --target-dir target/loom loom \
  || { echo "FAILED: the loom models (RUSTFLAGS=\"--cfg loom\" cargo test -p dls-runtime --lib --target-dir target/loom loom)"; exit 1; }
took "loom models"
# The pool's randomised stress test under valgrind: memcheck, then DRD's race detection on the
# test built with dls-runtime's feature `valgrind` (happens-before annotations; the remaining
# std-internal reports suppressed by scripts/valgrind-drd.supp). About 45 s here once both
# builds are done, 110 s with them after a change to dls-runtime.
bash scripts/valgrind.sh
took "valgrind.sh"

# ---- mpirun jobs of this script: each under a timeout, as in the Rust tests ---------------------
# The live processes of session $1 (from /proc: no procps needed).
session_pids() {
  local stat rest state session
  for stat in /proc/[0-9]*/stat; do
    rest=$(cat "$stat" 2>/dev/null) || continue
    rest=${rest##*) }  # after `pid (comm) `: state ppid pgrp session ...
    read -r state _ _ session _ <<<"$rest"
    [[ $session == "$1" && $state != Z && $state != X ]] && echo "${stat//[^0-9]/}"
  done
  return 0
}
# Whether process $1 (the mpirun we started) runs (exists and is not a zombie waiting for `wait`).
mpirun_running() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  [[ ${stat:0:1} != Z ]]
}
# run_ranks SECONDS NP PROGRAM [ARGS...]: mpirun -np NP PROGRAM ARGS with mpirun leading a new
# session. Open MPI puts each rank in a process group of its own, but in mpirun's session, so a
# job that outlives SECONDS is ended by killing the session (SIGTERM to mpirun, then SIGKILL to
# every process left 2 s later) and the script fails naming the program, NP and the timeout. A
# process of the job still running once mpirun has ended fails it too.
run_ranks() {
  local secs=$1 np=$2 prog=$3 status=0 left
  shift 2
  echo "== mpirun -n $np $*"
  setsid mpirun -n "$np" --oversubscribe "$@" &
  local pid=$! deadline=$((SECONDS + secs))
  while mpirun_running "$pid"; do
    if ((SECONDS >= deadline)); then
      kill -TERM "$pid" 2>/dev/null || true
      sleep 2
      for left in $(session_pids "$pid"); do kill -KILL "$left" 2>/dev/null || true; done
      wait "$pid" 2>/dev/null || true
      echo "FAILED: $prog on $np ranks did not finish within $secs s: killed mpirun and its ranks"
      exit 1
    fi
    sleep 0.2
  done
  wait "$pid" || status=$?
  sleep 0.5
  left=$(session_pids "$pid")
  if [[ -n $left ]]; then
    for p in $left; do kill -KILL "$p" 2>/dev/null || true; done
    echo "FAILED: $prog on $np ranks: processes outlived mpirun (killed): $left"
    exit 1
  fi
  [[ $status -eq 0 ]] || { echo "FAILED: $prog under mpirun -n $np (exit $status)"; exit 1; }
}

# ---- #[par_doall] examples under mpirun (issue 4) ----------------------------------------------
# Each example runs its serial loop and its #[par_doall] loop and exits non-zero if the results
# differ; run each with 1, 2 and 4 ranks. term_frequency (a tree reduction of large dictionaries
# by user merge functions) and kmeans (a cheap loop repeated 20 times, reducing and gathering)
# run on threads too: the same binary started without mpirun.
cargo build --release --features mpi --example mandelbrot --example denoise --example montecarlo \
  --example term_frequency --example kmeans
examples_dir="${CARGO_TARGET_DIR:-target}/release/examples"
for example in mandelbrot denoise montecarlo term_frequency kmeans; do
  for ranks in 1 2 4; do
    run_ranks 120 "$ranks" "$examples_dir/$example"
  done
done
for example in term_frequency kmeans; do
  echo "== $examples_dir/$example (threads)"
  timeout 120 "$examples_dir/$example"
done

# ---- two-level (2D) loops: vfcar under mpirun (issue 5) -----------------------------------------
# The Monte Carlo study of Cariño & Banicescu (2007, §4.2) with an inner bootstrap loop, on 5
# ranks with two simulated racks (coordinator + groups {1,2} and {3,4}); exits non-zero if the
# 2D-parallel results differ from the serial ones.
cargo build --release --features mpi --example vfcar
echo "(DLS_RACKS=ranks:0-2=rack1,3-4=rack2)"
DLS_RACKS="ranks:0-2=rack1,3-4=rack2" run_ranks 120 5 "$examples_dir/vfcar" --min 2 --max 2
took "examples under mpirun"

# ---- The book (issue 4) ---------------------------------------------------------------------------
# Its Rust blocks already ran above as doc tests (src/lib.rs includes the chapters); mdbook checks
# the {{#include}}s (scripts/deps.sh installs mdbook). mdbook exits 0 on a missing include, so
# its log is checked for errors too.
book_log=$(mdbook build book 2>&1) || { echo "$book_log"; exit 1; }
if grep -q ERROR <<<"$book_log"; then echo "$book_log"; echo "FAILED: mdbook build book"; exit 1; fi
echo "book built in book/book"
took "mdbook"

# ---- the README's example, on threads and under mpirun (issue 3) --------------------------------
cargo run --release --example explicit_api
cargo build --release --features mpi --example explicit_api
for ranks in 1 3; do
  run_ranks 120 "$ranks" "$examples_dir/explicit_api"
done

# ---- a newcomer's project, from the README only (issue 14): a new cargo project with the
# README's Cargo.toml and src/main.rs, depending on this clone by path, built and run on threads
# and under mpirun -n 2 (and refused under mpirun without the mpi feature) --------------------------
bash scripts/fresh_project.sh
took "README example + fresh_project.sh"

# ---- without the mpi feature: `cargo build` needs no MPI, and a program launched by mpirun
# refuses to run N independent copies (dls-runtime/tests/runtime_env.rs) -------------------------
cargo test -p dls-runtime --test runtime_env
took "runtime_env"

# ---- Slurm for real (issue 31): a Slurm of one node on this machine (installed with apt-get if
# missing, its daemons started and stopped by the script) runs the book's batch scripts
# (book/src/slurm/) with sbatch --wait: srun's MPI plugins, a signal, checkpoints, a requeue and
# a restart of the long-job script, the own-project script, and a job whose rank panics ---------
bash scripts/slurm.sh
took "slurm.sh"

# ---- MPICH for real (issue 31): the test programs built against Debian's MPICH (installed beside
# Open MPI, which stays the default; a target folder of their own) and a subset of the multi-rank
# tests run under MPICH's Hydra mpiexec, through the same Rust tests and harness -------------------
bash scripts/mpich.sh
took "mpich.sh"
