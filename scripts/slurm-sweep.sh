#!/usr/bin/env bash
# Prove `oransim sweep --shard I/N` and `--merge` on a real Slurm (issue 13, docs/sweep.md,
# "Slurm, tested for real"): as root on one Debian machine, install Slurm and MUNGE from the
# distribution's packages, start a private one-node cluster (munged, slurmctld, slurmd) whose
# every file lives in one temporary directory, submit a small sweep as a job array (one task per
# shard), merge the shards, run the same sweep locally and check the two results are
# byte-identical (cmp). Every daemon it started is stopped and the temporary directory removed
# on every exit, failure included.
#
# Usage: scripts/slurm-sweep.sh [--oransim PATH] [--shards N]
#
#   --oransim PATH  the binary to test (default: `oransim` on PATH, else target/release or
#                   target/debug of this repository)
#   --shards N      array tasks, one shard each (default 4; the sweep has 8 points)
#
# Exit status: 0 the merged result equals the local one; 1 it does not, or a step failed;
# 77 skipped (not root, not Debian-like, packages not installable, a Slurm already running),
# with a line `skipped: <reason>` on stderr.
#
# What it leaves on the machine: the installed packages (slurmctld, slurmd, slurm-client,
# munge; a second run skips the install). It does not touch /etc/slurm, /etc/munge, the
# system's munged or any service: its munged has its own key and socket, and its slurmctld and
# slurmd their own configuration (SLURM_CONF), ports, state, spool and logs, all in the
# temporary directory.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
oransim=""
shards=4
while [ $# -gt 0 ]; do
  case $1 in
    --oransim) oransim=${2:?--oransim needs a path}; shift 2 ;;
    --shards) shards=${2:?--shards needs a number}; shift 2 ;;
    -h | --help) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "slurm-sweep: unknown argument '$1' (allowed: --oransim PATH, --shards N)" >&2; exit 1 ;;
  esac
done
case $shards in
  '' | *[!0-9]* | 0*) echo "slurm-sweep: --shards '$shards': a whole number from 1 to 8" >&2; exit 1 ;;
esac
if [ "$shards" -gt 8 ]; then
  echo "slurm-sweep: --shards $shards: at most 8 (the sweep has 8 points)" >&2
  exit 1
fi

skip() { echo "skipped: $*" >&2; exit 77; }
log() { echo "slurm-sweep: $*" >&2; }
# shellcheck source=lib/apt.sh
. "$(dirname "$0")/lib/apt.sh"
# shellcheck source=lib/procs.sh
. "$(dirname "$0")/lib/procs.sh"

# The sweep: 4 fibre lengths x 2 split policies = 8 points of 200 frames (a second on one core).
scenario="$repo/scenarios/sweep_fronthaul.toml"
sweep_args=(--set stop.packets=200 --vary 'link[0].length=0km..3km:1km'
  --vary 'flow[0].source.split=greedy,even' --quiet)

if [ -z "$oransim" ]; then
  for c in "$(command -v oransim || true)" "$repo/target/release/oransim" "$repo/target/debug/oransim"; do
    if [ -n "$c" ] && [ -x "$c" ]; then oransim=$c; break; fi
  done
fi
if [ -z "$oransim" ] || [ ! -x "$oransim" ]; then
  echo "slurm-sweep: no oransim binary: build it (cargo build -p oransim) or give --oransim PATH" >&2
  exit 1
fi
oransim=$(cd "$(dirname "$oransim")" && pwd)/$(basename "$oransim")

[ "$(id -u)" = 0 ] || skip "not root (installing packages and starting slurmd need root)"

# A running Slurm is someone else's: refuse rather than compete for its ports, node or state.
running() { # the pids of processes whose command name is $1
  local p
  for p in /proc/[0-9]*; do
    [ "$(cat "$p/comm" 2>/dev/null)" = "$1" ] && echo "${p#/proc/}"
  done
  return 0
}
for d in slurmctld slurmd; do
  pids=$(running "$d" | paste -sd ' ')
  [ -z "$pids" ] || skip "a $d is already running (pid $pids); this script starts its own cluster and will not disturb that one"
done

# --- packages ----------------------------------------------------------------------------------
need_install=0
for b in munged slurmctld slurmd sbatch scontrol sinfo; do
  command -v "$b" >/dev/null 2>&1 || need_install=1
