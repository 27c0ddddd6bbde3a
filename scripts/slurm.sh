#!/usr/bin/env bash
# Slurm for real (issue 31): a Slurm of one node, this machine, runs the book's batch scripts as
# the reader sees them (book/src/slurm/*.sbatch, included in the chapters) with `sbatch --wait`.
#
# Installs Debian's slurm-wlm and munge if missing (Open MPI through scripts/deps.sh), writes a
# slurm.conf of one node, starts munged (unless one answers), slurmctld and slurmd, and stops
# them at the end. Then:
#   1. `srun --mpi=P -n 4` of a dls program for every MPI plugin P that `srun --mpi=list` shows:
#      which of them start an MPI job that dls sees (`p=4` in its DLS_REPORT=1 report). With
#      Debian's packages only pmix does; the script fails if pmix does not.
#   2. book/src/slurm/long_job.sbatch runs test-programs' `sweep` with checkpoints: the job gets
#      SIGUSR1 (as `--signal=B:USR1@120` sends it), every rank writes a checkpoint, the job is
#      requeued (`scontrol requeue`), and the second run restores the first run's iterates and
#      ends with the serial result.
#   3. book/src/slurm/own_project.sbatch runs the mandelbrot example (parallel == serial), and
#      book/src/slurm/hybrid.sbatch runs it as 2 ranks x 2 threads (srun --cpus-per-task,
#      DLS_THREADS=$SLURM_CPUS_PER_TASK).
#   4. The same script with a program that panics on rank 1: sbatch --wait fails, the job's
#      output names the panic, and no process of the job is left.
# Every wait has a timeout; a job still running at the end is cancelled and its processes killed.
#
# What the test sets around the scripts (they are submitted unchanged): `sbatch --nodes=1
# --ntasks-per-node=4` (4 ranks on this node instead of 4 × 32), `--chdir` a folder whose
# `target/release/<program>` links to the program, `--output` and `--open-mode=append` (both runs
# of a requeued job in one file), and in the environment: SCRATCH (a folder of this test),
# Open MPI's root permission (OMPI_ALLOW_RUN_AS_ROOT*), SLURM_CONF, and a `module` command that
# does nothing (Open MPI is installed system-wide here).
#
# Needs root (it installs packages and starts daemons). State, logs and the jobs' folders are in
# $DLS_SLURM_DIR (default /tmp/dls-slurm), emptied at the start. One run at a time on a machine:
# the daemons listen on fixed ports (6827, 6828), and a run stops what a run before it left.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
repo=$PWD
if [ "$(id -u)" -ne 0 ]; then
  echo "slurm.sh: SKIPPED: it must run as root (it installs Slurm and starts its daemons)"
  exit 0
fi

dir=${DLS_SLURM_DIR:-/tmp/dls-slurm}
# It is emptied: a folder at least two levels below /, never / or /usr.
[[ $dir == /?*/?* ]] || { echo "slurm.sh: DLS_SLURM_DIR=$dir: not a folder to empty"; exit 1; }
conf=$dir/slurm.conf
ranks=4
fail() {
  echo "FAILED (slurm.sh): $*"
  exit 1
}

