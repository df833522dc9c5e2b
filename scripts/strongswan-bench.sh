#!/usr/bin/env bash
# Measure a real strongSwan on this host (issue 23; docs/validation.md): as root on a Debian
# machine, install strongSwan 5.9 from the distribution's packages, make two network namespaces
# joined by a veth pair, start one charon in each, and run the workloads `oransim validate
# strongswan` and `oransim calibrate --run strongswan` read:
#
#   setup    one IKE SA at a time (IKE_SA_INIT + IKE_AUTH with a Child SA), for PSK, Ed25519,
#            ECDSA P-256 and RSA-2048 certificates: each set-up's latency on the capture's clock
#            (first IKE_SA_INIT request to the IKE_AUTH response) and both daemons' CPU time per
#            SA (the sum of every thread's run time, /proc/PID/task/*/schedstat, over the set-ups);
#            and each exchange's request -> response time (IKE_SA_INIT, IKE_AUTH) on the capture
#   child    on one PSK IKE SA, further Child SAs one at a time (CREATE_CHILD_SA, no PFS), and as
#            many CREATE_CHILD_SA exchanges the responder refuses (TS_UNACCEPTABLE: nothing
#            installed): each exchange's request -> response on the capture's clock, both
#            daemons' CPU time per exchange
#   storm    N IKE SAs (PSK) started at once, as a restarted initiator does (every connection
#            loaded with start_action = start): time from the first IKE_SA_INIT request to the
#            last IKE_AUTH response, and each daemon's CPU time over the storm. With the storm
#            options below (or --set placements) also with certificates, with the daemons
#            pinned to one CPU each, and with other IKE SA table sizes and thread counts: such
#            rows carry what they used (see "Added storm fields")
#   rekey    (full set) N PSK IKE SAs set up as a storm, then every Child SA rekeyed at once
#            (one `swanctl --rekey --child c1`: a CREATE_CHILD_SA for each, as when their
#            rekey timers fire together): time from the first CREATE_CHILD_SA request to the
#            last response on the initiator's log (ms clock), both daemons' CPU time over it
#   esp      one Child SA per ESP suite through the data path (kernel-libipsec: user-space ESP
#            over a TUN device; or the kernel's xfrm where it takes ESP state), beside the same
#            path without IPsec: ping RTT at 64, 512 and 1372 B of payload (the largest that fits the TUN device's 1400-byte MTU unfragmented), TCP throughput
#            (iperf3); RTT as the median of each run's pings; with --esp-mss (or --set
#            placements) also TCP throughput at each given MSS (iperf3 -M)
#   loss     with --loss only: storms of PSK IKE SAs with every IKE datagram dropped at random
#            on the veth, both directions (nftables `numgen random` in the responder's
#            namespace), both charons retransmitting as strongSwan does by default (4 s, base
#            1.8, 5 tries): each SA's set-up time on the initiator's capture, its requests'
#            sends (retransmissions), and the SAs whose initiator gave up (see "Added loss
#            fields")
#   speed    `openssl speed -mr` of the key ops the IKE model charges (the openssl plugin does
#            them in charon) and of the ESP suites' ciphers
#
# Usage: scripts/strongswan-bench.sh --out FILE [--set reduced|full|placements] [storm options]
#
#   --out FILE   the measurements, JSON (schema oransim.measure.strongswan/1)
#   --partial F  where a failed or stopped run leaves the rows measured so far (default
#                FILE.partial; `oransim validate` names its --save-measurements FILE.partial)
#   --only W     one workload only (speed, setup, child, storm, rekey, esp or loss), for
#                debugging
#   --set S      reduced (CI's: storms of 10, 50 and 200, 3 runs each; 2 runs per ESP suite of
#                100 pings per size and 2 s of TCP; about 90 s) or full (storms of 10, 50, 200,
#                1000 and 2000, 5 runs; storms of 200 with Ed25519, ECDSA P-256 and RSA-2048
#                certificates, of 50 with Ed25519, of 2000 with ikesa_table_size 1024, and of
#                50, 200 and 2000 with each daemon pinned to a CPU of its own, 5 runs each;
#                rekey storms of 200 and 1000, 5 runs; 5 runs of 500 pings and 5 s of TCP, and
#                of TCP at MSS 536 and 1000; about 20 min);
#                default reduced. Or placements (about 12 min): speed; setup for psk and ed25519 (30
#                each); storms of 50, PSK and Ed25519, on free CPUs and pinned, 5 runs each (run
#                r of both placements before run r + 1); storms of 200, 500 and 2000 x
#                auth psk and ed25519 x placement shared and pinned, 3 runs each (run r of
#                every placement before run r + 1); esp with 3 runs of 200 pings, 3 s of TCP,
#                and TCP at MSS 536, 1000 and the path's default (--esp-mss). No child
#                workload. What `oransim calibrate --run strongswan` needs is in it (the setup
#                psk and ed25519 rows, the PSK storm of 50 on free CPUs, the esp rows), and the
#                storms of 50 its `ike.daemon.*.alone*` terms (pinned PSK) and
#                `ike.certificate.*.loaded` terms (Ed25519 on free CPUs) are fitted to.
#
# Storm options (each overrides the set's; lists are comma-separated; every combination runs):
#   --storms N,...          storm sizes (IKE SAs)
#   --runs R                runs of each storm
#   --storm-auth A,...      psk, ed25519, ecdsa-p256, rsa2048 (default psk)
#   --placement P           shared (both charons free on both CPUs: as without the option),
#                           pinned (the responder's charon, side b, on CPU 0 and the
#                           initiator's, side a, on CPU 1: started under taskset, checked on
#                           every thread's Cpus_allowed_list) or both (default shared)
#   --ikesa-table-size S,...  charon.ikesa_table_size of both daemons in storms (strongSwan's
#                           default 1: one hash bucket, every IKE SA in one list; a power of 2)
#   --ikesa-table-segments G  charon.ikesa_table_segments in storms (default 1: one lock over
#                           the table; at most the table size, clamped to it)
#   --threads T,...         charon.threads (worker threads) of both daemons in storms (default 16;
#                           at least 12: about 10 are held by long-running jobs, so 16 leaves 6
#                           for IKE work)
#   --esp-mss M,...         esp: TCP throughput also at these MSS (iperf3 -M; `default`: no -M),
#                           esp runs each
# Loss options (the loss workload runs only with --loss; recorded in "arguments"):
#   --loss P,...            drop probabilities, each direction (fractions: 0.01 is 1%); each
#                           a storm of --loss-storm SAs, --loss-runs runs (run r of every
#                           rate before run r + 1); installs nftables with the other packages
#   --loss-storm N          SAs in each loss storm (default 200)
#   --loss-runs R           runs of each (default 3); each lasts until every SA is up or its
#                           initiator gave up: up to 165 s after the storm's start
# Diagnosis options (recorded in "arguments" only):
#   --esp-suites S,...      esp: these suites only (default aes256gcm16, aes128gcm16,
#                           aes256-sha256, chacha20poly1305, plain)
#   --esp-runs R            esp: runs per suite (pings, TCP, each MSS)
#   --openssl-first         load the openssl plugin before aesni, so that OpenSSL (through the
#                           openssl plugin) and not strongSwan's aesni plugin does AES-GCM and
#                           AES-CBC (by default aesni does them; ChaCha20-Poly1305 is always
#                           openssl's)
#
# A run with --only, a storm option, --esp-mss or a diagnosis option also writes the top-level
# "arguments" (its command line), since "set" alone does not say what it ran.
#
# Added storm fields (only in files of --set placements or with a storm option; rows without
# them are psk, shared, table size 1 of 1 segment, 16 threads): "placement" (shared or pinned),
# "cpus_allowed" (each daemon's CPUs as its threads' Cpus_allowed_list says, [initiator,
# responder]), "ikesa_table_size", "ikesa_table_segments", "threads" (charon.threads) and
# "daemon_threads" (the threads each charon had at the storm's end, [initiator, responder]),
# "migrations" (each charon's threads' moves between CPUs over the storm, the scheduler's
# se.nr_migrations summed over its threads, [initiator, responder]) and "switches" (their
# [voluntary, involuntary] context switches over the storm, [initiator, responder]), both
# absent where the kernel keeps no such counts;
# "auth" is the storm's authentication. Every storm row (any set, since 2026-11-30) also has
# "idle_workers": each charon's worker threads idle before the storm as `swanctl --stats`
# counts them, those its long-running jobs leave for IKE work, [initiator, responder] (absent
# where swanctl printed no count); `ike.threads` is fitted to it. Added esp fields (with --esp-mss): "tcp_mss_mbps" (MSS
# -> TCP throughput per run [Mbit/s]) and "tcp_mss_bytes" (MSS -> the MSS iperf3 reports: for
# a number the value set, of which TCP's 12 bytes of timestamp option take their share; for
# `default` the connection's payload per segment, options already subtracted: 1348 over the
# 1400-byte TUN device, 1448 over the veth).
#
# Added loss fields (rows of workload "loss", with --loss only): "loss" (the drop probability,
# each direction), "retransmit" (charon's retransmit_timeout [s], retransmit_base and
# retransmit_tries), "setup_ms" (each SA that came up: its first IKE_SA_INIT request to its first
# IKE_AUTH response on the initiator's capture [ms], ascending), "gave_up" (SAs with no IKE_AUTH
# response on the capture) and "gave_up_logged" (the initiator's "giving up after" lines),
# "requests" (IKE_SA_INIT and IKE_AUTH requests sent, retransmissions included),
# "retransmissions" (of both, over every SA), "rule_packets" and "rule_dropped" (IKE datagrams
# that reached the drop rule and that it dropped, [requests, responses]), and both daemons' CPU
# time over the storm.
#
# A bench that fails or is stopped (SIGINT, SIGTERM) after a first workload leaves the rows
# measured so far in FILE.partial (or the file --partial names), marked "partial": true with its
# "exit_status"; FILE itself is written only by a complete run. `oransim validate` and
# `calibrate --run` refuse a partial file. A second SIGINT or SIGTERM during the clean-up is
# ignored (the clean-up is bounded: 10 s per pass of signals to what it started).
#
# Noise (issue 36 #2): the bench runs in a cgroup of its own and records, for 3 s before any
# daemon starts and over the whole run, the host's busy CPU time (/proc/stat), its capacity,
# its own CPU time (the cgroup's) and the host's interrupt time, as "noise"
# (scripts/lib/noise.sh); `oransim validate` refuses to judge a run whose other work took more
# than the share docs/validation.md states, in either window.
#
# Exit status: 0 written; 1 a step failed; 77 skipped (not root, not Debian-like, the packages
# not installable, no network namespaces), with a line `skipped: <reason>` on stderr.
#
# What it leaves on the machine: the installed packages (those of scripts/strongswan-wire.sh,
# plus iperf3). Everything else (the temporary directory, the namespaces with the veth pair and
# the TUN devices, every process it started) is removed on every exit.
set -euo pipefail

