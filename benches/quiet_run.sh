#!/bin/bash
# usage: benches/quiet_run.sh MAXWAIT cmd...   (the wrapper of the issue 29 runs in BENCHMARKS.md)
# Waits until the CPUs are >= 85% idle over 3 s (at most MAXWAIT s), runs cmd, and prints the
# CPU time other processes used during the run, as a share of the machine (all cores x wall):
# foreign = (busy jiffies of the machine - this command's user+sys) / (cores x wall).
max=$1; shift
cmd=("$@")
start=$(date +%s)
stat() { read -r _ u n s i w q sq st _ < /proc/stat; echo "$((u+n+s+q+sq+st)) $((u+n+s+i+w+q+sq+st))"; }
idle() { set -- $(stat); b1=$1; t1=$2; sleep 3; set -- $(stat); echo $(( 100 - 100*($1-b1)/($2-t1) )); }
while :; do
  p=$(idle)
  if [ "$p" -ge 85 ]; then break; fi
  if [ $(( $(date +%s) - start )) -ge "$max" ]; then echo "# gave up waiting (idle $p%)"; break; fi
done
echo "# $(date -u +%H:%M:%S) idle ${p}% before"
set -- $(stat); b0=$1; t0=$2
tf=$(mktemp)
/usr/bin/time -f "%U %S" -o "$tf" "${cmd[@]}"
set -- $(stat); b1=$1; t1=$2
read -r us ss < "$tf"; rm -f "$tf"
hz=$(getconf CLK_TCK)
python3 -c "
busy=($b1-$b0)/$hz; tot=($t1-$t0)/$hz; own=$us+$ss
print('# %s foreign CPU during the run: %.1f%% of the machine (own %.2f s CPU, machine busy %.2f of %.2f s)' % ('$(date -u +%H:%M:%S)', 100*max(0,busy-own)/tot if tot else 0, own, busy, tot))"