# ---- packages -------------------------------------------------------------------------------
bash scripts/deps.sh # Open MPI and libclang, to build the programs
installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]; }
need=()
# slurm-wlm: slurmctld, slurmd, the client commands and the basic plugins (mpi_pmix among them).
# munge: Slurm's authentication. libpmix-dev: Slurm's pmix plugin loads `libpmix.so` (from
# /usr/lib/x86_64-linux-gnu/pmix2/lib), which only the -dev package ships; libopenmpi-dev
# depends on it already, named here for the plugin's sake.
for p in slurm-wlm munge libpmix-dev; do installed "$p" || need+=("$p"); done
if [ ${#need[@]} -gt 0 ]; then
  echo "slurm: installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" \
    >/dev/null
fi

# ---- the programs ----------------------------------------------------------------------------
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cargo build --release -p test-programs --features mpi --bin sweep --bin mpi_panic
cargo build --release --features mpi --example mandelbrot
target=$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/release

# ---- processes -------------------------------------------------------------------------------
# The live processes (not zombies) of the Slurm started from $conf (`ours slurm`: its daemons,
# started with `-f $conf`, its job steps, its jobs' processes, and the sbatch and srun of an
# earlier run) or of its job $2 (`ours job ID`): a job's processes have SLURM_JOB_ID
# and SLURM_CONF=$conf in their environment, its steps are `slurmstepd: [ID.…]`. Never this
# script, its parents or the subshell that runs this. From /proc: no procps needed.
ours() {
  local what=$1 id=${2:-} p pid stat cmd conf_seen job e q=$$ skip=" $$ $BASHPID "
  local -a words vars
  while [ "$q" -gt 1 ] && { read -r stat <"/proc/$q/stat"; } 2>/dev/null; do
    stat=${stat##*) }
    read -r _ q _ <<<"$stat"
    skip+="$q "
  done
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    [[ $skip == *" $pid "* ]] && continue
    { read -r stat <"$p/stat"; } 2>/dev/null || continue
    stat=${stat##*) }
    [[ ${stat:0:1} == [ZX] ]] && continue
    { mapfile -d '' -t words <"$p/cmdline"; } 2>/dev/null || continue
    { mapfile -d '' -t vars <"$p/environ"; } 2>/dev/null || continue
    cmd=" ${words[*]} "
    conf_seen="" job=""
    for e in "${vars[@]}"; do
      [[ $e == "SLURM_CONF=$conf" ]] && conf_seen=1
      [[ $e == SLURM_JOB_ID=* ]] && job=${e#SLURM_JOB_ID=}
    done
    [[ -n $conf_seen || $cmd == *" -f $conf "* ]] || continue
    if [ "$what" = slurm ]; then
      [[ -n $job || $cmd == " slurmctld "* || $cmd == " slurmd "* || $cmd == " slurmstepd:"* \
        || $cmd == " timeout "* || $cmd == " sbatch "* || $cmd == " srun "* ]] || continue
    else
      [[ $cmd == " slurmstepd: [$id."* || $job == "$id" ]] || continue
    fi
    echo "$pid"
  done
  return 0
}
# Describes processes $@ (pid and command line).
describe() {
  local pid
  for pid in "$@"; do echo "  $pid: $(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")"; done
}
# kill_all SIGNAL PIDS...: SIGNAL, up to 3 s for them to end, then SIGKILL to those left.
kill_all() {
  local first=$1 pid left
  shift
  [ $# -gt 0 ] || return 0
  kill "-$first" "$@" 2>/dev/null || true
  for _ in $(seq 30); do
    left=()
    for pid in "$@"; do
      [[ $(cat "/proc/$pid/stat" 2>/dev/null) == *") "[RSDTtWIP]* ]] && left+=("$pid")
    done
    [ ${#left[@]} -eq 0 ] && return 0
    sleep 0.1
  done
  kill -KILL "${left[@]}" 2>/dev/null || true
}
# Stops everything of the Slurm started from $conf.
stop_slurm() {
  # shellcheck disable=SC2046
  kill_all TERM $(ours slurm)
}

munged_started=""
cleanup() {
  local status=$?
  set +e
  if [ -f "$conf" ]; then
    timeout 10 scancel --full --quiet $(timeout 10 squeue -h -o %i 2>/dev/null) 2>/dev/null
    stop_slurm
  fi
  if [ -n "$munged_started" ]; then
    kill_all TERM "$munged_started"
  fi
  echo "slurm.sh: $((SECONDS - started)) s in all (exit $status)"
}
trap cleanup EXIT

# ---- a Slurm of one node -----------------------------------------------------------------------
# A Slurm left from an earlier run (killed before its cleanup) goes first, with its state.
if [ -f "$conf" ]; then
  left=$(ours slurm)
  if [ -n "$left" ]; then
    echo "slurm: stopping what an earlier run left:"
    # shellcheck disable=SC2086
    describe $left
    stop_slurm
  fi
fi
rm -rf "$dir"
mkdir -p "$dir"/{state,spool,log,scratch}

# munged: the one running is used (Debian's package starts one where services may start);
# otherwise it is started as its user, munge, as its service does.
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  if [ ! -s /etc/munge/munge.key ]; then
    mungekey --create --keyfile=/etc/munge/munge.key
    chown munge:munge /etc/munge/munge.key
    chmod 0400 /etc/munge/munge.key
  fi
  install -d -o munge -g munge -m 0755 /run/munge
  install -d -o munge -g munge -m 0700 /var/log/munge /var/lib/munge
  rm -f /run/munge/munged.pid
  runuser -u munge -- munged
  for _ in $(seq 50); do
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
    sleep 0.1
  done
  munge -n | unmunge >/dev/null || fail "munged does not answer"
  munged_started=$(cat /run/munge/munged.pid)
fi

host=$(hostname -s)
cpus=$(slurmd -C | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' | head -1)
memory=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' | head -1)
# The jobs run 4 ranks; a node with fewer cores is declared with 4 CPUs, which Slurm accepts with
# SlurmdParameters=config_overrides (for tests only, as its manual says).
declared=$((cpus > ranks ? cpus : ranks))
overrides=""
[ "$declared" -gt "$cpus" ] && overrides="SlurmdParameters=config_overrides"
cat >"$conf" <<EOF
# A Slurm of one node for scripts/slurm.sh; \`slurmd -C\` reported $cpus CPUs.
ClusterName=dls-test
# Addresses given, so that nothing depends on how this machine's name resolves.
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
# A requeued job starts again cred_expire + 1 s after its requeue (default 120 s).
AuthInfo=cred_expire=10
# Ports of their own, so that a Slurm of this machine, if any, is not disturbed.
SlurmctldPort=6827
SlurmdPort=6828
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# No cgroups: processes are tracked through their parents, and tasks are not bound to CPUs.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
$overrides
ReturnToService=2
# Jobs stay in \`scontrol show job\` (their exit codes) until slurmctld stops, and sbatch --wait
# looks at its job every 2 s (it backs off to 32 s while MinJobAge allows it).
MinJobAge=0
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$declared RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf
slurmctld -D -f "$conf" >"$dir/log/slurmctld.out" 2>&1 &
slurmd -D -f "$conf" >"$dir/log/slurmd.out" 2>&1 &
state=""
for _ in $(seq 150); do
  state=$(timeout 5 sinfo -h -N -n "$host" -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.2
done
if [ "$state" != idle ]; then
  tail -n 20 "$dir"/log/*
  fail "the node $host is not idle after 30 s (sinfo: ${state:-no answer})"
fi
echo "slurm: $(sinfo -V), node $host idle with $declared CPUs ($cpus real), in $((SECONDS - started)) s"

# ---- jobs ------------------------------------------------------------------------------------
# A folder for a job: target/release/$2 -> $3 (the program the script names). Prints its path.
job_folder() {
  local folder=$dir/$1
  mkdir -p "$folder/target/release"
  ln -sfn "$3" "$folder/target/release/$2"
  echo "$folder"
}
# Waits (at most $2 s) until no process of job $1 is left; fails naming them otherwise.
no_leftovers() {
  local left=""
  for _ in $(seq $((${2:-10} * 5))); do
    left=$(ours job "$1")
    [ -z "$left" ] && return 0
    sleep 0.2
  done
  echo "processes of job $1 left after its end:"
  # shellcheck disable=SC2086
  describe $left
  # shellcheck disable=SC2086
  kill_all KILL $left
  fail "job $1 left processes"
}
# submit NAME SECONDS FOLDER SCRIPT [SBATCH OPTIONS...]: `sbatch --wait` in the background under a
# timeout; sets job (its id) and sbatch_pid. The job's output goes to FOLDER/job.out.
submit() {
  local name=$1 secs=$2 folder=$3 script=$4
  shift 4
  echo "== sbatch --wait --nodes=1 --ntasks-per-node=$ranks $* $script ($name)"
  (
    set +e
    timeout "$secs" sbatch --wait --parsable --nodes=1 --ntasks-per-node="$ranks" \
      --chdir="$folder" --output="$folder/job.out" "$@" "$repo/$script" >"$folder/sbatch.out" 2>&1
    echo $? >"$folder/sbatch.rc"
  ) &
  sbatch_pid=$!
  job=""
  for _ in $(seq 100); do
    job=$(grep -o '^[0-9]\+' "$folder/sbatch.out" 2>/dev/null | head -1 || true)
    [ -n "$job" ] && break
    sleep 0.1
  done
  [ -n "$job" ] || { cat "$folder/sbatch.out"; fail "$name: sbatch printed no job id"; }
  echo "   job $job"
}
# finish FOLDER: waits for submit's sbatch and sets rc to its exit status.
finish() {
  wait "$sbatch_pid" || true
  rc=$(cat "$1/sbatch.rc")
  if [ "$rc" = 124 ]; then
    cat "$1/job.out" 2>/dev/null || true
    timeout 10 scancel "$job" || true
    fail "job $job did not end within its time (sbatch --wait timed out): cancelled"
  fi
}
# Waits up to $1 s for the command $2... to succeed.
wait_for() {
  local secs=$1 i
  shift
  for i in $(seq $((secs * 10))); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}
# A field of job $1's record (`scontrol show job`), e.g. `job_field 5 Restarts` -> Restarts=1;
# nothing where the controller has no record of the job (CI once lost a finished job's record,
# stop 38: `slurm_load_jobs error: Invalid job id specified`), so that reading a field for a
# message never ends the script. Checks that need a field read it while the job is live.
job_field() {
  { timeout 10 scontrol show job "$1" 2>/dev/null || true; } | grep -o "$2=[^ ]*" | head -1 || true
}
# The controller's log lines about job $1 (for a failure's message).
job_log() { grep -E "JobId=$1( |$)" "$dir/log/slurmctld.log" 2>/dev/null | tail -n "${2:-20}" || true; }

# ---- 1. srun's MPI plugins ---------------------------------------------------------------------
plugins=$(timeout 20 srun --mpi=list 2>&1 | sed -n 's/^[[:space:]]\+\([a-z0-9_]\+\)$/\1/p')
echo "== srun --mpi=list: $(echo $plugins)"
works=""
for plugin in $plugins; do
  log=$dir/srun-$plugin.log
  set +e
  DLS_REPORT=1 timeout 60 srun --mpi="$plugin" -n "$ranks" --time=2 \
    "$target/examples/mandelbrot" "$dir/mandelbrot-$plugin.pgm" >"$log" 2>&1
  rc=$?
  set -e
  loops=$(grep -c '^dls: loop ' "$log" || true)
  if [ "$rc" = 0 ] && [ "$loops" = 1 ] && grep -q "^dls: loop .* p=$ranks:" "$log"; then
    works+="$plugin "
    echo "   --mpi=$plugin: works: one job of $ranks ranks ($(grep '^mandelbrot' "$log"))"
    grep '^dls: loop ' "$log" | sed 's/^/     /'
  elif [ "$rc" = 0 ]; then
    echo "   --mpi=$plugin: does not work: srun started $loops separate programs, each on the" \
      "threads of its own process ($(grep -o ' p=[0-9]*:' "$log" | sort | uniq -c \
      | awk '{ printf "%s%d reports of %s", s, $1, substr($2, 1, length($2) - 1); s = ", " }')): no" \
      "variable of an MPI launcher that dls knows is set (Open MPI is not initialised)"
  else
    echo "   --mpi=$plugin: does not work (exit $rc):"
    # Each rank prints the same lines, after a `[host:pid]` of its own on some.
    grep -v -e '^-*$' -e '^ *$' "$log" | sed 's/^\[[^]]*\] //' | awk '!seen[$0]++' | head -n 8 \
      | sed 's/^/     /'
  fi
  [ "$rc" = 124 ] && fail "srun --mpi=$plugin did not end within 60 s"
done
[[ " $works" == *" pmix "* ]] || fail "srun --mpi=pmix did not run a dls job of $ranks ranks"
echo "   plugins that work with Debian's Open MPI: $works"

# ---- 2. the long job: a signal, checkpoints, a requeue, a restart ------------------------------
# The sweep over 20,000 values (its default is 6000): its loop must outlast the signal, the
# checkpoints and the requeue below (6000 values ended in 2.4 s on 2 idle cores, before the
# requeue came). The script runs `target/release/sweep` as the book writes it: a wrapper.
mkdir -p "$dir/long_job"
cat >"$dir/long_job-sweep" <<EOF
#!/bin/sh
exec "$target/sweep" 20000
EOF
chmod +x "$dir/long_job-sweep"
folder=$(job_folder long_job sweep "$dir/long_job-sweep")
export SCRATCH=$dir/scratch
ckpt=$SCRATCH/sweep-ckpt
report=$SCRATCH/sweep-report.jsonl
submit "long job" 300 "$folder" book/src/slurm/long_job.sbatch --open-mode=append
# The program says when its loop starts (dls creates the checkpoint folder only at the first
# write, and DLS_CHECKPOINT_EVERY=5min writes none before the signal).
loop_started() { grep -q 'the parallel loop starts' "$folder/job.out" 2>/dev/null; }
wait_for 60 loop_started || {
  cat "$folder/job.out"
  fail "the sweep's loop did not start within 60 s (no \"the parallel loop starts\" in job.out)"
}
sleep 2 # every rank is past the loop's start, where dls starts listening to SIGUSR1
if compgen -G "$ckpt/sweep-*/*.ckpt" >/dev/null; then
  ls -l "$ckpt"/sweep-*
  fail "checkpoints before the signal (DLS_CHECKPOINT_EVERY=5min: there should be none)"
fi
echo "   scancel --batch --signal=USR1 $job (what --signal=B:USR1@120 does 120 s before the limit)"
timeout 10 scancel --batch --signal=USR1 "$job"
all_written() { [ "$(compgen -G "$ckpt/sweep-*/g0-w*.ckpt" | wc -l)" -ge "$ranks" ]; }
wait_for 30 all_written || {
  ls -l "$ckpt"/sweep-*
  cat "$folder/job.out"
  fail "not every rank wrote a checkpoint within 30 s of SIGUSR1"
}
echo "   every rank wrote its checkpoint (none before the signal):"
ls -l "$ckpt"/sweep-*/ | sed -n 's/^.* \([0-9]\+ [A-Z][a-z][a-z] .*\)$/     \1/p'
[ "$(job_field "$job" JobState)" = JobState=RUNNING ] \
  || fail "job $job is not running any more ($(job_field "$job" JobState)): the signal ended it"
echo "   scontrol requeue $job"
timeout 10 scontrol requeue "$job"
# The requeued job runs again (cred_expire + 1 s after the requeue): its record says so while it
# runs; after its end the record may be gone (see job_field).
second_run() {
  [ "$(job_field "$job" Restarts)" = Restarts=1 ] \
    && [[ "$(job_field "$job" JobState)" =~ ^JobState=(RUNNING|COMPLETING|COMPLETED)$ ]]
}
restarts=""
wait_for 90 second_run && restarts=Restarts=1
finish "$folder"
sed 's/^/   | /' "$folder/job.out"
[ "$rc" = 0 ] || fail "the long job failed (sbatch --wait: exit $rc)"
grep -q "JOB $job .* DUE TO JOB REQUEUE" "$folder/job.out" || fail "no requeue in the job's output"
grep -q '^sweep: .* parallel == serial' "$folder/job.out" || fail "no serial result in the output"
[ "$restarts" = Restarts=1 ] || {
  job_log "$job"
  fail "job $job: not seen running again with Restarts=1 after the requeue" \
    "(now: $(job_field "$job" JobState) $(job_field "$job" Restarts))"
}
python3 - "$report" "$ranks" <<'EOF' || fail "the second run did not continue from the checkpoints"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
# The first run was killed inside its loop: only the second run reports it.
assert len(lines) == 1, f"{len(lines)} loop reports, expected 1"
r = lines[0]
c = r["checkpoint"]
done = sum(k["iterates"] for k in r["ranks"])
print(f"   report of the second run: loop `{r['name']}` n={r['n']} p={r['p']}: restored "
      f"{c['restored_iterates']} iterates from generation {c['restored_from']}, executed {done}")
assert r["p"] == int(sys.argv[2]), "not the job's number of ranks"
assert c["restored_from"] == 0, "restored from no checkpoint of the first run"
assert 0 < c["restored_iterates"] < r["n"], "nothing restored, or everything"
assert done == r["n"] - c["restored_iterates"], "iterates executed besides the restored ones"
EOF
if compgen -G "$ckpt/*/*.ckpt" >/dev/null; then
  fail "checkpoints left after the run ended: $(ls "$ckpt"/*)"
fi
no_leftovers "$job"
echo "   no process of job $job is left; the run that ended deleted its checkpoints"
echo "   long job: OK ($(job_field "$job" JobState) $restarts $(job_field "$job" ExitCode)" \
  "$(job_field "$job" RunTime) for the second run)"

# ---- 3. the own-project script -------------------------------------------------------------------
stub=$dir/bin
mkdir -p "$stub"
cat >"$stub/module" <<'EOF'
#!/bin/sh
# The test's stand-in for a cluster's `module` command: Open MPI is installed system-wide here.
echo "module $*: nothing to do (Open MPI is installed system-wide)"
EOF
chmod +x "$stub/module"
export PATH=$stub:$PATH
folder=$(job_folder own_project my-program "$target/examples/mandelbrot")
submit "own project" 120 "$folder" book/src/slurm/own_project.sbatch
finish "$folder"
sed 's/^/   | /' "$folder/job.out"
[ "$rc" = 0 ] || fail "the own-project job failed (sbatch --wait: exit $rc)"
grep -q '^mandelbrot .*parallel image == serial image' "$folder/job.out" || fail "no serial result"
grep -q "\"p\":$ranks," "$folder/run.jsonl" || fail "run.jsonl: not a loop of $ranks ranks"
grep -q '"technique":"af"' "$folder/run.jsonl" || fail "run.jsonl: DLS_SCHEDULE=af not used"
no_leftovers "$job"
echo "   own project: OK (run.jsonl: p=$ranks, technique af)"

# ---- 3b. threads inside ranks: book/src/slurm/hybrid.sbatch as 2 ranks x 2 threads ---------------
# The script asks for one task per node with --cpus-per-task for its threads; here 2 tasks of 2
# CPUs on the one node (its declared CPUs), and dls gives every rank DLS_THREADS=2 threads.
folder=$(job_folder hybrid my-program "$target/examples/mandelbrot")
submit "threads inside ranks" 120 "$folder" book/src/slurm/hybrid.sbatch --ntasks-per-node=2 \
  --cpus-per-task=2
finish "$folder"
sed 's/^/   | /' "$folder/job.out"
[ "$rc" = 0 ] || fail "the threads-inside-ranks job failed (sbatch --wait: exit $rc)"
grep -q '^mandelbrot .*parallel image == serial image' "$folder/job.out" || fail "no serial result"
grep -q '"p":4,' "$folder/run.jsonl" || fail "run.jsonl: not a loop of 2 ranks x 2 threads"
grep -q '"threads_per_rank":2' "$folder/run.jsonl" || fail "run.jsonl: no threads_per_rank 2"
# The script's launch line gives every rank a core per thread (--cpus-per-task, --cpu-bind=cores):
# dls warns at start when a rank's CPU mask holds fewer cores than its threads (issue 44).
! grep -q 'dls: warning: .* worker threads' "$folder/job.out" \
  || fail "the book's hybrid launch line left a rank fewer cores than threads (warning above)"
no_leftovers "$job"
echo "   threads inside ranks: OK (run.jsonl: p=4, threads_per_rank 2)"

# ---- 4. a rank that panics ends the job --------------------------------------------------------------
folder=$(job_folder panic my-program "$dir/panic/mpi_panic-worker")
cat >"$folder/mpi_panic-worker" <<EOF
#!/bin/sh
# test-programs' mpi_panic: rank 1 panics in its 5th iterate.
exec "$target/mpi_panic" worker
EOF
chmod +x "$folder/mpi_panic-worker"
submit "a rank panics" 120 "$folder" book/src/slurm/own_project.sbatch
finish "$folder"
sed 's/^/   | /' "$folder/job.out"
[ "$rc" != 0 ] || fail "sbatch --wait returned 0 for a job whose rank panicked" \
  "($(job_field "$job" JobState) $(job_field "$job" ExitCode))"
grep -q 'dls: rank 1 panicked in iterate [0-9]* of loop `panicky`: boom at' "$folder/job.out" \
  || fail "the job's output does not name the panic"
no_leftovers "$job"
echo "   no process of job $job is left"
echo "   a rank panics: OK (sbatch --wait: exit $rc; $(job_field "$job" JobState)" \
  "$(job_field "$job" ExitCode) $(job_field "$job" RunTime))"
