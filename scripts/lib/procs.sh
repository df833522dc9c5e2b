# Sourced by the real-daemon test scripts (scripts/slurm-sweep.sh, scripts/strongswan-wire.sh)
# for their exit traps.

# signal_and_wait SIGNAL PID...: sends SIGNAL to the processes and waits up to 10 s for all of
# them to be gone; returns at once when none is given.
signal_and_wait() {
  local sig=$1
  shift
  [ $# -eq 0 ] && return 0
  kill -s "$sig" "$@" 2>/dev/null || true
  local alive pid
  for _ in $(seq 50); do
    alive=0
    for pid in "$@"; do [ -d "/proc/$pid" ] && alive=1; done
    [ $alive = 0 ] && return 0
    sleep 0.2
  done
}