argv="$*"
out=""
partial=""
set_name=reduced
only=""
o_storms="" o_runs="" o_auth="" o_placement="" o_table="" o_segments="" o_threads="" o_mss=""
o_suites="" o_esp_runs="" openssl_first=0
loss_opt="" loss_sas_opt="" loss_runs_opt=""
usage_err() { echo "strongswan-bench: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=${2:?--out needs a file}; shift 2 ;;
    --partial) partial=${2:?--partial needs a file}; shift 2 ;;
    --set) set_name=${2:?--set needs reduced, full or placements}; shift 2 ;;
    --only) only=${2:?--only needs speed, setup, child, storm, rekey or esp}; shift 2 ;;
    --storms) o_storms=${2:?--storms needs sizes}; shift 2 ;;
    --runs) o_runs=${2:?--runs needs a count}; shift 2 ;;
    --storm-auth) o_auth=${2:?--storm-auth needs psk, ed25519, ...}; shift 2 ;;
    --placement) o_placement=${2:?--placement needs shared, pinned or both}; shift 2 ;;
    --ikesa-table-size) o_table=${2:?--ikesa-table-size needs sizes}; shift 2 ;;
    --ikesa-table-segments) o_segments=${2:?--ikesa-table-segments needs a count}; shift 2 ;;
    --threads) o_threads=${2:?--threads needs counts}; shift 2 ;;
    --loss) loss_opt=${2:?--loss needs fractions, e.g. 0.01,0.05}; shift 2 ;;
    --loss-storm) loss_sas_opt=${2:?--loss-storm needs a count}; shift 2 ;;
    --loss-runs) loss_runs_opt=${2:?--loss-runs needs a count}; shift 2 ;;
    --esp-mss) o_mss=${2:?--esp-mss needs MSS values or default}; shift 2 ;;
    --esp-suites) o_suites=${2:?--esp-suites needs suites}; shift 2 ;;
    --esp-runs) o_esp_runs=${2:?--esp-runs needs a count}; shift 2 ;;
    --openssl-first) openssl_first=1; shift ;;
    -h | --help) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) usage_err "unknown argument '$1' (see --help)" ;;
  esac
done
[ -n "$out" ] || usage_err "--out FILE is required"
[ -n "$partial" ] || partial=$out.partial
# Storm plan (run_storms): storm_sets holds "SIZES AUTHS PLACEMENTS RUNS" lines (lists
# comma-separated), each run as the product of its lists for every table size and thread count.
storm_auths=psk placements=shared tables=1 segments=1 threadss=16 esp_mss=""
case $set_name in
  reduced) storms=(10 50 200); runs=3; esp_runs=2; setups=12; pings=100; iperf_s=2 ;;
  full) storms=(10 50 200 1000 2000); runs=5; esp_runs=5; setups=30; pings=500; iperf_s=5
    esp_mss=536,1000 ;;
  placements) storms=(200 500 2000); runs=3; esp_runs=3; setups=30; pings=200; iperf_s=3
    storm_auths=psk,ed25519 placements=shared,pinned esp_mss=536,1000,default ;;
  *) usage_err "--set '$set_name': reduced, full or placements" ;;
