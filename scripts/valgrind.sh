#!/usr/bin/env bash
# The pool's randomised stress test (dls-runtime/tests/pool_stress.rs) under valgrind: a smaller
# claim count than the plain run's 150,000 (valgrind runs the program 20-50 times slower), set by
# DLS_VALGRIND_CLAIMS (default 5000; about 20 s here). Valgrind runs one thread at a time;
# --fair-sched=yes hands the CPU round-robin between them, so the pool's threads interleave at
# many more points than on the 2-core CI machine.
#
# Tool: memcheck, whose verdict must be clean (any error fails this script): a pool thread
# reading the loop's job after `run` returned (it borrows the starter's stack), a claim or log
# outside its slot, or a use of freed scheduler state shows up as an invalid read or write.
#
# Not DRD or Helgrind: their race verdicts rest on seeing the program's synchronisation, and they
# see only pthread calls and annotated code. Rust's std Mutex, Condvar, Once and Arc on Linux are
# futex- and atomics-based (since Rust 1.62) and carry no valgrind annotations, so every access
# under a std Mutex is reported: on this test with DLS_STRESS_CLAIMS=1000, DRD reported 4,380
# errors from 514 contexts, among them std's own thread start-up (`stack_overflow::thread_info`),
# the scheduler's state under its mutex (`ChunkScheduler::next_chunk`) and the pool's job
# (synchronised by atomics). A clean race verdict needs happens-before annotations (valgrind
# client requests) on every synchronisation, std's included; the loom models
# (backend/loom_models.rs) check the hand-made synchronisation's orderings instead.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind: installing valgrind"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq valgrind >/dev/null
fi
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}
# The test binary, built as the suite builds it (debug).
bin=$(cargo test -p dls-runtime --test pool_stress --no-run 2>&1 \
  | grep -o 'target/[^ )]*/deps/pool_stress-[0-9a-f]*' | tail -n 1)
[[ -x $bin ]] || { echo "FAILED: no pool_stress test binary"; exit 1; }
claims=${DLS_VALGRIND_CLAIMS:-5000}
echo "== valgrind --tool=memcheck --fair-sched=yes $bin (DLS_STRESS_CLAIMS=$claims)"
status=0
DLS_STRESS_CLAIMS=$claims valgrind --tool=memcheck --fair-sched=yes --error-exitcode=97 \
  --num-callers=30 "$bin" --test-threads=1 --nocapture || status=$?
[[ $status -eq 0 ]] || { echo "FAILED: pool_stress under valgrind (exit $status; 97: valgrind found errors, above)"; exit 1; }