done
tmp=""
policy_rc=""
pids_started=()
cleanup() {
  local status=$? pid p
  trap - EXIT INT TERM
  if [ -n "$policy_rc" ]; then rm -f "$policy_rc"; fi
  if [ -n "$tmp" ] && [ -d "$tmp" ]; then
    if [ -n "${jobid:-}" ]; then scancel "$jobid" >/dev/null 2>&1 || true; fi
    if [ "$status" != 0 ] && [ "$status" != 77 ]; then
      for f in "$tmp"/log/*; do
        [ -f "$f" ] || continue
        echo "--- ${f#"$tmp"/} (last 20 lines)" >&2
        tail -n 20 "$f" >&2
      done
    fi
    # Every process started here carries ORANSIM_SLURM_RUN=$tmp in its environment (the daemons,
    # and the slurmstepd and job processes they start): stop those, by pid, and nothing else.
    for pass in TERM KILL; do
      local left=()
      for p in /proc/[0-9]*; do
        pid=${p#/proc/}
        [ "$pid" = $$ ] && continue
        if { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qxF "ORANSIM_SLURM_RUN=$tmp"; then
          left+=("$pid")
        fi
      done
      for pid in "${pids_started[@]}"; do
        [ -d "/proc/$pid" ] && left+=("$pid")
      done
      [ ${#left[@]} -eq 0 ] && break
      signal_and_wait "$pass" "${left[@]}"
    done
    rm -rf "$tmp"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ $need_install = 1 ]; then
  apt_install slurmctld slurmd slurm-client munge
fi
log "$(slurmctld -V), $(munged -V 2>&1 | head -n 1)"
getent passwd munge >/dev/null || { log "the munge package made no 'munge' user"; exit 1; }

# --- a private cluster in a temporary directory --------------------------------------------------
tmp=$(mktemp -d /tmp/oransim-slurm.XXXXXX)
chmod 755 "$tmp" # munged (user munge) must reach its directory
export ORANSIM_SLURM_RUN=$tmp
mkdir -p "$tmp"/{munge,etc,state,spool,run,log,out}
chown munge: "$tmp/munge"
chmod 755 "$tmp/munge" # munged: "execute permissions for all required" on the socket's directory
chmod 777 "$tmp/log"

# Two free TCP ports for slurmctld and slurmd (none listening in /proc/net/tcp{,6}).
listening() {
  local _sl local_addr _rem st _rest
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | while read -r _sl local_addr _rem st _rest; do
    [ "$st" = 0A ] && echo $((16#${local_addr##*:}))
  done
  return 0
}
ports=()
busy=$(listening)
for p in $(seq 16817 16999); do
  grep -qx "$p" <<<"$busy" || ports+=("$p")
  [ ${#ports[@]} -eq 2 ] && break
done
[ ${#ports[@]} -eq 2 ] || { log "no two free TCP ports in 16817-16999"; exit 1; }

# MUNGE: its own 1024-byte key and socket, run as the munge user (as the package's service does).
head -c 1024 /dev/urandom >"$tmp/munge/munge.key"
chown munge: "$tmp/munge/munge.key"
chmod 400 "$tmp/munge/munge.key"
socket=$tmp/munge/munge.socket
runuser -u munge -- munged --foreground --socket="$socket" --key-file="$tmp/munge/munge.key" \
  --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/munged.seed" \
  --log-file="$tmp/log/munged.log" 2>>"$tmp/log/munged.stderr" &
pids_started+=($!)
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.2; done
[ -S "$socket" ] || { log "munged did not create its socket"; exit 1; }
echo ok | munge --socket="$socket" | unmunge --socket="$socket" >/dev/null \
  || { log "munge/unmunge round trip failed"; exit 1; }

host=$(uname -n)
host=${host%%.*}
cpus=$(nproc)
export SLURM_CONF=$tmp/etc/slurm.conf
cat >"$SLURM_CONF" <<EOF
# A one-node cluster for scripts/slurm-sweep.sh: every path is in $tmp.
ClusterName=oransim
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
# No cgroups: a container may not offer them, and one node running its own jobs needs none.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdTimeout=60
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=oransim Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -i -f "$SLURM_CONF" >>"$tmp/log/slurmctld.stderr" 2>&1 &
pids_started+=($!)
slurmd -D -N "$host" -f "$SLURM_CONF" >>"$tmp/log/slurmd.stderr" 2>&1 &
pids_started+=($!)

state=""
for _ in $(seq 120); do
  state=$(sinfo -h -N -n "$host" -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  for pid in "${pids_started[@]}"; do
    [ -d "/proc/$pid" ] || { log "a daemon (pid $pid) exited while starting"; exit 1; }
  done
  sleep 0.5
done
[ "$state" = idle ] || { log "node $host not idle after 60 s (state '${state:-none}')"; exit 1; }
log "cluster up: slurmctld :${ports[0]}, slurmd :${ports[1]}, node $host ($cpus CPUs) idle"

# --- the sweep as a job array --------------------------------------------------------------------
out=$tmp/out
{
  echo '#!/bin/bash'
  echo "#SBATCH --job-name=oransim-sweep"
  echo "#SBATCH --array=0-$((shards - 1))"
  echo "#SBATCH --cpus-per-task=1"
  echo "#SBATCH --output=$tmp/log/task-%a.out"
  printf 'exec %q sweep %q' "$oransim" "$scenario"
  printf ' %q' "${sweep_args[@]}"
  # shellcheck disable=SC2016 # the job script expands these, in each array task
  printf ' --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT"'
  # shellcheck disable=SC2016
  printf ' --out %q/shard-"$SLURM_ARRAY_TASK_ID"\n' "$out"
} >"$tmp/sweep.sbatch"
log "job script $tmp/sweep.sbatch:"
sed 's/^/  | /' "$tmp/sweep.sbatch" >&2

t0=$(date +%s%N)
jobid=$(sbatch --parsable --chdir="$tmp" "$tmp/sweep.sbatch")
jobid=${jobid%%;*}
log "submitted job array $jobid (tasks 0-$((shards - 1)))"
done_ok=0
for _ in $(seq 600); do
  # Array tasks still known to the controller and not finished.
  pending=$(squeue -h -j "$jobid" -o %i 2>/dev/null | wc -l)
  [ "$pending" = 0 ] && { done_ok=1; break; }
  sleep 0.5
done
[ $done_ok = 1 ] || { log "job array $jobid not finished after 300 s"; exit 1; }
t1=$(date +%s%N)
failed=0
for i in $(seq 0 $((shards - 1))); do
  info=$(scontrol -o show job "${jobid}_$i" 2>/dev/null || true)
  st=$(grep -o 'JobState=[A-Z_]*' <<<"$info" || echo "JobState=?")
  ec=$(grep -o ' ExitCode=[0-9:]*' <<<"$info" || echo " ExitCode=?")
  log "task $i: ${st#JobState=},${ec}"
  if [ "${st#JobState=}" != COMPLETED ] || [ ! -f "$out/shard-$i/shard-$i-of-$shards.json" ]; then
    failed=1
  fi
done
[ $failed = 0 ] || { log "a task did not complete with its shard file"; exit 1; }
ms=$(((t1 - t0) / 1000000))
log "job array done in $((ms / 1000)).$(printf %03d $((ms % 1000))) s"

# --- merge, local run, comparison ----------------------------------------------------------------
shard_dirs=()
for i in $(seq 0 $((shards - 1))); do shard_dirs+=("$out/shard-$i"); done
"$oransim" sweep --quiet --merge "${shard_dirs[@]}" --out "$out/merged" >/dev/null
"$oransim" sweep "$scenario" "${sweep_args[@]}" --out "$out/local" >/dev/null

# Every result file of the local run (its journal aside) must exist in the merge, byte for byte,
# and the merge must hold nothing else.
(cd "$out/local" && find . -type f ! -name points.jsonl | sort) >"$tmp/local.list"
(cd "$out/merged" && find . -type f | sort) >"$tmp/merged.list"
if ! cmp -s "$tmp/local.list" "$tmp/merged.list"; then
  log "the merge and the local run wrote different files:"
  diff "$tmp/local.list" "$tmp/merged.list" >&2 || true
  exit 1
fi
n=0
while read -r f; do
  if ! cmp "$out/local/$f" "$out/merged/$f" >&2; then
    log "FAIL: ${f#./} differs between the Slurm merge and the local run"
    exit 1
  fi
  log "identical: ${f#./} ($(wc -c <"$out/local/$f") bytes)"
  n=$((n + 1))
done <"$tmp/local.list"
[ $n -gt 0 ] || { log "the local run wrote no result files"; exit 1; }
points=$(grep -c '' "$out/local/sweep.csv")
log "PASS: $shards Slurm array tasks merged = the local sweep, byte for byte ($n files, $((points - 1)) CSV rows)"