esac
if [ -n "$o_storms" ]; then IFS=, read -r -a storms <<<"$o_storms"; fi
[ -n "$o_runs" ] && runs=$o_runs
[ -n "$o_auth" ] && storm_auths=$o_auth
case $o_placement in
  "") ;;
  shared | pinned) placements=$o_placement ;;
  both) placements=shared,pinned ;;
  *) usage_err "--placement '$o_placement': shared, pinned or both" ;;
esac
[ -n "$o_table" ] && tables=$o_table
[ -n "$o_segments" ] && segments=$o_segments
[ -n "$o_threads" ] && threadss=$o_threads
[ -n "$o_mss" ] && esp_mss=$o_mss
esp_suites=(aes256gcm16 aes128gcm16 aes256-sha256 chacha20poly1305 plain)
if [ -n "$o_suites" ]; then IFS=, read -r -a esp_suites <<<"$o_suites"; fi
[ -n "$o_esp_runs" ] && esp_runs=$o_esp_runs
[[ $esp_runs =~ ^[1-9][0-9]*$ ]] || usage_err "--esp-runs '$esp_runs' is not a positive count"
for v in "${storms[@]}" $runs ${tables//,/ } $segments ${threadss//,/ } $(tr , ' ' <<<"${esp_mss//default/}"); do
  [[ $v =~ ^[1-9][0-9]*$ ]] || usage_err "'$v' is not a positive count"
done
for v in ${tables//,/ } $segments; do
  [ $((v & (v - 1))) = 0 ] || usage_err "ikesa table size or segments $v: not a power of 2"
done
# This plugin set keeps 9 or 10 worker threads in long-running jobs (swanctl --stats: "16
# total, 6 idle, working: 5/0/5/0"; the receiver, the sender, vici, kernel-netlink's and
# kernel-libipsec's readers, libipsec's ESP processing): with fewer than 12 no thread is left
# to answer vici (at 8 swanctl waits forever).
for v in ${threadss//,/ }; do
  [ "$v" -ge 12 ] || usage_err "--threads $v: at least 12 (about 10 are held by long-running jobs)"
done
for v in ${storm_auths//,/ }; do
  case $v in psk | ed25519 | ecdsa-p256 | rsa2048) ;; *) usage_err "--storm-auth '$v'" ;; esac
done
# Files of reduced and full without a storm option keep the old storm rows (no added fields).
extended=0
if [ "$set_name" = placements ] || [ -n "$o_storms$o_runs$o_auth$o_placement$o_table$o_segments$o_threads" ]; then
  extended=1
fi
storm_sets=("$(IFS=,; echo "${storms[*]}") $storm_auths $placements $runs")
if [ "$set_name" = placements ] && [ -z "$o_storms$o_runs$o_auth$o_placement" ]; then
  storm_sets=("50 psk,ed25519 shared,pinned 5" "${storm_sets[@]}")
fi

skip() { echo "skipped: $*" >&2; exit 77; }
log() { echo "strongswan-bench: $*" >&2; }
# shellcheck source=lib/apt.sh
. "$(dirname "$0")/lib/apt.sh"
# shellcheck source=lib/procs.sh
. "$(dirname "$0")/lib/procs.sh"
# shellcheck source=lib/charon.sh
. "$(dirname "$0")/lib/charon.sh"
# shellcheck source=lib/loss.sh
. "$(dirname "$0")/lib/loss.sh"
loss_rates=$loss_opt
[ -n "$loss_sas_opt" ] && loss_sas=$loss_sas_opt
[ -n "$loss_runs_opt" ] && loss_runs=$loss_runs_opt
loss_check
# shellcheck source=lib/noise.sh
. "$(dirname "$0")/lib/noise.sh"

[ "$(id -u)" = 0 ] || skip "not root (installing packages and making network namespaces need root)"
packages=("${charon_packages[@]}" iperf3 iputils-ping openssl)
[ -n "$loss_rates" ] && packages+=(nftables)
need_install=0
for p in "${packages[@]}"; do
  dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need_install=1
done
policy_rc=""
json_rows=()
# On a failure or a stop, the rows so far in $partial (lib/loss.sh), then charon_cleanup. A
# further SIGINT or SIGTERM (a second Ctrl-C, oransim's parent-death signal after it passed one
# on) must not end the clean-up half-way: ignored from here on.
bench_exit() {
  local status=$?
  trap '' INT TERM
  set +e
  if [ "$status" != 0 ] && [ "$status" != 77 ]; then bench_partial "$partial" "$status"; fi
  (exit "$status")
  charon_cleanup
}
trap bench_exit EXIT
charon_after_cleanup() { noise_leave; }
noise_enter
trap 'exit 130' INT
trap 'exit 143' TERM
# When oransim dies (kill -9 included) this shell gets SIGTERM (its parent-death signal) and
# cleans up in the exit trap; but a progress line written to oransim's closed pipe first would
# end it with SIGPIPE, which no trap sees, leaving the namespaces behind. A failed write is
# better. (Children inherit the ignored SIGPIPE: every pipeline here reads its producer whole.)
trap '' PIPE
if [ $need_install = 1 ]; then apt_install "${packages[@]}"; fi
charon_check
charon_netns bench "$(printf '%s\n' "${storms[@]}" "$setups" "${loss_rates:+$loss_sas}" | sort -n | tail -1)"
# The host before any daemon runs: 3 s in which only other work can be busy.
noise_s0=$(noise_sample)
sleep 3
noise_before=$(noise_window "$noise_s0" "$(noise_sample)")
log "noise: before the run ($noise_method) $noise_before"

# --- data path: which one this kernel gives ------------------------------------------------------
# The kernel's ESP (xfrm) where it takes an AES-GCM state, kernel-libipsec otherwise.
data_path=kernel-libipsec
if ip -n "$ns_a" xfrm state add src 10.0.0.1 dst 10.0.0.2 proto esp spi 0x100 mode tunnel \
  aead 'rfc4106(gcm(aes))' 0x0102030405060708090a0b0c0d0e0f1011121314 128 2>/dev/null; then
  data_path=xfrm
  ip -n "$ns_a" xfrm state flush
fi
log "data path: $data_path"
if [ $data_path = xfrm ]; then
  plugins=${plugins/kernel-libipsec /}
fi
# --openssl-first: the openssl plugin loaded before aesni, so that it, not aesni, does AES-GCM
# and AES-CBC (IKE's and ESP's): what a cipher costs through the openssl plugin.
if [ $openssl_first = 1 ]; then
  plugins=${plugins/ openssl / }
  plugins=${plugins/ aesni / openssl aesni }
  log "plugins: $plugins"
fi

# --- workloads -----------------------------------------------------------------------------------
# ns -> the summed run time [ns] of every thread of the charon in side $1.
cpu_ns() {
  local pid=${charon_pid[$1]} t sum=0 v
  for t in /proc/"$pid"/task/*/schedstat; do
    read -r v _ <"$t" 2>/dev/null || continue
    sum=$((sum + v))
  done
  echo "$sum"
}

# "migrations voluntary involuntary": the scheduler's counts summed over every thread of the
# charon in side $1 (/proc/PID/task/TID/sched: se.nr_migrations, nr_voluntary_switches,
# nr_involuntary_switches); "-" where the kernel keeps none of them (no CONFIG_SCHED_DEBUG).
sched_counts() {
  local pid=${charon_pid[$1]}
  cat /proc/"$pid"/task/*/sched 2>/dev/null | awk '
    $1 == "se.nr_migrations" { m += $3; n++ }
    $1 == "nr_voluntary_switches" { v += $3; n++ }
    $1 == "nr_involuntary_switches" { i += $3; n++ }
    END { if (n) printf "%.0f %.0f %.0f\n", m, v, i; else print "-" }'
}

# The storm row's "migrations" and "switches" fields (with a leading ", "), from the counts
# before ($1 initiator, $2 responder) and after ($3, $4) as sched_counts printed them; nothing
# where a count is missing or went down (a thread that exited took its counts along), so a
# row never holds a count that was not measured.
sched_fields() {
  awk -v a0="$1" -v b0="$2" -v a1="$3" -v b1="$4" 'BEGIN {
    if (a0 == "-" || b0 == "-" || a1 == "-" || b1 == "-") exit
    split(a0, x); split(a1, y); split(b0, u); split(b1, w)
    for (k = 1; k <= 3; k++) if (y[k] < x[k] || w[k] < u[k]) exit
    printf ", \"migrations\": [%.0f, %.0f], \"switches\": [[%.0f, %.0f], [%.0f, %.0f]]",
      y[1] - x[1], w[1] - u[1], y[2] - x[2], y[3] - x[3], w[2] - u[2], w[3] - u[3] }'
}

# Per-SA times from a capture: for each initiator SPI the first IKE_SA_INIT request, the
# IKE_AUTH response and how often IKE_SA_INIT was sent, as "start end sends" lines [s].
setup_times() {
  tshark -r "$1" -T fields -e frame.time_epoch -e isakmp.ispi -e isakmp.exchangetype \
    -e isakmp.flag_r -E occurrence=f 2>/dev/null |
    awk '$3 == 34 && $4 == 0 { if (!($2 in s)) s[$2] = $1; n[$2]++ }
         $3 == 35 && $4 == 1 && ($2 in s) && !($2 in e) { e[$2] = $1 }
         END { for (k in e) printf "%s %s %d\n", s[k], e[k], n[k] }'
}

# Per-exchange times from a capture of set-ups: for each initiator SPI with both exchanges
# complete, sorted by start, "init auth" [ms]: IKE_SA_INIT request -> response and IKE_AUTH
# request -> response (each the first frame of the message: the first fragment, the first send).
exchange_times() {
  tshark -r "$1" -T fields -e frame.time_epoch -e isakmp.ispi -e isakmp.exchangetype \
    -e isakmp.flag_r -E occurrence=f 2>/dev/null |
    awk '$3 == 34 && $4 == 0 && !($2 in a) { a[$2] = $1 }
         $3 == 34 && $4 == 1 && !($2 in b) { b[$2] = $1 }
         $3 == 35 && $4 == 0 && !($2 in c) { c[$2] = $1 }
         $3 == 35 && $4 == 1 && !($2 in d) { d[$2] = $1 }
         END { for (k in d) if ((k in a) && (k in b) && (k in c))
                 printf "%s %.6f %.6f\n", a[k], (b[k] - a[k]) * 1e3, (d[k] - c[k]) * 1e3 }' |
    sort -g | cut -d' ' -f2-
}

# CREATE_CHILD_SA exchanges (type 36) from a capture: per message ID, request -> response [ms]
# (the first frame of each), in message-ID order (tshark writes IDs as 0x and 8 hex digits).
child_times() {
  tshark -r "$1" -T fields -e frame.time_epoch -e isakmp.messageid -e isakmp.exchangetype \
    -e isakmp.flag_r -E occurrence=f 2>/dev/null |
    awk '$3 == 36 && $4 == 0 && !($2 in q) { q[$2] = $1 }
         $3 == 36 && $4 == 1 && !($2 in r) { r[$2] = $1 }
         END { for (k in r) if (k in q) printf "%s %.6f\n", k, (r[k] - q[k]) * 1e3 }' |
    sort | cut -d' ' -f2
}

capture_start() { # capture_start FILE
  : >"$tmp/tcpdump.err"
  ip netns exec "$ns_a" tcpdump -i "$dev_a" -n -s 160 -U --immediate-mode -w "$1" \
    'udp port 500 or udp port 4500' 2>"$tmp/tcpdump.err" &
  capture_pid=$!
  pids_started+=("$capture_pid")
  for _ in $(seq 100); do grep -q 'listening on' "$tmp/tcpdump.err" && break; sleep 0.05; done
  grep -q 'listening on' "$tmp/tcpdump.err" || { log "tcpdump did not start"; return 1; }
}
capture_stop() {
  sleep 0.1
  kill -INT "$capture_pid"
  wait "$capture_pid" || true
}

add() { json_rows+=("$1"); } # add JSON-OBJECT

# UDP datagrams the kernel dropped in namespace $1 since its last call: receive-buffer overflows
# (nstat's UdpRcvbufErrors), as a storm of IKE_SA_INIT requests can cause.
udp_drops() {
  ip netns exec "$1" nstat -z UdpRcvbufErrors 2>/dev/null | awk '$1 == "UdpRcvbufErrors" { v = $2 } END { print v + 0 }'
}

# One restart of both daemons, configured for auth $1, ESP proposal $2, and N connections of
# the initiator ($3, named s1..sN) with start action $4.
fresh_daemons() {
  local auth=$1 esp=$2 n=$3 start=$4
  charon_restart
  for side in a b; do
    write_bench_conf "$side" "$auth" "$esp" "$n" "$start"
  done
  swan b --load-all --clear --noprompt >"$tmp/b.load" 2>&1 || { cat "$tmp/b.load" >&2; return 1; }
}

# setup AUTH: $setups IKE SAs one after the other.
run_setup() {
  local auth=$1 i pcap=$tmp/setup-$1.pcap
  fresh_daemons "$auth" aes256gcm16 "$setups" none
  swan a --load-all --clear --noprompt >"$tmp/a.load" 2>&1 || { cat "$tmp/a.load" >&2; return 1; }
  # One set-up before the timed ones: the first pays for lazy initialisation (plugins' tables).
  swan a --initiate --child c1 --ike s1 --timeout 10 >/dev/null
  capture_start "$pcap"
  local ca cb
  ca=$(cpu_ns a)
  cb=$(cpu_ns b)
  for i in $(seq 2 "$setups"); do
    swan a --initiate --child c1 --ike "s$i" --timeout 10 >/dev/null
  done
  local da db
  da=$(($(cpu_ns a) - ca))
  db=$(($(cpu_ns b) - cb))
  capture_stop
  local lat
  lat=$(setup_times "$pcap" | awk '{ printf "%s%.6f", sep, ($2 - $1) * 1e3; sep = "," }')
  local n=$((setups - 1))
  [ "$(tr ',' '\n' <<<"$lat" | grep -c .)" = "$n" ] ||
    { log "setup $auth: $(tr ',' '\n' <<<"$lat" | grep -c .) of $n set-ups on the capture"; return 1; }
  local init auth_x
  init=$(exchange_times "$pcap" | awk '{ printf "%s%s", sep, $1; sep = "," }')
  auth_x=$(exchange_times "$pcap" | awk '{ printf "%s%s", sep, $2; sep = "," }')
  add "{\"workload\": \"setup\", \"auth\": \"$auth\", \"sas\": $n, \"latency_ms\": [$lat],
    \"init_ms\": [$init], \"auth_ms\": [$auth_x],
    \"initiator_cpu_ns\": $da, \"responder_cpu_ns\": $db}"
  log "setup $auth: $n SAs, latency [ms] $(tr ',' ' ' <<<"$lat" | cut -c1-60)..., CPU per SA $((da / n / 1000)) / $((db / n / 1000)) us"
}

# child: on one PSK IKE SA, $setups - 1 further Child SAs one at a time (CREATE_CHILD_SA without a
# KE payload: the ESP proposal has no group), then as many refused ones (child cx: the responder
# answers TS_UNACCEPTABLE and installs nothing). Per exchange request -> response on the capture,
# and both daemons' CPU time over each series. charon's log of each request it generated shows
# its payloads (the capture's are encrypted): none may carry KE.
run_child() {
  local k n=$((setups - 1)) pcap=$tmp/child.pcap pcap_x=$tmp/child-refused.pcap
  charon_reuse_ikesa=yes
  charon_restart
  for side in a b; do write_bench_conf "$side" psk aes256gcm16 1 none "$setups"; done
  charon_reuse_ikesa=no
  swan b --load-all --clear --noprompt >"$tmp/b.load" 2>&1 || { cat "$tmp/b.load" >&2; return 1; }
  swan a --load-all --clear --noprompt >"$tmp/a.load" 2>&1 || { cat "$tmp/a.load" >&2; return 1; }
  swan a --initiate --child c1 --ike s1 --timeout 10 >/dev/null ||
    { log "child: the IKE SA did not come up"; return 1; }
  # One Child SA before the timed ones (lazy initialisation of the CREATE_CHILD_SA path).
  swan a --initiate --child c2 --ike s1 --timeout 10 >/dev/null ||
    { log "child: the first CREATE_CHILD_SA failed"; return 1; }
  capture_start "$pcap"
  local ca cb
  ca=$(cpu_ns a)
  cb=$(cpu_ns b)
  for k in $(seq 3 "$setups"); do
    swan a --initiate --child "c$k" --ike s1 --timeout 10 >/dev/null ||
      { log "child: CREATE_CHILD_SA of c$k failed"; return 1; }
  done
  local da db
  da=$(($(cpu_ns a) - ca))
  db=$(($(cpu_ns b) - cb))
  capture_stop
  n=$((setups - 2))
  capture_start "$pcap_x"
  ca=$(cpu_ns a)
  cb=$(cpu_ns b)
  for _ in $(seq "$n"); do
    swan a --initiate --child cx --ike s1 --timeout 10 >/dev/null 2>&1 || true
  done
  local dxa dxb
  dxa=$(($(cpu_ns a) - ca))
  dxb=$(($(cpu_ns b) - cb))
  capture_stop
  local ike_sas reqs kes refused
  ike_sas=$(grep -c 'IKE_SA s1\[[0-9]*\] established' "$tmp/a/charon.log" || true)
  [ "$ike_sas" = 1 ] || { log "child: $ike_sas IKE SAs established, not 1"; return 1; }
  reqs=$(grep -c 'generating CREATE_CHILD_SA request' "$tmp/a/charon.log" || true)
  [ "$reqs" -ge $((2 * n)) ] || { log "child: $reqs CREATE_CHILD_SA requests in charon's log, not $((2 * n))"; return 1; }
  kes=$(grep 'generating CREATE_CHILD_SA request' "$tmp/a/charon.log" | grep -c ' KE ' || true)
  [ "$kes" = 0 ] || { log "child: $kes CREATE_CHILD_SA requests carried a KE payload"; return 1; }
  refused=$(grep -c 'TS_UNACCEPTABLE' "$tmp/a/charon.log" || true)
  [ "$refused" -ge "$n" ] || { log "child: $refused of $n refusals seen"; return 1; }
  local t tx
  t=$(child_times "$pcap" | paste -sd,)
  tx=$(child_times "$pcap_x" | paste -sd,)
  [ "$(tr ',' '\n' <<<"$t" | grep -c .)" = "$n" ] ||
    { log "child: $(tr ',' '\n' <<<"$t" | grep -c .) of $n CREATE_CHILD_SA exchanges on the capture"; return 1; }
  [ "$(tr ',' '\n' <<<"$tx" | grep -c .)" = "$n" ] ||
    { log "child: $(tr ',' '\n' <<<"$tx" | grep -c .) of $n refused exchanges on the capture"; return 1; }
  add "{\"workload\": \"child\", \"auth\": \"psk\", \"children\": $n, \"pfs\": false,
    \"create_ms\": [$t], \"initiator_cpu_ns\": $da, \"responder_cpu_ns\": $db,
    \"refused_ms\": [$tx], \"refused_initiator_cpu_ns\": $dxa, \"refused_responder_cpu_ns\": $dxb}"
  log "child: $n Child SAs, CREATE_CHILD_SA [ms] $(tr ',' ' ' <<<"$t" | cut -c1-60)..., refused [ms] $(tr ',' ' ' <<<"$tx" | cut -c1-60)..., CPU per Child SA $((da / n / 1000)) / $((db / n / 1000)) us, per refusal $((dxa / n / 1000)) / $((dxb / n / 1000)) us"
}

# The CPUs every thread of side $1's charon may run on (their Cpus_allowed_list, the distinct
# values joined by ";").
cpus_allowed() {
  sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/"${charon_pid[$1]}"/task/*/status 2>/dev/null |
    sort -u | paste -sd';'
}

# The worker threads a side's charon has idle, as `swanctl --stats` counts them ("worker
# threads: 16 total, 6 idle, working: 5/0/5/0"): before a storm, the threads its long-running
# jobs leave free for IKE work. "-" where the line is missing.
idle_workers() {
  local idle
  idle=$(swan "$1" --stats 2>/dev/null |
    sed -n 's/^worker threads: *[0-9]* total, *\([0-9]*\) idle.*/\1/p')
  echo "${idle:--}"
}

# storm N RUN [AUTH PLACEMENT TABLE_SIZE THREADS]: N IKE SAs at once (default PSK on free CPUs,
# charon's default table and threads); the added fields on the row when $extended is 1.
run_storm() {
  local n=$1 r=$2 auth=${3:-psk} place=${4:-shared} table=${5:-1} threads=${6:-16}
  local pcap=$tmp/storm-$1-$2.pcap segs=$segments
  [ "$segs" -gt "$table" ] && segs=$table
  charon_cpus=()
  charon_extra=""
  if [ "$place" = pinned ]; then charon_cpus=([b]=0 [a]=1); fi
  if [ "$extended" = 1 ]; then
    charon_extra="ikesa_table_size = $table
  ikesa_table_segments = $segs
  threads = $threads"
  fi
  fresh_daemons "$auth" aes256gcm16 "$n" start
  charon_cpus=()
  charon_extra=""
  local allowed_a="" allowed_b=""
  if [ "$extended" = 1 ]; then
    allowed_a=$(cpus_allowed a)
    allowed_b=$(cpus_allowed b)
    if [ "$place" = pinned ] && { [ "$allowed_a" != 1 ] || [ "$allowed_b" != 0 ]; }; then
      log "storm $n: pinned, but the initiator's threads may run on '$allowed_a' and the responder's on '$allowed_b'"
      return 1
    fi
  fi
  swan a --load-creds --clear --noprompt >"$tmp/a.load" 2>&1 || { cat "$tmp/a.load" >&2; return 1; }
  local idle_a idle_b
  idle_a=$(idle_workers a)
  idle_b=$(idle_workers b)
  udp_drops "$ns_a" >/dev/null
  udp_drops "$ns_b" >/dev/null
  capture_start "$pcap"
  local ca cb sa0 sb0
  sa0=$(sched_counts a)
  sb0=$(sched_counts b)
  ca=$(cpu_ns a)
  cb=$(cpu_ns b)
  swan a --load-conns >"$tmp/a.load" 2>&1 || { cat "$tmp/a.load" >&2; return 1; }
  local t0 up=0 give_up=60 poll=0.02
  # Larger storms: a later give-up, and a slower poll (each poll greps the whole log, which
  # grows with the storm; the times come from the capture, not from the poll).
  if [ "$n" -gt 200 ]; then
    give_up=$((60 + n / 20))
    poll=$(awk -v n="$n" 'BEGIN { printf "%.3f", n / 10000 }')
  fi
  t0=$(date +%s)
  while :; do
    up=$(grep -c 'CHILD_SA c1{[0-9]*} established' "$tmp/a/charon.log" || true)
    [ "$up" -ge "$n" ] && break
    charon_alive || { log "storm $n: $up of $n up when a charon died (initiator pid ${charon_pid[a]}, responder pid ${charon_pid[b]})"; return 1; }
    [ $(($(date +%s) - t0)) -gt $give_up ] && { log "storm $n: $up of $n up after $give_up s"; return 1; }
    sleep "$poll"
  done
  local da db sa1 sb1
  da=$(($(cpu_ns a) - ca))
  db=$(($(cpu_ns b) - cb))
  sa1=$(sched_counts a)
  sb1=$(sched_counts b)
  capture_stop
  local drops_a drops_b
  drops_a=$(udp_drops "$ns_a")
  drops_b=$(udp_drops "$ns_b")
  local span
  # All back: first request to last response. First try: the same over the SAs whose
  # IKE_SA_INIT was sent once (the others waited for charon's 4 s retransmission timer).
  local got all first retried
  read -r got all first retried < <(setup_times "$pcap" | awk '
    { if (NR == 1 || $1 < s) s = $1; if ($2 > e) e = $2; n++
      if ($3 == 1) { if ($2 > f) f = $2 } else r++ }
    END { printf "%d %.6f %.6f %d\n", n, (e - s) * 1e3, (f - s) * 1e3, r }')
  [ "$got" = "$n" ] || { log "storm $n: $got of $n set-ups on the capture"; return 1; }
  rm -f "$pcap"
  local span="$got $all" added="" what=""
  # Every storm row (whatever its set): what `ike.threads` is fitted to.
  if [ "$idle_a" != - ] && [ "$idle_b" != - ]; then
    added=", \"idle_workers\": [$idle_a, $idle_b]"
  fi
  if [ "$extended" = 1 ]; then
    added="$added, \"placement\": \"$place\", \"cpus_allowed\": [\"$allowed_a\", \"$allowed_b\"],
    \"ikesa_table_size\": $table, \"ikesa_table_segments\": $segs, \"threads\": $threads,
    \"daemon_threads\": [$(ls /proc/"${charon_pid[a]}"/task | wc -l), $(ls /proc/"${charon_pid[b]}"/task | wc -l)]$(sched_fields "$sa0" "$sb0" "$sa1" "$sb1")"
    what=" ($auth, $place, table $table/$segs, $threads threads)"
  fi
  add "{\"workload\": \"storm\", \"auth\": \"$auth\", \"sas\": $n, \"run\": $r,
    \"all_back_ms\": $all, \"first_try_back_ms\": $first, \"retried\": $retried,
    \"initiator_cpu_ns\": $da, \"responder_cpu_ns\": $db,
    \"udp_drops\": [$drops_a, $drops_b], \"retransmits\": $(grep -c 'retransmit' "$tmp/a/charon.log" || true)$added}"
  log "storm $n run $r$what: all back after ${span#* } ms ($retried retried; first tries back after $first ms), CPU per SA $((da / n / 1000)) / $((db / n / 1000)) us, UDP receive drops $drops_a / $drops_b"
}

# The full set's storms beyond PSK on free CPUs with charon's defaults (issue 36 #3): 200 SAs
# with each certificate, and 2000 with a raised IKE SA table; each row with the added fields.
run_full_storms() {
  local auth r n saved=$extended
  extended=1
  for auth in ed25519 ecdsa-p256 rsa2048; do
    for r in $(seq "$runs"); do run_storm 200 "$r" "$auth" shared 1 16; done
  done
  for r in $(seq "$runs"); do run_storm 2000 "$r" psk shared 1024 16; done
  # Certificate handling in a storm (the Ed25519 storm of 50, which the certificate storms of
  # 200 are predicted from), and the placement: each daemon pinned to a CPU of its own (PSK
  # storms of 50 and 2000, which the alone terms are fitted to, and of 200, predicted).
  for r in $(seq "$runs"); do run_storm 50 "$r" ed25519 shared 1 16; done
  if [ "$(nproc)" -ge 2 ]; then
    for n in 50 200 2000; do
      for r in $(seq "$runs"); do run_storm "$n" "$r" psk pinned 1 16; done
    done
  else
    log "one CPU: no pinned storms (they pin the daemons to CPUs 0 and 1)"
  fi
  extended=$saved
}

# rekey N RUN: N PSK IKE SAs set up at once, then every Child SA rekeyed at once (one `swanctl
# --rekey --child c1`, which queues a rekey of each Child SA of that name): from the first
# CREATE_CHILD_SA request the initiator generated to the last response it parsed, on its log's
# clock (milliseconds; a capture of a thousand rekeys and their deletions lost responses on a
# loaded host), both daemons' CPU over it.
run_rekey() {
  local n=$1 r=$2 give_up=$((60 + $1 / 20)) up t0
  fresh_daemons psk aes256gcm16 "$n" start
  swan a --load-creds --clear --noprompt >"$tmp/a.load" 2>&1 || { cat "$tmp/a.load" >&2; return 1; }
  swan a --load-conns >"$tmp/a.load" 2>&1 || { cat "$tmp/a.load" >&2; return 1; }
  t0=$(date +%s)
  while :; do
    up=$(grep -c 'CHILD_SA c1{[0-9]*} established' "$tmp/a/charon.log" || true)
    [ "$up" -ge "$n" ] && break
    [ $(($(date +%s) - t0)) -gt $give_up ] && { log "rekey $n: $up of $n up after $give_up s"; return 1; }
    sleep 0.1
  done
  sleep 0.5
  local ca cb
  ca=$(cpu_ns a)
  cb=$(cpu_ns b)
  swan a --rekey --child c1 >"$tmp/rekey.out" 2>&1 || { cat "$tmp/rekey.out" >&2; return 1; }
  t0=$(date +%s)
  while :; do
    up=$(grep -c 'parsed CREATE_CHILD_SA response' "$tmp/a/charon.log" || true)
    [ "$up" -ge "$n" ] && break
    [ $(($(date +%s) - t0)) -gt $give_up ] && { log "rekey $n: $up of $n rekeyed after $give_up s"; return 1; }
    sleep 0.05
  done
  local da db
  da=$(($(cpu_ns a) - ca))
  db=$(($(cpu_ns b) - cb))
  local got span
  read -r got span < <(awk '/generating CREATE_CHILD_SA request/ { if (!s) s = $1 }
    /parsed CREATE_CHILD_SA response/ { n++; e = $1 }
    END { printf "%d %.3f\n", n, (e - s) * 1e3 }' "$tmp/a/charon.log")
  [ "$got" -ge "$n" ] || { log "rekey $n: $got CREATE_CHILD_SA responses in the initiator's log, not $n"; return 1; }
  add "{\"workload\": \"rekey\", \"auth\": \"psk\", \"sas\": $n, \"run\": $r, \"all_back_ms\": $span,
    \"initiator_cpu_ns\": $da, \"responder_cpu_ns\": $db}"
  log "rekey $n run $r: all $n Child SAs rekeyed after $span ms, CPU per rekey $((da / n / 1000)) / $((db / n / 1000)) us"
}

# Every storm of the plan (storm_sets): per set of lists, per size and auth, run r of every
# placement, table size and thread count before run r + 1.
run_storms() {
  local line sizes auths places nruns n auth r place table threads
  for line in "${storm_sets[@]}"; do
    read -r sizes auths places nruns <<<"$line"
    for n in ${sizes//,/ }; do
      for auth in ${auths//,/ }; do
        for r in $(seq "$nruns"); do
          for place in ${places//,/ }; do
            for table in ${tables//,/ }; do
              for threads in ${threadss//,/ }; do
                run_storm "$n" "$r" "$auth" "$place" "$table" "$threads"
              done
            done
          done
        done
      done
    done
  done
}

# esp SUITE: one Child SA with that ESP proposal (or none: plain), ping and iperf3 across it.
run_esp() {
  local suite=$1
  if [ "$suite" = plain ]; then
    charon_stop_all
    # The same addresses without IPsec: routes over the veth.
    ip -n "$ns_a" route replace 10.205.2.0/24 via "$addr_b" src 10.205.1.1
    ip -n "$ns_b" route replace 10.205.1.0/24 via "$addr_a" src 10.205.2.1
  else
    ip -n "$ns_a" route del 10.205.2.0/24 2>/dev/null || true
    ip -n "$ns_b" route del 10.205.1.0/24 2>/dev/null || true
    fresh_daemons psk "$suite" 1 none
    swan a --load-all --clear --noprompt >"$tmp/a.load" 2>&1 || { cat "$tmp/a.load" >&2; return 1; }
    swan a --initiate --child c1 --ike s1 --timeout 10 >/dev/null ||
      { log "esp $suite: the Child SA did not come up"; return 1; }
  fi
  ip netns exec "$ns_a" ping -q -c 3 -W 2 -I 10.205.1.1 10.205.2.1 >/dev/null ||
    { log "esp $suite: no ping through"; return 1; }
  local size rtts=() rtt
  for size in 64 512 1372; do
    # $pings pings 5 ms apart after 20 unrecorded ones; per run the median RTT [ms] of ping's
    # per-reply times (a median: one late wake-up does not move it).
    ip netns exec "$ns_a" ping -q -c 20 -i 0.005 -s "$size" -I 10.205.1.1 10.205.2.1 >/dev/null
    local vals=""
    for _ in $(seq "$esp_runs"); do
      rtt=$(ip netns exec "$ns_a" ping -n -c "$pings" -i 0.005 -s "$size" -I 10.205.1.1 10.205.2.1 |
        sed -n 's/.* time=\([0-9.]*\) ms$/\1/p' | sort -g |
        awk '{ v[NR] = $1 } END { if (NR) printf "%.4f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
      [ -n "$rtt" ] || { log "esp $suite: ping -s $size gave no RTT"; return 1; }
      vals="$vals${vals:+,}$rtt"
    done
    rtts+=("\"$size\": [$vals]")
  done
  ip netns exec "$ns_b" iperf3 -s -B 10.205.2.1 -1 -D --pidfile "$tmp/iperf3.pid" >/dev/null 2>&1
  sleep 0.3
  local tputs="" i bps
  for i in $(seq "$esp_runs"); do
    bps=$(ip netns exec "$ns_a" iperf3 -c 10.205.2.1 -B 10.205.1.1 -t "$iperf_s" -J 2>/dev/null |
      jq '.end.sum_received.bits_per_second')
    [ -n "$bps" ] && [ "$bps" != null ] || { log "esp $suite: iperf3 gave no throughput"; return 1; }
    tputs="$tputs${tputs:+,}$(awk -v b="$bps" 'BEGIN { printf "%.3f", b / 1e6 }')"
    [ "$i" -lt "$esp_runs" ] && { ip netns exec "$ns_b" iperf3 -s -B 10.205.2.1 -1 -D --pidfile "$tmp/iperf3.pid" >/dev/null 2>&1; sleep 0.3; }
  done
  # With --esp-mss: TCP at each MSS (iperf3 -M; `default` without), run i of every MSS before
  # run i + 1, against one iperf3 server for all of them (stopped after).
  local mss_json="" mss_log=""
  if [ -n "$esp_mss" ]; then
    local m j mss_pid
    declare -A mss_tputs=() mss_bytes=()
    rm -f "$tmp/iperf3-mss.pid"
    sleep 0.3 # the last one-test server's exit
    ip netns exec "$ns_b" iperf3 -s -B 10.205.2.1 -D --pidfile "$tmp/iperf3-mss.pid" >/dev/null 2>&1
    for _ in $(seq 50); do [ -s "$tmp/iperf3-mss.pid" ] && break; sleep 0.05; done
    mss_pid=$(tr -dc '0-9' <"$tmp/iperf3-mss.pid" 2>/dev/null || true)
    [ -n "$mss_pid" ] || { log "esp $suite: the iperf3 server for the MSS runs did not start"; return 1; }
    pids_started+=("$mss_pid")
    sleep 0.3
    for i in $(seq "$esp_runs"); do
      for m in ${esp_mss//,/ }; do
        local mopt=()
        [ "$m" = default ] || mopt=(-M "$m")
        j=$(ip netns exec "$ns_a" iperf3 -c 10.205.2.1 -B 10.205.1.1 -t "$iperf_s" "${mopt[@]}" -J 2>/dev/null) || true
        bps=$(jq '.end.sum_received.bits_per_second' <<<"$j" 2>/dev/null || true)
        [ -n "$bps" ] && [ "$bps" != null ] || { log "esp $suite: iperf3 -M $m gave no throughput"; return 1; }
        mss_tputs[$m]="${mss_tputs[$m]:-}${mss_tputs[$m]:+,}$(awk -v b="$bps" 'BEGIN { printf "%.3f", b / 1e6 }')"
        mss_bytes[$m]=$(jq '.start.tcp_mss // .start.tcp_mss_default // 0' <<<"$j")
      done
    done
    signal_and_wait TERM "$mss_pid"
    local sep="" sepb="" bytes=""
    for m in ${esp_mss//,/ }; do
      mss_json="$mss_json$sep\"$m\": [${mss_tputs[$m]}]"
      bytes="$bytes$sepb\"$m\": ${mss_bytes[$m]}"
      mss_log="$mss_log; MSS $m (${mss_bytes[$m]} B) ${mss_tputs[$m]}"
      sep=", " sepb=", "
    done
    mss_json=",
    \"tcp_mss_mbps\": {$mss_json}, \"tcp_mss_bytes\": {$bytes}"
  fi
  local mtu
  mtu=$(ip netns exec "$ns_a" ip route get 10.205.2.1 from 10.205.1.1 | sed -n 's/.* dev \([^ ]*\).*/\1/p' | head -1)
  mtu=$(ip -n "$ns_a" link show "$mtu" | sed -n 's/.* mtu \([0-9]*\).*/\1/p')
  add "{\"workload\": \"esp\", \"suite\": \"$suite\", \"rtt_ms\": {$(IFS=,; echo "${rtts[*]}")},
    \"tcp_mbps\": [$tputs], \"path_mtu\": $mtu$mss_json}"
  log "esp $suite: RTT 64/512/1372 B ${rtts[*]} ms, TCP $tputs Mb/s (MTU $mtu)$mss_log"
}

# openssl speed of what the model charges.
run_speed() {
  local f=$tmp/speed.txt
  : >"$f"
  local alg
  for alg in ecdhx25519 ed25519 ecdsap256 rsa2048; do
    openssl speed -mr -seconds 1 "$alg" >>"$f" 2>/dev/null
  done
  for alg in aes-128-gcm aes-256-gcm chacha20-poly1305; do
    openssl speed -mr -seconds 1 -aead -evp "$alg" >>"$f" 2>/dev/null
  done
  add "{\"workload\": \"speed\", \"openssl\": $(openssl version | jq -R .), \"mr\": $(jq -R -s . <"$f")}"
}

load_before=$(cut -d' ' -f1 /proc/loadavg)
t_start=$(date +%s)
noise_s0=$(noise_sample)
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }
if want speed; then run_speed; fi
setup_auths=(psk ed25519 ecdsa-p256 rsa2048)
[ "$set_name" = placements ] && setup_auths=(psk ed25519)
if want setup; then
  for auth in "${setup_auths[@]}"; do run_setup "$auth"; done
fi
if want child && [ "$set_name" != placements ]; then run_child; fi
if want storm; then
  if [ "$extended" = 1 ]; then
    run_storms
  else
    for n in "${storms[@]}"; do
      for r in $(seq "$runs"); do run_storm "$n" "$r"; done
    done
  fi
  if [ "$set_name" = full ] && [ -z "$o_storms$o_runs$o_auth$o_placement$o_table$o_segments$o_threads" ]; then
    run_full_storms
  fi
fi
# Rekey storms: the full set's (or, with --only rekey, any set's), of --storms' sizes if given.
if want rekey && { [ "$set_name" = full ] || [ "$only" = rekey ]; }; then
  rekey_sizes=(200 1000)
  if [ -n "$o_storms" ]; then rekey_sizes=("${storms[@]}"); fi
  for n in "${rekey_sizes[@]}"; do
    for r in $(seq "$runs"); do run_rekey "$n" "$r"; done
  done
fi
if want esp; then
  for suite in "${esp_suites[@]}"; do run_esp "$suite"; done
fi
if [ -n "$loss_rates" ] && want loss; then run_loss; fi
load_after=$(cut -d' ' -f1 /proc/loadavg)
noise_during=$(noise_window "$noise_s0" "$(noise_sample)")
log "noise: during the run ($noise_method) $noise_during"

{
  printf '{"schema": "oransim.measure.strongswan/1", "set": "%s", "strongswan": "%s",\n' "$set_name" "$version"
  printf ' "data_path": "%s", "cpus": %s, "load_before": %s, "load_after": %s, "wall_s": %s,\n' \
    "$data_path" "$(nproc)" "$load_before" "$load_after" "$(($(date +%s) - t_start))"
  printf ' "noise": {"method": "%s", "before": %s, "during": %s},\n' "$noise_method" "$noise_before" "$noise_during"
  # Runs with a storm option, --esp-mss or --only: the arguments, since "set" does not say it.
  if [ "$extended" = 1 ] || [ -n "$esp_mss$only$o_suites$o_esp_runs$loss_rates" ] || [ $openssl_first = 1 ]; then printf ' "arguments": %s,\n' "$(jq -R . <<<"$argv")"; fi
  printf ' "rows": [\n'
  sep=""
  for r in "${json_rows[@]}"; do printf '%s  %s' "$sep" "$r"; sep=$',\n'; done
  printf '\n]}\n'
} | jq . >"$out.tmp"
mv "$out.tmp" "$out"
log "PASS: written to $out in $(($(date +%s) - t_start)) s"
