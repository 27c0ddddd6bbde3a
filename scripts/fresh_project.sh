#!/usr/bin/env bash
# A newcomer's project, built from the README only (issue 14): a new cargo project in a temporary
# folder gets the `Cargo.toml` and `src/main.rs` that README.md shows (the fenced blocks after the
# `<!-- fresh_project: PATH -->` markers, read from the README itself so that the two cannot
# drift), depends on this clone by the README's `path = "../dls"` (a link to this repository
# beside the project), and is built and run as the README says:
#
#   - `cargo run --release` with DLS_THREADS=2 (threads, no MPI feature),
#   - `cargo build --release --features mpi` and `mpirun -n 2` (with --oversubscribe),
#   - and a build without the feature started by `mpirun -n 2`, which must refuse to run.
#
# The program prints its parallel and its serial result on rank 0 only; each run must print the
# two, equal, exactly once. Dependencies resolve as for a new user (no lock file is copied).
# The project's target folder is kept between runs (target/fresh_project, or $FRESH_PROJECT_TARGET)
# so a second run only rebuilds what changed (~1 min on a 2-core machine); the first builds all
# the dependencies, with and without the mpi feature (~3.5 min there).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export CARGO_TARGET_DIR=${FRESH_PROJECT_TARGET:-$repo/target/fresh_project}
unset DLS_THREADS DLS_SCHEDULE DLS_REPORT DLS_REDUCTION DLS_PROGRESS

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAILED (scripts/fresh_project.sh): $*" >&2; exit 1; }

# readme_block PATH: the content of the fenced block after `<!-- fresh_project: PATH -->`.
readme_block() {
  awk -v marker="<!-- fresh_project: $1 -->" '
    $0 == marker { found = 1; next }
    found == 1 && /^```/ { found = 2; next }
    found == 2 && /^```/ { exit }
    found == 2 { print }
  ' "$repo/README.md"
}

ln -s "$repo" "$work/dls"
cd "$work"
cargo new --quiet --vcs none my-sweep
cd my-sweep
for file in Cargo.toml src/main.rs; do
  readme_block "$file" >"$file"
  [[ -s $file ]] || fail "README.md has no block marked <!-- fresh_project: $file -->"
done
grep -q 'dls = { path = "../dls" }' Cargo.toml || fail "the README's Cargo.toml has no path dependency on ../dls"
# The workspace's lock file as a start: cargo keeps the versions it lists (and drops the rest), so
# a new release of a dependency cannot break this check from one day to the next.
cp "$repo/Cargo.lock" Cargo.lock
binary=$CARGO_TARGET_DIR/release/my-sweep

# check_output LABEL OUTPUT: one `parallel:` line and one `serial:` line, with the same result.
check_output() {
  local label=$1 out=$2 par ser
  par=$(grep '^parallel:' <<<"$out" || true)
  ser=$(grep '^serial:' <<<"$out" || true)
  [[ $(wc -l <<<"$par") -eq 1 && -n $par ]] || fail "$label: expected one 'parallel:' line (rank 0 only), got:
$out"
  [[ $(wc -l <<<"$ser") -eq 1 && -n $ser ]] || fail "$label: expected one 'serial:' line, got:
$out"
  [[ $(sed 's/^parallel: *//' <<<"$par") == "$(sed 's/^serial: *//' <<<"$ser")" ]] || fail "$label: the parallel result differs from the serial one:
$out"
  echo "$label: $par"
}

start=$SECONDS
echo "== fresh project: cargo run --release (DLS_THREADS=2)"
out=$(DLS_THREADS=2 timeout 600 cargo run --quiet --release) || fail "cargo run --release"
check_output "threads" "$out"

echo "== fresh project: the same build started by mpirun -n 2 must refuse to run two copies"
status=0
err=$(timeout --kill-after=5 120 mpirun -n 2 --oversubscribe "$binary" 2>&1) || status=$?
[[ $status -ne 0 ]] || fail "a build without the mpi feature ran under mpirun -n 2:
$err"
grep -q 'mpi = \["dls/mpi"\]' <<<"$err" || fail "the error does not say what to add to Cargo.toml:
$err"

echo "== fresh project: cargo build --release --features mpi; mpirun -n 2"
timeout 900 cargo build --quiet --release --features mpi || fail "cargo build --release --features mpi"
out=$(timeout --kill-after=5 120 mpirun -n 2 --oversubscribe "$binary") || fail "mpirun -n 2 $binary"
check_output "mpirun -n 2" "$out"
out=$(DLS_THREADS=2 timeout 120 "$binary") || fail "$binary on threads (built with mpi)"
check_output "threads (built with mpi)" "$out"
echo "fresh project: built and ran from the README in $((SECONDS - start)) s"
