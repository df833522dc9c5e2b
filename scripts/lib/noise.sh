# Sourced by scripts/strongswan-bench.sh: how much of the host's CPU other work took before and
# during a run (issue 36 #2; docs/validation.md "Too noisy to judge"). The host's busy time
# comes from /proc/stat (user, nice, system, irq, softirq and steal: a hypervisor's other
# guests count as other work); the bench's own from a cgroup it runs in (cgroup v2's cpu.stat,
# else cgroup v1's cpuacct), which every process it starts joins, the charons that daemonise
# included. The host's interrupt time (irq and softirq) is recorded beside them: the kernel
# work of the bench's veth, TUN and loopback traffic that runs outside its processes (in
# ksoftirqd, or on an idle CPU) is in it and in no cgroup. Other work is what is left of the
# busy time once the bench's own and the interrupt time are taken off. Without a cgroup (none
# could be made) the bench's own CPU is unknown and only the window before any daemon runs is
# measured.
#
# Globals: noise_cg (the cgroup's directory, "" without one), noise_method (cgroup2, cpuacct or
# none).

noise_cg=""
noise_method=none

# noise_enter: a cgroup of the bench's own, with this shell in it.
noise_enter() {
  local base dir
  for base in $(awk '$3 == "cgroup2" { print $2 }' /proc/mounts); do
    dir=$base/oransim-bench-$$
    mkdir "$dir" 2>/dev/null || continue
    if echo $$ >"$dir/cgroup.procs" 2>/dev/null && [ -r "$dir/cpu.stat" ]; then
      noise_cg=$dir noise_method=cgroup2
      return 0
    fi
    rmdir "$dir" 2>/dev/null || true
  done
  base=$(awk '$3 == "cgroup" && $4 ~ /(^|,)cpuacct(,|$)/ { print $2; exit }' /proc/mounts)
  if [ -n "$base" ] && mkdir "$base/oransim-bench-$$" 2>/dev/null; then
    dir=$base/oransim-bench-$$
    if echo $$ >"$dir/cgroup.procs" 2>/dev/null && [ -r "$dir/cpuacct.usage" ]; then
      noise_cg=$dir noise_method=cpuacct
      return 0
    fi
    rmdir "$dir" 2>/dev/null || true
  fi
  return 0
}

# noise_leave: this shell back in its parent cgroup, and the bench's cgroup removed (every
# process it started is gone by then: charon_cleanup calls this last).
noise_leave() {
  [ -n "$noise_cg" ] || return 0
  echo $$ >"$(dirname "$noise_cg")/cgroup.procs" 2>/dev/null || true
  rmdir "$noise_cg" 2>/dev/null || true
  noise_cg=""
}

# The bench's CPU time so far [ns]; empty without a cgroup, or when this shell is no longer in it
# (something on the host moved it: what the cgroup counts is then not the whole bench).
noise_ours_ns() {
  if [ -n "$noise_cg" ] && ! grep -q "/$(basename "$noise_cg")\$" /proc/$$/cgroup 2>/dev/null; then
    echo ""
    return 0
  fi
  # Multiplied in bash (64 bits), not in awk: mawk's printf "%d" stops at 2^31 - 1, so that
  # usage_usec * 1000 read 2147483647 ns from 2.1 CPU-s on (the bench's own time of the runs
  # before this was found: 0.1 CPU-s over a 1235-s run).
  local v="" scale=1
  case $noise_method in
    cgroup2) v=$(awk '$1 == "usage_usec" { print $2 }' "$noise_cg/cpu.stat") scale=1000 ;;
    cpuacct) v=$(cat "$noise_cg/cpuacct.usage") ;;
  esac
  if [[ $v =~ ^[0-9]+$ ]]; then echo "$((v * scale))"; else echo ""; fi
}

# noise_sample: "BUSY TOTAL OURS NICE IRQ" [ns]: the host's busy and total CPU time since boot
# (every CPU's), the bench's (empty without a cgroup: then the field is "-"), the host's busy
# time at nice > 0 and its interrupt time (irq + softirq); the last two are part of BUSY.
noise_sample() {
  local hz u n s idle iow irq sirq steal
  hz=$(getconf CLK_TCK)
  read -r _ u n s idle iow irq sirq steal _ </proc/stat
  local ours
  ours=$(noise_ours_ns)
  echo "$(((u + n + s + irq + sirq + steal) * 1000000000 / hz)) $(((u + n + s + idle + iow + irq + sirq + steal) * 1000000000 / hz)) ${ours:--} $((n * 1000000000 / hz)) $(((irq + sirq) * 1000000000 / hz))"
}

# noise_window "SAMPLE0" "SAMPLE1": the window between two samples as JSON: the host's busy CPU
# time, its capacity (every CPU's time), the bench's CPU time (null without a cgroup), the
# host's busy time at nice > 0 and its interrupt time [s].
noise_window() {
  local b0 t0 o0 n0 i0 b1 t1 o1 n1 i1
  read -r b0 t0 o0 n0 i0 <<<"$1"
  read -r b1 t1 o1 n1 i1 <<<"$2"
  local ours=null
  if [ "$o0" != - ] && [ "$o1" != - ]; then ours=$(awk -v a="$o0" -v b="$o1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'); fi
  awk -v b="$((b1 - b0))" -v t="$((t1 - t0))" -v o="$ours" -v n="$((n1 - n0))" -v i="$((i1 - i0))" \
    'BEGIN { printf "{\"busy_cpu_s\": %.3f, \"capacity_cpu_s\": %.3f, \"ours_cpu_s\": %s, \"nice_cpu_s\": %.3f, \"irq_cpu_s\": %.3f}", b / 1e9, t / 1e9, o, n / 1e9, i / 1e9 }'
}
